//! Joints between rigid bodies (and to the ground): rows, motors, damping and readouts.
//!
//! A joint has an anchor (a world point at the build pose) fixed in both links, and a frame
//! `(u, n₁, n₂)`: `u` the joint's axis, `n₁ ⟂ u`, `n₂ = u × n₁` (in the plane `n₁ = u⊥`). With
//! `r` the child's size (the RMS distance of its nodes from its COM), `C(x)` / `P(x)` the
//! child-fixed / parent-fixed point that is at `x` at the build pose, the rows
//! ([`Bilinear`]) are
//!
//! | kind | rows in space | rows in the plane |
//! |---|---|---|
//! | [`JointKind::Spherical`] | ball: `(C(p) − P(p))·r eₖ = 0`, 3 rows | ball, 2 rows |
//! | [`JointKind::Revolute`] | ball + `(C(p+ru) − C(p))·(P(p+rnⱼ) − P(p)) = 0`, `j = 1, 2` (5) | ball (2): it turns about the plane's normal, `axis` unused |
//! | [`JointKind::Prismatic`] | orientation lock `u·n₁, u·n₂, n₁·n₂` (child vector · parent vector) + `(C(p) − P(p))·(P(p+rnⱼ) − P(p)) = 0` (5) | lock `u·n₁` + slide (2) |
//! | [`JointKind::Fixed`] | ball + lock (6) | ball + lock (3) |
//!
//! Every row is zero at the build pose and has the units of length², `ℓ² = r²` its residual
//! scale. None is redundant for a tree, so RATTLE's `G M⁻¹ Gᵀ` stays nonsingular; **closed
//! loops are refused** (a body may be the child of one joint, and a joint may not make a body
//! its own ancestor): a loop's rows are generically dependent in space (four parallel hinges
//! close with two dependent rows), which the exact methods cannot take.
//!
//! **Motors**: a revolute motor's command `τ` is a torque `τ û` on the child and `−τ û` on the
//! parent, `û` the child's current axis, applied as node forces `fᵢ = mᵢ α × ρᵢ`, `α = J⁻¹ τ û`
//! with `J` the body's current world inertia (zero net force, net torque `τ û`); a prismatic
//! motor's `F` is a force `F û` (`û` the parent's current axis) at the child's anchor point and
//! `−F û` at the parent's, so the pair has no net force and no net moment.
//!
//! **Damping** must be a constant matrix `C` (what [`Damped`](crate::forcing::Damped) takes), so
//! a joint damper is built from isotropic dashpots between body-fixed points that coincide at
//! the build pose: a revolute joint's `c` (N·m·s) is two dashpots `c / (2r²)` at `p ± r n₁`
//! (in the plane `p ± r u`), a spherical joint's four… six dashpots `c / (4r²)` at
//! `p ± r eₖ`, a prismatic joint's one dashpot `c` at `p`. Their torque about the joint is
//! exactly `−c θ̇` when the parent does not rotate (a joint to the ground) or at `θ = 0`;
//! otherwise the dashpots also see the parent's rotation carried over the points' separation
//! (`2r sin(θ/2)`), an extra torque of at most `c |ω_parent| · 2 |sin(θ/2)|` (a prismatic
//! damper at slide `s`: an extra force of at most `c |ω_parent| s`). A fixed joint has no
//! damper.

use super::body::{link_point, to3, BodyRec};
use super::linkage::Row;
use super::row::{Bilinear, BodyPoint};
use crate::Real;
use nalgebra::SVector;

/// One end of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The fixed world.
    Ground,
    /// A body, by the id [`MechanismBuilder::body`](super::MechanismBuilder::body) returned.
    Body(usize),
}

/// The kind of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// A hinge about an axis.
    Revolute,
    /// A slider along an axis.
    Prismatic,
    /// A ball joint.
    Spherical,
    /// A weld.
    Fixed,
}

impl JointKind {
    /// The constraint rows the joint adds in `dim` dimensions (module docs' table).
    pub const fn rows(self, dim: usize) -> usize {
        match self {
            Self::Spherical => dim,
            Self::Revolute | Self::Prismatic => {
                if dim == 3 {
                    5
                } else {
                    2
                }
            }
            Self::Fixed => {
                if dim == 3 {
                    6
                } else {
                    3
                }
            }
        }
    }

    /// Whether it turns about one axis (a revolute joint; a ball joint in the plane).
    pub(super) const fn hinge(self, dim: usize) -> bool {
        matches!(self, Self::Revolute) || (dim == 2 && matches!(self, Self::Spherical))
    }
}

/// What the builder keeps of a joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Joint<T: Real, const DIM: usize> {
    pub kind: JointKind,
    pub parent: Link,
    pub child: usize,
    pub anchor: SVector<T, DIM>,
    /// `u`, `n₁`, `n₂` (world, build pose; `n₂` unused in the plane).
    pub frame: [SVector<T, DIM>; 3],
    /// The child's size `r`.
    pub r: T,
    /// Its first constraint row (its rows are `first_row .. first_row + kind.rows(DIM)`).
    pub first_row: usize,
}

