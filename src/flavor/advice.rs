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
    positive(epsilon, "epsilon")?;
    positive(gamma, "gamma")?;
    positive(omega_fast, "omega")?;
    if !(omega_slow.finite() && omega_slow >= T::zero()) {
        return Err(ConfigError::OutOfRange { name: "omega" });
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
    positive(epsilon, "epsilon")?;
    positive(gamma, "gamma")?;
    let tau = gamma * epsilon;
    Params::new(gamma * tau / epsilon, tau)
}

fn positive<T: Real>(x: T, name: &'static str) -> Result<T, ConfigError> {
    if x.finite() && x > T::zero() {
        Ok(x)
    } else {
        Err(ConfigError::OutOfRange { name })
    }
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
            ConfigError::OutOfRange { name: "epsilon" }
        );
        assert_eq!(
            first_order(1e-3_f64, f64::NAN).unwrap_err(),
            ConfigError::OutOfRange { name: "gamma" }
        );
    }
}
