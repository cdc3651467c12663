//! Validation in one place: the checks every constructor and every step uses.
//!
//! Constructors return [`ConfigError`]; a value that validated once is never re-checked per step.
//! Steps return [`StepError`] and check only what can change per call, the signed step `h` and
//! the state, once, in the step driver ([`crate::driver`]). Each check returns the checked value
//! so it chains: `let h = check_step(h)?;`.
//!
//! Public so that a user's own method or model reports the same configuration errors as the
//! crate's:
//!
//! ```
//! use macrostep::validate::{check_nonnegative, check_positive, check_step};
//! use macrostep::ConfigError;
//!
//! assert_eq!(check_step(0.01_f64), Ok(0.01));
//! assert_eq!(check_step(-0.01_f64), Err(ConfigError::StepSize));
//! assert_eq!(check_positive(0.0_f64, "k"), Err(ConfigError::OutOfRange { name: "k", bound: "> 0" }));
//! assert_eq!(check_nonnegative(f64::NAN, "c"), Err(ConfigError::NonFinite { name: "c" }));
//! ```

use crate::{ConfigError, Real, State, StepError};

/// A configured step size: positive and finite.
///
/// # Errors
/// [`ConfigError::StepSize`].
pub fn check_step<T: Real>(h: T) -> Result<T, ConfigError> {
    if h.finite() && h > T::zero() {
        Ok(h)
    } else {
        Err(ConfigError::StepSize)
    }
}

/// A parameter that must be finite.
///
/// # Errors
/// [`ConfigError::NonFinite`] naming the parameter.
pub fn check_finite<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if x.finite() {
        Ok(x)
    } else {
        Err(ConfigError::NonFinite { name })
    }
}

/// Every entry of a parameter array finite (a vector, a matrix's entries).
///
/// # Errors
/// [`ConfigError::NonFinite`] naming the parameter.
pub fn check_all_finite<T: Real>(xs: &[T], name: &'static str) -> Result<(), ConfigError> {
    if xs.iter().all(|x| x.finite()) {
        Ok(())
    } else {
        Err(ConfigError::NonFinite { name })
    }
}

/// A parameter that must be finite and `> 0`.
///
/// # Errors
/// [`ConfigError::NonFinite`], then [`ConfigError::OutOfRange`] `{ bound: "> 0" }`.
pub fn check_positive<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if !x.finite() {
        Err(ConfigError::NonFinite { name })
    } else if x <= T::zero() {
        Err(ConfigError::OutOfRange { name, bound: "> 0" })
    } else {
        Ok(x)
    }
}

/// Every entry of a parameter array finite and `> 0` (frequencies, penalty weights), checked entry
/// by entry as [`check_positive`]: the first bad entry decides the error.
///
/// # Errors
/// [`ConfigError::NonFinite`] or [`ConfigError::OutOfRange`] `{ bound: "> 0" }` naming the
/// parameter.
pub fn check_all_positive<T: Real>(xs: &[T], name: &'static str) -> Result<(), ConfigError> {
    for &x in xs {
        check_positive(x, name)?;
    }
    Ok(())
}

/// A parameter that must be finite and `≥ 0`.
///
/// # Errors
/// [`ConfigError::NonFinite`], then [`ConfigError::OutOfRange`] `{ bound: ">= 0" }`.
pub fn check_nonnegative<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if !x.finite() {
        Err(ConfigError::NonFinite { name })
    } else if x < T::zero() {
        Err(ConfigError::OutOfRange {
            name,
            bound: ">= 0",
        })
    } else {
        Ok(x)
    }
}

/// A value that must lie in `(0, ∞)`, reporting every failure, NaN and `∞` included, as
/// [`ConfigError::OutOfRange`] `{ bound: "> 0" }` (for the inputs of a rule of thumb, where the
/// range is what the caller has to fix; see [`crate::flavor::advice`]).
///
/// # Errors
/// [`ConfigError::OutOfRange`] `{ bound: "> 0" }`.
pub fn check_in_positive_range<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if x.finite() && x > T::zero() {
        Ok(x)
    } else {
        Err(ConfigError::OutOfRange { name, bound: "> 0" })
    }
}

