//! [`MechanismBuilder`]: masses, rods, pins, rails, gravity, springs, dashpots and actuators, validated
//! one call at a time (a refused call leaves the builder unchanged).

use super::body::BodyRec;
use super::joint::Joint;
use super::linkage::{Linkage, Place};
use super::spring::Spring;
use super::Actuator;
use crate::model::Constraint;
use crate::systems::{Endpoint, Link};
use crate::validate::check_positive;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// Builds a [`Mechanism`](super::Mechanism) in `DIM ∈ {2, 3}` dimensions (see the
/// [module docs](super) for the coordinates, the forms produced and the errors).
///
/// The const parameters are exact counts or capacities, so that a mechanism stores only what
/// it holds:
/// - `N`: the coordinates (exact: [`MechanismBuilder::build`] checks the nodes' sum);
/// - `D`: the constraint rows, rods and joint rows (exact);
/// - `S`: the springs (exact; 0 by default);
/// - `B`: room for rigid bodies ([`MechanismBuilder::body`]; 0 by default, a capacity: fewer
///   bodies are fine, one more is [`ConfigError::Inconsistent`] `"bodies <= B"`);
/// - `J`: room for joints ([`MechanismBuilder::revolute`] and friends; 0 by default, a
///   capacity: one more is `"joints <= J"`).
///
/// A point-mass mechanism (`B = J = 0`) carries no body or joint storage at all.
///
/// **Masses near the top of the range.** Each mass must be positive and finite with a finite
/// inverse, and the mechanism's total mass `Σm` (every node's and every body's) must be
/// representable: a node or body that would make it overflow is refused with
/// [`ConfigError::Overflow`] `"total mass"`, and [`MechanismBuilder::build`] refuses a total
/// weight `g Σm` that overflows (`"g * total mass"`). Then the whole mechanism's kinetic energy
/// and momentum at unit speed (`½Σm`, `Σm`) and its weight's potential at unit height are
/// finite, so a state of ordinary speed is never judged non-finite by the guards for its mass
/// alone. Inertias need no cap of their own: a body's is bounded through its node offsets (the
/// size bound `r, 1/r ≤ MAX^(1/4) / 2`, see [`Body`](super::Body)) and its mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MechanismBuilder<
    T: Real,
    const DIM: usize,
    const N: usize,
    const D: usize,
    const S: usize = 0,
    const B: usize = 0,
    const J: usize = 0,
> {
    pub(super) places: [Place<T, DIM>; N],
    pub(super) node_mass: [T; N],
    pub(super) nodes: usize,
    pub(super) coords: usize,
    pub(super) start: SVector<T, N>,
    pub(super) links: [Link<T, DIM>; D],
    pub(super) rods: usize,
    pub(super) g: T,
    pub(super) damping: SMatrix<T, N, N>,
    pub(super) actuators: [Actuator<T, DIM>; N],
    pub(super) n_act: usize,
    pub(super) springs: [Spring<T, DIM>; S],
    pub(super) n_springs: usize,
    pub(super) bodies: [BodyRec<T, DIM>; B],
    pub(super) n_bodies: usize,
    /// The joints; joint `j`'s rows are rows `first_row ..` (their `links` entries unused).
    pub(super) joints: [Joint<T, DIM>; J],
    pub(super) n_joints: usize,
}

/// `|v|²` of a `DIM`-vector.
fn norm2<T: Real, const DIM: usize>(v: &[T; DIM]) -> T {
    v.iter().fold(T::zero(), |s, &x| s + x * x)
}

/// `v / |v|`, or `OutOfRange { name, bound: "a non-zero vector of finite length" }` for a zero (or non-finite) `v`.
pub(super) fn unit<T: Real, const DIM: usize>(
    v: [T; DIM],
    name: &'static str,
) -> Result<SVector<T, DIM>, ConfigError> {
    if !v.iter().all(|x| x.finite()) {
        return Err(ConfigError::NonFinite { name });
    }
    let n = norm2(&v).sqrt();
    if n <= T::zero() || !n.finite() {
        return Err(ConfigError::OutOfRange {
            name,
            bound: "a non-zero vector of finite length",
        });
    }
    Ok(SVector::from(v) / n)
}

