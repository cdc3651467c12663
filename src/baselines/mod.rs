//! Explicit baselines every comparison needs, and the exact harmonic flow.
//!
//! - [`SymplecticEuler`]: variational (symplectic) Euler in both orderings — kick–drift
//!   (004 eq 2.49) and its adjoint drift–kick (eq 2.50).
//! - [`VelocityVerlet`]: Störmer–Verlet in velocity form, second order, symmetric, symplectic.
//! - [`HarmonicFlow`]: the closed-form flow of uncoupled oscillators `q̈ᵢ = −ωᵢ² qᵢ`.
//!
//! Each explicit method works with any [`Potential`](crate::model::Potential); on a
//! [`Split`](crate::model::Split) the stiff part is switched on or off through
//! `system_mut().potential.alpha` (which also clears the method's cached force).

mod harmonic;
mod symplectic_euler;
mod verlet;

pub use harmonic::HarmonicFlow;
pub use symplectic_euler::{EulerOrdering, SymplecticEuler};
pub use verlet::VelocityVerlet;
