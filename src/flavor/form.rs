//! The shared body of the nonintrusive and symmetric FLAVORs: [`Flavor`] holds the legacy map
//! and the step sizes, scales the micro-step to the signed step and sets the fast clock; what one
//! FLAVOR step composes is its strategy parameter `F` ([`FlavorForm`]). [`Nonintrusive`] (eq 2.45)
//! and [`Symmetric`] (eq 2.47) are aliases of `Flavor` with one form each (the
//! `VecInner`/alias pattern of heapless and nalgebra).

use super::{symmetric_core, LegacyMap, Params};
#[cfg(doc)]
use super::{Nonintrusive, Symmetric};
use crate::validate::check_signed_step;
use crate::{ConfigError, Integrator, Real, State, StepError};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// What one FLAVOR step composes: implemented by [`NonintrusiveForm`] (eq 2.45) and
/// [`SymmetricForm`] (eq 2.47); sealed.
pub trait FlavorForm: Sealed {
    /// Whether the step is the symmetric composition of eq 2.47 (`Θ_{−h} ∘ Θ_h = id`) rather
    /// than the nonintrusive one of eq 2.45.
    const SYMMETRIC: bool;
}

/// The form of [`Nonintrusive`]: `Θ_h = Φ⁰_{h−τ} ∘ Φ^α_τ` (eq 2.45), through
/// [`LegacyMap::flavor_step`].
#[derive(Clone, Copy, Debug, Default)]
pub struct NonintrusiveForm;

/// The form of [`Symmetric`]: `Θ_h = Φ^{α,*}_{τ/2} ∘ Φ^{0,*}_{(h−τ)/2} ∘ Φ^0_{(h−τ)/2} ∘ Φ^α_{τ/2}`
/// (eq 2.47).
#[derive(Clone, Copy, Debug, Default)]
pub struct SymmetricForm;

impl Sealed for NonintrusiveForm {}
impl Sealed for SymmetricForm {}

impl FlavorForm for NonintrusiveForm {
    const SYMMETRIC: bool = false;
}

impl FlavorForm for SymmetricForm {
    const SYMMETRIC: bool = true;
}

/// A FLAVOR of form `F` over the legacy map `L`: the common body of [`Nonintrusive`] and
/// [`Symmetric`] (see those for the equations, properties and errors).
#[derive(Clone, Copy, Debug)]
pub struct Flavor<T: Real, L, F> {
    pub(super) legacy: L,
    pub(super) params: Params<T>,
    form: PhantomData<F>,
}

impl<T: Real, L: LegacyMap<T>, F: FlavorForm> Flavor<T, L, F> {
    /// The FLAVOR of `legacy` with steps `params`, without the form's own checks.
    pub(super) fn from_parts(legacy: L, params: Params<T>) -> Self {
        Self {
            legacy,
            params,
            form: PhantomData,
        }
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }

    /// The legacy map.
    pub fn legacy(&self) -> &L {
        &self.legacy
    }

    /// Mutable access to the legacy map.
    pub fn legacy_mut(&mut self) -> &mut L {
        &mut self.legacy
    }

    /// One FLAVOR step of signed length `h` (micro-step `τ·h/δ`), for any state type (the
    /// [`Integrator::step_by`] of a mechanical FLAVOR, also for [`OdeState`](super::OdeState)s):
    /// [`LegacyMap::flavor_step`] (nonintrusive), or the symmetric composition on a copy of the
    /// state, committed on success.
    ///
    /// # Errors
    /// [`StepError::StepSize`] for a zero or non-finite `h`; the legacy map's errors. The state
    /// is unchanged on error.
    pub fn step_by(&mut self, state: &mut L::State, h: T) -> Result<(), StepError> {
        check_signed_step(h)?;
        let tau = self.params.tau_for(h);
        let clock = self.params.clock(L::time(state));
        if F::SYMMETRIC {
            let mut x = *state;
            symmetric_core(&mut self.legacy, &mut x, h, tau, clock)?;
            *state = x;
            Ok(())
        } else {
            self.legacy.flavor_step(state, h, tau, clock)
        }
    }

    /// One FLAVOR step of length `δ`.
    ///
    /// # Errors
    /// As [`Flavor::step_by`].
    pub fn step(&mut self, state: &mut L::State) -> Result<(), StepError> {
        let d = self.params.delta;
        self.step_by(state, d)
    }

    /// Deprecated name of [`Flavor::step_by`].
    ///
    /// # Errors
    /// As [`Flavor::step_by`].
    #[deprecated(since = "0.3.0", note = "renamed to `step_by`")]
    pub fn advance_by(&mut self, state: &mut L::State, h: T) -> Result<(), StepError> {
        self.step_by(state, h)
    }

    /// Deprecated name of [`Flavor::step`].
    ///
    /// # Errors
    /// As [`Flavor::step`].
    #[deprecated(since = "0.3.0", note = "renamed to `step`")]
    pub fn advance(&mut self, state: &mut L::State) -> Result<(), StepError> {
        self.step(state)
    }
}

// The meso-step `δ`, for any state type.
crate::integrator::impl_stepper!(impl[T: Real, L: LegacyMap<T>, F] Flavor<T, L, F> => params.delta);

impl<T, L, F, const N: usize> Integrator<T, N> for Flavor<T, L, F>
where
    T: Real,
    L: LegacyMap<T, State = State<T, N>>,
    F: FlavorForm,
{
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = L::SYMPLECTIC;
    const SYMMETRIC: bool = F::SYMMETRIC;

    /// Forwarded to the legacy map ([`LegacyMap::set_guards`]).
    fn set_guards(&mut self, guards: crate::Guards<T>) -> Result<(), ConfigError> {
        self.legacy.set_guards(guards)
    }

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        // The inherent method (any state type), not this one.
        Flavor::step_by(self, state, h)
    }
}

/// The legacy map's held force, held over the whole FLAVOR step (stiff and soft sub-steps).
impl<T: Real, L: LegacyMap<T> + crate::forcing::Actuate<T, N>, F, const N: usize>
    crate::forcing::Actuate<T, N> for Flavor<T, L, F>
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.legacy.force()
    }
    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        self.legacy.set_force(u)
    }
}
