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

    #[inline]
    fn acceleration_at(&self, q: &SVector<T, N>) -> SVector<T, N> {
        match &self.cache {
            Some((cq, ca)) if same_position(cq, q) => *ca,
            _ => self.system.acceleration(q),
        }
    }
}

/// Whether `a` and `b` are the same position, component by component (`==`, so a NaN is never
/// the same): one pass without early exit, cheaper on a microcontroller than the iterator
/// comparison of `SVector`'s `PartialEq`.
#[inline]
fn same_position<T: Real, const N: usize>(a: &SVector<T, N>, b: &SVector<T, N>) -> bool {
    let mut same = true;
    for i in 0..N {
        same &= a[i] == b[i];
    }
    same
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Mass;
    use crate::Integrator;
    use core::cell::Cell;
    use nalgebra::vector;

    /// `V = ½|q|²`, counting its gradient evaluations.
    struct Counted<'a>(&'a Cell<u32>);

    impl Potential<f64, 2> for Counted<'_> {
        fn energy(&self, q: &SVector<f64, 2>) -> f64 {
            0.5 * q.norm_squared()
        }
        fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
            self.0.set(self.0.get() + 1);
            *q
        }
    }

    /// A run costs one gradient per step after the first (the end acceleration is reused), and
    /// a step from any other position computes its own: the result is bit-identical to a fresh
    /// integrator's.
    #[test]
    fn the_cached_acceleration_is_reused_only_at_its_position() {
        let calls = Cell::new(0);
        let system = System::new(Mass::identity(), Counted(&calls));
        let mut vv = VelocityVerlet::new(system, 0.1).unwrap();
        let mut s = State::new(0.0, vector![1.0, -0.5], vector![0.0, 0.3]);
        vv.integrate(&mut s, 10).unwrap();
        assert_eq!(calls.get(), 11);

        // Moved in its last component only: not the cached position.
        let mut moved = s;
        moved.q[1] += 1e-3;
        let mut fresh_state = moved;
        vv.step(&mut moved).unwrap();
        let fresh_calls = Cell::new(0);
        let mut fresh =
            VelocityVerlet::new(System::new(Mass::identity(), Counted(&fresh_calls)), 0.1).unwrap();
        fresh.step(&mut fresh_state).unwrap();
        assert_eq!(moved.q, fresh_state.q);
        assert_eq!(moved.v, fresh_state.v);
    }

    #[test]
    fn same_position_compares_every_component_and_never_matches_nan() {
        assert!(same_position(&vector![1.0, 2.0], &vector![1.0, 2.0]));
        assert!(!same_position(&vector![1.0, 2.0], &vector![1.0, 2.5]));
        assert!(!same_position(&vector![0.5, 2.0], &vector![1.0, 2.0]));
        assert!(!same_position(
            &vector![f64::NAN, 2.0],
            &vector![f64::NAN, 2.0]
        ));
    }
}
