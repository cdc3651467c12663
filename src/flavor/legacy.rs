//! A legacy map stepped alone with the stiffness on: the single-scale integrator a FLAVOR
//! replaces (004 eq 2.7).

use super::{LegacyMap, Stiffness};
use crate::driver::{Guarded, Method};
use crate::guard::{NoProbe, Watch};
use crate::validate::check_step;
use crate::{ConfigError, Real, State, StepError};

/// The legacy integrator `Φ^{1/ε}_h` on its own (004 eq 2.7): a legacy map with the stiffness
/// on at every step, its stiff terms read on the real clock, stepping through the step driver at
/// its own step `h` — variational Euler (eq 2.114) over a [`ForcedEuler`](super::ForcedEuler),
/// forward Euler (eq 2.104) over an [`ExplicitEuler`](super::ExplicitEuler), the wrapped method
/// over a [`Switched`](super::Switched).
///
/// It is the baseline a FLAVOR's speed-up is measured against: the FLAVOR over the same map
/// takes one step of `δ` where this takes `δ/τ` steps of `τ`. Both step through the driver
/// (input checks, the compensated clock, the guards, the commit), so their timings compare two
/// integrators under the same contract. The guards check finiteness, the clock and the velocity
/// jump (when on), as a FLAVOR's do: a legacy map carries no energy to bound ([`NoProbe`]).
///
/// Properties: those of the map with the stiffness on (first order and symplectic for the Euler
/// maps; the wrapped method's for [`Switched`](super::Switched)).
///
/// # Errors
/// Construction: [`ConfigError::StepSize`] unless `h` is positive and finite. Step: as
/// [`Integrator::step_by`](crate::Integrator::step_by) and the map's errors; the state is
/// unchanged on error.
///
/// ```
/// use macrostep::flavor::{ForcedEuler, Legacy, Nonintrusive, Params};
/// use macrostep::{systems::Kapitza, Integrator};
/// // Kapitza's pendulum (004 §2.6.6): variational Euler (eq 2.114) at τ, and the FLAVOR
/// // (eq 2.115) over the same map at δ = 5τ, to T = 0.05.
/// let model = Kapitza::<f64>::paper();
/// let map = ForcedEuler::new(model, model.mass(), 1.0)?;
/// let mut legacy = Legacy::new(map, 6.25e-6)?;
/// let mut flavor = Nonintrusive::new(map, Params::new(3.125e-5, 6.25e-6)?)?;
/// let (mut a, mut b) = (model.initial_state(), model.initial_state());
/// legacy.integrate(&mut a, 8000)?;
/// flavor.integrate(&mut b, 1600)?;
/// assert!((a.t - 0.05).abs() < 1e-12 && (b.t - 0.05).abs() < 1e-12);
/// assert!((a.q[0] - b.q[0]).abs() < 1e-2);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Legacy<T: Real, L, const N: usize> {
    map: L,
    h: T,
    watch: Watch<T, N>,
}

impl<T: Real, L: LegacyMap<T, N>, const N: usize> Legacy<T, L, N> {
    /// The legacy integrator of `map` at step `h`.
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(map: L, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            map,
            h: check_step(h)?,
            watch: Watch::default(),
        })
    }

    /// The legacy map.
    pub fn map(&self) -> &L {
        &self.map
    }
}

impl<T: Real, L: LegacyMap<T, N>, const N: usize> Guarded<T, N> for Legacy<T, L, N> {
    /// No energy or residual guard: a legacy map carries no energy.
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    /// The step `h`.
    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T: Real, L: LegacyMap<T, N>, const N: usize> Method<T, N> for Legacy<T, L, N> {
    const ORDER: u32 = L::ORDER;
    const SYMPLECTIC: bool = L::SYMPLECTIC;
    const SYMMETRIC: bool = L::SYMMETRIC;

    /// One step of the map with the stiffness on, its stiff terms at the real time `t` of the
    /// state.
    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        self.map.step(next, h, Stiffness::On { clock: state.t })
    }
}