impl<
        T: Real,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > MechanismBuilder<T, DIM, N, D, S, B, J>
{
    /// `DIM ∈ {2, 3}`, or [`ConfigError::Inconsistent`] `"topology"` (the check of
    /// [`MechanismBuilder::new`] and [`MechanismBuilder::new_in`]).
    pub(super) fn check_dim() -> Result<(), ConfigError> {
        if DIM != 2 && DIM != 3 {
            return Err(ConfigError::Inconsistent { name: "topology" });
        }
        Ok(())
    }

    /// A free point mass `m` starting at `p`; returns its node index.
    ///
    /// # Errors
    /// `"mass"` ([`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `m ≤ 0`),
    /// [`ConfigError::Overflow`] `"total mass"` when the mechanism's total mass with `m` added
    /// overflows (see [`MechanismBuilder`]), [`ConfigError::NonFinite`] `"position"`,
    /// [`ConfigError::Inconsistent`] `"coordinates = N"` when the node's `DIM` coordinates do
    /// not fit in `N`.
    pub fn node(&mut self, m: T, p: [T; DIM]) -> Result<usize, ConfigError> {
        check_positive(m, "mass")?;
        self.check_total_mass(m)?;
        if !p.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "position" });
        }
        self.reserve(DIM)?;
        Ok(self.write_node(m, &p))
    }

    /// Adds a checked free node of mass `m` at `p`; returns its index.
    pub(super) fn write_node(&mut self, m: T, p: &[T; DIM]) -> usize {
        let offset = self.coords;
        for (c, &x) in p.iter().enumerate() {
            if let Some(e) = self.start.as_mut_slice().get_mut(offset + c) {
                *e = x;
            }
        }
        self.push_node(Place::Free { offset }, m, DIM)
    }

    /// A point mass `m` on a rail (a prismatic joint): the line through `origin` along
    /// `direction`. Its one coordinate is the arc length `s` along the unit direction, starting
    /// at `s`; returns its node index.
    ///
    /// # Errors
    /// As [`MechanismBuilder::node`], plus [`ConfigError::OutOfRange`] `"rail direction"` for a
    /// zero direction and [`ConfigError::NonFinite`] for `"rail origin"` / `"rail direction"` /
    /// `"position"` (`s`).
    pub fn rail_node(
        &mut self,
        m: T,
        origin: [T; DIM],
        direction: [T; DIM],
        s: T,
    ) -> Result<usize, ConfigError> {
        check_positive(m, "mass")?;
        self.check_total_mass(m)?;
        if !origin.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite {
                name: "rail origin",
            });
        }
        let dir = unit(direction, "rail direction")?;
        if !s.finite() {
            return Err(ConfigError::NonFinite { name: "position" });
        }
        let offset = self.reserve(1)?;
        if let Some(e) = self.start.as_mut_slice().get_mut(offset) {
            *e = s;
        }
        let origin = SVector::from(origin);
        Ok(self.push_node(
            Place::Rail {
                offset,
                origin,
                dir,
            },
            m,
            1,
        ))
    }

    /// The first coordinate of a new node of `k` coordinates, if it fits.
    fn reserve(&self, k: usize) -> Result<usize, ConfigError> {
        self.reserve_after(0, 0, k)
    }

    /// The first coordinate of a new node of `k` coordinates added after `nodes` more nodes of
    /// `coords` coordinates in all, if it fits.
    pub(super) fn reserve_after(
        &self,
        nodes: usize,
        coords: usize,
        k: usize,
    ) -> Result<usize, ConfigError> {
        let (n, c) = (self.nodes + nodes, self.coords + coords);
        if n >= N || c + k > N {
            return Err(ConfigError::Inconsistent {
                name: "coordinates = N",
            });
        }
        Ok(c)
    }

    fn push_node(&mut self, place: Place<T, DIM>, m: T, k: usize) -> usize {
        let i = self.nodes;
        // `reserve` checked `nodes < N`: both slots exist.
        if let (Some(p), Some(mm)) = (self.places.get_mut(i), self.node_mass.get_mut(i)) {
            *p = place;
            *mm = m;
        }
        self.nodes += 1;
        self.coords += k;
        i
    }

    /// Node `i`'s place, or [`ConfigError::OutOfRange`] `"node"`.
    pub(super) fn place(&self, i: usize) -> Result<Place<T, DIM>, ConfigError> {
        match self.places.get(i) {
            Some(p) if i < self.nodes => Ok(*p),
            _ => Err(ConfigError::OutOfRange {
                name: "node",
                bound: "< nodes",
            }),
        }
    }

    /// A rigid rod between nodes `a` and `b`, its length their distance at the start; returns
    /// its index (constraint `k`, in the order added).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"node"`, [`ConfigError::Inconsistent`] `"rod ends distinct"`
    /// (`a = b`) or `"rod ends coincide"` (the two start positions are equal: a zero-length
    /// rod), [`ConfigError::Inconsistent`] `"rods = D"` when `D` rods exist already.
    pub fn rod(&mut self, a: usize, b: usize) -> Result<usize, ConfigError> {
        let (pa, pb) = (
            self.place(a)?.position(&self.start),
            self.place(b)?.position(&self.start),
        );
        if a == b {
            return Err(ConfigError::Inconsistent {
                name: "rod ends distinct",
            });
        }
        self.push_link(Link::between(a, b, (pa - pb).norm_squared().sqrt()), true)
    }

    /// A rigid rod of length `length` between nodes `a` and `b`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::rod`]; `"rod length"` ([`ConfigError::OutOfRange`] for
    /// `length ≤ 0`, [`ConfigError::NonFinite`]) instead of `"rod ends coincide"`.
    pub fn rod_length(&mut self, a: usize, b: usize, length: T) -> Result<usize, ConfigError> {
        self.place(a)?;
        self.place(b)?;
        if a == b {
            return Err(ConfigError::Inconsistent {
                name: "rod ends distinct",
            });
        }
        self.push_link(Link::between(a, b, length), false)
    }

    /// A rigid rod from node `a` to the ground pin `anchor`, its length their distance at the
    /// start (a pendulum's pivot).
    ///
    /// # Errors
    /// As [`MechanismBuilder::rod`]; [`ConfigError::NonFinite`] `"anchor"`.
    pub fn pin(&mut self, a: usize, anchor: [T; DIM]) -> Result<usize, ConfigError> {
        let pa = self.place(a)?.position(&self.start);
        if !anchor.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "anchor" });
        }
        let c = SVector::from(anchor);
        self.push_link(Link::anchored(a, c, (pa - c).norm_squared().sqrt()), true)
    }

    /// A rigid rod of length `length` from node `a` to the ground pin `anchor`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::rod_length`]; [`ConfigError::NonFinite`] `"anchor"`.
    pub fn pin_length(
        &mut self,
        a: usize,
        anchor: [T; DIM],
        length: T,
    ) -> Result<usize, ConfigError> {
        self.place(a)?;
        if !anchor.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "anchor" });
        }
        self.push_link(Link::anchored(a, SVector::from(anchor), length), false)
    }

    /// Adds a rod; `measured` when its length is the start distance of its ends.
    fn push_link(&mut self, link: Link<T, DIM>, measured: bool) -> Result<usize, ConfigError> {
        self.check_rod(&link, measured, 0)?;
        Ok(self.write_rod(link))
    }

    /// Refuses what [`Self::push_link`] refuses for `link` added after `pending` more rods.
    pub(super) fn check_rod(
        &self,
        link: &Link<T, DIM>,
        measured: bool,
        pending: usize,
    ) -> Result<(), ConfigError> {
        if !link.length.finite() {
            return Err(ConfigError::NonFinite { name: "rod length" });
        }
        if link.length <= T::zero() {
            return Err(if measured {
                // The two ends start at the same point.
                ConfigError::Inconsistent {
                    name: "rod ends coincide",
                }
            } else {
                ConfigError::OutOfRange {
                    name: "rod length",
                    bound: "> 0",
                }
            });
        }
        if crate::validate::check_derived(link.length * link.length, "length^2")? == T::zero() {
            return Err(ConfigError::Overflow { name: "length^2" });
        }
        if self.rods + pending >= D {
            return Err(ConfigError::Inconsistent { name: "rods = D" });
        }
        Ok(())
    }

    /// Adds a checked rod; returns its index.
    pub(super) fn write_rod(&mut self, link: Link<T, DIM>) -> usize {
        if let Some(l) = self.links.get_mut(self.rods) {
            *l = link;
        }
        self.rods += 1;
        self.rods - 1
    }

    /// The checks of [`MechanismBuilder::build`] and [`MechanismBuilder::build_in`] before the
    /// mechanism is made: the counts and every weight `g mᵢ`.
    pub(super) fn check_complete(&self) -> Result<(), ConfigError> {
        if self.coords != N {
            return Err(ConfigError::Inconsistent {
                name: "coordinates = N",
            });
        }
        if self.rods != D {
            return Err(ConfigError::Inconsistent { name: "rods = D" });
        }
        if self.n_springs != S {
            return Err(ConfigError::Inconsistent {
                name: "springs = S",
            });
        }
        for &m in self.node_mass.iter().take(self.nodes) {
            crate::validate::check_derived(self.g * m, "g * m")?;
        }
        let total = self.check_total_mass(T::zero())?;
        if !(self.g * total).finite() {
            return Err(ConfigError::Overflow {
                name: "g * total mass",
            });
        }
        Ok(())
    }

    /// The total mass of the nodes so far with `m` added, or [`ConfigError::Overflow`]
    /// `"total mass"` when it overflows (see [`MechanismBuilder`]).
    pub(super) fn check_total_mass(&self, m: T) -> Result<T, ConfigError> {
        let total = self
            .node_mass
            .iter()
            .take(self.nodes)
            .fold(m, |s, &x| s + x);
        if total.finite() {
            Ok(total)
        } else {
            Err(ConfigError::Overflow { name: "total mass" })
        }
    }

    /// Whether any rod end is a node on a rail.
    pub(super) fn has_rails(&self) -> bool {
        self.places
            .iter()
            .take(self.nodes)
            .any(|p| matches!(p, Place::Rail { .. }))
    }

    /// The [`Place`] of a link end.
    pub(super) fn end(&self, e: &Endpoint<T, DIM>) -> Place<T, DIM> {
        match e {
            Endpoint::Node(b) => match self.places.get(*b) {
                Some(p) => *p,
                None => Place::Ground(SVector::zeros()),
            },
            Endpoint::Anchor(c) => Place::Ground(*c),
        }
    }
}

