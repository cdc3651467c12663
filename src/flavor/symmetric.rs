//! The symplectic and time-reversible FLAVOR, 004 eq 2.47 (Theorem 2.2.3).

use super::{symmetric_core, LegacyMap, Params, NEEDS_ADJOINT};
use crate::validate::check_signed_step;
use crate::{ConfigError, Integrator, Real, State, StepError};

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
/// dominates); four legacy steps per FLAVOR step.
///
/// # Errors
/// Construction: as [`Params::new`], and [`ConfigError::Inconsistent`] `{ name: NEEDS_ADJOINT }`
/// (see [`NEEDS_ADJOINT`]) when the legacy map has no adjoint — checked at construction, at run
/// time, through [`LegacyMap::has_adjoint`]. Step: [`StepError::StepSize`] and the legacy map's
/// errors; the state is unchanged on error.
///
/// Over symplectic Euler and its adjoint it is built in one call,
/// [`Symmetric::symplectic_euler`]; the long way round, for any legacy map with an adjoint:
///
/// ```
/// use macrostep::{baselines::{Ordering, SymplecticEuler}, flavor::{Params, Switched, Symmetric},
///                 model::{Mass, Quadratic, Split, System}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
/// let se = SymplecticEuler::new(System::new(Mass::identity(), split), 1e-4, Ordering::KickDrift).unwrap();
/// let mut flavor = Symmetric::new(Switched::symplectic_euler(se).unwrap(),
///                                 Params::new(0.01, 1e-4).unwrap()).unwrap();
/// let s0 = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
/// let mut s = s0;
/// flavor.integrate(&mut s, 10).unwrap();
/// for _ in 0..10 { flavor.step_by(&mut s, -0.01).unwrap(); }
/// assert!((s.q - s0.q).amax() < 1e-12 && (s.v - s0.v).amax() < 1e-10);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Symmetric<T: Real, L> {
    legacy: L,
    params: Params<T>,
}

impl<T: Real, L: LegacyMap<T>> Symmetric<T, L> {
    /// The symmetric FLAVOR of `legacy`.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `{ name: NEEDS_ADJOINT }` when `legacy.has_adjoint()` is
    /// false.
    pub fn new(legacy: L, params: Params<T>) -> Result<Self, ConfigError> {
        if !legacy.has_adjoint() {
            return Err(ConfigError::Inconsistent {
                name: NEEDS_ADJOINT,
            });
        }
        Ok(Self { legacy, params })
    }

    /// As [`Symmetric::new`] from raw `delta`, `tau`.
    ///
    /// # Errors
    /// As [`Params::new`] and [`Symmetric::new`].
    pub fn try_new(legacy: L, delta: T, tau: T) -> Result<Self, ConfigError> {
        Self::new(legacy, Params::new(delta, tau)?)
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }

    /// One FLAVOR step of signed length `h` (micro-step `τ·h/δ`), for any state type (the
    /// [`Integrator::step_by`] of a mechanical FLAVOR, also for [`OdeState`](super::OdeState)s).
    ///
    /// # Errors
    /// [`StepError::StepSize`] for a zero or non-finite `h`; the legacy map's errors. The state
    /// is unchanged on error.
    pub fn step_by(&mut self, state: &mut L::State, h: T) -> Result<(), StepError> {
        check_signed_step(h)?;
        let tau = self.params.tau_for(h);
        let c0 = self.params.clock(L::time(state));
        let mut x = *state;
        symmetric_core(&mut self.legacy, &mut x, h, tau, c0)?;
        *state = x;
        Ok(())
    }

    /// One FLAVOR step of length `δ`.
    ///
    /// # Errors
    /// As [`Symmetric::step_by`].
    pub fn step(&mut self, state: &mut L::State) -> Result<(), StepError> {
        let d = self.params.delta;
        self.step_by(state, d)
    }

    /// Deprecated name of [`Symmetric::step_by`].
    ///
    /// # Errors
    /// As [`Symmetric::step_by`].
    #[deprecated(since = "0.3.0", note = "renamed to `step_by`")]
    pub fn advance_by(&mut self, state: &mut L::State, h: T) -> Result<(), StepError> {
        self.step_by(state, h)
    }

    /// Deprecated name of [`Symmetric::step`].
    ///
    /// # Errors
    /// As [`Symmetric::step`].
    #[deprecated(since = "0.3.0", note = "renamed to `step`")]
    pub fn advance(&mut self, state: &mut L::State) -> Result<(), StepError> {
        self.step(state)
    }
}

// The meso-step `δ`, for any state type.
crate::integrator::impl_stepper!(impl[T: Real, L: LegacyMap<T>] Symmetric<T, L> => params.delta);

impl<T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize> Integrator<T, N>
    for Symmetric<T, L>
{
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = L::SYMPLECTIC;
    const SYMMETRIC: bool = true;

    /// Forwarded to the legacy map ([`LegacyMap::set_guards`]).
    fn set_guards(&mut self, guards: crate::Guards<T>) -> Result<(), ConfigError> {
        self.legacy.set_guards(guards)
    }

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        // The inherent method (any state type), not this one.
        Symmetric::step_by(self, state, h)
    }
}

/// The legacy map's held force, held over the whole FLAVOR step (stiff and soft sub-steps).
impl<T: Real, L: LegacyMap<T> + crate::forcing::Actuate<T, N>, const N: usize>
    crate::forcing::Actuate<T, N> for Symmetric<T, L>
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.legacy.force()
    }
    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        self.legacy.set_force(u)
    }
}
