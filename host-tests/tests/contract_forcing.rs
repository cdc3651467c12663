//! The contract checks of the forcing, mechanism, rigid-body, conversion, circuit,
//! linearisation, control and quasi-quadratic/annealing entry points
//! (`host_tests::contract::{forcing, mechanism, bodies, convert, circuit, linearise, control,
//! quasi}`), on a fixed set of seeded
//! cases per entry point: no panic, no state change on `Err`, no `Ok` that breaks a guard's
//! promise, no other contract violation. `cargo xtask fuzz` runs the same entry points 10⁶
//! times each; the cases it found are reduced in `tests/fuzz_findings.rs`.

use host_tests::contract::tally::{tally, tally_range, Tally};
use host_tests::contract::{self, Entry};

/// Cases per entry point (seeded: the same cases every run).
const CASES: u64 = 3000;
/// The fuzz runner's default seed.
const SEED: u64 = 12;

fn check(family: &[Entry]) {
    for e in family {
        let t = tally(e, SEED, CASES);
        assert_eq!(t.cases, CASES);
        assert!(
            t.panics == 0 && t.violations == 0,
            "{}: {} panics, {} violations: {:?}",
            e.name,
            t.panics,
            t.violations,
            t.examples
        );
        // Every entry point reaches an `Ok` run or a typed step error in some cases: a
        // generator that only produced refused configurations would test nothing.
        assert!(
            t.ok + t.step.values().sum::<u64>() > CASES / 10,
            "{}: {} Ok, steps {:?}, config {:?}",
            e.name,
            t.ok,
            t.step,
            t.config
        );
    }
}

/// Every check, on the forcing entry points. The replay adds the dissipation a damped step
/// reports to the reference energy only, as the guard does: the range of the potential in the
/// scale `S` is the potential's own. With the dissipation counted in the potential, the
/// replayed `S` is smaller than the guard's, and `zs::DampedZs<Sylipn>/dp set_force` cases
/// 9280002946465925933 and …6908 read first-step drifts of `144.32` and `20.85` against
/// replayed bounds `S − K₀/2` of `143.98` and `20.36`.
#[test]
fn forcing() {
    check(contract::forcing::ENTRIES);
}

/// The forcing entry points: no panic, no state change on `Err`, no violation but a broken
/// guard promise (the counts of `forcing`, reported apart).
#[test]
fn forcing_no_panic_no_state_change() {
    for e in contract::forcing::ENTRIES {
        let t = tally(e, SEED, CASES);
        assert!(
            t.panics == 0 && t.state_changes == 0 && t.violations == t.guard_breaks,
            "{}: {} panics, {} state changes, {} violations: {:?}",
            e.name,
            t.panics,
            t.state_changes,
            t.violations,
            t.examples
        );
    }
}

#[test]
fn mechanism() {
    check(contract::mechanism::ENTRIES);
}

#[test]
fn convert() {
    check(contract::convert::ENTRIES);
}

#[test]
fn circuit() {
    check(contract::circuit::ENTRIES);
}

/// Every check, on the rigid-body entry points (their dashpots assemble an exactly symmetric
/// damping matrix, which the damping split accepts however small the coefficients).
#[test]
fn bodies_and_joints() {
    check(contract::bodies::ENTRIES);
}

/// The rigid-body entry points: no panic, no state change on `Err`, no `Ok` step that breaks a
/// guard's promise (the counts of `bodies_and_joints`, reported apart).
#[test]
fn bodies_and_joints_no_panic_no_state_change() {
    for e in contract::bodies::ENTRIES {
        let t = tally(e, SEED, CASES);
        assert!(
            t.panics == 0 && t.state_changes == 0 && t.guard_breaks == 0,
            "{}: {} panics, {} state changes, {} guard breaks: {:?}",
            e.name,
            t.panics,
            t.state_changes,
            t.guard_breaks,
            t.examples
        );
    }
}

#[test]
fn linearisations() {
    check(contract::linearise::ENTRIES);
}

/// LQR and the filter: no panic, no change on `Err`, a finite stabilising gain and a finite,
/// symmetric, positive semi-definite covariance from every `Ok`.
#[test]
fn control() {
    check(contract::control::ENTRIES);
}

#[test]
fn quasi_quadratic_and_annealing() {
    check(contract::quasi::ENTRIES);
}

/// The new families are in the fuzz runner's list.
#[test]
fn families_are_listed() {
    let all: Vec<&str> = contract::entries().iter().map(|e| e.name).collect();
    for family in [
        contract::forcing::ENTRIES,
        contract::mechanism::ENTRIES,
        contract::convert::ENTRIES,
        contract::circuit::ENTRIES,
        contract::bodies::ENTRIES,
        contract::linearise::ENTRIES,
        contract::control::ENTRIES,
        contract::quasi::ENTRIES,
    ] {
        for e in family {
            assert!(all.contains(&e.name), "{} not listed", e.name);
        }
    }
}

/// The fuzz runner's chunks merged in case order give the unchunked tally: counts, kinds and
/// the first examples (compared through the `Debug` form; each entry point's cases end in at
/// least two kinds of outcome, so the comparison is not one of empty tallies).
#[test]
fn chunks_merged_in_order_give_the_unchunked_tally() {
    for e in contract::bodies::ENTRIES
        .iter()
        .chain(contract::forcing::ENTRIES)
    {
        let whole = tally(e, SEED, 1000);
        let mut merged = Tally::default();
        for ks in [0..1, 1..400, 400..401, 401..1000] {
            merged.merge(&tally_range(e, SEED, ks));
        }
        assert_eq!(format!("{whole:?}"), format!("{merged:?}"), "{}", e.name);
        let outcomes = usize::from(whole.ok > 0) + whole.config.len() + whole.step.len();
        assert!(outcomes >= 2, "{}: {whole:?}", e.name);
    }
}
