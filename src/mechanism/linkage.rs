//! Rods between nodes that may sit on rails: the constraint type of a mechanism with rails.

use super::row::Bilinear;
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// Where one end of a rod is, as an affine function of the coordinates `q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Place<T: Real, const DIM: usize> {
    /// A free node: its position is `q[offset .. offset + DIM]`.
    Free {
        /// Index of its first coordinate.
        offset: usize,
    },
    /// A node on a rail (prismatic joint): its position is `origin + q[offset] · dir`, `|dir| = 1`.
    Rail {
        /// Index of its one coordinate (the arc length along the rail).
        offset: usize,
        /// A point of the rail (where the coordinate is 0).
        origin: SVector<T, DIM>,
        /// The rail's unit direction.
        dir: SVector<T, DIM>,
    },
    /// A fixed point (a ground pin).
    Ground(SVector<T, DIM>),
}

/// One rod of a [`Linkage`]: `|p(a) − p(b)|² − L² = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod<T: Real, const DIM: usize> {
    /// The first end (never [`Place::Ground`] for a rod the builder made).
    pub a: Place<T, DIM>,
    /// The second end.
    pub b: Place<T, DIM>,
    /// `L²`.
    pub length2: T,
}

/// Up to `2·DIM ≤ 6` coordinates a rod touches (`DIM ≤ 3`, checked by the builder), each with
/// its column of `B = ∂(p_a − p_b)/∂q`.
struct Columns<T: Real, const DIM: usize> {
    idx: [usize; 6],
    col: [[T; DIM]; 6],
    len: usize,
}

impl<T: Real, const DIM: usize> Columns<T, DIM> {
    fn of(rod: &Rod<T, DIM>) -> Self {
        let mut c = Self {
            idx: [0; 6],
            col: [[T::zero(); DIM]; 6],
            len: 0,
        };
        c.push(&rod.a, T::one());
        c.push(&rod.b, -T::one());
        c
    }

    fn push(&mut self, p: &Place<T, DIM>, sign: T) {
        match p {
            Place::Free { offset } => {
                for k in 0..DIM {
                    let mut v = [T::zero(); DIM];
                    v[k] = sign;
                    self.add(offset + k, v);
                }
            }
            Place::Rail { offset, dir, .. } => {
                let mut v = [T::zero(); DIM];
                for k in 0..DIM {
                    v[k] = dir[k] * sign;
                }
                self.add(*offset, v);
            }
            Place::Ground(_) => {}
        }
    }

    fn add(&mut self, i: usize, v: [T; DIM]) {
        if let (Some(slot), Some(col)) = (self.idx.get_mut(self.len), self.col.get_mut(self.len)) {
            *slot = i;
            *col = v;
            self.len += 1;
        }
    }
}

/// `x·y` for small fixed-size arrays.
#[inline]
pub(super) fn dot<T: Real, const DIM: usize>(x: &[T; DIM], y: &[T; DIM]) -> T {
    let mut s = T::zero();
    for c in 0..DIM {
        s += x[c] * y[c];
    }
    s
}

/// `q[i]`, zero outside `q` (no validated place produces such an index).
#[inline]
fn at<T: Real, const N: usize>(q: &SVector<T, N>, i: usize) -> T {
    q.as_slice().get(i).copied().unwrap_or_else(T::zero)
}

/// `m[(i, j)] += x`; nothing outside `m`.
#[inline]
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

impl<T: Real, const DIM: usize> Place<T, DIM> {
    /// The position at `q` (`with_origin`) or the displacement for a displacement `q`
    /// (origin and ground dropped).
    // Always inlined: `with_origin` is a constant at every call, so the unused branch folds.
    #[inline(always)]
    fn point<const N: usize>(&self, q: &SVector<T, N>, with_origin: bool) -> [T; DIM] {
        let mut p = [T::zero(); DIM];
        match self {
            Place::Free { offset } => {
                for (c, pc) in p.iter_mut().enumerate() {
                    *pc = at(q, offset + c);
                }
            }
            Place::Rail {
                offset,
                origin,
                dir,
            } => {
                let s = at(q, *offset);
                for (c, pc) in p.iter_mut().enumerate() {
                    *pc = dir[c] * s;
                    if with_origin {
                        *pc += origin[c];
                    }
                }
            }
            Place::Ground(g) => {
                if with_origin {
                    for (c, pc) in p.iter_mut().enumerate() {
                        *pc = g[c];
                    }
                }
            }
        }
        p
    }

    /// `out += sign · Bᵀ v` for this end: the generalised force of a Cartesian force `v` on it.
    #[inline]
    pub(crate) fn scatter<const N: usize>(&self, out: &mut SVector<T, N>, v: &[T; DIM]) {
        match self {
            Place::Free { offset } => {
                for (c, vc) in v.iter().enumerate() {
                    if let Some(o) = out.as_mut_slice().get_mut(offset + c) {
                        *o += *vc;
                    }
                }
            }
            Place::Rail { offset, dir, .. } => {
                let mut s = T::zero();
                for (c, vc) in v.iter().enumerate() {
                    s += dir[c] * *vc;
                }
                if let Some(o) = out.as_mut_slice().get_mut(*offset) {
                    *o += s;
                }
            }
            Place::Ground(_) => {}
        }
    }

    /// `B a` for this place: the displacement of the point for a coordinate displacement `a`.
    pub(crate) fn displacement<const N: usize>(&self, a: &SVector<T, N>) -> [T; DIM] {
        self.point(a, false)
    }

