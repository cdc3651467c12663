//! Held actuator forces through FLAVOR: the legacy map's
//! `Actuate` is forwarded, so the force acts in the stiff and the soft sub-step alike and is held
//! over the whole macro-step.
//!
//! The system: a slow unit oscillator on `q₀` (`V = ½q₀²`) and a stiff one on `q₁`
//! (`U = ½q₁²`, `α = 1/ε = 10⁶`), uncoupled, so the slow answer under a constant force `F` on
//! `q₀` from rest is known in closed form: `q₀(t) = F(1 − cos t)`. FLAVOR over symplectic Euler
//! with `δ = 0.01` is first order in `δ`; the tolerance `0.02 = 4·F·δ` bounds its slow error at
//! `T = 10` (measured 5.0e-3).

use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::{Nonintrusive, Params, Switched, Symmetric};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{matrix, vector, SVector};
use macrostep::Stepper;
use macrostep::{Guards, Integrator, State, StepError};

type Pot = Split<f64, Quadratic<f64, 2>, Quadratic<f64, 2>>;

fn split() -> Pot {
    Split::new(
        Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
        Quadratic::new(matrix![0.0, 0.0; 0.0, 1.0]),
        1e6,
    )
}

/// Guards off: these FLAVOR runs measure the method (the guards on a first-order method's
/// start-up transient from rest under a force: the tests at the end).
fn map(
    ordering: EulerOrdering,
) -> Switched<f64, SymplecticEuler<f64, Actuated<f64, Pot, 2>, 2>, 2> {
    let sys = System::new(Mass::identity(), Actuated::new(split()));
    let se = SymplecticEuler::new(sys, 1e-4, ordering)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    Switched::symplectic_euler_actuated(se).unwrap()
}

fn params() -> Params<f64> {
    Params::new(0.01, 1e-4).unwrap()
}

fn rest() -> State<f64, 2> {
    State::new(0.0, vector![0.0, 0.0], vector![0.0, 0.0])
}

#[test]
fn a_constant_force_moves_the_slow_variable_as_the_closed_form() {
    const F: f64 = 0.5;
    let mut flavor = Nonintrusive::new(map(EulerOrdering::KickDrift), params()).unwrap();
    flavor.set_force(&vector![F, 0.0]).unwrap();
    let mut s = rest();
    flavor.integrate(&mut s, 1000).unwrap();
    let exact = F * (1.0 - s.t.cos());
    let err = (s.q[0] - exact).abs();
    println!(
        "figure flavor-forcing.slow_error {err:.3e} (q0 {:.6}, exact {exact:.6})",
        s.q[0]
    );
    assert!(err < 0.02, "slow error {err:.3e}");
    // The force has no component on the stiff coordinate, which stays at rest.
    assert!(s.q[1].abs() < 1e-12 && s.v[1].abs() < 1e-12);
}

#[test]
fn the_symmetric_flavor_forwards_the_force_too() {
    let mut flavor = Symmetric::new(map(EulerOrdering::KickDrift), params()).unwrap();
    flavor.set_force(&vector![0.5, 0.0]).unwrap();
    assert_eq!(flavor.force(), &vector![0.5, 0.0]);
    let mut s = rest();
    flavor.integrate(&mut s, 1000).unwrap();
    let err = (s.q[0] - 0.5 * (1.0 - s.t.cos())).abs();
    assert!(err < 0.02, "slow error {err:.3e}");
}

#[test]
fn zero_force_is_bit_identical_to_the_unforced_flavor() {
    let sys = System::new(Mass::identity(), split());
    let se = SymplecticEuler::new(sys, 1e-4, EulerOrdering::KickDrift)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let mut plain = Nonintrusive::new(Switched::symplectic_euler(se).unwrap(), params()).unwrap();
    let mut held = Nonintrusive::new(map(EulerOrdering::KickDrift), params()).unwrap();
    let start = State::new(0.0, vector![1.0, 1e-3], vector![0.0, 0.0]);
    let (mut a, mut b) = (start, start);
    for _ in 0..500 {
        plain.step(&mut a).unwrap();
        held.set_force(&SVector::zeros()).unwrap();
        held.step(&mut b).unwrap();
    }
    assert_eq!(a, b);
}

#[test]
fn a_non_finite_force_is_refused_and_nothing_changes() {
    let mut flavor = Nonintrusive::new(map(EulerOrdering::DriftKick), params()).unwrap();
    flavor.set_force(&vector![0.25, 0.0]).unwrap();
    assert_eq!(
        flavor.set_force(&vector![f64::INFINITY, 0.0]),
        Err(StepError::NonFiniteForce)
    );
    assert_eq!(flavor.force(), &vector![0.25, 0.0]);
}

