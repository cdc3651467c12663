//! Contract property tests: every public integrator and constructor, random valid
//! and hostile parameters, states and step sizes, drawn by `host_tests::contract` (the same
//! generators `cargo xtask fuzz` runs 10⁶ times per entry point).
//!
//! Properties: no panic (proptest reports a panicking case), a constructor returns `Ok` or a
//! typed `ConfigError`, `Err` from a step leaves the state bit-identical, `Ok` leaves it finite
//! with `t` advanced and the default guards the integrator evaluates satisfied (see the
//! module docs of `host_tests::contract` for what is checkable from outside).
//!
//! Proptest draws a `u64` seed per case and the contract generators draw the case from it, so
//! shrinking is by seed only; a failure prints the seed, replayed with
//! `cargo run -p host-tests --bin fuzz -- --replay NAME CASE_SEED` (the printed case seed is
//! `host_tests::contract::tally::case_seed` of the proptest seed).

use host_tests::contract::tally::{case_seed, replay};
use host_tests::contract::{self, Entry, Outcome};
use macrostep::Guards;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Cases per entry point and test run: 55 entry points × 4096 cases take about half a second
/// in the test profile (`PROPTEST_CASES` overrides it).
const CASES: u32 = 4096;

fn config() -> Config {
    Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Runs one case of every entry point of `family`, drawn from `seed`.
fn check(family: &[Entry], seed: u64) -> Result<(), TestCaseError> {
    for e in family {
        let cs = case_seed(e, seed, 0);
        if let Outcome::Violation(msg) = replay(e, cs) {
            return Err(TestCaseError::fail(format!(
                "{} (case seed {cs}): {msg}",
                e.name
            )));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn models(seed in any::<u64>()) {
        check(contract::models::ENTRIES, seed)?;
    }

    #[test]
    fn baselines(seed in any::<u64>()) {
        check(contract::baselines::ENTRIES, seed)?;
    }

    #[test]
    fn zs_compose_recover(seed in any::<u64>()) {
        check(contract::zs::ENTRIES, seed)?;
    }

    #[test]
    fn constrained(seed in any::<u64>()) {
        check(contract::constrained::ENTRIES, seed)?;
    }

    #[test]
    fn sim_langevin(seed in any::<u64>()) {
        check(contract::sim::ENTRIES, seed)?;
    }

    #[test]
    fn flavor(seed in any::<u64>()) {
        check(contract::flavor::ENTRIES, seed)?;
    }

    #[test]
    fn lie(seed in any::<u64>()) {
        check(contract::lie::ENTRIES, seed)?;
    }
}

/// The guard bounds the checks replay are the crate's defaults.
#[test]
fn defaults_match() {
    let g = Guards::<f64>::default();
    assert_eq!(g.residual, Some(contract::RESIDUAL_BOUND));
    assert_eq!(g.energy_run, Some(contract::ENERGY_RUN_BOUND));
    assert_eq!(
        g.energy_step, None,
        "a new default guard needs a check here"
    );
    assert_eq!(
        g.velocity_step, None,
        "a new default guard needs a check here"
    );
}

/// Every family's entries are in the fuzz runner's list, and names are unique.
#[test]
fn entries_are_listed_once() {
    let all = contract::entries();
    let mut names: Vec<_> = all.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len());
    assert!(all.len() >= 50, "{} entry points", all.len());
}