    /// The position of this place at `q`.
    pub fn position<const N: usize>(&self, q: &SVector<T, N>) -> SVector<T, DIM> {
        SVector::from(self.point(q, true))
    }
}

impl<T: Real, const DIM: usize> Rod<T, DIM> {
    /// `d = p_a − p_b` at `q`.
    #[inline(always)]
    pub(super) fn difference<const N: usize>(&self, q: &SVector<T, N>) -> [T; DIM] {
        self.delta(q, true)
    }

    #[inline(always)]
    pub(super) fn delta<const N: usize>(&self, q: &SVector<T, N>, with_origin: bool) -> [T; DIM] {
        let mut d = self.a.point(q, with_origin);
        let pb = self.b.point(q, with_origin);
        for c in 0..DIM {
            d[c] -= pb[c];
        }
        d
    }

    /// `out += Bᵀ v` (the `+v` on end `a`, `−v` on end `b`).
    #[inline(always)]
    pub(super) fn scatter<const N: usize>(&self, out: &mut SVector<T, N>, v: &[T; DIM]) {
        self.a.scatter(out, v);
        let mut m = *v;
        for x in m.iter_mut() {
            *x = -*x;
        }
        self.b.scatter(out, &m);
    }

    /// `out += Bᵀ P B` for the symmetric `DIM × DIM` block `P = (γ d dᵀ + α I) · scale`, entry
    /// by entry `((γ (bᵢ·d)) (bⱼ·d) + α (bᵢ·bⱼ)) · scale` over the columns `bᵢ` of `B`.
    ///
    /// The order of the products is the one `(γ d_r d_c + α) · scale` had when `P` was formed
    /// per entry: a free node's or an axis-aligned rail's column is `±eᵣ`, so every entry is
    /// the same number as before (the golden cart-pole runs stay bit-identical). Dot products
    /// per column instead of the `DIM × DIM` block `P` formed and summed per pair of columns
    /// took the firmware cart-pole tick from 4,398 to 3,804 instructions (`firmware/README.md`).
    // Index loops over the two column lists: the measured codegen of the firmware tick (the
    // golden instruction counts) is this form's.
    #[allow(clippy::needless_range_loop)]
    pub(super) fn add_block<const N: usize>(
        &self,
        out: &mut SMatrix<T, N, N>,
        gamma: T,
        alpha: T,
        scale: T,
        d: &[T; DIM],
    ) {
        let cols = Columns::of(self);
        let n = cols.len.min(6);
        let bd: [T; 6] = core::array::from_fn(|i| {
            if i < n {
                dot(&cols.col[i], d)
            } else {
                T::zero()
            }
        });
        for ii in 0..n {
            let (i, bi, gi) = (cols.idx[ii], &cols.col[ii], gamma * bd[ii]);
            for jj in 0..n {
                let (j, bj) = (cols.idx[jj], &cols.col[jj]);
                add_at(out, i, j, (gi * bd[jj] + alpha * dot(bi, bj)) * scale);
            }
        }
    }
}

/// One row of a [`Linkage`]: a rod or a joint row between body-fixed points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Row<T: Real, const DIM: usize> {
    /// `|p_a − p_b|² − L² = 0`.
    Rod(Rod<T, DIM>),
    /// `(P_a − P_b)·(P_c − P_d) − k = 0` (a joint's row, see [`Bilinear`]).
    Joint(Bilinear<T, DIM>),
}

/// `D` rows: rods whose ends are free nodes, nodes on rails or ground pins, in squared-distance
/// form `gₖ = |p_a − p_b|² − Lₖ²` with positions affine in `q` (`p = A q + c`), and joint rows
/// between body-fixed points ([`Bilinear`]). For a rod, with `B = A_a − A_b` and
/// `d = p_a − p_b`: `∇gₖ = 2 Bᵀ d`, `Hess gₖ = 2 BᵀB` (constant), `g‴ = 0`; a joint row is
/// bilinear, its Hessian constant too.
///
/// Built by [`MechanismBuilder`](super::MechanismBuilder); for a mechanism without rails or
/// joints the builder also gives the crate's [`Distances`](crate::systems::Distances),
/// bit-identical to the built-in models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linkage<T: Real, const DIM: usize, const N: usize, const D: usize> {
    rows: [Row<T, DIM>; D],
}

impl<T: Real, const DIM: usize, const N: usize, const D: usize> Linkage<T, DIM, N, D> {
    pub(crate) const fn from_valid(rows: [Row<T, DIM>; D]) -> Self {
        Self { rows }
    }

    /// The rows, to be written in place by the builder ([`super::MechanismBuilder::build_in`]).
    pub(super) fn rows_mut(&mut self) -> &mut [Row<T, DIM>; D] {
        &mut self.rows
    }

    /// The rows.
    pub fn rows(&self) -> &[Row<T, DIM>; D] {
        &self.rows
    }

    /// The Euclidean length `|p_a − p_b|` of rod `k` at `q` (`None` for `k ≥ D` or a joint row).
    pub fn length(&self, q: &SVector<T, N>, k: usize) -> Option<T> {
        match self.rows.get(k) {
            Some(Row::Rod(r)) => {
                let d = r.difference(q);
                Some(dot(&d, &d).sqrt())
            }
            _ => None,
        }
    }
}

mod constraint;
