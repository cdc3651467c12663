//! [`Constraint`] for [`Distances`]: values, Jacobians, Hessians and the penalty terms of the
//! squared-distance links (see the parent module for the formulas).

use super::{Distances, Endpoint, Ends};
use crate::linalg::each;
use crate::model::{BandMut, Constraint};
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// `m[(i, j)] += x`; nothing for an entry outside `m` (no validated link produces one).
#[inline(always)]
fn add_at<T: Real, const R: usize, const C: usize>(
    m: &mut SMatrix<T, R, C>,
    i: usize,
    j: usize,
    x: T,
) {
    if let Some(e) = m.get_mut((i, j)) {
        *e += x;
    }
}

/// `m[(i, j)] -= x`; nothing for an entry outside `m` (no validated link produces one).
#[inline(always)]
fn sub_at<T: Real, const R: usize, const C: usize>(
    m: &mut SMatrix<T, R, C>,
    i: usize,
    j: usize,
    x: T,
) {
    if let Some(e) = m.get_mut((i, j)) {
        *e -= x;
    }
}

/// Adds the `DIM×DIM` block `b` (`b[c][r]`: column `c`, row `r`) at rows `row…`, columns
/// `col…` of `m`; a column outside `m` is skipped (no validated link reaches one).
#[inline(always)]
fn add_block<T: Real, const N: usize, const DIM: usize>(
    m: &mut SMatrix<T, N, N>,
    row: usize,
    col: usize,
    b: &[[T; DIM]; DIM],
) {
    each(DIM, |c| {
        if let Some(dst) = m
            .data
            .0
            .get_mut(col + c)
            .and_then(|column| column.get_mut(row..))
            .and_then(|s| s.first_chunk_mut::<DIM>())
        {
            each(DIM, |r| dst[r] += b[c][r]);
        }
    });
}

/// `x·y` for small fixed-size arrays (written out through [`each`]: no loop left at opt-level
/// "s").
#[inline]
fn dot<T: Real, const DIM: usize>(x: &[T; DIM], y: &[T; DIM]) -> T {
    let mut s = T::zero();
    each(DIM, |c| s += x[c] * y[c]);
    s
}

/// Adds link `l`'s block of the penalty Hessian, `B = ws (4 d dᵀ + g2 I)` (`g2 = 2 gₖ`,
/// `ws = scale·wₖ`), to the diagonal blocks of its nodes and `−B` to their off-diagonal blocks.
///
/// Two schedules of the same sums, bit-identical (each entry receives the same terms in link
/// order): on a bare-metal target (`target_os = "none"`, built at opt-level "s") `B` and `−B`
/// are formed once per link and added block by block, one range check per block column
/// (≈ 100 instructions fewer per assembly of the double pendulum on a Cortex-M4F); elsewhere
/// entry by entry, which the optimiser of a host build schedules better (the block form made a
/// host Z&S step ≈ 10 % slower).
#[inline(always)]
fn add_link_hessian<T: Real, const DIM: usize, const N: usize>(
    out: &mut SMatrix<T, N, N>,
    e: &Ends<T, DIM>,
    d: &[T; DIM],
    g2: T,
    ws: T,
) {
    let four = T::lit(4.0);
    let ia = DIM * e.a;
    if cfg!(target_os = "none") {
        let mut b = [[T::zero(); DIM]; DIM];
        each(DIM, |c| {
            each(DIM, |r| {
                let mut x = four * d[r] * d[c];
                if r == c {
                    x += g2;
                }
                b[c][r] = x * ws;
            });
        });
        add_block(out, ia, ia, &b);
        if let Some(nb) = e.b {
            let ib = DIM * nb;
            add_block(out, ib, ib, &b);
            // `x + (−b)` is `x − b` exactly.
            each(DIM, |c| {
                each(DIM, |r| b[c][r] = -b[c][r]);
            });
            add_block(out, ia, ib, &b);
            add_block(out, ib, ia, &b);
        }
        return;
    }
    for r in 0..DIM {
        for c in 0..DIM {
            let mut b = four * d[r] * d[c];
            if r == c {
                b += g2;
            }
            let b = b * ws;
            add_at(out, ia + r, ia + c, b);
            if let Some(nb) = e.b {
                let ib = DIM * nb;
                add_at(out, ib + r, ib + c, b);
                sub_at(out, ia + r, ib + c, b);
                sub_at(out, ib + r, ia + c, b);
            }
        }
    }
}

