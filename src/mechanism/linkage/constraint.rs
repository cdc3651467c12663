//! The [`Constraint`] of a [`Linkage`]: its residual, values, Jacobian and Hessians, and the
//! penalty form's gradient and derivatives, row by row (a rod or a joint row).

use super::{dot, Linkage, Row};
use crate::model::Constraint;
use crate::Real;
use nalgebra::{SMatrix, SVector};

impl<T: Real, const DIM: usize, const N: usize, const D: usize> Constraint<T, N, D>
    for Linkage<T, DIM, N, D>
{
    /// `max |gₖ| / Lₖ²` (a joint row: `|gₖ| / ℓₖ²`, its length scale), as
    /// [`Distances`](crate::systems::Distances).
    fn residual(&self, q: &SVector<T, N>) -> T {
        let mut r = T::zero();
        for row in self.rows.iter() {
            let a = match row {
                Row::Rod(rod) => {
                    let d = rod.difference(q);
                    ((dot(&d, &d) - rod.length2) / rod.length2).abs()
                }
                Row::Joint(j) => (j.value(q) / j.length2).abs(),
            };
            if a > r || !a.finite() {
                r = a;
            }
        }
        r
    }

    fn value(&self, q: &SVector<T, N>) -> SVector<T, D> {
        let mut g = SVector::<T, D>::zeros();
        for (gk, row) in g.iter_mut().zip(self.rows.iter()) {
            *gk = match row {
                Row::Rod(rod) => {
                    let d = rod.difference(q);
                    dot(&d, &d) - rod.length2
                }
                Row::Joint(j) => j.value(q),
            };
        }
        g
    }

    fn jacobian(&self, q: &SVector<T, N>) -> SMatrix<T, D, N> {
        let mut j = SMatrix::<T, D, N>::zeros();
        for (k, row) in self.rows.iter().enumerate() {
            let mut out = SVector::<T, N>::zeros();
            match row {
                Row::Rod(rod) => {
                    let mut d = rod.difference(q);
                    for x in d.iter_mut() {
                        *x = *x + *x;
                    }
                    rod.scatter(&mut out, &d);
                }
                Row::Joint(b) => {
                    let (u, w) = b.sides(q, true);
                    b.scatter_gradient(&mut out, &u, &w, T::one());
                }
            }
            j.set_row(k, &out.transpose());
        }
        j
    }

    fn weighted_hessian(&self, _: &SVector<T, N>, w: &SVector<T, D>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::<T, N, N>::zeros();
        for (k, row) in self.rows.iter().enumerate() {
            match row {
                Row::Rod(rod) => {
                    let w2 = w[k] + w[k];
                    let zero = [T::zero(); DIM];
                    rod.add_block(&mut h, T::zero(), w2, T::one(), &zero);
                }
                Row::Joint(b) => b.add_hessian(&mut h, w[k]),
            }
        }
        h
    }

    fn hessian_times(&self, _: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, D, N> {
        let mut m = SMatrix::<T, D, N>::zeros();
        for (k, row) in self.rows.iter().enumerate() {
            let mut out = SVector::<T, N>::zeros();
            match row {
                Row::Rod(rod) => {
                    let mut d = rod.delta(a, false);
                    for x in d.iter_mut() {
                        *x = *x + *x;
                    }
                    rod.scatter(&mut out, &d);
                }
                Row::Joint(b) => b.hessian_times(&mut out, a, T::one()),
            }
            m.set_row(k, &out.transpose());
        }
        m
    }

    fn weighted_third_contraction(
        &self,
        _: &SVector<T, N>,
        _: &SVector<T, D>,
        _: &SVector<T, N>,
    ) -> SVector<T, N> {
        SVector::zeros()
    }

    fn jacobian_transpose_times(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        for (k, row) in self.rows.iter().enumerate() {
            match row {
                Row::Rod(rod) => {
                    let mut d = rod.difference(q);
                    let s = w[k] + w[k];
                    for x in d.iter_mut() {
                        *x *= s;
                    }
                    rod.scatter(&mut out, &d);
                }
                Row::Joint(b) => {
                    let (u, v) = b.sides(q, true);
                    b.scatter_gradient(&mut out, &u, &v, w[k]);
                }
            }
        }
        out
    }

    fn penalty_gradient(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let two = T::one() + T::one();
        for (k, row) in self.rows.iter().enumerate() {
            match row {
                Row::Rod(rod) => {
                    let mut d = rod.difference(q);
                    let s = two * (w[k] * (dot(&d, &d) - rod.length2));
                    for x in d.iter_mut() {
                        *x *= s;
                    }
                    rod.scatter(&mut out, &d);
                }
                Row::Joint(b) => {
                    let (u, v) = b.sides(q, true);
                    let g = dot(&u, &v) - b.target;
                    b.scatter_gradient(&mut out, &u, &v, w[k] * g);
                }
            }
        }
        out
    }

    /// Rod `k` adds `Bᵀ wₖ (8 (d·δ) δ + 4 |δ|² d)` with `δ = B a` (as `Distances`); a joint
    /// row `wₖ (2 (∇g·a) Hess g a + (a·Hess g a) ∇g)`.
    fn penalty_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let (four, eight) = (T::lit(4.0), T::lit(8.0));
        for (k, row) in self.rows.iter().enumerate() {
            match row {
                Row::Rod(rod) => {
                    let d = rod.difference(q);
                    let delta = rod.delta(a, false);
                    let (s8, s4) = (eight * dot(&d, &delta), four * dot(&delta, &delta));
                    let mut v = [T::zero(); DIM];
                    for c in 0..DIM {
                        v[c] = (delta[c] * s8 + d[c] * s4) * w[k];
                    }
                    rod.scatter(&mut out, &v);
                }
                Row::Joint(b) => b.add_penalty_third(&mut out, q, a, w[k]),
            }
        }
        out
    }

    /// Rod `k` adds `scale · wₖ · Bᵀ (4 d dᵀ + 2 gₖ I) B`; a joint row
    /// `scale · wₖ (∇g ∇gᵀ + g Hess g)`.
    fn add_penalty_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        out: &mut SMatrix<T, N, N>,
    ) {
        let (two, four) = (T::lit(2.0), T::lit(4.0));
        for (k, row) in self.rows.iter().enumerate() {
            match row {
                Row::Rod(rod) => {
                    let d = rod.difference(q);
                    let g2 = two * (dot(&d, &d) - rod.length2);
                    let ws = w[k] * scale;
                    rod.add_block(out, four, g2, ws, &d);
                }
                Row::Joint(b) => b.add_penalty_hessian(out, q, w[k] * scale),
            }
        }
    }
}
