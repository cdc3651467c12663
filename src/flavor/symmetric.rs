//! The symplectic and time-reversible FLAVOR, 004 eq 2.47 (Theorem 2.2.3).

use super::form::{Flavor, SymmetricForm};
use super::{LegacyMap, Params, NEEDS_ADJOINT};
use crate::{ConfigError, Real};

/// Symmetric FLAVOR (004 eq 2.47, Theorem 2.2.3), built from a legacy map `Φ` and its adjoint
/// `Φ*`:
///
/// ```text
/// Θ_δ = Φ^{1/ε,*}_{τ/2} ∘ Φ^{0,*}_{(δ−τ)/2} ∘ Φ^0_{(δ−τ)/2} ∘ Φ^{1/ε}_{τ/2}
/// ```
///
/// (the thesis prints the outer steps as `Φ^{1/2}_{δ/2}`, a typo: the sub-steps must add up to
/// `δ`, and the stiff ones last `τ/2`). With symplectic Euler (eq 2.49) and its adjoint
/// (eq 2.50) the two middle steps are a velocity Verlet step of the soft system (§2.2.5).
///
/// Properties: symmetric/time-reversible (`Θ_{−δ} ∘ Θ_δ = id`, with `step_by(−δ)` using `−τ`),
/// symplectic when `Φ` is, first order in `δ` for the slow variables (the averaging error
/// dominates); four legacy steps per FLAVOR step. It steps through
/// [`Integrator`](crate::Integrator); the step guards check finiteness, the clock and the
/// velocity jump (when on), not the energy (see the [module docs](super), "Stepping and the
/// guards").
///
/// # Errors
/// Construction: as [`Params::validate`], and [`ConfigError::Inconsistent`]
/// `{ name: NEEDS_ADJOINT }` (see [`NEEDS_ADJOINT`]) when the legacy map has no adjoint —
/// checked at construction, at run time. Step: as
/// [`Integrator::step_by`](crate::Integrator::step_by) (input checks, a non-finite result, the
/// guards) and the legacy map's errors; the state is unchanged on error.
///
/// Over symplectic Euler and its adjoint it is built in one call,
/// [`Symmetric::symplectic_euler`]; the long way round, for any legacy map with an adjoint:
///
/// ```
/// use macrostep::{baselines::{EulerOrdering, SymplecticEuler}, flavor::{Params, Switched, Symmetric},
///                 model::{Mass, Quadratic, Split, System}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
/// let se = SymplecticEuler::new(System::new(Mass::identity(), split), 1e-4, EulerOrdering::KickDrift).unwrap();
/// let mut flavor = Symmetric::new(Switched::symplectic_euler(se).unwrap(),
///                                 Params::new(0.01, 1e-4).unwrap()).unwrap();
/// let s0 = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
/// let mut s = s0;
/// flavor.integrate(&mut s, 10).unwrap();
/// for _ in 0..10 { flavor.step_by(&mut s, -0.01).unwrap(); }
/// assert!((s.q - s0.q).amax() < 1e-12 && (s.v - s0.v).amax() < 1e-10);
/// ```
pub type Symmetric<T, L, const N: usize> = Flavor<T, L, SymmetricForm, N>;

impl<T: Real, L: LegacyMap<T, N>, const N: usize> Symmetric<T, L, N> {
    /// The symmetric FLAVOR (004 eq 2.47) of `legacy` with steps `params` (see the type's
    /// example).
    ///
    /// ```
    /// use macrostep::flavor::{ExplicitEuler, Params, StiffOde, Symmetric, NEEDS_ADJOINT};
    /// use macrostep::ConfigError;
    /// use nalgebra::{vector, SVector};
    /// struct Relax; // u̇ = 1 − αu
    /// impl StiffOde<f64, 1> for Relax {
    ///     fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> { vector![1.0] }
    ///     fn stiff(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> { -u }
    /// }
    /// // Forward Euler has no adjoint.
    /// let euler = ExplicitEuler::new(Relax, 100.0)?;
    /// let err = Symmetric::new(euler, Params::new(0.01, 1e-3)?).err();
    /// assert_eq!(err, Some(ConfigError::Inconsistent { name: NEEDS_ADJOINT }));
    /// # Ok::<(), ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Params::validate`]; [`ConfigError::Inconsistent`] `{ name: NEEDS_ADJOINT }` when the
    /// legacy map has no adjoint.
    pub fn new(legacy: L, params: Params<T>) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        if !legacy.has_adjoint() {
            return Err(ConfigError::Inconsistent {
                name: NEEDS_ADJOINT,
            });
        }
        Ok(Self::from_parts(legacy, params))
    }
}
