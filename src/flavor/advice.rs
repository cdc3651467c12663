//! Choosing `τ` and `δ` from `ε` (the thesis's rule of thumb) and checking linear stability
//! (Theorem 2.5.1 and the fast-mode bound).
//!
//! Rule of thumb (004 §2.1.2, Remark 2.1.6, §2.2.2): with a small `γ` (0.1 for instance),
//! - first-order stiff ODEs `u̇ = G + F/ε`: `τ = γε`, `δ = γτ/ε`;
//! - mechanical systems `M q̈ = −∇V − ∇U/ε`: `τ = γ√ε`, `δ = γτ/√ε`.
//!
//! Linear stability of the nonintrusive FLAVOR over symplectic Euler:
//! - a stiff mode of frequency `ω` (`ω² = λ_max(M⁻¹∇²U)/ε`) is stable iff `δτω² < 4`: the
//!   one-step matrix of `Φ⁰_{δ−τ} ∘ Φ^ω_τ` on `q̈ = −ω²q` is `[[1 − δτω², δ], [−τω², 1]]`, with
//!   determinant 1 and trace `2 − δτω²`;
//! - the slow modes (frequency `ω_s`) need `δω_s < 2` (Theorem 2.5.1: `δ < 2` on system 2.93,
//!   valid when `τω² ≪ 1`; the exact threshold is `2 − τω²/2 + O(τ²ω⁴)`).
//!
//! The rule of thumb gives `δτω² = γ³/√ε`, which exceeds 4 once `ε < (γ³/4)²` (`ε < 6·10⁻⁸` for
//! `γ = 0.1`); [`check`] says so, and [`mechanical`] then shrinks `δ` to half the fast bound.
//!
//! The artificial FLAVOR freezes the stiff coordinates during the long step; its stiff sub-step is
//! one symplectic Euler step of length `τ`, stable iff `τω < 2`, and its slow bound on 2.93 is
//! `δ < 2√2`.
//!
//! # Time-dependent stiff forcing (eq 2.115)
//! A FLAVOR reads a stiff forcing of angular frequency `Ω` on the fast clock `t·τ/δ` and applies
//! it for `τ` once per `δ`: in real time the slow variables see the forcing at the *slowed*
//! frequency `Ωτ/δ`, with `δ/τ` times the displacement amplitude (the same velocity amplitude,
//! hence the same averaged effect in the limit). The averaging is valid only while the slowed
//! forcing is still fast compared with the slow motion (frequency `ω_s`):
//!
//! ```text
//! Ω τ/δ ≫ ω_s.
//! ```
//!
//! This is a constraint on `R = δ/τ` alone, on top of the legacy map's own accuracy at step `τ`;
//! the error is, to leading order, the sum of the two (measured on Kapitza's pendulum, 004
//! §2.6.6, by `reproduce kapitza`). There (`Ω = 2π·1000`, `ω_s ≈ 12`, `l = 9`) the averaging error
//! of the window-averaged angle over T = 10 (≈ 20 slow periods) is ≈ `2·10⁻⁴ R²`
//! (`Ωτ/(δω_s)` = 100, 50, 13 at `R` = 5, 10, 40 give 5·10⁻³, 2·10⁻², 0.33 on a swing of 0.35)
//! and the upright position is lost near `R = 160` (`Ωτ/(δω_s) ≈ 3`), while the legacy
//! (variational Euler) needs `τ ≈ h₀/8 = 8·10⁻⁶` for an error of 5·10⁻³: the thesis's
//! `δ = 0.002` (`R = 30` at its `τ = h₀`, `R = 240` at an accurate `τ`) cannot be accurate, and
//! the usable speed-up is a few (`R = 5`). The error grows like `(R ω_s/Ω)²` times the number of
//! slow periods simulated. [`forcing_separation`] computes `Ωτ/(δω_s)`; [`check_forcing`] flags
//! it below [`FORCING_SEPARATION`].

use crate::validate::check_in_positive_range;
use crate::{ConfigError, Real};

use super::Params;

/// Which linear stability bound a parameter choice violates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Violation {
    /// `δτω² ≥ 4`: the fastest stiff mode is unstable under the nonintrusive FLAVOR.
    FastMode,
    /// `δω_s ≥ 2`: the slow dynamics is unstable (Theorem 2.5.1, `δ < 2` for `ω_s = 1`).
    SlowMode,
    /// `τω ≥ 2`: the micro-step does not resolve the stiff mode (legacy symplectic Euler).
    MicroStep,
    /// `Ωτ/δ < FORCING_SEPARATION·ω_s`: a time-dependent stiff forcing of frequency `Ω`, slowed
    /// by the FLAVOR to `Ωτ/δ`, is no longer fast compared with the slow motion (module docs).
    SlowedForcing,
}

