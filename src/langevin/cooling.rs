//! Finite-horizon cooling schedules for annealed sampling (004 §6.3.3 eq 6.5, §6.4.3 eqs
//! 6.33–6.38).
//!
//! A schedule maps the step number `n = 1, …, N` to a temperature `T(n)` with `T(N) = T_f`, the
//! temperature at which the Boltzmann–Gibbs measure is wanted; after `N` steps it stays at `T_f`
//! (the run goes on sampling at the target temperature).
//!
//! # Decisions where the seed is silent or inconsistent
//! - **Indexing.** The thesis writes the schedules for `n = 1, …, N` (the inverse logarithmic one
//!   is infinite at `n = 0`); the `k`-th step taken (`k = 0, 1, …`) uses `T(k + 1)`.
//! - **Shifted inverse log (6.34)** prints `T(n) = T_f + C/log(n + 1)` *and* "`T(N)` is set to be
//!   `T_f`", which contradict each other. We subtract the offset at `N`:
//!   `T(n) = T_f + C (1/ln(n + 1) − 1/ln(N + 1))`, so `T(N) = T_f` and `C` keeps its meaning.
//! - **Exponential (6.35)** is `T(n) = T_f r^{N−n}` with the ratio `r > 1` *per step*, as printed
//!   (the thesis's Fig 6.5 constant "`C = 1.5`" cannot be per step — `1.5^{N−1}` overflows for
//!   `N = 3000`; the reproduction reads it as the overall ratio `T(0)/T_f`, `r = 1.5^{1/N}`).
//! - **Shifted exponential (6.36)**, `T(n) = T_f + C̃ C^{−n}` with `C̃ = 10⁻⁴ T_f C^N`, is
//!   parametrised by its first temperature `T(1)` as in Fig 6.5 ("`T(1) = 2T_f`"), which fixes
//!   `C = (10⁴ (T(1) − T_f)/T_f)^{1/(N−1)}`; `C > 1` needs `T(1) > (1 + 10⁻⁴) T_f`. Its
//!   `T(N) = (1 + 10⁻⁴) T_f`, as printed.

use crate::validate::check_finite;
use crate::{ConfigError, Real};

/// The family of a cooling schedule and its free parameter (004 eqs 6.33–6.38).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Cooling<T> {
    /// No annealing: `T(n) = T_f` (plain or tuned GLA).
    Constant,
    /// Inverse logarithmic, eq 6.33: `T(n) = T_f ln(N + 1)/ln(n + 1)` (no free parameter).
    InverseLog,
    /// Shifted inverse logarithmic, eq 6.34 (see the module docs):
    /// `T(n) = T_f + C (1/ln(n + 1) − 1/ln(N + 1))`, `C > 0`.
    ShiftedInverseLog {
        /// `C > 0`.
        c: T,
    },
    /// Exponential, eq 6.35: `T(n) = T_f r^{N−n}`, ratio per step `r > 1`.
    Exponential {
        /// `r > 1`, per step.
        ratio: T,
    },
    /// Shifted exponential, eq 6.36, given its first temperature `T(1) > (1 + 10⁻⁴) T_f`.
    ShiftedExponential {
        /// `T(1)`.
        initial: T,
    },
    /// Linear, eq 6.37: `T(n) = (n/N) T_f + (1 − n/N) T_i`, `T_i > T_f`.
    Linear {
        /// `T_i`.
        initial: T,
    },
    /// Inverse linear, eqs 6.5 / 6.38: `1/T(n) = (n/N)/T_f + (1 − n/N)/T_i`, `T_i > T_f` (the
    /// chapter's recommended schedule).
    InverseLinear {
        /// `T_i`.
        initial: T,
    },
}

/// A validated cooling schedule over `N` steps ending at `T_f` (004 §6.3.3, §6.4.3).
///
/// ```
/// use macrostep::langevin::{Cooling, Schedule};
/// // eq 6.5 with T_i = 10 T_f: β interpolates linearly from 1/T_i to 1/T_f.
/// let s = Schedule::<f64>::new(Cooling::InverseLinear { initial: 1.0 }, 0.1, 100).unwrap();
/// assert!((s.beta(100) - 10.0).abs() < 1e-12);
/// assert!((s.beta(50) - 5.5).abs() < 1e-12);
/// assert_eq!(s.temperature(1000), 0.1); // after N steps: stays at T_f
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule<T: Real> {
    cooling: Cooling<T>,
    t_final: T,
    steps: usize,
    /// Per-family constant fixed at construction: `ln(N + 1)`, `ln r`, or `ln` of the
    /// shifted-exponential decay per step.
    k: T,
}

