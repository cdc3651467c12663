//! Where the linearly implicit methods are stable on a penalised mechanism: the measured caps of
//! the penalty-frequency study (`reproduce work-precision-omega`).
//!
//! The methods are linearly unconditionally stable for `β ≥ ¼` (000 Thm 2.5), but on a
//! *nonlinear* penalised mechanism they are not: on the seed's double pendulum (000 §4.1,
//! `m₁ = m₂ = g = L₁ = 1`, `L₂ = √2`, the squared-distance penalty `V + ½ω² Σ gᵢ²` of 000
//! eq 1.7, β = 0.4, default guards, `T = 10`) each method has a largest step `h_max(ω)` below
//! which every step of the scan completes and above which the energy guard stops the run
//! (`Diverged { guard: EnergyRun }`). This module holds those caps, measured at ω = 20 … 2000,
//! for Z&S (eq 1.3), Z&Ss (SyLiPN, eq 2.7) = stiff Z&Ss (eq 2.8; the two coincide on this model)
//! and velocity Verlet. Z&S's cap grows in `ωh` like `ω^0.41`, Z&Ss's faster (`ω^0.53`): past
//! `ωh ≈ 6` (ω ≥ 100 at moderate accuracy) prefer Z&Ss / stiff Z&Ss to Z&S. The guards judge
//! the energy drift against the run's own energy scale (the motion, not the pivot's height: see
//! [`crate::guard`]), so a cap is the largest step at which the run's energy error stays within
//! a quarter of its motion's energy. The measured table and the
//! scaling laws read from it: `docs/zs_advice.md` in the repository.
//!
//! [`h_max`] interpolates the caps log–log in ω; [`check`] compares a step with it. Both name the
//! mechanism they answer for ([`Measured`]): the caps depend on the mechanism's geometry, masses
//! and on β, and nothing here transfers them to another mechanism. Outside the measured region
//! (ω ∉ [20, 2000], β ≠ 0.4) the answer is [`Verdict::Unmeasured`]. The caps are those of one
//! initial state over `T = 10`; a longer run or a more energetic state may need a smaller step.
//!
//! **Your own mechanism.** [`measure_h_max`] finds the cap of any integrator on any model by
//! bisection over runs the caller supplies (a closure that builds the integrator at a step `h`,
//! runs it over the horizon and the starts that matter, and says whether every step completed
//! under the guards). On a planar 3-link arm, for example, Z&S fails at steps the seed
//! pendulum's table calls stable; measure instead of borrowing the table.

use crate::validate::check_finite;
use crate::{ConfigError, Real};

/// A method of the measured family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Method {
    /// [`ZhangSkeel`](super::ZhangSkeel), 000 eq 1.3.
    ZhangSkeel,
    /// [`Sylipn`](super::Sylipn), 000 eq 2.7.
    Sylipn,
    /// [`StiffSylipn`](super::StiffSylipn) with the penalty alone in the matrix, 000 eq 2.8.
    StiffSylipn,
    /// [`VelocityVerlet`](crate::baselines::VelocityVerlet) on the penalised model (the
    /// explicit comparison).
    VelocityVerlet,
}

/// Whether a step is inside a method's measured stable region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Verdict {
    /// `h ≤ h_max(ω)`: the measured runs completed.
    Stable,
    /// `h > h_max(ω)`: beyond the measured cap (the run at the next grid step failed).
    BeyondCap,
    /// ω or β outside the measured region: no claim.
    Unmeasured,
}

/// A mechanism the caps were measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Measured {
    /// The seed's penalised double pendulum (000 §4.1: `m₁ = m₂ = g = L₁ = 1`, `L₂ = √2`,
    /// the squared-distance penalty of 000 eq 1.7, [`DoublePendulum::paper`](crate::systems::DoublePendulum::paper)
    /// and its initial state), default guards, `T = 10`.
    SeedDoublePendulum,
}

/// The β of the measurements.
pub const MEASURED_BETA: f64 = 0.4;

/// The measured ω, and per ω the caps of Z&S, Z&Ss (= stiff Z&Ss) and Verlet (the figures
/// `work-precision-omega.<method>.h_max.omega<ω>`; the table in `docs/zs_advice.md`).
const CAPS: [(f64, [f64; 3]); 7] = [
    (20.0, [0.1345434, 0.1600000, 0.02181015]),
    (50.0, [0.09050967, 0.1076347, 0.008724062]),
    (100.0, [0.05868826, 0.07610926, 0.004362031]),
    (200.0, [0.03805463, 0.05381737, 0.002181015]),
    (500.0, [0.02152695, 0.03620387, 0.0008724062]),
    (1000.0, [0.01395850, 0.02560000, 0.0004362031]),
    (2000.0, [0.009050967, 0.01810193, 0.0002181015]),
];

