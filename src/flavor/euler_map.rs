//! The shared body of the symplectic Euler legacy maps with a stiffness switch: [`EulerMap`]
//! takes a drift–kick or a kick–drift sub-step and, as its adjoint, the other ordering; where the
//! kick's acceleration comes from and which ordering a stiffness takes is its strategy parameter
//! `K` ([`EulerKick`]). [`ForcedEuler`](super::ForcedEuler) (eq 2.114, time-dependent forcing)
//! and [`FusedEuler`](super::FusedEuler) (eqs 2.49/2.50, with a fused FLAVOR step) are aliases
//! of `EulerMap` with one kick each.

use super::{state_time, LegacyMap, Stiffness};
use crate::integrator::commit;
use crate::validate::check_step_input;
use crate::{Real, State, StepError};
use nalgebra::SVector;

pub(super) mod sealed {
    pub trait Sealed {}
}

/// What the kicks of an [`EulerMap`] integrate: implemented by
/// [`ForcedKick`](super::ForcedKick) and [`FusedKick`](super::FusedKick) (sealed).
pub trait EulerKick<T: Real, const N: usize>: sealed::Sealed {
    /// Whether the step (not its adjoint) with this stiffness drifts first (drift–kick).
    fn drift_first(stiffness: Stiffness<T>) -> bool;

    /// The acceleration at time `t` and position `q` with the stiffness as switched (its clock
    /// is the fast-clock time of the kick).
    fn acceleration(&self, t: T, q: &SVector<T, N>, stiffness: Stiffness<T>) -> SVector<T, N>;

    /// A fused evaluation of the nonintrusive FLAVOR step `Φ⁰_{h−τ} ∘ Φ^α_τ` of the state `s`,
    /// when the kick has one (see [`LegacyMap::flavor_step`]); `None` (the default) takes the
    /// two sub-steps.
    fn fused_step(&self, _s: &mut State<T, N>, _h: T, _tau: T) -> Option<Result<(), StepError>> {
        None
    }
}

/// A symplectic Euler legacy map with kick `K`: the common body of
/// [`ForcedEuler`](super::ForcedEuler) and [`FusedEuler`](super::FusedEuler) (see those for the
/// equations, properties and errors). A drift–kick sub-step evaluates the acceleration at the
/// start time, a kick–drift one at the end time `t + h` (the fast clock likewise), so that each
/// ordering is the adjoint of the other.
#[derive(Clone, Copy, Debug)]
pub struct EulerMap<K, const N: usize> {
    pub(super) kick: K,
}

impl<K, const N: usize> EulerMap<K, N> {
    /// One sub-step `Φ_h`, drifting or kicking first.
    #[inline]
    fn sub_step<T: Real>(
        &self,
        s: &State<T, N>,
        h: T,
        stiffness: Stiffness<T>,
        drift: bool,
    ) -> State<T, N>
    where
        K: EulerKick<T, N>,
    {
        if drift {
            let q = s.q + s.v * h;
            let v = s.v + self.kick.acceleration(s.t, &q, stiffness) * h;
            State::new(s.t + h, q, v)
        } else {
            let at_end = match stiffness {
                Stiffness::On { clock } => Stiffness::On { clock: clock + h },
                Stiffness::Off => Stiffness::Off,
            };
            let v = s.v + self.kick.acceleration(s.t + h, &s.q, at_end) * h;
            State::new(s.t + h, s.q + v * h, v)
        }
    }
}

impl<T: Real, K: EulerKick<T, N>, const N: usize> LegacyMap<T> for EulerMap<K, N> {
    type State = State<T, N>;
    const SYMPLECTIC: bool = true;

    fn time(state: &State<T, N>) -> T {
        state_time(state)
    }

    fn step(
        &mut self,
        state: &mut State<T, N>,
        h: T,
        stiffness: Stiffness<T>,
    ) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let next = self.sub_step(state, h, stiffness, K::drift_first(stiffness));
        commit(state, next)
    }

    fn has_adjoint(&self) -> bool {
        true
    }

    fn step_adjoint(
        &mut self,
        state: &mut State<T, N>,
        h: T,
        stiffness: Stiffness<T>,
    ) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let next = self.sub_step(state, h, stiffness, !K::drift_first(stiffness));
        commit(state, next)
    }

    /// The kick's fused step when it has one, else the two sub-steps.
    fn flavor_step(
        &mut self,
        state: &mut State<T, N>,
        h: T,
        tau: T,
        clock: T,
    ) -> Result<(), StepError> {
        match self.kick.fused_step(state, h, tau) {
            Some(result) => result,
            None => super::two_sub_steps(self, state, h, tau, clock),
        }
    }
}
