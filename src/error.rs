//! The crate's error types.
//!
//! Two kinds of failure exist. [`ConfigError`] is returned by constructors when a parameter is
//! invalid (a non-positive step, a mass matrix that is not SPD, …); a value that validated once
//! is never re-checked per step. [`StepError`] is returned by a `step` that could not complete; in
//! that case the caller's state is left bit-identical to what it was before the call. The checks
//! that produce them are in [`crate::validate`].

use core::fmt;

/// An invalid configuration, rejected when an integrator, model or parameter set is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// The step size is zero, negative, or not finite.
    StepSize,
    /// A parameter is NaN or infinite; `name` says which.
    NonFinite {
        /// The parameter's name, as in the parameter struct.
        name: &'static str,
    },
    /// A parameter is outside its documented range; `name` says which and `bound` what it must
    /// satisfy.
    OutOfRange {
        /// The parameter's name, as in the parameter struct.
        name: &'static str,
        /// The violated bound, completing "must be …": `"> 0"`, `">= 1"`, `"in 1..=40"`.
        bound: &'static str,
    },
    /// A matrix that must be symmetric is not (`name` says which).
    NotSymmetric {
        /// The matrix's name.
        name: &'static str,
    },
    /// A matrix that must be symmetric positive definite is not (`name` says which).
    NotPositiveDefinite {
        /// The matrix's name.
        name: &'static str,
    },
    /// Two parameters are inconsistent with each other (e.g. τ ≥ δ); `name` says which rule.
    Inconsistent {
        /// The rule that is violated, e.g. `"tau < delta"`.
        name: &'static str,
    },
    /// A quantity derived from valid-looking parameters overflows or underflows the scalar type
    /// (e.g. `1/m` for a subnormal mass, `ω²` for `ω = 1e200`); `name` says which.
    Overflow {
        /// The derived quantity, e.g. `"1/m"`, `"omega^2"`.
        name: &'static str,
    },
    /// The start state violates an element of the model it belongs to (a mechanism's start
    /// positions and one of its rods); `name` says which kind of element, `index` which one.
    StartMismatch {
        /// The kind of element, e.g. `"rod"`.
        name: &'static str,
        /// Its index (the value its builder call returned).
        index: u32,
        /// The mismatch over its tolerance as a power of ten, rounded up (`Some(2)`: up to 100
        /// times the tolerance); `None` when not finite.
        excess: Option<i16>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StepSize => f.write_str("step size must be positive and finite"),
            Self::NonFinite { name } => write!(f, "parameter `{name}` is not finite"),
            Self::OutOfRange { name, bound } => {
                write!(f, "parameter `{name}` is out of range: must be {bound}")
            }
            Self::NotSymmetric { name } => write!(f, "matrix `{name}` is not symmetric"),
            Self::NotPositiveDefinite { name } => {
                write!(f, "matrix `{name}` is not positive definite")
            }
            Self::Inconsistent { name } => write!(f, "parameters violate `{name}`"),
            Self::Overflow { name } => {
                write!(
                    f,
                    "derived quantity `{name}` overflows or underflows the scalar type"
                )
            }
            Self::StartMismatch {
                name,
                index,
                excess,
            } => {
                write!(f, "start state violates {name} {index}")?;
                match excess {
                    Some(e) => write!(f, " (up to 1e{e} times the tolerance)"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl core::error::Error for ConfigError {}

/// A step that could not be completed. The state passed to `step` is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StepError {
    /// The step size passed to `step_by` is zero or not finite.
    StepSize,
    /// The input state holds a NaN or an infinity.
    NonFiniteState,
    /// The step produced a NaN or an infinity (typically: the method went unstable).
    NonFiniteResult,
    /// A linear system of the step is singular (or numerically so).
    Singular,
    /// A linear system that must be positive definite is not, and no fallback applies.
    NotPositiveDefinite,
    /// A nonlinear iteration did not reach its tolerance within its iteration cap.
    NotConverged,
    /// The state (or the model at the state) violates a precondition of the method; `kind` says
    /// which, `excess` by how much when it is a measured quantity above a tolerance.
    Precondition {
        /// The precondition that failed.
        kind: PreconditionKind,
        /// The measured quantity over its bound as a power of ten, rounded up (`Some(1)`: above
        /// the bound by up to a factor 10, `Some(3)`: by up to 1000); `None` when the
        /// precondition is not a measured magnitude (a structural one, such as a missing
        /// adjoint) or the ratio is not finite.
        excess: Option<i16>,
    },
    /// The result is finite but violates a step guard (see [`crate::guard`]): the run is
    /// diverging or has left the accuracy regime the guard describes.
    Diverged {
        /// The guard that was violated.
        guard: crate::guard::Guard,
    },
    /// The clock cannot advance by the step: `t + h` is not representable within `h/2` (the
    /// scalar type has run out of resolution at this `t`).
    ClockStalled,
    /// A force handed to the integrator (a held actuator force, or the value of a force
    /// function, see [`crate::forcing`]) is NaN or infinite.
    NonFiniteForce,
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Self::Diverged { guard } = self {
            return write!(f, "step violates the `{}` guard", guard.name());
        }
        if let Self::Precondition { kind, excess } = self {
            write!(
                f,
                "state violates the method's precondition: {}",
                kind.describe()
            )?;
            if let Some(e) = excess {
                write!(f, " (up to 1e{e} times the tolerance)")?;
            }
            return Ok(());
        }
        f.write_str(match self {
            Self::StepSize => "step size is zero or not finite",
            Self::NonFiniteState => "input state is not finite",
            Self::NonFiniteResult => "step produced a non-finite state",
            Self::Singular => "linear system is singular",
            Self::NotPositiveDefinite => "linear system is not positive definite",
            Self::NotConverged => "nonlinear iteration did not converge",
            Self::Precondition { .. } => "state violates the method's precondition",
            Self::Diverged { .. } => "step violates a guard",
            Self::ClockStalled => "the clock cannot advance by the step",
            Self::NonFiniteForce => "the applied force is not finite",
        })
    }
}

impl core::error::Error for StepError {}

/// `⌈log₁₀(value / bound)⌉` clamped to `1..=i16::MAX`, `None` when the ratio is not finite: the
/// `excess` of [`StepError::Precondition`] and [`ConfigError::StartMismatch`].
///
/// Counted by multiplying by ten in the scalar's own precision (at most 39 rounds in `f32`, 309 in
/// `f64`, on the error path only): no `log10` and no `f64` arithmetic, which on a single-precision
/// FPU would link several kilobytes of software floating point into every binary.
pub(crate) fn excess<T: crate::Real>(value: T, bound: T) -> Option<i16> {
    let ratio = (value / bound).abs();
    if !ratio.finite() {
        return None;
    }
    let ten = T::lit(10.0);
    let (mut e, mut p) = (1i16, ten);
    // `p` overflows to infinity before `e` can reach `i16::MAX`, and `inf < ratio` is false.
    while p < ratio {
        p *= ten;
        e += 1;
    }
    Some(e)
}

impl StepError {
    /// A [`StepError::Precondition`] for a measured quantity `value` above its tolerance
    /// `bound`: `excess` is `⌈log₁₀(value / bound)⌉` (at least 1), `None` when the ratio is not
    /// finite (a NaN or infinite value, a zero bound).
    pub fn exceeded<T: crate::Real>(kind: PreconditionKind, value: T, bound: T) -> Self {
        Self::Precondition {
            kind,
            excess: excess(value, bound),
        }
    }

    /// A [`StepError::Precondition`] that is not a magnitude (`excess: None`).
    pub const fn precondition(kind: PreconditionKind) -> Self {
        Self::Precondition { kind, excess: None }
    }
}

/// Which precondition of a step failed ([`StepError::Precondition`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PreconditionKind {
    /// The position is off the constraint manifold: `‖g(q)‖∞` above the method's manifold
    /// tolerance.
    OffManifold,
    /// The velocity is not tangent to the constraint manifold: `‖g'(q)v‖∞` above the method's
    /// manifold tolerance.
    NotTangent,
    /// The step's velocity change is out of proportion with the velocity and the forces (a
    /// residual closed over a step too small for it, or a solve that lost its digits).
    VelocityJump,
    /// A rotation matrix is not orthogonal: `‖RᵀR − I‖` above the method's tolerance.
    NotOrthogonal,
    /// The potential provides no banded Hessian where the solver needs one.
    NoBandHessian,
    /// The mass matrix is not diagonal where the solver needs a diagonal one.
    MassNotDiagonal,
    /// The system has noise and the method is deterministic.
    Noisy,
    /// A stiffness matrix (or one of its derivatives) is not diagonal where the exact flow
    /// needs a diagonal one.
    StiffnessNotDiagonal,
    /// A stiffness entry is not positive where the exact flow needs a positive one.
    StiffnessNotPositive,
    /// The map has no adjoint.
    NoAdjoint,
}

impl PreconditionKind {
    /// What failed, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::OffManifold => "position off the constraint manifold",
            Self::NotTangent => "velocity not tangent to the constraint manifold",
            Self::VelocityJump => "velocity change out of proportion with the step",
            Self::NotOrthogonal => "rotation matrix not orthogonal",
            Self::NoBandHessian => "potential has no banded Hessian",
            Self::MassNotDiagonal => "mass matrix not diagonal",
            Self::Noisy => "system has noise",
            Self::StiffnessNotDiagonal => "stiffness not diagonal",
            Self::StiffnessNotPositive => "stiffness entry not positive",
            Self::NoAdjoint => "map has no adjoint",
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;

    #[test]
    fn display_names_the_violated_bound() {
        let beta = crate::zs::ZsParams::with_beta(-0.1_f64)
            .validate()
            .unwrap_err();
        assert_eq!(
            beta.to_string(),
            "parameter `beta` is out of range: must be >= 0"
        );
        let tau = crate::flavor::Params::new(0.01_f64, 0.0).unwrap_err();
        assert_eq!(
            tau.to_string(),
            "parameter `tau` is out of range: must be > 0"
        );
    }
}
