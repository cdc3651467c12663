//! The step and constructor contract, as checks that random cases can break.
//!
//! One *entry point* is a function `fn(&mut Pcg64) -> Outcome` that draws one case from the
//! generator (valid or hostile parameters, a valid or hostile state, a few steps with valid or
//! hostile step sizes), builds the integrator or model, runs it, and checks:
//!
//! - a constructor returns `Ok` or a typed [`ConfigError`];
//! - a step that returns `Err` leaves the state bit-identical (NaN payloads included);
//! - a step that returns `Ok` leaves a finite state, advances `t` in the direction of `h`
//!   (by `h` to within `|h|/2` where the integrator runs the guarded clock), and satisfies the
//!   default guards the integrator evaluates: the residual guard (stateless, checked with the
//!   model's own [`Constraint::residual`](macrostep::model::Constraint::residual)) and, for
//!   integrators that step the system directly, the energy run guard, replayed from outside
//!   with the same arithmetic as `macrostep::guard` (reference energy from the run's start,
//!   scale from the kinetic energy reached and the range of the potential seen, the start-up
//!   allowance and the stretched tier: [`EnergyReplay`]). The energy guard of composite
//!   integrators (compositions, the recovery wrapper) is not replayed here; a FLAVOR's guards
//!   bound no energy.
//!
//! Panics are not caught here: the proptest tests (`tests/contract.rs`) let proptest report
//! them, the fuzz runner (`src/bin/fuzz.rs`) catches them per case. Both draw the cases from
//! these functions, seeded, so a failing case is replayed from its seed.

pub mod baselines;
pub mod bodies;
pub mod cases;
pub mod circuit;
pub mod constrained;
pub mod control;
pub mod convert;
pub mod flavor;
pub mod forcing;
pub mod gen;
pub mod lie;
pub mod linearise;
pub mod mechanism;
pub mod models;
pub mod quasi;
pub mod sim;
pub mod tally;
pub mod zs;

pub use gen::Gen;

use macrostep::nalgebra::SVector;
use macrostep::{ConfigError, Real, State, StepError};
use rand_pcg::Pcg64;

/// What one case ended with.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The constructor and every step returned `Ok`, and every check held.
    Ok,
    /// The constructor refused the configuration (the variant name, e.g. `"NonFinite"`).
    Config(String),
    /// A step returned this error (variant name; `Diverged/Residual` for a guard) and the
    /// state was bit-identical; the case stops at the first error.
    Step(String),
    /// A contract violation, described.
    Violation(String),
}

/// An entry point of the contract checks.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The name printed in the fuzz table, `family::method/model`.
    pub name: &'static str,
    /// Draws and checks one case.
    pub run: fn(&mut Pcg64) -> Outcome,
}

/// Every entry point, family by family.
pub fn entries() -> Vec<Entry> {
    [
        models::ENTRIES,
        baselines::ENTRIES,
        zs::ENTRIES,
        constrained::ENTRIES,
        sim::ENTRIES,
        quasi::ENTRIES,
        flavor::ENTRIES,
        lie::ENTRIES,
        forcing::ENTRIES,
        mechanism::ENTRIES,
        bodies::ENTRIES,
        convert::ENTRIES,
        circuit::ENTRIES,
        linearise::ENTRIES,
        control::ENTRIES,
    ]
    .concat()
}

/// The variant name of a configuration error (its `Debug` form up to the fields).
pub fn config_kind(e: &ConfigError) -> String {
    variant(&format!("{e:?}"))
}

/// The variant name of a step error; `Diverged/<guard>` for a guard.
pub fn step_kind(e: &StepError) -> String {
    match e {
        StepError::Diverged { guard } => format!("Diverged/{guard:?}"),
        e => variant(&format!("{e:?}")),
    }
}

fn variant(debug: &str) -> String {
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or(debug)
        .to_string()
}

/// Turns a constructor result into the value or the `Config` outcome.
pub fn built<X>(r: Result<X, ConfigError>) -> Result<X, Outcome> {
    r.map_err(|e| Outcome::Config(config_kind(&e)))
}

/// Runs `f` and flattens its early-return `Outcome` (a refused constructor) into the result.
pub fn case(f: impl FnOnce() -> Result<Outcome, Outcome>) -> Outcome {
    f().unwrap_or_else(|o| o)
}

/// A scalar whose bit pattern can be compared (`f32`, `f64`).
pub trait Bits: Real {
    /// The IEEE bit pattern, widened.
    fn bits(self) -> u64;
}

