//! Stochastic impulse methods (SIM, 004 §4.2): exact stiff linear flows composed with slow kicks.
//!
//! # The problem (004 eq 4.10 / 4.11)
//! ```text
//! M dq = p dt,    dp = F(q) dt − K q dt − c p dt + σ dW
//! ```
//! with constant SPD `M`, a stiff symmetric positive semi-definite `K` (it carries the `ε⁻¹`),
//! friction `c ≥ 0` commuting with `K` (a scalar, or a matrix sharing `K`'s modes), noise `σ`, and
//! a slow force `F(q)`: `−∇V(q)` (the `new` constructors, [`Conservative`]) or any force
//! (Remark 4.2.6, the `with_force` constructors, [`ForceFn`]).
//!
//! # The two flows
//! - φᶠ(h), the **fast flow** of `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW` (eq 4.12), is
//!   linear and solved exactly ([`StiffLinear`], [`FastFlow`]): in the modal coordinates of
//!   `L⁻¹KL⁻ᵀ` (`M = LLᵀ`, capped Jacobi), each mode is a damped oscillator with the closed-form
//!   map `B(h)` ([`mode_map`]); with noise the Gaussian increment `R(h) ~ N(0, Σ(h))` of
//!   Integrator 4.2.2 is drawn with a Cholesky factor of `Σ(h)`. Everything is computed at
//!   construction; a step costs four `N×N` mat-vecs plus the per-mode `2×2` maps.
//! - φˢ(h), the **slow kick** (eq 4.13): `p ← p + h F(q)`.
//!
//! # The methods
//! - [`Sim1`]: Lie–Trotter, `φˢ(H)∘φᶠ(H)` (Integrators 4.2.1/4.2.2) or its dual `φᶠ(H)∘φˢ(H)`
//!   (Remark 4.2.1); optionally the mollified impulse kick of eq 4.8.
//! - [`Sim2`]: Strang, `φˢ(H/2)∘φᶠ(H)∘φˢ(H/2)` (Integrator 4.2.3); with `c = σ = 0` this is the
//!   impulse / Verlet-I / r-RESPA method.
//! - [`Sim4`]: the fourth-order composition of Remark 4.2.4 with `c₄ = 1/(2 − 2^{1/3})`.
//!
//! The three are aliases of one [`Sim`] whose strategy parameter ([`SimScheme`]: [`LieTrotter`],
//! [`Strang`], [`TripleJump`]) is the composition; construction, accessors, guards and the step
//! contract are shared.
//!
//! All are [`crate::Integrator`]s when `σ = 0` (symplectic when also `c = 0`; conformally
//! symplectic, with Jacobian determinant `e^{−c·N·H}`, for scalar `c`), and `Sim1`, `Sim2` are
//! [`crate::StochasticIntegrator`]s as well (`step_noisy(state, rng)`, or
//! `step_with_noise(state, &r)` with a pre-drawn fast-flow [`Increment`]), the Langevin form when
//! `σ ≠ 0`.
//!
//! # Uniform accuracy
//! Theorem 4.2.2: with `c = σ = 0`, SIM1's error in `q` is `O(H)` uniformly in the stiffness (the
//! fast flow is exact); the momentum error carries `ε^{−1/2}`. Theorem 4.2.1: with noise the
//! strong error in `q` is `O(H^{1/2})`, again uniformly. Stiff friction `c = O(ε^{−1/2})` is
//! allowed (Remark 4.2.5). Impulse methods have narrow resonance instability intervals near
//! `ωH ∈ πℤ` (§4.2.4); the mollified kick of eq 4.8 narrows them further.

mod fast_flow;
mod impulse;
pub mod quasi;
mod quasi_flow;
mod sim1;
mod sim2;
mod sim4;

