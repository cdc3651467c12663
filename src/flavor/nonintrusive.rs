//! The nonintrusive FLAVOR, 004 eqs 2.8 / 2.34 / 2.45, and its macro-step form eq 2.10.

use super::form::{Flavor, NonintrusiveForm};
use super::{LegacyMap, Params};
use crate::{ConfigError, Integrator, Real, State, StepError};

/// Nonintrusive FLAVOR (004 eq 2.45; eq 2.34 for general stiff ODEs; eq 2.77 for SDEs when the
/// legacy map is random, e.g. [`EulerMaruyama`](super::EulerMaruyama)):
///
/// ```text
/// Θ_δ = Φ⁰_{δ−τ} ∘ Φ^{1/ε}_τ
/// ```
///
/// one legacy step of length `τ` with the stiffness on, then one of length `δ − τ` with it off
/// (a legacy map may fuse the two: with [`FusedEuler`](super::FusedEuler) a FLAVOR step costs one
/// symplectic Euler step).
/// [`Nonintrusive::macro_step`] takes `M` of them at once: `Φ_H = (Φ⁰_{δ−τ}∘Φ^{1/ε}_τ)^M` with
/// `H = Mδ` (eq 2.10).
///
/// Properties: first order in `δ` for the slow variables and F-convergent for the fast ones when
/// `τ ≪ √ε ≪ δ`, `τ²/ε ≪ δ ≪ τ/√ε` (mechanical) or `τ ≪ ε ≪ δ`, `(τ/ε)² ≪ δ ≪ τ/ε` (first
/// order) — Theorems 2.1.1, 2.1.3; symplectic when the legacy map is (Theorem 2.2.2); explicit
/// when it is; two legacy steps per FLAVOR step (one with [`FusedEuler`](super::FusedEuler)), so
/// the speed-up over the legacy integrator at step `τ` ([`Legacy`](super::Legacy)) is
/// `δ/τ·c_full/(c_full + c_soft)`, or ≈ `δ/τ` with the fused map (`benches/flavor.rs`). Not
/// symmetric (see [`Symmetric`](super::Symmetric)). Linear stability: see the
/// [module docs](super) (`δτω² < 4` for the fastest mode, `δ < 2` on 2.93).
///
/// It steps through [`Integrator`]: `step_by(h)` uses the micro-step `τ·h/δ` (so `h = −δ` runs
/// `Θ_δ`'s sub-steps backwards); the stiff sub-step of the step starting at time `t` sees the fast
/// clock `t·τ/δ`. The step guards check finiteness, the clock and the velocity jump (when on),
/// not the energy: the FLAVOR does not conserve the stiff system's energy (see the
/// [module docs](super), "Stepping and the guards").
///
/// # Errors
/// Construction: as [`Params::validate`]. Step: as [`Integrator::step_by`] (input checks, a
/// non-finite result, the clock, the guards) and the legacy map's errors. The state is unchanged
/// on error.
///
/// The common stacks are built in one call from `(system, δ, τ)` (see
/// [`Nonintrusive::symplectic_euler`], [`Nonintrusive::fused_euler`], [`Nonintrusive::verlet`]);
/// [`Nonintrusive::new`] takes any legacy map and validated [`Params`].
///
/// ```
/// use macrostep::{flavor::Nonintrusive, model::{Mass, Quadratic, Split, System}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// // System 2.93: H = ½|p|² + ½x² + ½ω²(y − x)², ω = 100.
/// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
/// // Kick–drift symplectic Euler as the legacy map, δ = 0.01, τ = 1e-4.
/// let mut flavor = Nonintrusive::symplectic_euler(System::new(Mass::identity(), split), 0.01, 1e-4)?;
/// let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
/// flavor.integrate(&mut s, 100)?; // T = 1 in 100 steps
/// // The slow variable (x+y)/2 follows s̈ = −s/2 (the fast y − x averages to zero).
/// assert!(((s.q[0] + s.q[1]) / 2.0 - 0.8055 * 0.5_f64.sqrt().cos()).abs() < 0.02);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub type Nonintrusive<T, L, const N: usize> = Flavor<T, L, NonintrusiveForm, N>;

impl<T: Real, L: LegacyMap<T, N>, const N: usize> Nonintrusive<T, L, N> {
    /// The nonintrusive FLAVOR (004 eq 2.45) of `legacy` with steps `params`.
    ///
    /// ```
    /// use macrostep::flavor::{ExplicitEuler, Nonintrusive, Params, StiffOde};
    /// use macrostep::{Integrator, State};
    /// use nalgebra::{vector, SVector};
    /// struct Relax; // u̇ = 1 − αu
    /// impl StiffOde<f64, 1> for Relax {
    ///     fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> { vector![1.0] }
    ///     fn stiff(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> { -u }
    /// }
    /// let euler = ExplicitEuler::new(Relax, 100.0)?;
    /// let mut flavor = Nonintrusive::new(euler, Params::new(0.01, 1e-3)?)?;
    /// let mut s = State::at_rest(vector![1.0]); // u = q
    /// flavor.integrate(&mut s, 100)?;
    /// assert!((s.t - 1.0).abs() < 1e-12 && s.q[0].is_finite());
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Params::validate`].
    pub fn new(legacy: L, params: Params<T>) -> Result<Self, ConfigError> {
        Ok(Self::from_parts(legacy, params.validate()?))
    }

    /// The macro-step of eq 2.10: `M` FLAVOR steps (`H = Mδ`), all or nothing.
    ///
    /// # Errors
    /// As [`Integrator::step`]; the state is unchanged if any of the `M` steps fails.
    pub fn macro_step(&mut self, state: &mut State<T, N>, samples: u32) -> Result<(), StepError> {
        let mut x = *state;
        for _ in 0..samples {
            self.step(&mut x)?;
        }
        *state = x;
        Ok(())
    }
}
