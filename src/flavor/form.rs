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

use crate::sealed::Sealed;

#[doc(hidden)]
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
    /// the fast clock `t·τ/δ`: the nonintrusive composition (eq 2.45, fused where the legacy map
    /// fuses it) or the symmetric one (eq 2.47), on the working state `next`.
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

/// The legacy map's held force, held over the whole FLAVOR step (stiff and soft sub-steps).
/// Setting it does not restart the guard run; the FLAVOR's guards bound no energy, so the work
/// of the force needs no accounting.
impl<T, L, F, const N: usize> crate::forcing::Actuate<T, N> for Flavor<T, L, F, N>
where
    T: Real,
    L: LegacyMap<T, N> + crate::forcing::Actuate<T, N>,
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.legacy.force()
    }

    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        self.legacy.set_force(u)
    }
}

#[cfg(test)]
mod tests {
    use crate::flavor::{ExplicitEuler, Nonintrusive, Params, StiffOde, Symmetric};
    use crate::model::{Mass, Quadratic, Split, System};
    use crate::{Guards, Integrator, State, StepError, Stepper};
    use nalgebra::{matrix, vector, SVector};

    fn system() -> System<f64, Split<f64, Quadratic<f64, 2>, Quadratic<f64, 2>>, 2> {
        let split = Split::new(
            Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
            Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]),
            1e4,
        );
        System::new(Mass::identity(), split)
    }

    /// The FLAVOR owns its guards: what is set is what is read, for both forms.
    #[test]
    fn guards_set_are_guards_read() {
        let g = Guards {
            velocity_step: Some(3.0),
            ..Guards::off()
        };
        let mut f = Nonintrusive::symplectic_euler(system(), 0.01, 1e-4).unwrap();
        assert_eq!(f.guards(), Guards::default());
        f.set_guards(g).unwrap();
        assert_eq!(f.guards(), g);
        let f = Symmetric::symplectic_euler(system(), 0.01, 1e-4)
            .unwrap()
            .with_guards(g)
            .unwrap();
        assert_eq!(f.guards(), g);
        let bad = Guards {
            velocity_step: Some(-1.0),
            ..Guards::off()
        };
        let mut f = f;
        assert!(f.set_guards(bad).is_err());
        assert_eq!(f.guards(), g);
    }

    /// The velocity guard is the FLAVOR's: a step whose velocity jumps by more is refused and
    /// the state is left as it was.
    #[test]
    fn the_velocity_guard_refuses_a_jump() {
        let mut f = Nonintrusive::symplectic_euler(system(), 0.01, 1e-4)
            .unwrap()
            .with_guards(Guards {
                velocity_step: Some(1e-3),
                ..Guards::off()
            })
            .unwrap();
        let s0 = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
        let mut s = s0;
        assert!(matches!(f.step(&mut s), Err(StepError::Diverged { .. })));
        assert_eq!(s, s0);
    }

    struct Decay;
    impl StiffOde<f64, 1> for Decay {
        fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> {
            vector![0.0]
        }
        fn stiff(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> {
            -u
        }
    }

    /// An ODE FLAVOR steps through the driver: input checks, the compensated clock, `v` kept.
    #[test]
    fn ode_flavor_steps_through_the_driver() {
        let p = Params::new(0.1, 1e-2).unwrap();
        let mut f = Nonintrusive::new(ExplicitEuler::new(Decay, 10.0).unwrap(), p).unwrap();
        let mut s = State::at_rest(vector![1.0]);
        f.integrate(&mut s, 1000).unwrap();
        assert_eq!(s.t, 100.0);
        assert_eq!(s.v[0], 0.0);
        assert!(s.q[0] > 0.0 && s.q[0] < 1e-3);
        let bad = State::at_rest(vector![f64::NAN]);
        let mut x = bad;
        assert_eq!(f.step(&mut x), Err(StepError::NonFiniteState));
        assert_eq!(f.step_by(&mut s, 0.0), Err(StepError::StepSize));
    }
}
