//! What the run guard remembers of a run from step to step, and what it reads of it.

use crate::Real;

/// What the energy guards update at every step of a run (the fields of [`Watch`](super::Watch) of
/// the same names; `n` is the step's number in the run, `1` for the first).
#[derive(Clone, Copy)]
pub(super) struct Memory<T> {
    pub(super) e_ref: T,
    pub(super) v_lo: T,
    pub(super) v_hi: T,
    pub(super) k_max: T,
    pub(super) scale: T,
    pub(super) tier_scale: T,
    pub(super) n: u32,
}

impl<T: Real> Memory<T> {
    /// The scale grows with the kinetic energy reached and the range of the potential seen:
    /// both differences, blind to the origin of `V` and of `q` (`scale ≥ k_max`: one comparison
    /// in the common case). Whether any of them grew.
    #[inline(always)]
    pub(super) fn grow_scale(&mut self, k1: T, v1: T) -> bool {
        let mut grew = false;
        if k1 > self.k_max {
            grew = true;
            self.k_max = k1;
            if k1 > self.scale {
                self.scale = k1;
            }
        }
        if v1 < self.v_lo {
            grew = true;
            self.v_lo = v1;
            if self.v_hi - self.v_lo > self.scale {
                self.scale = self.v_hi - self.v_lo;
            }
        } else if v1 > self.v_hi {
            grew = true;
            self.v_hi = v1;
            if self.v_hi - self.v_lo > self.scale {
                self.scale = self.v_hi - self.v_lo;
            }
        }
        grew
    }
}

/// What the energy guards read of a run beyond its [`Memory`], and a step does not change: the
/// kinetic energy at its start `K₀`, the last step's energy `e0` (before what this step
/// exchanged), the residual above which the mechanism is stretched and the round-off `level`
/// of the run's energies.
#[derive(Clone, Copy)]
pub(super) struct Fixed<T> {
    pub(super) k0: T,
    pub(super) e0: T,
    pub(super) stretched_above: T,
    pub(super) level: T,
}
