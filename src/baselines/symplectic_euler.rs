//! Symplectic (variational) Euler, 004 eqs 2.49 and 2.50.

use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::{Potential, System};
use crate::{validate::check_step, ConfigError, Real, State, StepError};

/// Which of the two adjoint first-order symplectic Euler maps to apply: the parameter of
/// [`SymplecticEuler`]. The default is [`EulerOrdering::KickDrift`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EulerOrdering {
    /// Kick then drift (004 eq 2.49): `p ← p − h∇V(q)`, `q ← q + hM⁻¹p`.
    #[default]
    KickDrift,
    /// Drift then kick, the adjoint of [`EulerOrdering::KickDrift`] (004 eq 2.50):
    /// `q ← q + hM⁻¹p`, `p ← p − h∇V(q)`.
    DriftKick,
}

impl EulerOrdering {
    /// The adjoint ordering.
    pub fn adjoint(self) -> Self {
        match self {
            Self::KickDrift => Self::DriftKick,
            Self::DriftKick => Self::KickDrift,
        }
    }
}

/// Symplectic Euler (variational Euler), 004 eq 2.49 (kick–drift) or eq 2.50 (drift–kick).
///
/// In velocities, with `a(q) = −M⁻¹∇V(q)`:
/// - kick–drift: `v' = v + h a(q)`, `q' = q + h v'`;
/// - drift–kick: `q' = q + h v`, `v' = v + h a(q')`.
///
/// First order, symplectic, not symmetric; the two orderings are each other's adjoint, so their
/// composition with half steps is Störmer–Verlet. One gradient per step.
///
/// ```
/// use macrostep::baselines::{EulerOrdering, SymplecticEuler};
/// use macrostep::{systems::HarmonicOscillator, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut se = SymplecticEuler::new(osc.system(), 0.01, EulerOrdering::KickDrift).unwrap();
/// assert_eq!(se.ordering(), EulerOrdering::default());
/// let mut s = osc.initial_state();
/// se.integrate(&mut s, 100).unwrap();
/// assert!((s.t - 1.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SymplecticEuler<T: Real, P, const N: usize> {
    system: System<T, P, N>,
    h: T,
    ordering: EulerOrdering,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> SymplecticEuler<T, P, N> {
    /// Symplectic Euler with step `h` and the given ordering (its parameter; the default is
    /// kick–drift).
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] when `h` is not positive and finite.
    pub fn new(
        system: System<T, P, N>,
        h: T,
        ordering: EulerOrdering,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            system,
            h: check_step(h)?,
            ordering,
            watch: Watch::default(),
        })
    }

    /// The ordering.
    pub fn ordering(&self) -> EulerOrdering {
        self.ordering
    }

    /// The adjoint method (the other ordering, same system and step).
    pub fn adjoint(&self) -> Self
    where
        P: Clone,
    {
        Self {
            system: self.system.clone(),
            h: self.h,
            ordering: self.ordering.adjoint(),
            watch: self.watch.fresh(),
        }
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// Mutable access to the system (e.g. to switch a [`Split`](crate::model::Split)'s `alpha`).
    pub fn system_mut(&mut self) -> &mut System<T, P, N> {
        self.watch.restart();
        &mut self.system
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> Guarded<T, N> for SymplecticEuler<T, P, N> {
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

impl<T: Real, P: Potential<T, N>, const N: usize> Method<T, N> for SymplecticEuler<T, P, N> {
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        match self.ordering {
            EulerOrdering::KickDrift => {
                next.v = state.v + self.system.acceleration(&state.q) * h;
                next.q = state.q + next.v * h;
            }
            EulerOrdering::DriftKick => {
                next.q = state.q + state.v * h;
                next.v = state.v + self.system.acceleration(&next.q) * h;
            }
        }
        Ok(T::zero())
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for SymplecticEuler<T, crate::forcing::Actuated<T, P, N>, N>
{
    crate::forcing::actuate_impl!(self);
}