/// The measured largest stable step of `method` on the mechanism `on` at penalty `omega` and
/// parameter `beta` (ignored for Verlet), interpolated log–log between the measured ω; `None`
/// outside the measured region (`20 ≤ ω ≤ 2000`, `β = 0.4` to within 1e-6).
///
/// # Errors
/// [`ConfigError::NonFinite`] for a non-finite `"omega"` or `"beta"`.
///
/// ```
/// use macrostep::zs::advice::{h_max, Measured, Method};
/// let seed = Measured::SeedDoublePendulum;
/// let zs: f64 = h_max(seed, Method::ZhangSkeel, 100.0, 0.4).unwrap().unwrap();
/// let sy = h_max(seed, Method::Sylipn, 100.0, 0.4).unwrap().unwrap();
/// assert!((zs * 100.0 - 5.87).abs() < 0.01); // ωh ≈ 5.9
/// assert!(sy > 1.25 * zs);
/// assert_eq!(h_max(seed, Method::ZhangSkeel, 5000.0, 0.4), Ok(None));
/// ```
pub fn h_max<T: Real>(
    on: Measured,
    method: Method,
    omega: T,
    beta: T,
) -> Result<Option<T>, ConfigError> {
    let Measured::SeedDoublePendulum = on;
    let omega = check_finite(omega, "omega")?.to_f64();
    let beta = check_finite(beta, "beta")?.to_f64();
    let col = match method {
        Method::ZhangSkeel => 0,
        Method::Sylipn | Method::StiffSylipn => 1,
        Method::VelocityVerlet => 2,
    };
    if col != 2 && (beta - MEASURED_BETA).abs() > 1e-6 {
        return Ok(None);
    }
    for pair in CAPS.windows(2) {
        let ((w0, c0), (w1, c1)) = (pair[0], pair[1]);
        if (w0..=w1).contains(&omega) {
            let s = libm::log(omega / w0) / libm::log(w1 / w0);
            let h = libm::exp(libm::log(c0[col]) * (1.0 - s) + libm::log(c1[col]) * s);
            return Ok(Some(T::lit(h)));
        }
    }
    Ok(None)
}

/// Whether the step `h` of `method` at penalty `omega` and parameter `beta` is inside the
/// measured stable region of the mechanism `on` ([`h_max`]).
///
/// # Errors
/// [`ConfigError::StepSize`] for `h ≤ 0` or non-finite; otherwise as [`h_max`].
///
/// ```
/// use macrostep::zs::advice::{check, Measured, Method, Verdict};
/// let seed = Measured::SeedDoublePendulum;
/// // ω = 100, h = 0.07 (ωh = 7): beyond Z&S's cap, inside Z&Ss's.
/// assert_eq!(check(seed, Method::ZhangSkeel, 100.0, 0.07, 0.4), Ok(Verdict::BeyondCap));
/// assert_eq!(check(seed, Method::Sylipn, 100.0, 0.07, 0.4), Ok(Verdict::Stable));
/// assert_eq!(check(seed, Method::Sylipn, 100.0, 0.07, 0.25), Ok(Verdict::Unmeasured));
/// ```
pub fn check<T: Real>(
    on: Measured,
    method: Method,
    omega: T,
    h: T,
    beta: T,
) -> Result<Verdict, ConfigError> {
    let h = crate::validate::check_step(h)?;
    Ok(match h_max(on, method, omega, beta)? {
        None => Verdict::Unmeasured,
        Some(cap) if h <= cap => Verdict::Stable,
        Some(_) => Verdict::BeyondCap,
    })
}

