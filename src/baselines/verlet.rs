//! Velocity Verlet (Störmer–Verlet in velocity form).

use crate::guard::Watch;
use crate::model::{Potential, System};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};
use nalgebra::SVector;

/// Velocity Verlet: `v½ = v + ½h a(q)`, `q' = q + h v½`, `v' = v½ + ½h a(q')`, with
/// `a(q) = −M⁻¹∇V(q)`.
///
/// Second order, symplectic, symmetric. The acceleration at the end of a step is cached and
/// reused at the start of the next when the position is bit-identical (first same as last), so a
/// run costs one gradient per step. [`VelocityVerlet::system_mut`] clears the cache.
///
/// ```
/// use macrostep::{baselines::VelocityVerlet, systems::HarmonicOscillator, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut vv = VelocityVerlet::new(osc.system(), 0.01).unwrap();
/// let mut s = osc.initial_state();
/// let e0 = osc.system().energy(&s);
/// vv.integrate(&mut s, 1000).unwrap();
/// assert!((osc.system().energy(&s) - e0).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct VelocityVerlet<T: Real, P, const N: usize> {
    system: System<T, P, N>,
    h: T,
    cache: Option<(SVector<T, N>, SVector<T, N>)>,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> VelocityVerlet<T, P, N> {
    /// Velocity Verlet with step `h`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] when `h` is not positive and finite.
    pub fn new(system: System<T, P, N>, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            system,
            h: check_step(h)?,
            cache: None,
            watch: Watch::default(),
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// Mutable access to the system; clears the cached acceleration.
    pub fn system_mut(&mut self) -> &mut System<T, P, N> {
        self.cache = None;
        self.watch.restart();
        &mut self.system
    }

    fn acceleration_at(&self, q: &SVector<T, N>) -> SVector<T, N> {
        match &self.cache {
            Some((cq, ca)) if cq == q => *ca,
            _ => self.system.acceleration(q),
        }
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, P: Potential<T, N>, const N: usize] VelocityVerlet<T, P, N> => h
);

impl<T: Real, P: Potential<T, N>, const N: usize> Integrator<T, N> for VelocityVerlet<T, P, N> {
    crate::watched::claims_and_watch!(order: 2, symplectic: true, symmetric: true);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let half = h * T::lit(0.5);
        let a0 = self.acceleration_at(&state.q);
        let vh = state.v + a0 * half;
        let q = state.q + vh * h;
        let a1 = self.system.acceleration(&q);
        let v = vh + a1 * half;
        self.watch.commit(
            state,
            &State {
                t: state.t + h,
                q,
                v,
            },
            h,
            &self.system,
        )?;
        self.cache = Some((q, a1));
        Ok(())
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for VelocityVerlet<T, crate::forcing::Actuated<T, P, N>, N>
{
    crate::forcing::actuate_impl!(self, self.cache = None);
}