impl<T: Real> Default for Schedule<T> {
    /// No annealing at unit temperature: [`Cooling::Constant`] with `T_f = 1`
    /// ([`constant_temperature`](super::constant_temperature)`(1)`).
    fn default() -> Self {
        Self {
            cooling: Cooling::Constant,
            t_final: T::one(),
            steps: 1,
            k: T::zero(),
        }
    }
}

const SHIFTED_EXP_TAIL: f64 = 1e-4;

/// `x > than`, else `OutOfRange { name, bound }` (`bound` states `than` in words).
fn greater<T: Real>(
    x: T,
    than: T,
    name: &'static str,
    bound: &'static str,
) -> Result<T, ConfigError> {
    let x = check_finite(x, name)?;
    if x > than {
        Ok(x)
    } else {
        Err(ConfigError::OutOfRange { name, bound })
    }
}

impl<T: Real> Schedule<T> {
    /// A schedule of family `cooling` over `steps ≥ 1` steps ending at `t_final > 0`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"temperature"` (`T_f ≤ 0`),
    /// `"steps"` (zero), `"c"` (`≤ 0`), `"ratio"` (`≤ 1`), `"initial"` (`T_i ≤ T_f`, or
    /// `T(1) ≤ (1 + 10⁻⁴)T_f` for the shifted exponential); [`ConfigError::Overflow`] for
    /// `"temperature"` when the hottest temperature `T(1)` overflows the scalar type.
    pub fn new(cooling: Cooling<T>, t_final: T, steps: usize) -> Result<Self, ConfigError> {
        let t_final = greater(t_final, T::zero(), "temperature", "> 0")?;
        if steps == 0 {
            return Err(ConfigError::OutOfRange {
                name: "steps",
                bound: ">= 1",
            });
        }
        let n = T::lit(steps as f64);
        let k = match cooling {
            Cooling::Constant => T::zero(),
            Cooling::InverseLog => (n + T::one()).ln(),
            Cooling::ShiftedInverseLog { c } => {
                greater(c, T::zero(), "c", "> 0")?;
                (n + T::one()).ln()
            }
            Cooling::Exponential { ratio } => greater(ratio, T::one(), "ratio", "> 1")?.ln(),
            Cooling::ShiftedExponential { initial } => {
                let tail = T::lit(SHIFTED_EXP_TAIL);
                let initial = greater(
                    initial,
                    t_final * (T::one() + tail),
                    "initial",
                    "> (1 + 1e-4) t_final",
                )?;
                // T(n) − T_f = (T(1) − T_f) e^{−k(n−1)}, e^{−k(N−1)} = 10⁻⁴ T_f/(T(1) − T_f).
                let span = T::lit(steps.saturating_sub(1).max(1) as f64);
                ((initial - t_final) / (tail * t_final)).ln() / span
            }
            Cooling::Linear { initial } | Cooling::InverseLinear { initial } => {
                greater(initial, t_final, "initial", "> t_final")?;
                T::zero()
            }
        };
        let s = Self {
            cooling,
            t_final,
            steps,
            k,
        };
        let hottest = s.temperature(1);
        if !(hottest.finite() && (T::one() / hottest) > T::zero()) {
            return Err(ConfigError::Overflow {
                name: "temperature",
            });
        }
        Ok(s)
    }

    /// The family and its parameter.
    pub fn cooling(&self) -> Cooling<T> {
        self.cooling
    }

    /// The final temperature `T_f`.
    pub fn final_temperature(&self) -> T {
        self.t_final
    }

    /// The horizon `N` (steps).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// `T(n)` for the step number `n ≥ 1` (`n = 0` is read as `1`; `n ≥ N` gives `T(N)`).
    pub fn temperature(&self, n: usize) -> T {
        let n = n.clamp(1, self.steps);
        let tf = self.t_final;
        let nf = T::lit(n as f64);
        let frac = nf / T::lit(self.steps as f64);
        match self.cooling {
            Cooling::Constant => tf,
            Cooling::InverseLog => tf * self.k / (nf + T::one()).ln(),
            Cooling::ShiftedInverseLog { c } => {
                tf + c * (T::one() / (nf + T::one()).ln() - T::one() / self.k)
            }
            Cooling::Exponential { .. } => tf * (self.k * T::lit((self.steps - n) as f64)).exp(),
            Cooling::ShiftedExponential { initial } => {
                tf + (initial - tf) * (-self.k * T::lit((n - 1) as f64)).exp()
            }
            Cooling::Linear { initial } => frac * tf + (T::one() - frac) * initial,
            Cooling::InverseLinear { initial } => {
                T::one() / (frac / tf + (T::one() - frac) / initial)
            }
        }
    }

