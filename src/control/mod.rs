//! Discrete-time LQR and an extended Kalman filter on the exact step linearisations of
//! [`crate::linearise`]: fixed-size, allocation-free, `f32`/`f64`, validated inputs and typed
//! errors.
//!
//! - [`lqr`]: the gain `K` of `u = −K x` minimising `Σ xᵀQx + uᵀRu` for `x⁺ = A x + B u`, from the
//!   discrete algebraic Riccati equation, solved by the structure-preserving doubling iteration
//!   (a Riccati iteration whose `k`-th iterate is the `2ᵏ`-step horizon's solution: quadratic
//!   convergence, a fixed cap [`RiccatiParams::max_iter`]), then checked to stabilise the loop.
//! - [`Ekf`]: predict with the step and its linearisation `A`, update with a linear measurement
//!   `y = H x + noise` in Joseph form.
//!
//! Every input is checked before anything is computed: non-finite entries, a non-symmetric or
//! indefinite `Q`, an `R` that is not positive definite are a [`ControlError`]; on `Err` nothing
//! changes.
//!
//! ```
//! use macrostep::control::{lqr, RiccatiParams};
//! use macrostep::nalgebra::{matrix, Matrix1, Matrix2};
//! // A double integrator at h = 0.1.
//! let h = 0.1;
//! let a = matrix![1.0, h; 0.0, 1.0];
//! let b = matrix![0.5 * h * h; h];
//! let gain = lqr(&a, &b, &Matrix2::identity(), &Matrix1::new(1.0), &RiccatiParams::default())?;
//! // The closed loop is stable: its spectral radius is below one.
//! let cl = a - b * gain.k;
//! assert!(cl.pow(200).amax() < 1e-6);
//! # Ok::<(), macrostep::control::ControlError>(())
//! ```

mod kalman;
mod riccati;
mod validate;

pub use kalman::Ekf;
pub use riccati::{lqr, Lqr, RiccatiParams};

use crate::{ConfigError, StepError};
use core::fmt;

/// Why an LQR gain or a filter step could not be computed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControlError {
    /// A matrix or vector holds a NaN or an infinity.
    NonFinite {
        /// Which input (`"A"`, `"B"`, `"Q"`, `"R"`, `"H"`, `"P"`, `"y"`).
        name: &'static str,
    },
    /// A matrix that must be symmetric is not (to `N·ε` relative).
    NotSymmetric {
        /// Which input.
        name: &'static str,
    },
    /// A weight or covariance that must be positive semidefinite has a negative eigenvalue.
    NotPsd {
        /// Which input.
        name: &'static str,
    },
    /// A weight or covariance that must be positive definite is singular or indefinite.
    NotPositiveDefinite {
        /// Which input.
        name: &'static str,
    },
    /// The pair `(A, B)` cannot be stabilised: the Riccati iterates overflow, or the converged
    /// gain leaves an unstable closed loop (an unstable mode `B` cannot reach, or one `Q` does
    /// not see).
    Unstabilizable,
    /// The Riccati iteration did not reach its tolerance within its cap (e.g. a marginally stable
    /// uncontrollable mode, whose cost grows without bound).
    NotConverged,
    /// A matrix the iteration or the filter inverts is singular.
    Singular,
    /// The filter's prediction step failed.
    Step(StepError),
    /// Bad iteration controls ([`RiccatiParams::validate`]).
    Config(ConfigError),
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { name } => write!(f, "`{name}` is not finite"),
            Self::NotSymmetric { name } => write!(f, "`{name}` is not symmetric"),
            Self::NotPsd { name } => write!(f, "`{name}` is not positive semidefinite"),
            Self::NotPositiveDefinite { name } => write!(f, "`{name}` is not positive definite"),
            Self::Unstabilizable => f.write_str("the pair (A, B) cannot be stabilised"),
            Self::NotConverged => f.write_str("the Riccati iteration did not converge"),
            Self::Singular => f.write_str("a matrix to invert is singular"),
            Self::Step(e) => write!(f, "prediction step failed: {e}"),
            Self::Config(e) => write!(f, "bad iteration controls: {e}"),
        }
    }
}

impl core::error::Error for ControlError {}

impl From<StepError> for ControlError {
    fn from(e: StepError) -> Self {
        Self::Step(e)
    }
}