/// The per-link bodies of the penalty kernels, each inlined at every call (so that in the
/// written-out loop of a chain every index is a constant).
impl<T: Real, const DIM: usize, const N: usize, const D: usize> Distances<T, DIM, N, D> {
    /// Link `e`'s term of the penalty contraction: `wₖ (8 (d·δ) δ + 4 |δ|² d)` to node `a`,
    /// its negative to node `b`.
    #[inline(always)]
    fn link_third(
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        e: &Ends<T, DIM>,
        wk: T,
        four: T,
        eight: T,
        out: &mut SVector<T, N>,
    ) {
        let d = Self::difference_of(q, e);
        let delta = Self::relative_of(a, e);
        let (s8, s4) = (eight * dot(&d, &delta), four * dot(&delta, &delta));
        let mut v = [T::zero(); DIM];
        each(DIM, |c| v[c] = (delta[c] * s8 + d[c] * s4) * wk);
        Self::scatter_to(out, e, &v);
    }

    /// Link `e`'s block of the penalty Hessian times `ws = scale·wₖ`, added into `out`.
    #[inline(always)]
    fn link_hessian(
        q: &SVector<T, N>,
        e: &Ends<T, DIM>,
        length2: T,
        ws: T,
        two: T,
        out: &mut SMatrix<T, N, N>,
    ) {
        let d = Self::difference_of(q, e);
        let g2 = two * (dot(&d, &d) - length2);
        add_link_hessian(out, e, &d, g2, ws);
    }

    /// Link `e`'s gradient term `2 wₖ gₖ d` into `grad` and its Hessian block into `out`, `d`
    /// and `gₖ` formed once for both; returns `gₖ`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn link_gradient_hessian(
        q: &SVector<T, N>,
        e: &Ends<T, DIM>,
        length2: T,
        wk: T,
        scale: T,
        two: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
    ) -> T {
        let d = Self::difference_of(q, e);
        let g = dot(&d, &d) - length2;
        let s = two * (wk * g);
        let mut v = d;
        each(DIM, |c| v[c] *= s);
        Self::scatter_to(grad, e, &v);
        add_link_hessian(out, e, &d, two * g, wk * scale);
        g
    }
}

