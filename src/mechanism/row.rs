//! Body-fixed points and the bilinear joint rows built from them.
//!
//! A point fixed in an affine body is an affine combination `P(q) = Σⱼ λⱼ xⱼ` of the body's
//! `DIM + 1` nodes (barycentric weights `λ`, `Σ λⱼ = 1`, fixed at build time); a ground point is
//! a constant. Every joint row is `g = (P_a − P_b)·(P_c − P_d) − k`: linear when `P_c − P_d` is
//! constant (a ball joint's rows), bilinear otherwise (an axis kept normal to another). With
//! `u = P_a − P_b = B_u q + …` and `w = P_c − P_d = B_w q + …`: `∇g = B_uᵀ w + B_wᵀ u`,
//! `Hess g = B_uᵀ B_w + B_wᵀ B_u` (constant), `g‴ = 0`.

use crate::Real;
use nalgebra::{SMatrix, SVector};

/// A point fixed in a body (an affine combination of its nodes) or in the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyPoint<T: Real, const DIM: usize> {
    /// The body's first coordinate; its node `j` owns `offset + j·DIM .. offset + (j+1)·DIM`.
    pub offset: usize,
    /// The number of nodes combined: `DIM + 1` for a body point, 0 for a ground point.
    pub nodes: usize,
    /// The barycentric weights `λⱼ` (the first `nodes` are used).
    pub weights: [T; 4],
    /// The ground point's position (zero for a body point).
    pub constant: [T; DIM],
}

impl<T: Real, const DIM: usize> BodyPoint<T, DIM> {
    /// A fixed point of the ground.
    pub fn ground(p: [T; DIM]) -> Self {
        Self {
            offset: 0,
            nodes: 0,
            weights: [T::zero(); 4],
            constant: p,
        }
    }

    /// The coordinate of node `j`'s component `c`.
    #[inline]
    fn index(&self, j: usize, c: usize) -> usize {
        self.offset + j * DIM + c
    }

    /// The point at `q` (`with_origin`), or its displacement for a coordinate displacement `q`.
    #[inline]
    pub fn point<const N: usize>(&self, q: &SVector<T, N>, with_origin: bool) -> [T; DIM] {
        let mut p = if with_origin {
            self.constant
        } else {
            [T::zero(); DIM]
        };
        let qs = q.as_slice();
        for (j, &w) in self.weights.iter().enumerate().take(self.nodes) {
            for (c, pc) in p.iter_mut().enumerate() {
                *pc += w * qs.get(self.index(j, c)).copied().unwrap_or_else(T::zero);
            }
        }
        p
    }

    /// `out += sign · Bᵀ v`: the generalised force of a force `sign · v` at this point.
    #[inline]
    pub fn scatter<const N: usize>(&self, out: &mut SVector<T, N>, v: &[T; DIM], sign: T) {
        for (j, &w) in self.weights.iter().enumerate().take(self.nodes) {
            let s = w * sign;
            for (c, vc) in v.iter().enumerate() {
                if let Some(o) = out.as_mut_slice().get_mut(self.index(j, c)) {
                    *o += s * *vc;
                }
            }
        }
    }
}

/// `p − r` for arrays.
#[inline]
fn sub<T: Real, const DIM: usize>(p: [T; DIM], r: [T; DIM]) -> [T; DIM] {
    core::array::from_fn(|c| p[c] - r[c])
}

/// `x·y`.
#[inline]
fn dot<T: Real, const DIM: usize>(x: &[T; DIM], y: &[T; DIM]) -> T {
    x.iter()
        .zip(y.iter())
        .fold(T::zero(), |s, (&a, &b)| s + a * b)
}

/// One joint row `g = (P_a − P_b)·(P_c − P_d) − target` between body-fixed points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bilinear<T: Real, const DIM: usize> {
    /// `P_a`.
    pub a: BodyPoint<T, DIM>,
    /// `P_b`.
    pub b: BodyPoint<T, DIM>,
    /// `P_c`.
    pub c: BodyPoint<T, DIM>,
    /// `P_d`.
    pub d: BodyPoint<T, DIM>,
    /// `k`, the row's value at the build pose (zero for every joint row).
    pub target: T,
    /// The squared length scale `ℓ²` the residual is relative to (`|g| / ℓ²`).
    pub length2: T,
}

impl<T: Real, const DIM: usize> Bilinear<T, DIM> {
    /// `(u, w)` at `q` (`with_origin`) or their displacements for a displacement `q`.
    #[inline]
    pub(super) fn sides<const N: usize>(
        &self,
        q: &SVector<T, N>,
        with_origin: bool,
    ) -> ([T; DIM], [T; DIM]) {
        (
            sub(self.a.point(q, with_origin), self.b.point(q, with_origin)),
            sub(self.c.point(q, with_origin), self.d.point(q, with_origin)),
        )
    }

