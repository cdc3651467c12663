//! What a user describes: a mechanical system `M q̈ = −∇V(q)`.
//!
//! - [`Mass`]: a constant SPD mass matrix (identity, diagonal, full).
//! - [`Potential`], [`Hessian`], [`ThirdDerivative`]: a potential and the derivatives an integrator
//!   needs. Explicit methods need the gradient; Z&S needs the Hessian and the contraction
//!   `a·V‴·a` (000 eq 1.3).
//! - [`Split`]: a soft + stiff split `V + α U` with a stiffness switch `α` (FLAVOR, SIM).
//! - [`Constraint`]: holonomic constraints `g(q) = 0`, and [`Penalty`], the stiff potential
//!   `V + ½ Σ ωᵢ² gᵢ²` that replaces them (000 eq 1.7).
//! - [`System`]: a mass and a potential together, with the Hamiltonian.
//! - [`BandMut`]: the band-matrix view a banded Hessian is written into.

mod band;
mod constraint;
mod mass;
mod potential;

pub use band::BandMut;
pub use constraint::{Constraint, Penalty};
pub use mass::Mass;
pub use potential::{Hessian, Measured, Potential, Quadratic, Split, ThirdDerivative, Zero};

use crate::{Real, State};
use nalgebra::SVector;

/// A mechanical system `M q̈ = −∇V(q)`: a constant mass matrix and a potential.
#[derive(Clone, Copy, Debug)]
pub struct System<T: Real, P, const N: usize> {
    /// The mass matrix `M`.
    pub mass: Mass<T, N>,
    /// The potential `V`.
    pub potential: P,
}

impl<T: Real, P: Potential<T, N>, const N: usize> System<T, P, N> {
    /// A system from its mass matrix and potential.
    pub fn new(mass: Mass<T, N>, potential: P) -> Self {
        Self { mass, potential }
    }

    /// The acceleration `−M⁻¹∇V(q)`.
    #[inline]
    pub fn acceleration(&self, q: &SVector<T, N>) -> SVector<T, N> {
        -self.mass.solve(&self.potential.gradient(q))
    }

    /// The Hamiltonian (total energy) `½ vᵀMv + V(q)`.
    pub fn energy(&self, s: &State<T, N>) -> T {
        self.mass.kinetic(&s.v) + self.potential.energy(&s.q)
    }
}