impl Bits for f32 {
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// Whether two states are bit-identical (a NaN equals only the same NaN).
pub fn same_bits<T: Bits, const N: usize>(a: &State<T, N>, b: &State<T, N>) -> bool {
    a.t.bits() == b.t.bits()
        && a.q
            .iter()
            .zip(b.q.iter())
            .all(|(x, y)| x.bits() == y.bits())
        && a.v
            .iter()
            .zip(b.v.iter())
            .all(|(x, y)| x.bits() == y.bits())
}

/// `(K, V)` of a state.
pub type EnergyFn<'a, T, const N: usize> = &'a dyn Fn(&State<T, N>) -> (T, T);
/// The constraint residual at `q`.
pub type ResidualFn<'a, T, const N: usize> = &'a dyn Fn(&SVector<T, N>) -> T;
/// The energy the committed steps so far reported exchanging (a dissipation, `≤ 0`).
pub type ExchangedFn<'a, T> = &'a dyn Fn() -> T;

/// Which guards of the integrator under test can be checked from outside (see the module
/// docs), and how its clock advances.
pub struct Expect<'a, T: Real, const N: usize> {
    /// `(K, V)` of a state when the integrator evaluates the default energy run guard on the
    /// system it steps directly; `None` for stochastic, non-conservative or composite methods.
    pub energy: Option<EnergyFn<'a, T, N>>,
    /// The residual the default residual guard bounds, when the integrator evaluates it.
    pub residual: Option<ResidualFn<'a, T, N>>,
    /// The energy the steps reported exchanging, which moves the run guard's reference and not
    /// the range of the potential (`None`: nothing exchanged).
    pub exchanged: Option<ExchangedFn<'a, T>>,
    /// Whether the integrator commits through the guarded clock (`|Δt − h| ≤ |h|/2`); otherwise
    /// only the direction of the clock is checked.
    pub clock: bool,
}

impl<T: Real, const N: usize> Expect<'_, T, N> {
    /// Only finiteness and the direction of the clock.
    pub fn bare() -> Self {
        Self {
            energy: None,
            residual: None,
            exchanged: None,
            clock: false,
        }
    }
}

/// The default bounds of `macrostep::Guards::default()`, restated so that a change of the
/// defaults is seen here (the test `defaults_match` in `tests/contract.rs` compares them).
pub const RESIDUAL_BOUND: f64 = 0.1;
/// See [`RESIDUAL_BOUND`].
pub const ENERGY_RUN_BOUND: f64 = 0.25;

/// The energy run guard's promise for an `Ok` step, replayed from outside as the module docs of
/// `macrostep::guard` state it: `|E − E_ref| − 4ε(|E| + |E_ref|) ≤ max(r'·S, min(S − K₀/2,
/// 2S/n))` for the `n`-th step of the run, `S = max(K_max, V_max − V_min, 256 ε (K₀ + |V₀|))`
/// (both including the step judged), `r' = r` or, from the third step of the run while the
/// residual is above a third of its bound and above the start's, `0.4·r` without the allowance
/// (the guard's tier is `0.3·r` of a scale `S_u ≤ S`); a quiet run (`K_max ≤ S/4`) may show a
/// deficit `E < E_ref` up to `S − K₀/2` when not so stretched; and no `Ok` at all once the
/// energies' round-off `8ε|E_ref|` exceeds `S`.
pub struct EnergyReplay<T> {
    e_ref: T,
    k_start: T,
    k_max: T,
    v_lo: T,
    v_hi: T,
    scale: T,
    stretched_above: T,
    n: u32,
}

impl<T: Real> EnergyReplay<T> {
    /// The run that starts at `(k0, v0)` with residual `r0` (`None`: no residual guard).
    pub fn start(k0: T, v0: T, r0: Option<T>) -> Self {
        let eps = T::default_epsilon();
        let third = T::lit(RESIDUAL_BOUND / 3.0);
        Self {
            e_ref: k0 + v0,
            k_start: k0,
            k_max: k0,
            v_lo: v0,
            v_hi: v0,
            scale: k0.max(T::lit(256.0) * eps * (k0 + v0.abs())),
            stretched_above: r0.map_or(third, |r| r.max(third)),
            n: 0,
        }
    }

    /// The next `Ok` step reached `(k1, v1)` with residual `r1`, the steps so far having
    /// reported exchanging `exchanged` (added to the reference, as the guard adds it; the range
    /// of `V` is the potential's own): `Some(description)` when the promise is broken (a NaN
    /// included).
    pub fn step(&mut self, k1: T, v1: T, r1: Option<T>, exchanged: T) -> Option<String> {
        self.n += 1;
        self.v_lo = self.v_lo.min(v1);
        self.v_hi = self.v_hi.max(v1);
        self.k_max = self.k_max.max(k1);
        self.scale = self.scale.max(k1).max(self.v_hi - self.v_lo);
        let (e1, s) = (k1 + v1, self.scale);
        let eps = T::default_epsilon();
        if T::lit(8.0) * eps * self.e_ref.abs() > s {
            return Some(format!(
                "Ok in a run whose energies cannot be told apart (E_ref = {:?}, S = {s:?})",
                self.e_ref
            ));
        }
        let e_ref = self.e_ref + exchanged;
        let drift = (e1 - e_ref).abs() - T::lit(4.0) * eps * (e1.abs() + e_ref.abs());
        let r = T::lit(ENERGY_RUN_BOUND);
        let stretched = self.n >= 3 && r1.is_some_and(|r1| r1 > self.stretched_above);
        let bound = if stretched {
            T::lit(0.4) * r * s
        } else if e1 < e_ref && self.k_max <= T::lit(0.25) * s {
            s - T::lit(0.5) * self.k_start
        } else {
            let n = T::lit(f64::from(self.n));
            (r * s).max((s - T::lit(0.5) * self.k_start).min(T::lit(2.0) * s / n))
        };
        // Written as the promise, `drift ≤ bound`: a NaN drift is a violation.
        if drift.partial_cmp(&bound).is_none_or(|o| o.is_gt()) {
            return Some(format!(
                "Ok with energy drift {drift:?} > {bound:?} at step {} (S = {s:?}, E_ref = {e_ref:?}, \
                 stretched {stretched})",
                self.n
            ));
        }
        None
    }
}