    /// `β(n) = 1/T(n)`.
    pub fn beta(&self, n: usize) -> T {
        T::one() / self.temperature(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_ends_at_t_final_and_starts_hot() {
        let tf = 0.1f64;
        let n = 3000;
        for c in [
            Cooling::Constant,
            Cooling::InverseLog,
            Cooling::ShiftedInverseLog { c: 0.001 },
            Cooling::Exponential {
                ratio: 1.5f64.powf(0.01),
            },
            Cooling::Linear { initial: 0.2 },
            Cooling::InverseLinear { initial: 1.0 },
        ] {
            let s = Schedule::new(c, tf, n).unwrap();
            assert!((s.temperature(n) - tf).abs() < 1e-15, "{c:?}");
            assert!(s.temperature(1) >= tf, "{c:?}");
            // monotone non-increasing
            for k in 1..n {
                assert!(
                    s.temperature(k + 1) <= s.temperature(k) * (1.0 + 1e-14),
                    "{c:?}"
                );
            }
        }
        let s = Schedule::new(Cooling::ShiftedExponential { initial: 0.2 }, tf, n).unwrap();
        assert!((s.temperature(1) - 0.2).abs() < 1e-12);
        assert!((s.temperature(n) - tf * (1.0 + 1e-4)).abs() < 1e-12);
        // closed forms at a middle point
        let s = Schedule::new(Cooling::Linear { initial: 0.2 }, tf, 100).unwrap();
        assert!((s.temperature(25) - (0.25 * 0.1 + 0.75 * 0.2)).abs() < 1e-15);
        let s = Schedule::new(Cooling::InverseLog, tf, 100).unwrap();
        assert!((s.temperature(9) - tf * 101f64.ln() / 10f64.ln()).abs() < 1e-14);
    }

    #[test]
    fn rejects_bad_parameters() {
        let e = |c, tf, n| Schedule::<f64>::new(c, tf, n).err();
        let oor = |name, bound| Some(ConfigError::OutOfRange { name, bound });
        // (schedule, T_f, steps) and the OutOfRange it must give: (name, bound).
        let out_of_range = [
            (Cooling::Constant, 0.0, 10, "temperature", "> 0"),
            (Cooling::Constant, 1.0, 0, "steps", ">= 1"),
            (Cooling::ShiftedInverseLog { c: 0.0 }, 1.0, 9, "c", "> 0"),
            (Cooling::Exponential { ratio: 1.0 }, 1.0, 9, "ratio", "> 1"),
            (
                Cooling::Linear { initial: 1.0 },
                1.0,
                9,
                "initial",
                "> t_final",
            ),
            (
                Cooling::InverseLinear { initial: 0.5 },
                1.0,
                9,
                "initial",
                "> t_final",
            ),
            (
                Cooling::ShiftedExponential { initial: 1.00001 },
                1.0,
                9,
                "initial",
                "> (1 + 1e-4) t_final",
            ),
        ];
        for (c, tf, n, name, bound) in out_of_range {
            assert_eq!(e(c, tf, n), oor(name, bound), "{c:?}");
        }
        assert_eq!(
            e(Cooling::Constant, f64::NAN, 10),
            Some(ConfigError::NonFinite {
                name: "temperature"
            })
        );
        assert_eq!(
            e(Cooling::Exponential { ratio: 2.0 }, 1.0, 5000),
            Some(ConfigError::Overflow {
                name: "temperature"
            })
        );
        assert_eq!(
            Schedule::<f32>::new(Cooling::Exponential { ratio: 1.1 }, 1.0, 1000).err(),
            Some(ConfigError::Overflow {
                name: "temperature"
            })
        );
    }

    #[test]
    fn single_step_horizon_is_t_final() {
        for c in [
            Cooling::InverseLog,
            Cooling::Linear { initial: 2.0f32 },
            Cooling::InverseLinear { initial: 2.0 },
        ] {
            let s = Schedule::new(c, 1.0f32, 1).unwrap();
            assert!((s.temperature(1) - 1.0).abs() < 1e-6, "{c:?}");
        }
    }
}
