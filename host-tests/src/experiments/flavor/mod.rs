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

/// The FLAVOR stacks over symplectic Euler the experiments and tests share.
pub use crate::fixtures::{nonintrusive_fused, nonintrusive_se, SeMap};
/// The reference sampler and trajectory recorder the experiments and tests share.
pub use crate::{measure::trajectory, reference::reference_samples};

use macrostep::State;

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