/// The smallest ratio `Ωτ/(δω_s)` of the slowed forcing frequency to the slow frequency that
/// [`check_forcing`] accepts: 50, where Kapitza's pendulum over 20 slow periods is off by ≈ 6 %
/// of its swing in window averages (`R = δ/τ = 10`; module docs). Stricter accuracy needs a
/// larger ratio (the error scales like its inverse square).
pub const FORCING_SEPARATION: f64 = 50.0;

/// `Ωτ/(δω_s)`: how much faster than the slow motion (frequency `omega_slow`) a stiff forcing of
/// angular frequency `omega_forcing` still is after the FLAVOR slows it to `Ωτ/δ` (eq 2.115).
///
/// ```
/// use macrostep::flavor::{advice, Params};
/// // Kapitza's pendulum (004 §2.6.6): Ω = 2π·1000, slow period ≈ 0.52.
/// let (big, slow) = (2.0 * core::f64::consts::PI * 1000.0, 2.0 * core::f64::consts::PI / 0.52);
/// let thesis = Params::new(0.002, 0.2 / 1000.0 / 3.0).unwrap(); // δ/τ = 30
/// assert!(advice::forcing_separation(&thesis, big, slow) < 20.0);
/// assert_eq!(advice::check_forcing(&thesis, big, slow), Some(advice::Violation::SlowedForcing));
/// let ok = Params::new(3.125e-5, 6.25e-6).unwrap(); // δ/τ = 5
/// assert_eq!(advice::check_forcing(&ok, big, slow), None);
/// ```
pub fn forcing_separation<T: Real>(params: &Params<T>, omega_forcing: T, omega_slow: T) -> T {
    omega_forcing * params.tau / (params.delta * omega_slow)
}

/// Checks a FLAVOR on a system with a time-dependent stiff forcing of angular frequency
/// `omega_forcing` and slow frequency `omega_slow`: [`Violation::SlowedForcing`] when
/// [`forcing_separation`] is below [`FORCING_SEPARATION`] (or not a number). It does not check the
/// legacy map's accuracy at step `τ`, which must resolve `omega_forcing` on its own.
pub fn check_forcing<T: Real>(
    params: &Params<T>,
    omega_forcing: T,
    omega_slow: T,
) -> Option<Violation> {
    let ratio = forcing_separation(params, omega_forcing, omega_slow);
    if ratio >= T::lit(FORCING_SEPARATION) {
        None
    } else {
        Some(Violation::SlowedForcing)
    }
}

/// A proposed parameter set and its stability verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advice<T> {
    /// The proposed steps.
    pub params: Params<T>,
    /// The first bound violated by the proposal, if any (after any correction).
    pub violation: Option<Violation>,
}

/// Checks a nonintrusive FLAVOR (symplectic Euler legacy map) on modes of frequencies
/// `omega_fast` (stiff) and `omega_slow` (soft) against the linear stability bounds.
///
/// Returns the first violated bound: micro-step, fast mode, slow mode.
pub fn check<T: Real>(params: &Params<T>, omega_fast: T, omega_slow: T) -> Option<Violation> {
    let two = T::lit(2.0);
    if params.tau * omega_fast >= two {
        Some(Violation::MicroStep)
    } else if params.delta * params.tau * omega_fast * omega_fast >= two * two {
        Some(Violation::FastMode)
    } else if params.delta * omega_slow >= two {
        Some(Violation::SlowMode)
    } else {
        None
    }
}

/// Checks an artificial FLAVOR: micro-step `τω < 2`, slow `δω_s < 2√2`.
pub fn check_artificial<T: Real>(
    params: &Params<T>,
    omega_fast: T,
    omega_slow: T,
) -> Option<Violation> {
    let two = T::lit(2.0);
    if params.tau * omega_fast >= two {
        Some(Violation::MicroStep)
    } else if params.delta * omega_slow >= two * two.sqrt() {
        Some(Violation::SlowMode)
    } else {
        None
    }
}

