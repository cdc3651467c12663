//! Velocity Verlet (Störmer–Verlet in velocity form).

use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::{Potential, System};
use crate::{validate::check_step, ConfigError, Real, State, StepError};
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

impl<T: Real, P: Potential<T, N>, const N: usize> Guarded<T, N> for VelocityVerlet<T, P, N> {
    type Probe<'a>
        = &'a System<T, P, N>
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, &System<T, P, N>) {
        (&mut self.watch, &self.system)
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> Method<T, N> for VelocityVerlet<T, P, N> {
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let half = h * T::lit(0.5);
        let a0 = self.acceleration_at(&state.q);
        // In place in `next`: `next.v` holds `v½` until the second kick.
        next.v = state.v + a0 * half;
        next.q = state.q + next.v * h;
        let a1 = self.system.acceleration(&next.q);
        next.v += a1 * half;
        // Keyed on the position: valid whether or not the driver commits this proposal.
        self.cache = Some((next.q, a1));
        Ok(T::zero())
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for VelocityVerlet<T, crate::forcing::Actuated<T, P, N>, N>
{
    crate::forcing::actuate_impl!(self, self.cache = None);
}