pub use fast_flow::{mode_map, FastFlow, Increment, StiffLinear};
pub use impulse::{NoisyScheme, Sim, SimScheme};
pub use quasi::{
    LieTrotterSplit, Quasi, Quasi1, Quasi2, QuasiExp, QuasiParams, QuasiSplitting, StrangSplit,
};
pub use quasi_flow::QuasiStiffness;
pub use sim1::{LieTrotter, Sim1, Sim1Order};
pub use sim2::{Sim2, Strang};
pub use sim4::{Sim4, TripleJump, SIM4_C};

use crate::model::Potential;
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// Friction of the fast flow.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Friction<T: Real, const N: usize> {
    /// `c I` (isotropic; always commutes with `K`). Must be `≥ 0`.
    Scalar(T),
    /// A matrix `c` with `L⁻¹cL` sharing the modes of `L⁻¹KL⁻ᵀ` (checked at construction).
    Matrix(SMatrix<T, N, N>),
}

/// Noise of the fast flow: the matrix `σ` in `σ dW`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Noise<T: Real, const N: usize> {
    /// `σ I`. Must be `≥ 0`.
    Scalar(T),
    /// A general `σ` (`σσᵀ` is what matters; any sign).
    Matrix(SMatrix<T, N, N>),
    /// The fluctuation–dissipation noise `σσᵀ = 2cM/β` for a scalar friction `c`.
    Thermal {
        /// Inverse temperature `β > 0`.
        beta: T,
    },
}

/// Parameters of the fast flow: `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FastParams<T: Real, const N: usize> {
    /// The stiff matrix `K` (including `ε⁻¹`), symmetric positive semi-definite.
    pub stiffness: SMatrix<T, N, N>,
    /// The friction `c`.
    pub friction: Friction<T, N>,
    /// The noise `σ`.
    pub noise: Noise<T, N>,
}

impl<T: Real, const N: usize> FastParams<T, N> {
    /// The Hamiltonian case `c = σ = 0`.
    pub fn hamiltonian(stiffness: SMatrix<T, N, N>) -> Self {
        Self {
            stiffness,
            friction: Friction::Scalar(T::zero()),
            noise: Noise::Scalar(T::zero()),
        }
    }

    /// Scalar friction `c` and scalar noise `σ`.
    pub fn langevin(stiffness: SMatrix<T, N, N>, friction: T, noise: T) -> Self {
        Self {
            stiffness,
            friction: Friction::Scalar(friction),
            noise: Noise::Scalar(noise),
        }
    }

    /// Scalar friction `c` with thermal noise at inverse temperature `β` (`σσᵀ = 2cM/β`).
    pub fn thermal(stiffness: SMatrix<T, N, N>, friction: T, beta: T) -> Self {
        Self {
            stiffness,
            friction: Friction::Scalar(friction),
            noise: Noise::Thermal { beta },
        }
    }
}

/// A slow force `F(q)` (Remark 4.2.6): [`Conservative`] wraps a potential (`F = −∇V`),
/// [`ForceFn`] a closure; or implement it for your own type.
pub trait Force<T: Real, const N: usize> {
    /// `F(q)`.
    fn force(&self, q: &SVector<T, N>) -> SVector<T, N>;
}

/// The conservative force `F = −∇V` of a potential `V` (what the SIM `new` constructors build).
#[derive(Clone, Copy, Debug)]
pub struct Conservative<P>(pub P);

impl<T: Real, const N: usize, P: Potential<T, N>> Force<T, N> for Conservative<P> {
    #[inline]
    fn force(&self, q: &SVector<T, N>) -> SVector<T, N> {
        -self.0.gradient(q)
    }
}

/// A force given by a function or closure (a non-conservative slow force, Remark 4.2.6).
#[derive(Clone, Copy, Debug)]
pub struct ForceFn<F>(pub F);

impl<T: Real, const N: usize, F: Fn(&SVector<T, N>) -> SVector<T, N>> Force<T, N> for ForceFn<F> {
    #[inline]
    fn force(&self, q: &SVector<T, N>) -> SVector<T, N> {
        (self.0)(q)
    }
}
