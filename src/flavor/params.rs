//! FLAVOR step sizes, validated once: the meso-step `δ` and the micro-step `τ`.

use crate::validate::check_finite;
use crate::{ConfigError, Real};

/// FLAVOR step sizes: the meso-step `δ` and the micro-step `τ`, with `0 < τ < δ`.
///
/// The fields are private so that a `Params` exists only validated ([`Params::new`],
/// [`Params::from_macro_step`]); every FLAVOR constructor takes one and checks it again with
/// [`Params::validate`]. A struct literal does not compile:
///
/// ```compile_fail
/// let p = macrostep::flavor::Params { delta: 0.01, tau: 0.5 };
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Params<T> {
    pub(super) delta: T,
    pub(super) tau: T,
}

impl<T: Real> Params<T> {
    /// The meso-step `δ` (the FLAVOR step size).
    #[inline]
    pub fn delta(&self) -> T {
        self.delta
    }

    /// The micro-step `τ` during which the stiffness is on.
    #[inline]
    pub fn tau(&self) -> T {
        self.tau
    }

    /// Validated parameters: meso-step `delta`, micro-step `tau` (004 eqs 2.8, 2.45).
    ///
    /// ```
    /// use macrostep::{flavor::Params, ConfigError};
    /// let p = Params::new(0.01_f64, 1e-4)?;
    /// assert_eq!((p.delta(), p.tau()), (0.01, 1e-4));
    /// assert_eq!(Params::new(0.01_f64, 0.01), Err(ConfigError::Inconsistent { name: "tau < delta" }));
    /// # Ok::<(), ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] (`"delta"`, `"tau"`), [`ConfigError::StepSize`] when `δ ≤ 0`,
    /// [`ConfigError::OutOfRange`] `{ name: "tau" }` when `τ ≤ 0`, and
    /// [`ConfigError::Inconsistent`] `{ name: "tau < delta" }` when `τ ≥ δ`.
    pub fn new(delta: T, tau: T) -> Result<Self, ConfigError> {
        Self { delta, tau }.validate()
    }

    /// The meso-step of the M-sample macro-step form (eq 2.10): `δ = H/M`.
    ///
    /// ```
    /// use macrostep::flavor::Params;
    /// let p = Params::from_macro_step(1.0_f64, 100, 1e-4)?;
    /// assert_eq!(p.delta(), 0.01);
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `{ name: "samples" }` when `M = 0`; otherwise as
    /// [`Params::new`] with `δ = H/M`.
    pub fn from_macro_step(h: T, samples: u32, tau: T) -> Result<Self, ConfigError> {
        if samples == 0 {
            return Err(ConfigError::OutOfRange {
                name: "samples",
                bound: ">= 1",
            });
        }
        Self::new(h / T::lit(f64::from(samples)), tau)
    }

    /// Checks `0 < τ < δ`, both finite, and returns the validated copy.
    ///
    /// ```
    /// use macrostep::flavor::Params;
    /// let p = Params::new(0.01_f64, 1e-4)?;
    /// assert_eq!(p.validate()?, p);
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Params::new`].
    pub fn validate(&self) -> Result<Self, ConfigError> {
        check_finite(self.delta, "delta")?;
        check_finite(self.tau, "tau")?;
        if self.delta <= T::zero() {
            return Err(ConfigError::StepSize);
        }
        if self.tau <= T::zero() {
            return Err(ConfigError::OutOfRange {
                name: "tau",
                bound: "> 0",
            });
        }
        if self.tau >= self.delta {
            return Err(ConfigError::Inconsistent {
                name: "tau < delta",
            });
        }
        Ok(*self)
    }

    /// The micro-step for a FLAVOR step of signed length `h`: `τ` itself for `h = ±δ`, else
    /// `τ·h/δ` (the ratio `τ/δ` is kept, so `Θ_{−δ}` runs the same sub-steps backwards).
    #[inline]
    pub(crate) fn tau_for(&self, h: T) -> T {
        if h == self.delta {
            self.tau
        } else if h == -self.delta {
            -self.tau
        } else {
            self.tau * (h / self.delta)
        }
    }

    /// The fast-clock time at the start of a step from real time `t`: `t·τ/δ` (eq 2.115).
    #[inline]
    pub(crate) fn clock(&self, t: T) -> T {
        t * (self.tau / self.delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_reject_bad_input() {
        assert_eq!(
            Params::new(0.01_f64, 0.01).unwrap_err(),
            ConfigError::Inconsistent {
                name: "tau < delta"
            }
        );
        assert_eq!(
            Params::new(0.01_f64, 0.02).unwrap_err(),
            ConfigError::Inconsistent {
                name: "tau < delta"
            }
        );
        assert_eq!(
            Params::new(0.01_f64, 0.0).unwrap_err(),
            ConfigError::OutOfRange {
                name: "tau",
                bound: "> 0"
            }
        );
        assert_eq!(
            Params::new(0.01_f64, -1e-4).unwrap_err(),
            ConfigError::OutOfRange {
                name: "tau",
                bound: "> 0"
            }
        );
        assert_eq!(
            Params::new(-0.01_f64, 1e-4).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Params::new(f64::NAN, 1e-4).unwrap_err(),
            ConfigError::NonFinite { name: "delta" }
        );
        assert_eq!(
            Params::new(0.01, f32::INFINITY).unwrap_err(),
            ConfigError::NonFinite { name: "tau" }
        );
        assert_eq!(
            Params::from_macro_step(1.0_f64, 0, 1e-4).unwrap_err(),
            ConfigError::OutOfRange {
                name: "samples",
                bound: ">= 1"
            }
        );
        let p = Params::from_macro_step(1.0_f64, 100, 1e-4).unwrap();
        assert_eq!(p.delta, 0.01);
        assert_eq!(p.tau_for(-0.01), -1e-4);
        assert!((p.tau_for(0.005) - 5e-5).abs() < 1e-18);
    }
}
