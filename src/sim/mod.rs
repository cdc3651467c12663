//! Stochastic impulse methods (SIM, 004 §4.2): exact stiff linear flows composed with slow kicks.
//!
//! # The problem (004 eq 4.10 / 4.11)
//! ```text
//! M dq = p dt,    dp = F(q) dt − K q dt − c p dt + σ dW
//! ```
//! with constant SPD `M`, a stiff symmetric positive semi-definite `K` (it carries the `ε⁻¹`),
//! friction `c ≥ 0` commuting with `K` (a scalar, or a matrix sharing `K`'s modes), noise `σ`, and
//! a slow force `F(q)`: `−∇V(q)` ([`SimSystem::new`], [`Conservative`]) or any force (Remark
//! 4.2.6, [`SimSystem::with_force`], [`ForceFn`]).
//!
//! # Construction
//! Every SIM is built as `Sim1::new(system, H, params)`: the [`SimSystem`] is the model (`M`, `K`,
//! `F`), `H` the macro step, and [`FastParams`] the friction and noise of the fast flow
//! (`FastParams::default()`: none, the Hamiltonian impulse method).
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
    LieTrotterSplit, Quasi, Quasi1, Quasi2, QuasiExp, QuasiParams, QuasiSplitting, QuasiSystem,
    StrangSplit,
};
pub use quasi_flow::QuasiStiffness;
pub use sim1::{LieTrotter, Sim1, Sim1Order};
pub use sim2::{Sim2, Strang};
pub use sim4::{Sim4, TripleJump};

use crate::model::{Mass, Potential};
use crate::validate::{check_all_finite, check_nonnegative, check_positive};
use crate::{ConfigError, Real};
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
        /// The inverse temperature `β > 0`.
        inverse_temperature: T,
    },
}

/// What a SIM integrates (004 eqs 4.10/4.11): the constant mass `M`, the stiff matrix `K` of the
/// fast flow `dp = −Kq dt + …` (eq 4.12) and the slow force `F` of the kick (eq 4.13).
///
/// The stiffness lives here, not in [`FastParams`]: it describes the model (it carries the
/// `ε⁻¹`) and has no default, while the friction and noise of the fast flow are tuning with a
/// natural default (none: the Hamiltonian impulse method).
///
/// ```
/// use macrostep::{sim::SimSystem, model::{Mass, Quadratic}};
/// use nalgebra::matrix;
/// // M ẍ = −10⁴ x − x: a stiff spring ω = 100 and a soft one, F = −∇V.
/// let sys = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], Quadratic::new(matrix![1.0]));
/// assert_eq!(sys.stiffness[(0, 0)], 1.0e4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SimSystem<T: Real, F, const N: usize> {
    /// The mass matrix `M`.
    pub mass: Mass<T, N>,
    /// The stiff matrix `K` (including `ε⁻¹`), symmetric positive semi-definite.
    pub stiffness: SMatrix<T, N, N>,
    /// The slow force `F(q)`.
    pub force: F,
}