/// Runs the steps `steps[k]` (the signed step each call takes, for the clock check) from `s0`
/// through `step`, checking the contract after each; stops at the first error.
pub fn run<T: Bits, const N: usize>(
    s0: State<T, N>,
    steps: &[T],
    exp: &Expect<'_, T, N>,
    mut step: impl FnMut(&mut State<T, N>, T) -> Result<(), StepError>,
) -> Outcome {
    let mut s = s0;
    // The energy run replayed from the run's start.
    let mut replay = exp.energy.map(|energy| {
        let (k0, v0) = energy(&s0);
        EnergyReplay::start(k0, v0, exp.residual.map(|r| r(&s0.q)))
    });
    for (k, &h) in steps.iter().enumerate() {
        let before = s;
        match step(&mut s, h) {
            Err(e) => {
                return if same_bits(&s, &before) {
                    Outcome::Step(step_kind(&e))
                } else {
                    Outcome::Violation(format!(
                        "step {k}: Err({e:?}) changed the state {before:?} -> {s:?}"
                    ))
                };
            }
            Ok(()) => {
                if let Some(v) = check_ok(&before, &s, h, exp, replay.as_mut()) {
                    return Outcome::Violation(format!("step {k} (h = {h:?}): {v}"));
                }
            }
        }
    }
    Outcome::Ok
}

/// The checks of one `Ok` step from `before` to `after`; `Some(description)` on a violation.
fn check_ok<T: Bits, const N: usize>(
    before: &State<T, N>,
    after: &State<T, N>,
    h: T,
    exp: &Expect<'_, T, N>,
    replay: Option<&mut EnergyReplay<T>>,
) -> Option<String> {
    if !after.is_finite() {
        return Some(format!("Ok with a non-finite state {after:?}"));
    }
    let dt = after.t - before.t;
    let forward = if h > T::zero() {
        dt > T::zero()
    } else {
        dt < T::zero()
    };
    if !forward {
        return Some(format!(
            "Ok but t did not advance: {:?} -> {:?}",
            before.t, after.t
        ));
    }
    if exp.clock && (dt - h).abs() > h.abs() * T::lit(0.5) {
        return Some(format!("Ok but Δt = {dt:?} is not h to within h/2"));
    }
    if let Some(residual) = exp.residual {
        let r = residual(&after.q);
        // Written as the guard's promise, `r ≤ bound`: a NaN residual is a violation.
        if r.partial_cmp(&T::lit(RESIDUAL_BOUND))
            .is_none_or(|o| o.is_gt())
        {
            return Some(format!("Ok with residual {r:?} > {RESIDUAL_BOUND}"));
        }
    }
    if let (Some(energy), Some(replay)) = (exp.energy, replay) {
        let (k1, v1) = energy(after);
        let exchanged = exp.exchanged.map_or(T::zero(), |x| x());
        return replay.step(k1, v1, exp.residual.map(|r| r(&after.q)), exchanged);
    }
    None
}

/// The step sizes of a case: mostly the configured `h` (what `step` takes), sometimes a
/// hostile one for `step_by`.
pub fn step_sizes<T: gen::Special>(g: &mut Gen<'_>, h: T, max: usize) -> Vec<T> {
    let n = g.rng_range(1..max + 1);
    (0..n).map(|_| g.step_size(h)).collect()
}

/// Asserts that `f` on a copy of `b` fails with `want` and leaves the copy bit-identical (its
/// `Debug` form prints every field, floats exactly): a refused builder call changes nothing.
///
/// # Panics
/// When `f` does not fail with `want` or changes the copy.
pub fn assert_refused<X: Copy + std::fmt::Debug, R: std::fmt::Debug>(
    b: &X,
    want: ConfigError,
    f: impl FnOnce(&mut X) -> Result<R, ConfigError>,
) {
    let mut c = *b;
    let before = format!("{c:?}");
    let got = f(&mut c).map(|_| ());
    assert_eq!(got, Err(want));
    assert_eq!(
        format!("{c:?}"),
        before,
        "builder changed by a refused call ({want:?})"
    );
}