/// The plant under a held force from rest: the unit oscillator `V = ½q²`, `F = 0.5`. Its forced
/// response `q = F(1 − cos t)` peaks at the kinetic energy `½F² = 0.125`: the plant's energy
/// scale a controls engineer gives the guard ([`Guards::energy_scale`]).
const PLANT_SCALE: f64 = 0.125;

fn forced_oscillator(
    h: f64,
    guards: Guards<f64>,
) -> SymplecticEuler<f64, Actuated<f64, Quadratic<f64, 1>, 1>, 1> {
    let sys = System::new(
        Mass::identity(),
        Actuated::new(Quadratic::new(matrix![1.0_f64])),
    );
    let mut se = SymplecticEuler::new(sys, h, EulerOrdering::KickDrift)
        .unwrap()
        .with_guards(guards)
        .unwrap();
    se.set_force(&vector![0.5]).unwrap();
    se
}

fn with_plant_scale() -> Guards<f64> {
    Guards {
        energy_scale: Some(PLANT_SCALE),
        ..Guards::default()
    }
}

/// The guard gap named at [`map`], closed: with the plant's energy scale the default bounds
/// judge symplectic Euler's start-up transient (relative error `h²F²/S ≈ 2e-8`) and the run.
#[test]
fn symplectic_euler_from_rest_under_a_force_passes_with_the_plants_energy_scale() {
    let mut se = forced_oscillator(1e-4, with_plant_scale());
    let mut s = State::new(0.0, vector![0.0], vector![0.0]);
    se.integrate(&mut s, 10_000).unwrap();
    assert!((s.q[0] - 0.5 * (1.0 - s.t.cos())).abs() < 1e-4);
}

/// Without a scale the start-up transient passes under the start-up allowance of
/// `macrostep::guard` (bound `max(0.25, 2/n)·S` at the `n`-th step of a run): symplectic Euler's
/// drift from rest is `1/(n + 1)` of the run's scale (the potential's range), below `2/n`, and
/// below `0.25` from the fourth step on. (With a bound of `0.25·S` from the first step the first
/// step is refused: its error is all the energy the run has seen.)
#[test]
fn without_a_scale_the_start_up_transient_from_rest_passes() {
    let mut se = forced_oscillator(1e-4, Guards::default());
    let mut s = State::new(0.0, vector![0.0], vector![0.0]);
    se.integrate(&mut s, 10_000).unwrap();
    assert!((s.q[0] - 0.5 * (1.0 - s.t.cos())).abs() < 1e-4);
}

/// The allowance does not blind the guard: without a floor the unstable step (`hω = 2.05`) from
/// rest is refused within a few steps too, and no accepted state holds more than a few times
/// the plant's energy.
#[test]
fn a_divergence_from_rest_is_caught_without_a_scale() {
    let mut se = forced_oscillator(2.05, Guards::default());
    let mut s = State::new(0.0, vector![0.0], vector![0.0]);
    let refused = (0..50).find_map(|k| match se.step(&mut s) {
        Ok(()) => {
            let e = 0.5 * s.v[0] * s.v[0] + 0.5 * s.q[0] * s.q[0];
            assert!(e < 10.0 * PLANT_SCALE, "step {k} accepted with E = {e}");
            None
        }
        Err(e) => Some((k, e)),
    });
    let (k, e) = refused.expect("the divergence was caught");
    println!("unstable run without a floor refused at step {k}: {e:?}");
    assert!(matches!(e, StepError::Diverged { .. }));
}

/// The floor does not blind the guard: the same start with an unstable step (`hω = 2.05 > 2`)
/// is refused within a few steps, long before any value overflows, and no accepted state holds
/// more than a few times the plant's energy.
#[test]
fn a_divergence_from_rest_is_still_caught_with_the_scale() {
    let mut se = forced_oscillator(2.05, with_plant_scale());
    let mut s = State::new(0.0, vector![0.0], vector![0.0]);
    let mut refused = None;
    for k in 0..50 {
        match se.step(&mut s) {
            Ok(()) => {
                let e = 0.5 * s.v[0] * s.v[0] + 0.5 * s.q[0] * s.q[0];
                assert!(e < 10.0 * PLANT_SCALE, "step {k} accepted with E = {e}");
            }
            Err(e) => {
                refused = Some((k, e));
                break;
            }
        }
    }
    let (k, e) = refused.expect("the divergence was caught");
    println!("unstable run refused at step {k}: {e:?}");
    assert!(matches!(e, StepError::Diverged { .. }));
    assert!(s.is_finite());
}
