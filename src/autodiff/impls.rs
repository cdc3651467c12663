//! [`Energy`] for the core potentials of [`crate::model`] (and [`ConstraintFn`] where they have
//! constraints), so that composite potentials built from them can be differentiated as a whole
//! (e.g. `AutoDiff(Split { .. })`) and their hand-written derivatives cross-checked.
//!
//! These do not replace the hand-written derivatives of the types, which stay the ones the
//! integrators use; [`AutoDiff`](super::AutoDiff) wraps a value to opt in.

use super::{AdScalar, ConstraintFn, Energy};
use crate::model::{Penalty, Quadratic, Split, Zero};
use crate::Real;

impl<T: Real, const N: usize> Energy<T, N> for Zero {
    #[inline]
    fn energy<S: AdScalar<T>>(&self, _: &[S; N]) -> S {
        S::cst(T::zero())
    }
}

/// `½ (q − q₀)ᵀ K (q − q₀) + bᵀq`, `O(N²)` dual operations.
impl<T: Real, const N: usize> Energy<T, N> for Quadratic<T, N> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        let d: [S; N] = core::array::from_fn(|i| q[i] - self.rest[i]);
        let mut quad = S::cst(T::zero());
        let mut lin = S::cst(T::zero());
        for (i, (&di, &qi)) in d.iter().zip(q.iter()).enumerate() {
            let kd = d
                .iter()
                .enumerate()
                .fold(S::cst(T::zero()), |acc, (j, &dj)| acc + dj * self.k[(i, j)]);
            quad += di * kd;
            lin += qi * self.linear[i];
        }
        quad * T::lit(0.5) + lin
    }
}

/// `V + α U`, skipping `U` when `α = 0` exactly as [`Split`]'s own derivatives do.
impl<T: Real, const N: usize, V: Energy<T, N>, U: Energy<T, N>> Energy<T, N> for Split<T, V, U> {
    #[inline]
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        let s = self.soft.energy(q);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.energy(q) * self.alpha
        }
    }
}

/// `V + ½ Σᵢ ωᵢ² gᵢ²` (000 eq 1.7).
impl<T, V, G, const N: usize, const D: usize> Energy<T, N> for Penalty<T, V, G, D>
where
    T: Real,
    V: Energy<T, N>,
    G: ConstraintFn<T, N, D>,
{
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        let g = self.constraint.eval(q);
        let half = T::lit(0.5);
        g.iter()
            .zip(self.omega2().iter())
            .fold(self.base.energy(q), |acc, (&gi, &w)| {
                acc + gi * gi * (w * half)
            })
    }
}
