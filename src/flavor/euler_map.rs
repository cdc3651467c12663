//! The shared body of the symplectic Euler legacy maps with a stiffness switch: [`EulerMap`]
//! takes a drift–kick or a kick–drift sub-step and, as its adjoint, the other ordering; where the
//! kick's acceleration comes from and which ordering a stiffness takes is its strategy parameter
//! `K` ([`EulerKick`]). [`ForcedEuler`](super::ForcedEuler) (eq 2.114, time-dependent forcing)
//! and [`FusedEuler`](super::FusedEuler) (eqs 2.49/2.50, with a fused FLAVOR step) are aliases
//! of `EulerMap` with one kick each.

use super::{LegacyMap, Stiffness};
use crate::sealed;
use crate::{Real, State, StepError};
use nalgebra::SVector;

#[doc(hidden)]
/// What the kicks of an [`EulerMap`] integrate: implemented by
/// [`ForcedKick`](super::ForcedKick) and [`FusedKick`](super::FusedKick) (sealed).
pub trait EulerKick<T: Real, const N: usize>: sealed::Sealed {
    /// Whether the step (not its adjoint) with this stiffness drifts first (drift–kick).
    fn drift_first(stiffness: Stiffness<T>) -> bool;

    /// The acceleration at time `t` and position `q` with the stiffness as switched (its clock
    /// is the fast-clock time of the kick).
    fn acceleration(&self, t: T, q: &SVector<T, N>, stiffness: Stiffness<T>) -> SVector<T, N>;

    /// A fused evaluation of the nonintrusive FLAVOR step `Φ⁰_{h−τ} ∘ Φ^α_τ` of the working
    /// state `x`, in place, when the kick has one (see [`LegacyMap::flavor_step`]): returns
    /// whether it did; the default (`false`, `x` untouched) takes the two sub-steps.
    #[inline]
    fn fused_step(&self, x: &mut State<T, N>, h: T, tau: T) -> bool {
        let _ = (x, h, tau);
        false
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
    /// One sub-step `Φ_h` of the working state `x`, in place, drifting or kicking first.
    #[inline]
    fn sub_step<T: Real>(&self, x: &mut State<T, N>, h: T, stiffness: Stiffness<T>, drift: bool)
    where
        K: EulerKick<T, N>,
    {
        if drift {
            x.q += x.v * h;
            x.v += self.kick.acceleration(x.t, &x.q, stiffness) * h;
        } else {
            let at_end = match stiffness {
                Stiffness::On { clock } => Stiffness::On { clock: clock + h },
                Stiffness::Off => Stiffness::Off,
            };
            x.v += self.kick.acceleration(x.t + h, &x.q, at_end) * h;
            x.q += x.v * h;
        }
        x.t += h;
    }
}

impl<T: Real, K: EulerKick<T, N>, const N: usize> LegacyMap<T, N> for EulerMap<K, N> {
    const SYMPLECTIC: bool = true;
    const ORDER: u32 = 1;
    const SYMMETRIC: bool = false;

    #[inline]
    fn step(&mut self, x: &mut State<T, N>, h: T, stiffness: Stiffness<T>) -> Result<T, StepError> {
        self.sub_step(x, h, stiffness, K::drift_first(stiffness));
        Ok(T::zero())
    }

    fn has_adjoint(&self) -> bool {
        true
    }

    #[inline]
    fn step_adjoint(
        &mut self,
        x: &mut State<T, N>,
        h: T,
        stiffness: Stiffness<T>,
    ) -> Result<T, StepError> {
        self.sub_step(x, h, stiffness, !K::drift_first(stiffness));
        Ok(T::zero())
    }

    /// The kick's fused step when it has one, else the two sub-steps.
    #[inline]
    fn flavor_step(&mut self, x: &mut State<T, N>, h: T, tau: T, clock: T) -> Result<T, StepError> {
        if self.kick.fused_step(x, h, tau) {
            Ok(T::zero())
        } else {
            super::two_sub_steps(self, x, h, tau, clock)
        }
    }
}