impl<T: Real, const DIM: usize> Joint<T, DIM> {
    /// `(C(p + r x), C(p))` or `(P(p + r x), P(p))`.
    fn vector(
        &self,
        bodies: &[BodyRec<T, DIM>],
        link: Link,
        x: &SVector<T, DIM>,
    ) -> (BodyPoint<T, DIM>, BodyPoint<T, DIM>) {
        let tip = self.anchor + x * self.r;
        (
            link_point(bodies, link, &tip),
            link_point(bodies, link, &self.anchor),
        )
    }

    fn row(
        &self,
        u: (BodyPoint<T, DIM>, BodyPoint<T, DIM>),
        w: (BodyPoint<T, DIM>, BodyPoint<T, DIM>),
    ) -> Bilinear<T, DIM> {
        Bilinear {
            a: u.0,
            b: u.1,
            c: w.0,
            d: w.1,
            target: T::zero(),
            length2: self.r * self.r,
        }
    }

    /// Writes the joint's `kind.rows(DIM)` rows into `out` (its first slots; the rest, and
    /// the rows that do not fit, are left alone). Into the caller's rows, one at a time: no
    /// array of rows on the stack.
    pub(super) fn rows(&self, bodies: &[BodyRec<T, DIM>], out: &mut [Row<T, DIM>]) {
        let child = Link::Body(self.child);
        let [u, n1, n2] = self.frame;
        let cp = link_point(bodies, child, &self.anchor);
        let pp = link_point(bodies, self.parent, &self.anchor);
        let zero = BodyPoint::ground([T::zero(); DIM]);
        let used = self.kind.rows(DIM);
        let mut k = 0;
        let mut push = |row: Bilinear<T, DIM>| {
            if let Some(o) = out.get_mut(k).filter(|_| k < used) {
                *o = Row::Joint(row);
            }
            k += 1;
        };
        let ball = matches!(self.kind, JointKind::Spherical | JointKind::Fixed)
            || matches!(self.kind, JointKind::Revolute);
        if ball {
            for c in 0..DIM {
                let mut e = [T::zero(); DIM];
                e[c] = self.r;
                push(self.row((cp, pp), (BodyPoint::ground(e), zero)));
            }
        }
        let lock = |a: &SVector<T, DIM>, b: &SVector<T, DIM>| {
            self.row(
                self.vector(bodies, child, a),
                self.vector(bodies, self.parent, b),
            )
        };
        let slide = |b: &SVector<T, DIM>| self.row((cp, pp), self.vector(bodies, self.parent, b));
        match (self.kind, DIM == 3) {
            (JointKind::Revolute, true) => {
                push(lock(&u, &n1));
                push(lock(&u, &n2));
            }
            (JointKind::Prismatic, true) => {
                push(lock(&u, &n1));
                push(lock(&u, &n2));
                push(lock(&n1, &n2));
                push(slide(&n1));
                push(slide(&n2));
            }
            (JointKind::Prismatic, false) => {
                push(lock(&u, &n1));
                push(slide(&n1));
            }
            (JointKind::Fixed, true) => {
                push(lock(&u, &n1));
                push(lock(&u, &n2));
                push(lock(&n1, &n2));
            }
            (JointKind::Fixed, false) => push(lock(&u, &n1)),
            _ => {}
        }
    }

    /// The two in-plane reference directions of a hinge: `(u, n₁)` in the plane, `(n₁, n₂)` in
    /// space.
    pub(super) fn hinge_frame(&self) -> (SVector<T, DIM>, SVector<T, DIM>) {
        let [u, n1, n2] = self.frame;
        if DIM == 2 {
            (u, n1)
        } else {
            (n1, n2)
        }
    }
}

/// `(u, n₁, n₂)` for an axis `u` (unit): `n₁` the unit projection of the coordinate axis least
/// aligned with `u`, `n₂ = u × n₁`; in the plane `n₁ = u⊥`.
pub(super) fn frame<T: Real, const DIM: usize>(u: SVector<T, DIM>) -> [SVector<T, DIM>; 3] {
    if DIM == 2 {
        let n1 = SVector::from_fn(|c, _| if c == 0 { -u[1] } else { u[0] });
        return [u, n1, SVector::zeros()];
    }
    let mut k = 0;
    for c in 1..DIM {
        if u[c].abs() < u[k].abs() {
            k = c;
        }
    }
    let mut e = SVector::<T, DIM>::zeros();
    e[k] = T::one();
    let n1 = (e - u * u.dot(&e)).normalize();
    let n2 = to3(&u).cross(&to3(&n1));
    [u, n1, SVector::from_fn(|c, _| n2[c])]
}
