//! Regression tests for the contract violations `cargo xtask fuzz` found (issue 12), each named
//! after what it guards and failing on the code before its fix.

use macrostep::flavor::{FusedEuler, Nonintrusive, Params};
use macrostep::lie::{BodyState, CayleyVariational, LinearizedZs2, RigidBody, So3ZsParams};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{matrix, vector};
use macrostep::zs::NewtonParams;
use macrostep::{Integrator, State, StepError};

/// `Ok` must advance `t`: at `t = 1e17` a step of `0.01` cannot (the spacing of `f64` there is
/// 16), so FLAVOR over the fused Euler map must refuse it with `ClockStalled`, state untouched.
/// Found by the fuzz runner: `Ok` with `t` unchanged.
#[test]
fn plain_commit_refuses_a_stalled_clock_fused_flavor() {
    let split = Split::new(
        Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]),
        1e2_f64,
    );
    let map = FusedEuler::new(System::new(Mass::identity(), split)).unwrap();
    let mut f = Nonintrusive::new(map, Params::new(0.01, 1e-4).unwrap());
    let mut s = State::new(1e17, vector![0.8, 0.811], vector![0.0, 0.0]);
    let before = s;
    assert_eq!(f.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// As above for the linearised Z&S on SO(3) (plain commit, no guard watch).
#[test]
fn plain_commit_refuses_a_stalled_clock_linearized_zs() {
    let mut m = LinearizedZs2::new(RigidBody::paper(), 0.01, So3ZsParams::default()).unwrap();
    let mut s = BodyState::<f64>::paper().to_relaxed();
    s.t = 1e17;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// As above for the Cayley benchmark, which commits its own `BodyState`.
#[test]
fn cayley_refuses_a_stalled_clock() {
    let mut m = CayleyVariational::new(RigidBody::paper(), 0.01, NewtonParams::default()).unwrap();
    let mut s = BodyState::<f64>::paper();
    s.t = 1e17;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}