impl<T: Real, const DIM: usize, const N: usize, const D: usize> Constraint<T, N, D>
    for Distances<T, DIM, N, D>
{
    /// `max |gₖ| / Lₖ²`: the relative violation of the squared lengths.
    fn residual(&self, q: &SVector<T, N>) -> T {
        let mut r = T::zero();
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            let a = ((dot(&d, &d) - self.length2[k]) / self.length2[k]).abs();
            if a > r || !a.finite() {
                r = a;
            }
        }
        r
    }

    /// `gₖ = |p_a − p_b|² − Lₖ²`.
    fn value(&self, q: &SVector<T, N>) -> SVector<T, D> {
        let mut g = SVector::<T, D>::zeros();
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            g[k] = dot(&d, &d) - self.length2[k];
        }
        g
    }

    fn jacobian(&self, q: &SVector<T, N>) -> SMatrix<T, D, N> {
        let mut j = SMatrix::<T, D, N>::zeros();
        let two = T::one() + T::one();
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            for (c, &dc) in d.iter().enumerate() {
                add_at(&mut j, k, DIM * l.node + c, dc * two);
                if let Endpoint::Node(b) = l.to {
                    sub_at(&mut j, k, DIM * b + c, dc * two);
                }
            }
        }
        j
    }

    fn weighted_hessian(&self, _: &SVector<T, N>, w: &SVector<T, D>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::<T, N, N>::zeros();
        for (k, l) in self.links.iter().enumerate() {
            let w2 = w[k] + w[k];
            let a = DIM * l.node;
            for c in 0..DIM {
                add_at(&mut h, a + c, a + c, w2);
                if let Endpoint::Node(b) = l.to {
                    let b = DIM * b;
                    add_at(&mut h, b + c, b + c, w2);
                    sub_at(&mut h, a + c, b + c, w2);
                    sub_at(&mut h, b + c, a + c, w2);
                }
            }
        }
        h
    }

    fn hessian_times(&self, _: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, D, N> {
        // Hess gₖ · a is the Jacobian row of gₖ evaluated at the displacement `a` (g is quadratic).
        let mut m = SMatrix::<T, D, N>::zeros();
        let two = T::one() + T::one();
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::relative(a, l);
            for (c, &dc) in d.iter().enumerate() {
                add_at(&mut m, k, DIM * l.node + c, dc * two);
                if let Endpoint::Node(b) = l.to {
                    sub_at(&mut m, k, DIM * b + c, dc * two);
                }
            }
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

    /// `Jᵀ w` link by link, `O(D)`.
    fn jacobian_transpose_times(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let two = T::one() + T::one();
        for (k, l) in self.links.iter().enumerate() {
            let mut d = Self::difference(q, l);
            let s = two * w[k];
            for dc in d.iter_mut() {
                *dc *= s;
            }
            self.scatter(&mut out, l, &d);
        }
        out
    }

    /// Link by link, `O(D)`: link `k` adds `2 wₖ gₖ d` to node `a` and subtracts it from node `b`.
    fn penalty_gradient(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let two = T::one() + T::one();
        for (k, l) in self.links.iter().enumerate() {
            let mut d = Self::difference(q, l);
            let s = two * (w[k] * (dot(&d, &d) - self.length2[k]));
            each(DIM, |c| d[c] *= s);
            self.scatter(&mut out, l, &d);
        }
        out
    }

    /// Link by link, `O(D)`: with `d = p_a − p_b` and `δ = a_a − a_b` (`a_b = 0` for an anchor),
    /// link `k` adds `wₖ (8 (d·δ) δ + 4 |δ|² d)` to node `a` and subtracts it from node `b`
    /// (`g‴ = 0` for squared distances).
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn penalty_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let four = T::lit(4.0);
        let eight = T::lit(8.0);
        for_each_link!(self, D, |k, e| {
            Self::link_third(q, a, &e, w[k], four, eight, &mut out);
        });
        out
    }

    /// Link by link, `O(D · DIM²)`: link `k` adds `B = scale·wₖ (4 d dᵀ + 2 gₖ I)` to the
    /// diagonal blocks of its nodes and `−B` to their off-diagonal blocks (`add_link_hessian`:
    /// its two schedules, bare-metal and host, give the same sums bit for bit).
    fn add_penalty_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        out: &mut SMatrix<T, N, N>,
    ) {
        let two = T::one() + T::one();
        if cfg!(target_os = "none") {
            for_each_link!(self, D, |k, e| {
                Self::link_hessian(q, &e, self.length2[k], w[k] * scale, two, out);
            });
            return;
        }
        // On a workstation the ends as stored, not the chain walk: there the written-out walk's
        // matrix writes stall the loads of the `LDLᵀ` that reads them next (a Newmark step on
        // the double pendulum 233 -> 285 ns); the same sums either way.
        for k in 0..D {
            let e = self.stored_ends(k);
            Self::link_hessian(q, &e, self.length2[k], w[k] * scale, two, out);
        }
    }

    /// Link by link, `O(D · DIM²)`, each link's difference `d` and value `gₖ` formed once for
    /// all: the gradient terms of [`Constraint::penalty_gradient`], the Hessian blocks of
    /// [`Constraint::add_penalty_hessian`] and the values, the same operations in the same order.
    #[inline]
    fn penalty_gradient_add_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
        values: &mut SVector<T, D>,
    ) {
        let two = T::one() + T::one();
        for x in grad.iter_mut() {
            *x = T::zero();
        }
        for_each_link!(self, D, |k, e| {
            values[k] =
                Self::link_gradient_hessian(q, &e, self.length2[k], w[k], scale, two, grad, out);
        });
    }

    /// `max |gₖ| / Lₖ²` from the values, as [`Constraint::residual`] forms it.
    #[inline]
    fn residual_of_values(&self, values: &SVector<T, D>) -> Option<T> {
        let mut r = T::zero();
        for k in 0..D {
            let a = (values[k] / self.length2[k]).abs();
            if a > r || !a.finite() {
                r = a;
            }
        }
        Some(r)
    }

    /// Link by link, `O(D · DIM²)`: link `k` adds `B = wₖ (4 d dᵀ + 2 gₖ I)` to the diagonal
    /// blocks of its nodes and `−B` to their off-diagonal block. `false` when a block falls
    /// outside the band (for a chain in node order, `2·DIM` diagonals suffice).
    fn penalty_hessian_band(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        band: &mut BandMut<'_, T>,
    ) -> bool {
        let two = T::one() + T::one();
        let four = two + two;
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            let g = dot(&d, &d) - self.length2[k];
            let ia = DIM * l.node;
            for r in 0..DIM {
                for c in 0..DIM {
                    let mut b = four * d[r] * d[c];
                    if r == c {
                        b += two * g;
                    }
                    let b = b * w[k] * scale;
                    // Diagonal blocks: store each symmetric pair once (r ≥ c).
                    if r >= c && !band.add(ia + r, ia + c, b) {
                        return false;
                    }
                    if let Endpoint::Node(nb) = l.to {
                        let ib = DIM * nb;
                        if (r >= c && !band.add(ib + r, ib + c, b)) || !band.add(ia + r, ib + c, -b)
                        {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}