impl<T: Real, P: Potential<T, N>, const N: usize> SimSystem<T, Conservative<P>, N> {
    /// The system with the conservative slow force `F = −∇V` of `potential`.
    pub fn new(mass: Mass<T, N>, stiffness: SMatrix<T, N, N>, potential: P) -> Self {
        Self::with_force(mass, stiffness, Conservative(potential))
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> SimSystem<T, F, N> {
    /// The system with any slow force (Remark 4.2.6): a [`ForceFn`] closure, or your own
    /// [`Force`].
    ///
    /// ```
    /// use macrostep::{sim::{ForceFn, SimSystem}, model::Mass};
    /// use nalgebra::{matrix, vector, Vector1};
    /// let drag = ForceFn(|q: &Vector1<f64>| vector![1.0 - q[0]]);
    /// let sys = SimSystem::with_force(Mass::identity(), matrix![1.0e4_f64], drag);
    /// assert_eq!((sys.force.0)(&vector![0.25]), vector![0.75]);
    /// ```
    pub fn with_force(mass: Mass<T, N>, stiffness: SMatrix<T, N, N>, force: F) -> Self {
        Self {
            mass,
            stiffness,
            force,
        }
    }
}

/// The friction `c` and noise `σ` of the fast flow `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW`
/// (004 eq 4.12). The default is `c = σ = 0`: the Hamiltonian impulse method.
///
/// ```
/// use macrostep::sim::{FastParams, Friction, Noise};
/// let p = FastParams::<f64, 2>::thermal(0.5, 2.0).validate().unwrap();
/// assert_eq!(p.noise, Noise::Thermal { inverse_temperature: 2.0 });
/// assert_eq!(FastParams::<f64, 2>::default().friction, Friction::Scalar(0.0));
/// assert!(FastParams::<f64, 2>::langevin(-1.0, 0.0).validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FastParams<T: Real, const N: usize> {
    /// The friction `c`.
    pub friction: Friction<T, N>,
    /// The noise `σ`.
    pub noise: Noise<T, N>,
}

impl<T: Real, const N: usize> Default for FastParams<T, N> {
    /// The Hamiltonian case `c = σ = 0`.
    fn default() -> Self {
        Self {
            friction: Friction::Scalar(T::zero()),
            noise: Noise::Scalar(T::zero()),
        }
    }
}

impl<T: Real, const N: usize> FastParams<T, N> {
    /// Scalar friction `c` and scalar noise `σ`.
    pub fn langevin(friction: T, noise: T) -> Self {
        Self {
            friction: Friction::Scalar(friction),
            noise: Noise::Scalar(noise),
        }
    }

    /// Scalar friction `c` with thermal noise at inverse temperature `β` (`σσᵀ = 2cM/β`).
    pub fn thermal(friction: T, inverse_temperature: T) -> Self {
        Self {
            friction: Friction::Scalar(friction),
            noise: Noise::Thermal {
                inverse_temperature,
            },
        }
    }

    /// Checks what the parameters say on their own (that a matrix friction shares the stiff
    /// modes is checked against the system, by [`StiffLinear::new`]).
    ///
    /// # Errors
    /// - `"friction"`: [`ConfigError::NonFinite`], or [`ConfigError::OutOfRange`] for a negative
    ///   scalar;
    /// - `"noise"`: [`ConfigError::NonFinite`], or [`ConfigError::OutOfRange`] for a negative
    ///   scalar;
    /// - `"inverse_temperature"` not positive; [`ConfigError::Inconsistent`] `"thermal noise
    ///   needs scalar friction"` for thermal noise with a matrix friction.
    pub fn validate(&self) -> Result<Self, ConfigError> {
        self.check().map(|()| *self)
    }

    /// [`Self::validate`] without the copy.
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        match self.friction {
            Friction::Scalar(c) => {
                check_nonnegative(c, "friction")?;
            }
            Friction::Matrix(c) => check_all_finite(c.as_slice(), "friction")?,
        }
        match self.noise {
            Noise::Scalar(s) => {
                check_nonnegative(s, "noise")?;
            }
            Noise::Matrix(s) => check_all_finite(s.as_slice(), "noise")?,
            Noise::Thermal {
                inverse_temperature,
            } => {
                check_positive(inverse_temperature, "inverse_temperature")?;
                if let Friction::Matrix(_) = self.friction {
                    return Err(ConfigError::Inconsistent {
                        name: "thermal noise needs scalar friction",
                    });
                }
            }
        }
        Ok(())
    }
}

/// A slow force `F(q)` (Remark 4.2.6): [`Conservative`] wraps a potential (`F = −∇V`),
/// [`ForceFn`] a closure; or implement it for your own type.
pub trait Force<T: Real, const N: usize> {
    /// `F(q)`.
    fn force(&self, q: &SVector<T, N>) -> SVector<T, N>;
}

/// The conservative force `F = −∇V` of a potential `V` (what [`SimSystem::new`] builds).
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