/// A quantity derived at construction (an inverse, a square, a product of parameters): finite
/// and, when non-zero, with a finite reciprocal (a subnormal that would overflow when divided by
/// is refused).
///
/// # Errors
/// [`ConfigError::Overflow`] naming the quantity.
pub fn check_derived<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if x.finite() && (x == T::zero() || (T::one() / x).finite()) {
        Ok(x)
    } else {
        Err(ConfigError::Overflow { name })
    }
}

/// A count that must be at least one (an iteration cap, a number of steps or bodies).
///
/// # Errors
/// [`ConfigError::OutOfRange`] `{ bound: ">= 1" }`.
pub fn check_count(n: u32, name: &'static str) -> Result<u32, ConfigError> {
    if n >= 1 {
        Ok(n)
    } else {
        Err(ConfigError::OutOfRange {
            name,
            bound: ">= 1",
        })
    }
}

/// The preconditions of every step, checked by the step driver ([`crate::driver`]) before a
/// method proposes: a signed `h` that is non-zero and finite (negative steps run a method
/// backwards) and a finite state.
///
/// # Errors
/// [`StepError::StepSize`], [`StepError::NonFiniteState`].
#[inline]
pub(crate) fn check_step_input<T: Real, const N: usize>(
    state: &State<T, N>,
    h: T,
) -> Result<(), StepError> {
    if !(h.finite() && h != T::zero()) {
        return Err(StepError::StepSize);
    }
    if !state.is_finite() {
        return Err(StepError::NonFiniteState);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::vector;

    #[test]
    fn each_check_names_its_failure() {
        let range = |bound| ConfigError::OutOfRange { name: "x", bound };
        let nonfinite = ConfigError::NonFinite { name: "x" };
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(check_step(bad), Err(ConfigError::StepSize));
            assert_eq!(check_in_positive_range(bad, "x"), Err(range("> 0")));
        }
        assert_eq!(check_step(2.0_f32), Ok(2.0));
        assert_eq!(check_finite(f64::NEG_INFINITY, "x"), Err(nonfinite));
        assert_eq!(check_finite(-3.0_f64, "x"), Ok(-3.0));
        assert_eq!(check_all_finite(&[1.0, f64::NAN], "x"), Err(nonfinite));
        assert_eq!(check_all_finite(&[1.0_f64, -2.0], "x"), Ok(()));
        assert_eq!(check_positive(f64::NAN, "x"), Err(nonfinite));
        assert_eq!(check_positive(0.0_f64, "x"), Err(range("> 0")));
        assert_eq!(check_positive(1e-300_f64, "x"), Ok(1e-300));
        assert_eq!(
            check_all_positive(&[1.0, f64::NAN, -1.0], "x"),
            Err(nonfinite)
        );
        assert_eq!(
            check_all_positive(&[1.0, -1.0, f64::NAN], "x"),
            Err(range("> 0"))
        );
        assert_eq!(check_all_positive(&[1.0_f64, 2.0], "x"), Ok(()));
        assert_eq!(check_nonnegative(f64::INFINITY, "x"), Err(nonfinite));
        assert_eq!(check_nonnegative(-1e-300_f64, "x"), Err(range(">= 0")));
        assert_eq!(check_nonnegative(0.0_f64, "x"), Ok(0.0));
        assert_eq!(check_in_positive_range(0.5_f64, "x"), Ok(0.5));
        let overflow = ConfigError::Overflow { name: "x" };
        assert_eq!(check_derived(f64::MAX * 2.0, "x"), Err(overflow));
        assert_eq!(check_derived(1e-320_f64, "x"), Err(overflow)); // 1/x overflows
        assert_eq!(check_derived(0.0_f64, "x"), Ok(0.0));
        assert_eq!(check_count(0, "x"), Err(range(">= 1")));
        assert_eq!(check_count(1, "x"), Ok(1));
    }

    #[test]
    fn step_checks() {
        let good = State::new(0.0, vector![1.0_f64], vector![0.0]);
        let bad = State::new(0.0, vector![f64::NAN], vector![0.0]);
        assert_eq!(check_step_input(&good, -0.1), Ok(()));
        for bad_h in [0.0, f64::NAN, f64::INFINITY] {
            assert_eq!(check_step_input(&good, bad_h), Err(StepError::StepSize));
        }
        assert_eq!(check_step_input(&bad, 0.1), Err(StepError::NonFiniteState));
    }
}
