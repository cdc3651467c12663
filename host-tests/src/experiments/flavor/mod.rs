//! FLAVOR reproductions (004 Ch. 2), one file per `reproduce` experiment: linear stability
//! (Theorem 2.5.1, Fig 2.2), the 3-DOF system 2.100, the hidden Van der Pol oscillator 2.101,
//! Kapitza's pendulum 2.113–2.115, Langevin, the FPU chain, the primitive molecule and propane.
//!
//! This module holds what several of them share: the small models the thesis uses only here
//! (system 2.93, the quartic-plus-springs system 2.100), the FLAVOR stacks built on symplectic
//! Euler, and the reference and trajectory samplers.

pub mod fpu;
pub mod kapitza;
pub mod langevin;
pub mod molecule;
pub mod propane;
pub mod stability;
pub mod three_dof;
pub mod vdp;

/// System 2.100, which other experiments (work–precision) build FLAVORs on.
pub use crate::fixtures::system_2100;

use crate::fixtures::SplitSystem;
use macrostep::flavor::{FusedEuler, Nonintrusive};
use macrostep::model::{Potential, System};
use macrostep::{Integrator, Real, State};

/// Symplectic Euler over a split system, as a FLAVOR legacy map.
pub type SeMap<T, V, U, const N: usize> = macrostep::flavor::SymplecticEulerMap<T, V, U, N>;

/// The nonintrusive FLAVOR (2.45) over kick–drift symplectic Euler (2.49) of a split system.
pub fn nonintrusive_se<T: Real, V, U, const N: usize>(
    system: SplitSystem<T, V, U, N>,
    delta: T,
    tau: T,
) -> Nonintrusive<T, SeMap<T, V, U, N>>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    Nonintrusive::symplectic_euler(system, delta, tau).expect("finite alpha, 0 < tau < delta")
}

/// The nonintrusive FLAVOR (2.45) over [`FusedEuler`] (on step drift–kick 2.50, off step
/// kick–drift 2.49, the two kicks fused): one legacy step's cost per FLAVOR step.
pub fn nonintrusive_fused<T: Real, V, U, const N: usize>(
    system: SplitSystem<T, V, U, N>,
    delta: T,
    tau: T,
) -> Nonintrusive<T, FusedEuler<T, V, U, N>>
where
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    Nonintrusive::fused_euler(system, delta, tau).expect("finite alpha, 0 < tau < delta")
}

/// Reference trajectory of a system sampled every `dt` on `[0, t_end]` (DOP853, tight).
pub fn reference_samples<P: Potential<f64, N>, const N: usize>(
    system: &System<f64, P, N>,
    s0: &State<f64, N>,
    t_end: f64,
    dt: f64,
) -> Vec<State<f64, N>> {
    let n = (t_end / dt).round() as usize;
    let times = crate::reference::linspace(0.0, t_end, n);
    crate::reference::solve_system(system, s0, &times, 1e-11, 1e-11)
}

/// Runs `steps` steps of `integ` from `s0`, recording every state (including `s0`).
pub fn trajectory<I: Integrator<f64, N>, const N: usize>(
    integ: &mut I,
    s0: &State<f64, N>,
    steps: usize,
) -> Vec<State<f64, N>> {
    let mut out = Vec::with_capacity(steps + 1);
    let mut s = *s0;
    out.push(s);
    for _ in 0..steps {
        integ.step(&mut s).expect("FLAVOR step failed");
        out.push(s);
    }
    out
}

/// Mean of `f` over the samples with time in `(t1 − w, t1]`.
pub fn window_mean<const N: usize>(
    traj: &[State<f64, N>],
    t1: f64,
    w: f64,
    f: impl Fn(&State<f64, N>) -> f64,
) -> f64 {
    let tol = 1e-9;
    let sel: Vec<f64> = traj
        .iter()
        .filter(|s| s.t > t1 - w + tol && s.t <= t1 + tol)
        .map(f)
        .collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}
