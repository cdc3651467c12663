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

use crate::linalg::each;
use crate::{ConfigError, Real};
use nalgebra::SVector;

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
/// Implements [`Constraint`](crate::model::Constraint) exactly. Use [`PlanarDistances`] for the planar case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distances<T: Real, const DIM: usize, const N: usize, const D: usize> {
    links: [Link<T, DIM>; D],
    length2: SVector<T, D>,
    /// Whether the links are a chain in node order (link `k` ties node `k` to node `k − 1`,
    /// link 0 to an anchor): the penalty kernels then address the nodes from the link index.
    in_chain_order: bool,
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
        let in_chain_order = is_chain(&links);
        Ok(Self::build(links, in_chain_order))
    }

    /// Builds from links already known to be valid (the built-in models' literal parameters),
    /// walked as stored by the penalty kernels.
    pub(crate) fn from_valid(links: [Link<T, DIM>; D]) -> Self {
        Self::build(links, false)
    }

    /// Builds from valid links of [`chain_links`] (in chain order, see `is_chain`). Told rather
    /// than read: reading the links where they are built costs a device's frame a copy of them.
    pub(crate) fn from_chain_links(links: [Link<T, DIM>; D]) -> Self {
        Self::build(links, true)
    }

    #[inline(always)]
    fn build(links: [Link<T, DIM>; D], in_chain_order: bool) -> Self {
        let length2 = SVector::from_fn(|k, _| links[k].length * links[k].length);
        Self {
            links,
            length2,
            in_chain_order,
        }
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
            each(DIM, |c| pa[c] += v[c]);
        }
        if let Endpoint::Node(b) = l.to {
            if let Some(pb) = Self::node_mut(out, b) {
                each(DIM, |c| pb[c] -= v[c]);
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
                each(DIM, |c| d[c] -= pb[c]);
            }
            Endpoint::Anchor(p) => {
                let p = p.as_slice();
                each(DIM, |c| {
                    if let Some(pc) = p.get(c) {
                        d[c] -= *pc;
                    }
                });
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
            each(DIM, |c| d[c] -= pb[c]);
        }
        d
    }
}

/// Runs `$body` with `$k` and `$e` bound to every link's index and [`Ends`] in order, for the
/// `$d` links of `$links`. For a chain in node order (see `is_chain`) the ends are computed
/// from `k` rather than read from the links, and for at most four links the loop is written out
/// (the body repeated with `k` a literal): every node's coordinates then sit at constant offsets
/// and their range checks fold away (a closure called at each index would be outlined by the
/// optimiser, and inside it the index is not a constant). The ends are the same either way, so are the
/// results, bit for bit.
macro_rules! for_each_link {
    ($links:expr, $d:expr, |$k:ident, $e:ident| $body:block) => {{
        let links = $links;
        if links.in_chain_order && $d <= 4 {
            if $d > 0 {
                let $k = 0usize;
                let $e = links.chain_ends($k);
                $body
            }
            if $d > 1 {
                let $k = 1usize;
                let $e = links.chain_ends($k);
                $body
            }
            if $d > 2 {
                let $k = 2usize;
                let $e = links.chain_ends($k);
                $body
            }
            if $d > 3 {
                let $k = 3usize;
                let $e = links.chain_ends($k);
                $body
            }
        } else {
            for $k in 0..$d {
                let $e = links.stored_ends($k);
                $body
            }
        }
    }};
}

/// The two ends of a link as the kernels address them: node `a`, and node `b` or the anchor.
#[derive(Clone, Copy)]
struct Ends<T: Real, const DIM: usize> {
    a: usize,
    b: Option<usize>,
    anchor: [T; DIM],
}

impl<T: Real, const DIM: usize, const N: usize, const D: usize> Distances<T, DIM, N, D> {
    /// The anchor of link `l` (zeros for a link between two nodes).
    #[inline(always)]
    fn anchor(l: &Link<T, DIM>) -> [T; DIM] {
        let mut anchor = [T::zero(); DIM];
        if let Endpoint::Anchor(p) = l.to {
            each(DIM, |c| {
                if let Some(pc) = p.as_slice().get(c) {
                    anchor[c] = *pc;
                }
            });
        }
        anchor
    }

    /// The ends of link `k` of a chain in node order: node `k`, and node `k − 1` or (for `k = 0`)
    /// the anchor of the first link.
    #[inline(always)]
    fn chain_ends(&self, k: usize) -> Ends<T, DIM> {
        if k == 0 {
            let anchor = match self.links.first() {
                Some(l) => Self::anchor(l),
                None => [T::zero(); DIM],
            };
            Ends {
                a: 0,
                b: None,
                anchor,
            }
        } else {
            Ends {
                a: k,
                b: Some(k - 1),
                anchor: [T::zero(); DIM],
            }
        }
    }

    /// The ends of link `k` as stored (node `0` and the origin for `k ≥ D`, which no loop
    /// reaches).
    #[inline(always)]
    fn stored_ends(&self, k: usize) -> Ends<T, DIM> {
        match self.links.get(k) {
            Some(l) => Ends {
                a: l.node,
                b: match l.to {
                    Endpoint::Node(b) => Some(b),
                    Endpoint::Anchor(_) => None,
                },
                anchor: Self::anchor(l),
            },
            None => Ends {
                a: 0,
                b: None,
                anchor: [T::zero(); DIM],
            },
        }
    }

    /// `d = p_a − p_b` for the ends `e` (`p_b` the anchor when `e.b` is `None`).
    #[inline(always)]
    fn difference_of(q: &SVector<T, N>, e: &Ends<T, DIM>) -> [T; DIM] {
        let mut d = Self::node(q, e.a);
        match e.b {
            Some(b) => {
                let pb = Self::node(q, b);
                each(DIM, |c| d[c] -= pb[c]);
            }
            None => each(DIM, |c| d[c] -= e.anchor[c]),
        }
        d
    }

    /// `δ = a_a − a_b` for the ends `e` of a displacement `a` (`a_b = 0` for an anchor).
    #[inline(always)]
    fn relative_of(a: &SVector<T, N>, e: &Ends<T, DIM>) -> [T; DIM] {
        let mut d = Self::node(a, e.a);
        if let Some(b) = e.b {
            let pb = Self::node(a, b);
            each(DIM, |c| d[c] -= pb[c]);
        }
        d
    }

    /// Adds `v` to node `e.a` and subtracts it from node `e.b` (nothing for an anchor).
    #[inline(always)]
    fn scatter_to(out: &mut SVector<T, N>, e: &Ends<T, DIM>, v: &[T; DIM]) {
        if let Some(pa) = Self::node_mut(out, e.a) {
            each(DIM, |c| pa[c] += v[c]);
        }
        if let Some(b) = e.b {
            if let Some(pb) = Self::node_mut(out, b) {
                each(DIM, |c| pb[c] -= v[c]);
            }
        }
    }
}

mod constraint;
#[cfg(test)]
mod tests;

/// Whether `links` are a chain in node order: link `k` ties node `k` to node `k − 1`, link 0 to
/// an anchor ([`Distances::chain`], the pendula and chains of [`crate::systems`]).
fn is_chain<T: Real, const DIM: usize>(links: &[Link<T, DIM>]) -> bool {
    links.iter().enumerate().all(|(k, l)| {
        l.node == k
            && match l.to {
                Endpoint::Node(b) => b + 1 == k,
                Endpoint::Anchor(_) => k == 0,
            }
    })
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
