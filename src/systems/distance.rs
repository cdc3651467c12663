//! Squared-distance constraints between point masses: rods, pendula, chains, linkages.
//!
//! The configuration `q ∈ ℝᴺ` holds `N / DIM` nodes (point masses) in `DIM` space dimensions,
//! node `i` at `(q[DIM·i], …, q[DIM·i + DIM − 1])` — for the planar case `(x₁, y₁, x₂, y₂, …)`,
//! the ordering of 000 §4.1–4.2, 004 §5.4 and 001 §7. Each [`Link`] ties a node `a` either to
//! another node `b` or to a fixed anchor `c` by the *squared-distance* form
//!
//! ```text
//! gₖ(q) = |p_a − p_b|² − Lₖ²        (or |p_a − c|² − Lₖ²)
//! ```
//!
//! which is what the seeds use (000 §4.1: `g₁ = x₁² + y₁² − L₁²`, …). It has the same zero set as
//! the distance form `|p_a − p_b| − L` (002 §5) with a multiplier scaled by `1/(2L)`, but is a
//! polynomial: `g` is quadratic, so its Hessian is constant and its third derivative vanishes.
//! With `d = p_a − p_b`:
//!
//! - `∇_a gₖ = 2d`, `∇_b gₖ = −2d`;
//! - `Hess gₖ = 2 [[I, −I], [−I, I]]` on the `(a, b)` blocks (`2I` on `(a, a)` for an anchor);
//! - `a·gₖ‴·a = 0`.
//!
//! Every index is validated when the constraint set is built, and evaluation reaches the
//! coordinates of a node only through checked access (`get`, a fixed-size chunk of the slice):
//! an index out of range would read zeros and skip its writes instead of panicking. For the
//! validated links that case cannot occur, so results are exact; what the checked access buys is
//! that no branch to a panic is left in the step (the firmware proves it at link time).

use crate::model::BandMut;
use crate::model::Constraint;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// The second end of a [`Link`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Endpoint<T: Real, const DIM: usize> {
    /// Another node, by index (node `i` occupies coordinates `DIM·i … DIM·i + DIM − 1`).
    Node(usize),
    /// A fixed point in space (a pivot).
    Anchor(SVector<T, DIM>),
}

/// One distance constraint `|p_node − p_to|² − length² = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link<T: Real, const DIM: usize> {
    /// The first end: a node index.
    pub node: usize,
    /// The second end: another node or a fixed anchor.
    pub to: Endpoint<T, DIM>,
    /// The rod length `L > 0`.
    pub length: T,
}

impl<T: Real, const DIM: usize> Link<T, DIM> {
    /// A rod of length `length` between nodes `a` and `b`.
    pub fn between(a: usize, b: usize, length: T) -> Self {
        Self {
            node: a,
            to: Endpoint::Node(b),
            length,
        }
    }

    /// A rod of length `length` from node `a` to the fixed point `anchor`.
    pub fn anchored(a: usize, anchor: SVector<T, DIM>, length: T) -> Self {
        Self {
            node: a,
            to: Endpoint::Anchor(anchor),
            length,
        }
    }
}

/// `D` squared-distance constraints on `N / DIM` nodes in `DIM` dimensions (see the module docs).
///
/// Implements [`Constraint`] exactly. Use [`PlanarDistances`] for the planar case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distances<T: Real, const DIM: usize, const N: usize, const D: usize> {
    links: [Link<T, DIM>; D],
    length2: SVector<T, D>,
}

/// Distance constraints between nodes in the plane (`DIM = 2`, `q = (x₁, y₁, x₂, y₂, …)`).
pub type PlanarDistances<T, const N: usize, const D: usize> = Distances<T, 2, N, D>;

