//! SHAKE (VS), RATTLE (VR), Reich's composition and the multiplier window: order, symplecticity
//! on the constraint manifold, energy without drift, reversibility, bad input.

use host_tests::manifold::{from_x, manifold_defect, to_x};
use host_tests::measure::loglog_slope;
use host_tests::rigid;
use host_tests::{for_scalars, Tolerance};
use macrostep::constrained::{
    ConstraintNewtonParams, MultiplierWindow, OffManifold, Rattle, Reich4, Shake, Stage,
};
use macrostep::model::Constraint;
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::{DoublePendulum, Link, Pendulum, PlanarDistances};
use macrostep::{ConfigError, Integrator, PreconditionKind, Real, State, StepError};

mod bad_input;
mod multipliers;
mod order;
mod structure;

/// Runs `n` steps of size `h`, panicking on failure.
fn run<I: Integrator<f64, N>, const N: usize>(i: &mut I, s: &mut State<f64, N>, n: usize) {
    i.integrate(s, n).expect("step failed");
}

/// Global error at t = 2 of the pendulum (002 §5) against the rigid reference, for step `h`.
fn pendulum_error(make: impl Fn(f64) -> Box<dyn FnMut(&mut State<f64, 2>)>, h: f64) -> f64 {
    let p = Pendulum::<f64>::paper();
    let t_end = 2.0;
    let n = (t_end / h).round() as usize;
    let mut s = p.initial_state();
    let mut step = make(h);
    for _ in 0..n {
        step(&mut s);
    }
    let r = rigid::Pendulum::default();
    let refs = r.solve(&[1.0, 0.0], &[0.0, 0.0], &[t_end], 1e-13, 1e-13);
    let (q, v) = (refs[0].q, refs[0].v);
    let dq = (s.q[0] - q[0]).abs().max((s.q[1] - q[1]).abs());
    let dv = (s.v[0] - v[0]).abs().max((s.v[1] - v[1]).abs());
    dq.max(dv)
}

/// A double-pendulum start on the manifold with motion: rods at angles (0.9, −0.4), angular
/// velocities (0.3, −0.7).
fn moving_double_pendulum() -> State<f64, 4> {
    let (th, ph, wth, wph) = (0.9_f64, -0.4_f64, 0.3_f64, -0.7_f64);
    let (l1, l2) = (1.0, 2.0_f64.sqrt());
    let (x1, y1) = (l1 * th.sin(), -l1 * th.cos());
    let q = vector![x1, y1, x1 + l2 * ph.sin(), y1 - l2 * ph.cos()];
    let (vx1, vy1) = (l1 * th.cos() * wth, l1 * th.sin() * wth);
    let v = vector![
        vx1,
        vy1,
        vx1 + l2 * ph.cos() * wph,
        vy1 + l2 * ph.sin() * wph
    ];
    State::new(0.0, q, v)
}