/// The largest step in `[lo, hi]` at which `completes(h)` holds, found by bisection in `log h`
/// to a ratio `hi/lo ≤ 1 + rel_tol`: `completes` builds the caller's integrator at step `h` on
/// the caller's model, runs it over the horizon and the starts that matter, and returns whether
/// every step completed (under the guards the application will use). Returns `None` when
/// `completes(lo)` fails, `Some(hi)` when `completes(hi)` holds.
///
/// The bisection assumes one stable interval `(0, h_max]`, which holds for the penalised
/// mechanisms measured here but not in general (a resonance can fail one step and pass a larger
/// one): check a few steps below the answer in the application. Cost: at most
/// `2 + ⌈log₂(ln(hi/lo) / ln(1 + rel_tol))⌉` calls of `completes`.
///
/// # Errors
/// [`ConfigError::StepSize`] for `lo`/`hi` not finite and positive, [`ConfigError::OutOfRange`]
/// for `lo ≥ hi` (`"lo"`) or `rel_tol` not in `(0, 1]` (`"rel_tol"`).
///
/// ```
/// use macrostep::baselines::VelocityVerlet;
/// use macrostep::systems::DoublePendulum;
/// use macrostep::zs::advice::measure_h_max;
/// use macrostep::Integrator;
///
/// // Verlet on the penalised seed pendulum at ω = 100 over T = 10.
/// let dp = DoublePendulum::<f64>::paper();
/// let cap = measure_h_max(1e-4, 0.1, 0.02, |h| {
///     let mut verlet = VelocityVerlet::new(dp.penalised(100.0).unwrap(), h).unwrap();
///     let mut s = dp.initial_state();
///     verlet.integrate(&mut s, (10.0 / h) as usize).is_ok()
/// })?
/// .unwrap();
/// assert!((0.0043..0.0048).contains(&cap), "{cap}"); // ωh ≈ 0.47
/// # Ok::<(), macrostep::ConfigError>(())
/// ```
pub fn measure_h_max<T: Real>(
    lo: T,
    hi: T,
    rel_tol: T,
    mut completes: impl FnMut(T) -> bool,
) -> Result<Option<T>, ConfigError> {
    let mut lo = crate::validate::check_step(lo)?;
    let mut hi = crate::validate::check_step(hi)?;
    if lo >= hi {
        return Err(ConfigError::OutOfRange {
            name: "lo",
            bound: "< hi",
        });
    }
    if !(rel_tol > T::zero() && rel_tol <= T::one()) {
        return Err(ConfigError::OutOfRange {
            name: "rel_tol",
            bound: "in (0, 1]",
        });
    }
    if !completes(lo) {
        return Ok(None);
    }
    if completes(hi) {
        return Ok(Some(hi));
    }
    // Invariant: completes(lo), !completes(hi). The geometric midpoint halves ln(hi/lo).
    while hi > lo * (T::one() + rel_tol) {
        let mid = (lo * hi).sqrt();
        if !(mid > lo && mid < hi) {
            break;
        }
        if completes(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::VelocityVerlet;
    use crate::systems::DoublePendulum;
    use crate::zs::{Sylipn, ZhangSkeel, ZsParams};
    use crate::Integrator;

    const SEED: Measured = Measured::SeedDoublePendulum;

    /// Runs `method` on the seed's penalised double pendulum at ω over `T = 10` (guards on).
    fn completes(method: Method, omega: f64, h: f64) -> bool {
        let dp = DoublePendulum::<f64>::paper();
        let pen = dp.penalised(omega).unwrap();
        let p = ZsParams::with_beta(MEASURED_BETA);
        let n = (10.0 / h).round() as usize;
        let mut s = dp.initial_state();
        match method {
            Method::ZhangSkeel => ZhangSkeel::new(pen, h, p).unwrap().integrate(&mut s, n),
            Method::Sylipn | Method::StiffSylipn => {
                Sylipn::new(pen, h, p).unwrap().integrate(&mut s, n)
            }
            Method::VelocityVerlet => VelocityVerlet::new(pen, h).unwrap().integrate(&mut s, n),
        }
        .is_ok()
    }

    /// The advice against fresh runs: at measured and in-between ω, a step 3 % under the
    /// advised cap completes `T = 10` and one 15 % over it (past the next grid step, 9 %) fails.
    #[test]
    fn advice_matches_runs_at_and_between_the_measured_omegas() {
        let cases = [
            (Method::ZhangSkeel, 20.0),
            (Method::ZhangSkeel, 100.0),
            (Method::ZhangSkeel, 300.0),
            (Method::ZhangSkeel, 2000.0),
            (Method::Sylipn, 50.0),
            (Method::Sylipn, 1000.0),
            (Method::Sylipn, 700.0),
            (Method::VelocityVerlet, 100.0),
            (Method::VelocityVerlet, 150.0),
        ];
        for (m, w) in cases {
            let cap = h_max(SEED, m, w, MEASURED_BETA).unwrap().unwrap();
            assert!(
                completes(m, w, 0.97 * cap),
                "{m:?} ω = {w}: fails at 0.97·{cap}"
            );
            assert!(
                !completes(m, w, 1.15 * cap),
                "{m:?} ω = {w}: runs at 1.15·{cap}"
            );
            assert_eq!(
                check(SEED, m, w, 0.97 * cap, MEASURED_BETA),
                Ok(Verdict::Stable)
            );
            assert_eq!(
                check(SEED, m, w, 1.15 * cap, MEASURED_BETA),
                Ok(Verdict::BeyondCap)
            );
        }
    }

    #[test]
    fn outside_the_measured_region_is_unmeasured() {
        for w in [10.0, 2500.0] {
            assert_eq!(
                check(SEED, Method::ZhangSkeel, w, 0.01, 0.4),
                Ok(Verdict::Unmeasured)
            );
        }
        assert_eq!(
            check(SEED, Method::StiffSylipn, 100.0, 0.01, 0.5),
            Ok(Verdict::Unmeasured)
        );
        // Verlet has no β: any β is measured.
        assert_eq!(
            check(SEED, Method::VelocityVerlet, 100.0, 0.001, 0.0),
            Ok(Verdict::Stable)
        );
        // f32 gives the same verdicts.
        assert_eq!(
            check(SEED, Method::Sylipn, 100.0f32, 0.07, 0.4),
            Ok(Verdict::Stable)
        );
    }

    #[test]
    fn invalid_inputs_are_typed_errors() {
        let nf = |name| Err(ConfigError::NonFinite { name });
        assert_eq!(check(SEED, Method::Sylipn, f64::NAN, 0.1, 0.4), nf("omega"));
        assert_eq!(
            check(SEED, Method::Sylipn, 100.0, 0.1, f64::INFINITY),
            nf("beta")
        );
        for h in [0.0, -0.1, f64::NAN] {
            assert_eq!(
                check(SEED, Method::Sylipn, 100.0, h, 0.4),
                Err(ConfigError::StepSize)
            );
        }
        assert_eq!(
            h_max(SEED, Method::ZhangSkeel, f64::NAN, 0.4),
            Err(ConfigError::NonFinite { name: "omega" })
        );
    }

    /// Z&S on `dp` penalised at ω over `T = 10` from `dp.initial_state()`, guards on.
    fn zs_completes(dp: &DoublePendulum<f64>, omega: f64, h: f64) -> bool {
        let p = ZsParams::with_beta(MEASURED_BETA);
        let mut zs = ZhangSkeel::new(dp.penalised(omega).unwrap(), h, p).unwrap();
        let mut s = dp.initial_state();
        zs.integrate(&mut s, (10.0 / h).round() as usize).is_ok()
    }

    /// On the seed pendulum the bisection finds the cap of the table (measured by the ω study
    /// on its `2^(1/8)` grid: the true cap lies in `[h_max, 2^(1/8)·h_max)`).
    #[test]
    fn measuring_the_seed_pendulum_finds_the_tabled_cap() {
        let dp = DoublePendulum::<f64>::paper();
        let tabled = h_max(SEED, Method::ZhangSkeel, 100.0, MEASURED_BETA)
            .unwrap()
            .unwrap();
        let found = measure_h_max(1e-3, 0.5, 0.01, |h| zs_completes(&dp, 100.0, h))
            .unwrap()
            .unwrap();
        assert!(
            found >= tabled * 0.99 && found < tabled * 2f64.powf(0.125) * 1.01,
            "measured {found}, tabled {tabled}"
        );
    }

    /// The table does not transfer: on a double pendulum with a light, short first link the
    /// seed's table calls a step stable at which Z&S fails; `measure_h_max` finds this
    /// mechanism's own, much smaller cap.
    #[test]
    fn another_mechanism_has_another_cap() {
        let dp = DoublePendulum::<f64>::new([0.2, 1.0], 1.0, [0.3, 1.0]).unwrap();
        let tabled = h_max(SEED, Method::ZhangSkeel, 100.0, MEASURED_BETA)
            .unwrap()
            .unwrap();
        let h = 0.9 * tabled;
        assert_eq!(
            check(SEED, Method::ZhangSkeel, 100.0, h, MEASURED_BETA),
            Ok(Verdict::Stable)
        );
        assert!(!zs_completes(&dp, 100.0, h));
        let found = measure_h_max(1e-4, 0.5, 0.01, |h| zs_completes(&dp, 100.0, h))
            .unwrap()
            .unwrap();
        assert!(
            found < 0.7 * tabled,
            "measured {found} vs the seed's {tabled}"
        );
        assert!(zs_completes(&dp, 100.0, 0.97 * found));
    }

    #[test]
    fn measure_h_max_brackets_and_rejects_bad_input() {
        // A step function with a known cap: the bisection lands within rel_tol below it.
        let found = measure_h_max(1e-3, 1.0, 1e-3, |h| h <= 0.123)
            .unwrap()
            .unwrap();
        assert!(found <= 0.123 && found > 0.123 / 1.001, "{found}");
        assert_eq!(measure_h_max(1e-3, 1.0, 1e-3, |_| false), Ok(None));
        assert_eq!(measure_h_max(1e-3, 1.0, 1e-3, |_| true), Ok(Some(1.0)));
        assert_eq!(
            measure_h_max(1.0, 1.0, 0.1, |_| true),
            Err(ConfigError::OutOfRange {
                name: "lo",
                bound: "< hi"
            })
        );
        for tol in [0.0, -1.0, 2.0, f64::NAN] {
            assert!(measure_h_max(0.1, 1.0, tol, |_| true).is_err());
        }
        for lo in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert_eq!(
                measure_h_max(lo, 1.0, 0.1, |_| true),
                Err(ConfigError::StepSize)
            );
        }
    }
}