impl<T: Real, const DIM: usize, const N: usize, const D: usize> Distances<T, DIM, N, D> {
    /// A constraint set from its links.
    ///
    /// # Errors
    /// - [`ConfigError::OutOfRange`] `"DIM"` when `DIM = 0`;
    /// - [`ConfigError::Inconsistent`] `"N divisible by DIM"` when `N` is not a whole number of
    ///   nodes;
    /// - [`ConfigError::OutOfRange`] `"node"` when a node index is `≥ N / DIM`;
    /// - [`ConfigError::Inconsistent`] `"link ends distinct"` when a link joins a node to itself;
    /// - [`ConfigError::NonFinite`] `"length"` / `"anchor"`, [`ConfigError::OutOfRange`]
    ///   `"length"` when a length is `≤ 0`.
    pub fn new(links: [Link<T, DIM>; D]) -> Result<Self, ConfigError> {
        if DIM == 0 {
            return Err(ConfigError::OutOfRange {
                name: "DIM",
                bound: ">= 1",
            });
        }
        if !N.is_multiple_of(DIM) {
            return Err(ConfigError::Inconsistent {
                name: "N divisible by DIM",
            });
        }
        let nodes = N / DIM;
        for l in links.iter() {
            if l.node >= nodes {
                return Err(ConfigError::OutOfRange {
                    name: "node",
                    bound: "< N / DIM",
                });
            }
            match l.to {
                Endpoint::Node(b) => {
                    if b >= nodes {
                        return Err(ConfigError::OutOfRange {
                            name: "node",
                            bound: "< N / DIM",
                        });
                    }
                    if b == l.node {
                        return Err(ConfigError::Inconsistent {
                            name: "link ends distinct",
                        });
                    }
                }
                Endpoint::Anchor(c) => {
                    if !c.iter().all(|x| x.finite()) {
                        return Err(ConfigError::NonFinite { name: "anchor" });
                    }
                }
            }
            if !l.length.finite() {
                return Err(ConfigError::NonFinite { name: "length" });
            }
            if l.length <= T::zero() {
                return Err(ConfigError::OutOfRange {
                    name: "length",
                    bound: "> 0",
                });
            }
            // `L > 0` whose square underflows to 0 would make the residual `|d|²/L²` infinite.
            if crate::validate::check_derived(l.length * l.length, "length^2")? == T::zero() {
                return Err(ConfigError::Overflow { name: "length^2" });
            }
        }
        Ok(Self::from_valid(links))
    }

    /// Builds from links already known to be valid (the built-in models' literal parameters).
    pub(crate) fn from_valid(links: [Link<T, DIM>; D]) -> Self {
        let length2 = SVector::from_fn(|k, _| links[k].length * links[k].length);
        Self { links, length2 }
    }

