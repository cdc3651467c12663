//! Symplectic (variational) Euler, 004 eqs 2.49 and 2.50.

use crate::guard::Watch;
use crate::model::{Potential, System};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};

/// Which of the two adjoint first-order symplectic Euler maps to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ordering {
    /// Kick then drift (004 eq 2.49): `p ← p − h∇V(q)`, `q ← q + hM⁻¹p`.
    KickDrift,
    /// Drift then kick, the adjoint of [`Ordering::KickDrift`] (004 eq 2.50):
    /// `q ← q + hM⁻¹p`, `p ← p − h∇V(q)`.
    DriftKick,
}

impl Ordering {
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
/// use macrostep::{baselines::{Ordering, SymplecticEuler}, systems::HarmonicOscillator, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut se = SymplecticEuler::new(osc.system(), 0.01, Ordering::KickDrift).unwrap();
/// let mut s = osc.initial_state();
/// se.integrate(&mut s, 100).unwrap();
/// assert!((s.t - 1.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SymplecticEuler<T: Real, P, const N: usize> {
    system: System<T, P, N>,
    h: T,
    ordering: Ordering,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> SymplecticEuler<T, P, N> {
    /// Symplectic Euler with step `h` and the given ordering.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] when `h` is not positive and finite.
    pub fn new(system: System<T, P, N>, h: T, ordering: Ordering) -> Result<Self, ConfigError> {
        Ok(Self {
            system,
            h: check_step(h)?,
            ordering,
            watch: Watch::default(),
        })
    }

    /// The ordering.
    pub fn ordering(&self) -> Ordering {
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
            watch: Watch::new(*self.watch.guards()),
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

crate::integrator::impl_stepper!(
    impl[T: Real, P: Potential<T, N>, const N: usize] SymplecticEuler<T, P, N> => h
);

impl<T: Real, P: Potential<T, N>, const N: usize> Integrator<T, N> for SymplecticEuler<T, P, N> {
    crate::watched::claims_and_watch!(order: 1, symplectic: true, symmetric: false);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let (q, v) = match self.ordering {
            Ordering::KickDrift => {
                let v = state.v + self.system.acceleration(&state.q) * h;
                (state.q + v * h, v)
            }
            Ordering::DriftKick => {
                let q = state.q + state.v * h;
                (q, state.v + self.system.acceleration(&q) * h)
            }
        };
        self.watch.commit(
            state,
            &State {
                t: state.t + h,
                q,
                v,
            },
            h,
            &self.system,
        )
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for SymplecticEuler<T, crate::forcing::Actuated<T, P, N>, N>
{
    crate::forcing::actuate_impl!(self);
}
