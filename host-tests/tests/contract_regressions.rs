//! Fixed cases of the step and constructor contract taken from the hostile-input runs
//! (`cargo xtask fuzz`), each named after what it guards.

use macrostep::flavor::{FusedEuler, Nonintrusive, Params};
use macrostep::lie::{BodyState, CayleyVariational, LinearizedZs2, RigidBody, So3ZsParams};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{matrix, vector};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Integrator, State, StepError};

/// `Ok` must advance `t`: at `t = 1e17` a step of `0.01` cannot (the spacing of `f64` there is
/// 16), so FLAVOR over the fused Euler map must refuse it with `ClockStalled`, state untouched,
/// rather than return `Ok` with `t` unchanged.
#[test]
fn plain_commit_refuses_a_stalled_clock_fused_flavor() {
    let split = Split::new(
        Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]),
        1e2_f64,
    );
    let map = FusedEuler::new(System::new(Mass::identity(), split)).unwrap();
    let mut f = Nonintrusive::new(map, Params::new(0.01, 1e-4).unwrap()).unwrap();
    let mut s = State::new(1e17, vector![0.8, 0.811], vector![0.0, 0.0]);
    let before = s;
    assert_eq!(f.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// As above for the linearised Z&S on SO(3).
#[test]
fn plain_commit_refuses_a_stalled_clock_linearized_zs() {
    let mut m = LinearizedZs2::new(RigidBody::paper(), 0.01, So3ZsParams::default()).unwrap();
    let mut s = BodyState::<f64>::paper().to_relaxed();
    s.t = 1e17;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// As above for the Cayley benchmark on the relaxed state.
#[test]
fn cayley_refuses_a_stalled_clock() {
    let mut m =
        CayleyVariational::new(RigidBody::paper(), 0.01, ImplicitNewtonParams::default()).unwrap();
    let mut s = BodyState::<f64>::paper().to_relaxed();
    s.t = 1e17;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// A positive `ω` or rod length whose square underflows to `0` is refused as a derived-quantity
/// underflow: `Penalty::per_constraint` and `Distances::new` refuse `ω = 2.2e-308`, `L = 5e-324`,
/// which would leave `ω² = 0`, `L² = 0`.
#[test]
fn squares_that_underflow_to_zero_are_refused() {
    use macrostep::model::Penalty;
    use macrostep::systems::{DoublePendulum, HarmonicOscillator, Link, PlanarDistances};
    use macrostep::ConfigError;
    let dp = DoublePendulum::<f64>::paper();
    let omega = vector![f64::MIN_POSITIVE, 1.0];
    assert_eq!(
        Penalty::per_constraint(dp.system().potential, dp.constraint(), omega).unwrap_err(),
        ConfigError::Overflow { name: "omega^2" }
    );
    let links = [
        Link::between(0, 1, 1e-200),
        Link::anchored(0, vector![0.0, 0.0], 1.0),
    ];
    assert_eq!(
        PlanarDistances::<f64, 4, 2>::new(links).unwrap_err(),
        ConfigError::Overflow { name: "length^2" }
    );
    assert_eq!(
        HarmonicOscillator::<f64, 1>::isotropic(1e-200).unwrap_err(),
        ConfigError::Overflow { name: "omega^2" }
    );
}

/// A model that constructs must have a finite initial state: `Chain::new` with lengths summing
/// past MAX, `DoublePendulum::new` with `L₁ = MAX`, `Fpu::new(5e-324)`, `TwoSpring::new(5e-324,
/// …)` and `BodyState::new` with `Ω` near MAX, whose initial states would hold infinities, are
/// refused.
#[test]
fn derived_quantities_of_models_are_checked() {
    use macrostep::nalgebra::{Matrix3, Rotation3};
    use macrostep::systems::{Chain, Fpu, TwoSpring};
    assert!(Chain::<f64, 4, 2>::new(vector![1e308, 1e308], 1.0).is_err());
    assert!(macrostep::systems::DoublePendulum::new([1.0, 1.0], 1.0, [f64::MAX, 1.0]).is_err());
    assert!(Fpu::<f64, 2>::new(f64::from_bits(1)).is_err());
    assert!(TwoSpring::new(f64::from_bits(1), 0.0, 1.0).is_err());
    let r: Matrix3<f64> = *Rotation3::new(vector![0.0, 0.0, core::f64::consts::FRAC_PI_4]).matrix();
    assert!(BodyState::new(r, vector![f64::MAX, f64::MAX, f64::MAX]).is_err());
}