/// Rule of thumb for a mechanical system with stiffness `1/ε`: `τ = γ√ε`, `δ = γτ/√ε`, where
/// `omega_fast = √(λ_max/ε)` is the fastest stiff frequency and `omega_slow` the fastest soft one.
/// If the proposal violates the fast-mode bound `δτω² < 4`, `δ` is reduced to `2/(τω²)` (half the
/// bound) and the result says which bound was hit first.
///
/// # Errors
/// [`ConfigError::OutOfRange`] for `ε`, `γ` or the frequencies not positive and finite
/// (`"epsilon"`, `"gamma"`, `"omega"`), and [`Params::new`]'s errors if the proposal is
/// degenerate (e.g. `γ ≥ 1` making `τ ≥ δ`).
pub fn mechanical<T: Real>(
    epsilon: T,
    gamma: T,
    omega_fast: T,
    omega_slow: T,
) -> Result<Advice<T>, ConfigError> {
    check_in_positive_range(epsilon, "epsilon")?;
    check_in_positive_range(gamma, "gamma")?;
    check_in_positive_range(omega_fast, "omega")?;
    if !(omega_slow.finite() && omega_slow >= T::zero()) {
        return Err(ConfigError::OutOfRange {
            name: "omega",
            bound: ">= 0 (omega_slow)",
        });
    }
    let se = epsilon.sqrt();
    let tau = gamma * se;
    let mut delta = gamma * tau / se;
    let first = check(&Params { delta, tau }, omega_fast, omega_slow);
    if first == Some(Violation::FastMode) {
        delta = T::lit(2.0) / (tau * omega_fast * omega_fast);
    }
    let params = Params::new(delta, tau)?;
    Ok(Advice {
        params,
        violation: first.or(check(&params, omega_fast, omega_slow)),
    })
}

/// Rule of thumb for a first-order stiff ODE with stiffness `1/ε`: `τ = γε`, `δ = γτ/ε`.
///
/// # Errors
/// [`ConfigError::OutOfRange`] for `ε`, `γ` not positive and finite; [`Params::new`]'s errors.
pub fn first_order<T: Real>(epsilon: T, gamma: T) -> Result<Params<T>, ConfigError> {
    check_in_positive_range(epsilon, "epsilon")?;
    check_in_positive_range(gamma, "gamma")?;
    let tau = gamma * epsilon;
    Params::new(gamma * tau / epsilon, tau)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig_2_4_parameters_are_flagged() {
        // Eq 2.100: λ_max of the stiff matrix with ω₁ = 1.1, ω₂ = 0.97 is ≈ 3.10; ε = 1e-6.
        let w = (3.1_f64 / 1e-6).sqrt();
        let p = Params::new(0.01, 5e-4).unwrap();
        assert_eq!(check(&p, w, 1.0), Some(Violation::FastMode));
        let ok = Params::new(0.01, 1e-4).unwrap();
        assert_eq!(check(&ok, w, 1.0), None);
    }

    #[test]
    fn slowed_forcing_is_flagged() {
        // Kapitza (004 §2.6.6): Ω = 2π·1000, ω_s = 2π/0.52. R = 10 passes, R = 20 does not.
        let big = 2.0 * core::f64::consts::PI * 1000.0;
        let slow = 2.0 * core::f64::consts::PI / 0.52;
        let r10 = Params::new(1e-4, 1e-5).unwrap();
        assert!((forcing_separation(&r10, big, slow) - 52.0).abs() < 1e-9);
        assert_eq!(check_forcing(&r10, big, slow), None);
        let r20 = Params::new(2e-4, 1e-5).unwrap();
        assert_eq!(
            check_forcing(&r20, big, slow),
            Some(Violation::SlowedForcing)
        );
        assert_eq!(
            check_forcing(&r10, big, f64::NAN),
            Some(Violation::SlowedForcing)
        );
        let r10f = Params::new(1e-4_f32, 1e-5).unwrap();
        assert_eq!(check_forcing(&r10f, big as f32, slow as f32), None);
    }

    #[test]
    fn rule_of_thumb() {
        let a = mechanical(1e-6_f64, 0.1, 1e3, 1.0).unwrap();
        assert!((a.params.tau - 1e-4).abs() < 1e-15);
        assert!((a.params.delta - 1e-2).abs() < 1e-12);
        assert_eq!(a.violation, None);
        // ε = 1e-10: δτω² = γ³/√ε = 10 > 4, corrected to 2.
        let b = mechanical(1e-10_f64, 0.1, 1e5, 1.0).unwrap();
        assert_eq!(b.violation, Some(Violation::FastMode));
        assert!((b.params.delta * b.params.tau * 1e10 - 2.0).abs() < 1e-9);
        let c = first_order(1e-3_f64, 0.05).unwrap();
        assert!((c.tau - 5e-5).abs() < 1e-18 && (c.delta - 2.5e-3).abs() < 1e-15);
        assert_eq!(
            mechanical(0.0_f64, 0.1, 1.0, 1.0).unwrap_err(),
            ConfigError::OutOfRange {
                name: "epsilon",
                bound: "> 0"
            }
        );
        assert_eq!(
            first_order(1e-3_f64, f64::NAN).unwrap_err(),
            ConfigError::OutOfRange {
                name: "gamma",
                bound: "> 0"
            }
        );
    }
}
