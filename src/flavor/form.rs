//! The shared body of the nonintrusive and symmetric FLAVORs: [`Flavor`] holds the legacy map,
//! the step sizes and the guard memory, scales the micro-step to the signed step and sets the
//! fast clock; what one FLAVOR step composes is its strategy parameter `F` ([`FlavorForm`]).
//! [`Nonintrusive`] (eq 2.45) and [`Symmetric`] (eq 2.47) are aliases of `Flavor` with one form
//! each (the `VecInner`/alias pattern of heapless and nalgebra).

use super::{symmetric_core, LegacyMap, Params};
#[cfg(doc)]
use super::{Nonintrusive, Symmetric};
use crate::driver::{Guarded, Method};
use crate::guard::{NoProbe, Watch};
use crate::{Real, State, StepError};
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

/// A FLAVOR of form `F` over the legacy map `L` on `N` coordinates: the common body of
/// [`Nonintrusive`] and [`Symmetric`] (see those for the equations, properties and errors).
///
/// The FLAVOR is the integrator: it steps through the step driver ([`crate::driver`]) like every
/// method of the crate and owns the guard memory, read and replaced with
/// [`Stepper::guards`](crate::Stepper::guards) and [`Stepper::set_guards`](crate::Stepper::set_guards).
/// The guards have no energy to bound ([`NoProbe`]): a FLAVOR does not conserve the energy of
/// the stiff system (see the [module docs](super), "Stepping and the guards").
#[derive(Clone, Copy, Debug)]
pub struct Flavor<T: Real, L, F, const N: usize> {
    pub(super) legacy: L,
    pub(super) params: Params<T>,
    watch: Watch<T, N>,
    form: PhantomData<F>,
}

impl<T: Real, L: LegacyMap<T, N>, F: FlavorForm, const N: usize> Flavor<T, L, F, N> {
    /// The FLAVOR of `legacy` with steps `params` and the default guards, without the form's
    /// own checks.
    pub(super) fn from_parts(legacy: L, params: Params<T>) -> Self {
        Self {
            legacy,
            params,
            watch: Watch::default(),
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

    /// Mutable access to the legacy map; the next step starts a new guard run (the model may
    /// change).
    pub fn legacy_mut(&mut self) -> &mut L {
        self.watch.restart();
        &mut self.legacy
    }
}

impl<T: Real, L: LegacyMap<T, N>, F: FlavorForm, const N: usize> Guarded<T, N>
    for Flavor<T, L, F, N>
{
    /// No energy or residual guard: see the [module docs](super), "Stepping and the guards".
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    /// The meso-step `δ`.
    fn step_size(&self) -> T {
        self.params.delta
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T: Real, L: LegacyMap<T, N>, F: FlavorForm, const N: usize> Method<T, N>
    for Flavor<T, L, F, N>
{
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = L::SYMPLECTIC;
    const SYMMETRIC: bool = F::SYMMETRIC;

    /// One FLAVOR step of signed length `h` with the micro-step `τ·h/δ`, the stiff sub-steps on
    /// the fast clock `t·τ/δ`: [`LegacyMap::flavor_step`] (nonintrusive) or the symmetric
    /// composition, on the working state `next`.
    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let tau = self.params.tau_for(h);
        let clock = self.params.clock(state.t);
        if F::SYMMETRIC {
            symmetric_core(&mut self.legacy, next, h, tau, clock)
        } else {
            self.legacy.flavor_step(next, h, tau, clock)
        }
    }
}

/// The legacy map's held force, held over the whole FLAVOR step (stiff and soft sub-steps). A
/// change of force is accounted in the FLAVOR's guard memory (see [`crate::forcing`]): the run
/// goes on.
impl<T, L, F, const N: usize> crate::forcing::Actuate<T, N> for Flavor<T, L, F, N>
where
    T: Real,
    L: LegacyMap<T, N> + crate::forcing::Actuate<T, N>,
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.legacy.force()
    }

    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        if self.legacy.force() == u {
            return Ok(());
        }
        let du = u - self.legacy.force();
        self.legacy.set_force(u)?;
        self.watch.account(|last| -du.dot(&last.q));
        Ok(())
    }
}
