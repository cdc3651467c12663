//! What the guards of the family measure ([`Handed`]): the system, with what the force
//! evaluation at the proposed position measured there handed over.

use super::family::{Member, ZsFamily};
use crate::driver::Guarded;
use crate::guard::{Probe, Watch};
use crate::model::{Measured, System};
use crate::{Real, State};
use nalgebra::SVector;

/// What the guards of a member of the family measure: the system, with what the last step's
/// force evaluation measured at the position it proposed ([`Measured`]: the potential energy and
/// the constraint residual, bit for bit the system's) handed over for that position, so the
/// commit does not evaluate them again. Any other position is measured on the system.
#[derive(Clone, Copy, Debug)]
pub struct Handed<'a, T: Real, P, const N: usize> {
    pub(super) system: &'a System<T, P, N>,
    pub(super) at: &'a SVector<T, N>,
    pub(super) measured: Option<Measured<T>>,
}

impl<T: Real, P, const N: usize> Handed<'_, T, P, N> {
    /// What was measured at `q`, when `q` is the position it was measured at.
    #[inline]
    fn at(&self, q: &SVector<T, N>) -> Option<Measured<T>> {
        let m = self.measured?;
        let mut same = true;
        for i in 0..N {
            same &= self.at[i] == q[i];
        }
        if same {
            Some(m)
        } else {
            None
        }
    }
}

impl<T: Real, P, const N: usize> Probe<T, N> for Handed<'_, T, P, N>
where
    System<T, P, N>: Probe<T, N>,
{
    const HAS_ENERGY: bool = <System<T, P, N> as Probe<T, N>>::HAS_ENERGY;

    #[inline]
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)> {
        match self.at(&s.q) {
            Some(m) => Some((self.system.mass.kinetic_within_half_range(&s.v), m.energy)),
            None => self.system.energy(s),
        }
    }

    #[inline]
    fn residual(&self, q: &SVector<T, N>) -> Option<T> {
        match self.at(q) {
            Some(m) => m.residual,
            None => Probe::residual(self.system, q),
        }
    }
}

impl<T: Real, P, const N: usize, S, M: Member<T, P, N>> Guarded<T, N> for ZsFamily<T, P, N, S, M>
where
    System<T, P, N>: Probe<T, N>,
{
    /// On a workstation [`Handed`]; on a bare-metal target (`target_os = "none"`) the system
    /// itself: there the comparison of positions costs more instructions than the evaluations
    /// it saves (the same values either way).
    #[cfg(not(target_os = "none"))]
    type Probe<'a>
        = Handed<'a, T, P, N>
    where
        Self: 'a;
    #[cfg(target_os = "none")]
    type Probe<'a>
        = &'a System<T, P, N>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[cfg(not(target_os = "none"))]
    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Handed<'_, T, P, N>) {
        let probe = Handed {
            system: &self.system,
            at: &self.cache.q,
            measured: self.cache.measured(),
        };
        (&mut self.watch, probe)
    }

    #[cfg(target_os = "none")]
    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, &System<T, P, N>) {
        (&mut self.watch, &self.system)
    }

    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.member.accept();
    }
}