    /// An open chain hanging from `anchor`: link 0 ties node 0 to the anchor, link `k ≥ 1` ties
    /// node `k` to node `k − 1`, with lengths `Lₖ` (000 §4.2, 004 eq 5.25).
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"N = DIM * D"` when the chain does not have exactly one
    /// node per link; otherwise as [`Distances::new`].
    pub fn chain(anchor: SVector<T, DIM>, lengths: SVector<T, D>) -> Result<Self, ConfigError> {
        if DIM == 0 {
            return Err(ConfigError::OutOfRange {
                name: "DIM",
                bound: ">= 1",
            });
        }
        if N != DIM * D {
            return Err(ConfigError::Inconsistent {
                name: "N = DIM * D",
            });
        }
        Self::new(chain_links(anchor, lengths))
    }

    /// The links.
    pub fn links(&self) -> &[Link<T, DIM>; D] {
        &self.links
    }

    /// The squared lengths `Lₖ²`.
    pub fn lengths_squared(&self) -> &SVector<T, D> {
        &self.length2
    }

    /// The position of node `i` (zeros for `i ≥ N / DIM`, which no validated link holds).
    #[inline]
    fn node(q: &SVector<T, N>, i: usize) -> [T; DIM] {
        match q
            .as_slice()
            .get(DIM * i..)
            .and_then(|s| s.first_chunk::<DIM>())
        {
            Some(p) => *p,
            None => [T::zero(); DIM],
        }
    }

    /// The coordinates of node `i` in `out` (`None` for `i ≥ N / DIM`).
    #[inline]
    fn node_mut(out: &mut SVector<T, N>, i: usize) -> Option<&mut [T; DIM]> {
        out.as_mut_slice()
            .get_mut(DIM * i..)
            .and_then(|s| s.first_chunk_mut::<DIM>())
    }

    /// Adds `v` to node `a` of link `l` and subtracts it from node `b` (nothing for an anchor).
    #[inline]
    fn scatter(&self, out: &mut SVector<T, N>, l: &Link<T, DIM>, v: &[T; DIM]) {
        // The two nodes of a link are distinct, so the order of the updates does not matter.
        if let Some(pa) = Self::node_mut(out, l.node) {
            for c in 0..DIM {
                pa[c] += v[c];
            }
        }
        if let Endpoint::Node(b) = l.to {
            if let Some(pb) = Self::node_mut(out, b) {
                for c in 0..DIM {
                    pb[c] -= v[c];
                }
            }
        }
    }

    /// `d = p_a − p_b` for link `l` (`p_b` the anchor for an anchored link).
    #[inline]
    fn difference(q: &SVector<T, N>, l: &Link<T, DIM>) -> [T; DIM] {
        let mut d = Self::node(q, l.node);
        match l.to {
            Endpoint::Node(b) => {
                let pb = Self::node(q, b);
                for c in 0..DIM {
                    d[c] -= pb[c];
                }
            }
            Endpoint::Anchor(p) => {
                for c in 0..DIM {
                    d[c] -= p[c];
                }
            }
        }
        d
    }

    /// `δ = a_a − a_b` for link `l` of a displacement `a` (`a_b = 0` for an anchor).
    #[inline]
    fn relative(a: &SVector<T, N>, l: &Link<T, DIM>) -> [T; DIM] {
        let mut d = Self::node(a, l.node);
        if let Endpoint::Node(b) = l.to {
            let pb = Self::node(a, b);
            for c in 0..DIM {
                d[c] -= pb[c];
            }
        }
        d
    }
}

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

/// `x·y` for small fixed-size arrays (a plain loop: no iterator adapters left out of line at
/// opt-level "s").
#[inline]
fn dot<T: Real, const DIM: usize>(x: &[T; DIM], y: &[T; DIM]) -> T {
    let mut s = T::zero();
    for c in 0..DIM {
        s += x[c] * y[c];
    }
    s
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
            for dc in d.iter_mut() {
                *dc *= s;
            }
            self.scatter(&mut out, l, &d);
        }
        out
    }

    /// Link by link, `O(D)`: with `d = p_a − p_b` and `δ = a_a − a_b` (`a_b = 0` for an anchor),
    /// link `k` adds `wₖ (8 (d·δ) δ + 4 |δ|² d)` to node `a` and subtracts it from node `b`
    /// (`g‴ = 0` for squared distances).
    fn penalty_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        let four = T::lit(4.0);
        let eight = T::lit(8.0);
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            let delta = Self::relative(a, l);
            let (s8, s4) = (eight * dot(&d, &delta), four * dot(&delta, &delta));
            let mut v = [T::zero(); DIM];
            for c in 0..DIM {
                v[c] = (delta[c] * s8 + d[c] * s4) * w[k];
            }
            self.scatter(&mut out, l, &v);
        }
        out
    }

    /// Link by link, `O(D · DIM²)`: link `k` adds `B = scale·wₖ (4 d dᵀ + 2 gₖ I)` to the
    /// diagonal blocks of its nodes and `−B` to their off-diagonal blocks.
    fn add_penalty_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        out: &mut SMatrix<T, N, N>,
    ) {
        let two = T::one() + T::one();
        let four = two + two;
        for (k, l) in self.links.iter().enumerate() {
            let d = Self::difference(q, l);
            let g2 = two * (dot(&d, &d) - self.length2[k]);
            let ws = w[k] * scale;
            let ia = DIM * l.node;
            for r in 0..DIM {
                for c in 0..DIM {
                    let mut b = four * d[r] * d[c];
                    if r == c {
                        b += g2;
                    }
                    let b = b * ws;
                    add_at(out, ia + r, ia + c, b);
                    if let Endpoint::Node(nb) = l.to {
                        let ib = DIM * nb;
                        add_at(out, ib + r, ib + c, b);
                        sub_at(out, ia + r, ib + c, b);
                        sub_at(out, ib + r, ia + c, b);
                    }
                }
            }
        }
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

/// The links of an open chain hanging from `anchor` (see [`Distances::chain`]).
pub(crate) fn chain_links<T: Real, const DIM: usize, const D: usize>(
    anchor: SVector<T, DIM>,
    lengths: SVector<T, D>,
) -> [Link<T, DIM>; D] {
    core::array::from_fn(|k| {
        if k == 0 {
            Link::anchored(0, anchor, lengths[k])
        } else {
            Link::between(k, k - 1, lengths[k])
        }
    })
}