    /// `g(q)`.
    #[inline]
    pub(super) fn value<const N: usize>(&self, q: &SVector<T, N>) -> T {
        let (u, w) = self.sides(q, true);
        dot(&u, &w) - self.target
    }

    /// `out += s · ∇g = s (B_uᵀ w + B_wᵀ u)` given `(u, w)`.
    #[inline]
    pub(super) fn scatter_gradient<const N: usize>(
        &self,
        out: &mut SVector<T, N>,
        u: &[T; DIM],
        w: &[T; DIM],
        s: T,
    ) {
        self.scatter_pair(out, w, u, s);
    }

    /// `out += s (B_uᵀ x + B_wᵀ y)`.
    #[inline]
    fn scatter_pair<const N: usize>(
        &self,
        out: &mut SVector<T, N>,
        x: &[T; DIM],
        y: &[T; DIM],
        s: T,
    ) {
        self.a.scatter(out, x, s);
        self.b.scatter(out, x, -s);
        self.c.scatter(out, y, s);
        self.d.scatter(out, y, -s);
    }

    /// `Hess g · δ = B_uᵀ (B_w δ) + B_wᵀ (B_u δ)`, added times `s` into `out`.
    #[inline]
    pub(super) fn hessian_times<const N: usize>(
        &self,
        out: &mut SVector<T, N>,
        delta: &SVector<T, N>,
        s: T,
    ) {
        let (du, dw) = self.sides(delta, false);
        self.scatter_pair(out, &dw, &du, s);
    }

    /// `out += s · Hess g = s (B_uᵀ B_w + B_wᵀ B_u)`.
    pub(super) fn add_hessian<const N: usize>(&self, out: &mut SMatrix<T, N, N>, s: T) {
        let one = T::one();
        for (p, sp) in [(&self.a, one), (&self.b, -one)] {
            for (r, sr) in [(&self.c, one), (&self.d, -one)] {
                cross_block(out, p, r, s * sp * sr);
            }
        }
    }

    /// `out += s (∇g ∇gᵀ + g Hess g)` at `q` (the row's penalty Hessian with weight `s`).
    pub(super) fn add_penalty_hessian<const N: usize>(
        &self,
        out: &mut SMatrix<T, N, N>,
        q: &SVector<T, N>,
        s: T,
    ) {
        let (u, w) = self.sides(q, true);
        let mut grad = SVector::<T, N>::zeros();
        self.scatter_gradient(&mut grad, &u, &w, T::one());
        // The outer product over the non-zero entries (a zero entry adds exactly nothing).
        for i in 0..N {
            let gi = grad[i];
            if gi == T::zero() {
                continue;
            }
            let si = s * gi;
            for j in 0..N {
                let gj = grad[j];
                if gj != T::zero() {
                    out[(i, j)] += si * gj;
                }
            }
        }
        self.add_hessian(out, s * (dot(&u, &w) - self.target));
    }

    /// The row's part of the penalty third contraction with weight `s`:
    /// `s (2 (∇g·δ) Hess g δ + (δ·Hess g δ) ∇g)`.
    pub(super) fn add_penalty_third<const N: usize>(
        &self,
        out: &mut SVector<T, N>,
        q: &SVector<T, N>,
        delta: &SVector<T, N>,
        s: T,
    ) {
        let (u, w) = self.sides(q, true);
        let (du, dw) = self.sides(delta, false);
        let jd = dot(&w, &du) + dot(&u, &dw);
        let two = T::one() + T::one();
        let dhd = two * dot(&du, &dw);
        self.scatter_pair(out, &dw, &du, two * jd * s);
        self.scatter_gradient(out, &u, &w, dhd * s);
    }
}

/// `out += s (B_pᵀ B_r + B_rᵀ B_p)` for two body points: the column of node `j` component `c`
/// of a point is `λⱼ e_c`.
fn cross_block<T: Real, const DIM: usize, const N: usize>(
    out: &mut SMatrix<T, N, N>,
    p: &BodyPoint<T, DIM>,
    r: &BodyPoint<T, DIM>,
    s: T,
) {
    for (i, &wi) in p.weights.iter().enumerate().take(p.nodes) {
        for (j, &wj) in r.weights.iter().enumerate().take(r.nodes) {
            let x = s * wi * wj;
            for c in 0..DIM {
                let (a, b) = (p.index(i, c), r.index(j, c));
                if let Some(e) = out.get_mut((a, b)) {
                    *e += x;
                }
                if let Some(e) = out.get_mut((b, a)) {
                    *e += x;
                }
            }
        }
    }
}