/// Every rod's start length matches its length: `|ℓ² − L²| / L² ≤ √ε` at the start
/// positions (`1.5e-8` in `f64`, `3.5e-4` in `f32`; a rod measured from its ends by
/// [`MechanismBuilder::rod`] or [`MechanismBuilder::pin`] matches to round-off).
///
/// # Errors
/// [`ConfigError::StartMismatch`] `{ name: "rod", index, .. }` for the first rod that does
/// not match.
#[inline(never)]
pub(super) fn check_start<T: Real, const DIM: usize, const N: usize, const D: usize>(
    linkage: &Linkage<T, DIM, N, D>,
    start: &SVector<T, N>,
) -> Result<(), ConfigError> {
    let g = linkage.value(start);
    let tol = T::default_epsilon().sqrt();
    for (k, (gk, row)) in g.iter().zip(linkage.rows().iter()).enumerate() {
        let scale = match row {
            super::Row::Rod(rod) => rod.length2,
            super::Row::Joint(j) => j.length2,
        };
        let rel = (*gk / scale).abs();
        // A NaN mismatch is refused too.
        if rel > tol || !rel.finite() {
            return Err(ConfigError::StartMismatch {
                name: "rod",
                index: u32::try_from(k).unwrap_or(u32::MAX),
                excess: crate::error::excess(rel, tol),
            });
        }
    }
    Ok(())
}
