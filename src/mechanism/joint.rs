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
use super::forces::{add_dashpots, Attachment};
use super::linkage::Row;
use super::row::{Bilinear, BodyPoint};
use super::{Actuator, MechanismBuilder};
use crate::validate::check_nonnegative;
use crate::{ConfigError, Real};
use nalgebra::SVector;

/// One end of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The fixed world.
    Ground,
    /// A body, by the id [`MechanismBuilder::body`] returned.
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
fn frame<T: Real, const DIM: usize>(u: SVector<T, DIM>) -> [SVector<T, DIM>; 3] {
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
    /// A revolute joint (hinge) between `parent` and `child` through `anchor` along `axis`
    /// (world, build pose; in the plane the hinge turns about the plane's normal and `axis`
    /// is not used). Returns the joint's id.
    ///
    /// # Errors
    /// See [`MechanismBuilder::spherical`]; `"joint axis"` ([`ConfigError::OutOfRange`] for a
    /// zero axis in space, [`ConfigError::NonFinite`]).
    pub fn revolute(
        &mut self,
        parent: Link,
        child: Link,
        anchor: [T; DIM],
        axis: [T; DIM],
    ) -> Result<usize, ConfigError> {
        let u = if DIM == 2 {
            if !axis.iter().all(|x| x.finite()) {
                return Err(ConfigError::NonFinite { name: "joint axis" });
            }
            SVector::from_fn(|c, _| if c == 0 { T::one() } else { T::zero() })
        } else {
            super::builder::unit(axis, "joint axis")?
        };
        self.joint(JointKind::Revolute, parent, child, anchor, u)
    }

    /// A prismatic joint (slider) between `parent` and `child` along `axis` through `anchor`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::revolute`] (a zero axis is refused in the plane too).
    pub fn prismatic(
        &mut self,
        parent: Link,
        child: Link,
        anchor: [T; DIM],
        axis: [T; DIM],
    ) -> Result<usize, ConfigError> {
        let u = super::builder::unit(axis, "joint axis")?;
        self.joint(JointKind::Prismatic, parent, child, anchor, u)
    }

    /// A spherical (ball) joint between `parent` and `child` at `anchor`.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"body"` (a missing body); [`ConfigError::Inconsistent`]
    /// `"joint child is a body"` (`child` is the ground), `"joint links distinct"` (a body
    /// joined to itself), `"joint tree (no closed loops)"` (the child already has a parent
    /// joint, or the parent descends from the child), `"rods = D"` (the rows do not fit),
    /// `"joints <= J"` (`J` joints exist already); [`ConfigError::NonFinite`] `"anchor"`;
    /// [`ConfigError::OutOfRange`] `"anchor"` when it lies farther than `r / √ε` from a body it
    /// joins (`r` the body's size, `√(I_zz / m)` in the plane): the joint's rows and readouts
    /// would lose every digit. The builder is unchanged on error.
    pub fn spherical(
        &mut self,
        parent: Link,
        child: Link,
        anchor: [T; DIM],
    ) -> Result<usize, ConfigError> {
        let u = SVector::from_fn(|c, _| if c == 0 { T::one() } else { T::zero() });
        self.joint(JointKind::Spherical, parent, child, anchor, u)
    }

    /// A fixed joint (weld) between `parent` and `child` at `anchor`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::spherical`].
    pub fn fixed(
        &mut self,
        parent: Link,
        child: Link,
        anchor: [T; DIM],
    ) -> Result<usize, ConfigError> {
        let u = SVector::from_fn(|c, _| if c + 1 == DIM { T::one() } else { T::zero() });
        self.joint(JointKind::Fixed, parent, child, anchor, u)
    }

    fn check_link(&self, link: Link) -> Result<(), ConfigError> {
        match link {
            Link::Body(l) if l >= self.n_bodies => Err(ConfigError::OutOfRange {
                name: "body",
                bound: "< bodies",
            }),
            _ => Ok(()),
        }
    }

    fn joint(
        &mut self,
        kind: JointKind,
        parent: Link,
        child: Link,
        anchor: [T; DIM],
        u: SVector<T, DIM>,
    ) -> Result<usize, ConfigError> {
        self.check_link(parent)?;
        self.check_link(child)?;
        let Link::Body(c) = child else {
            return Err(ConfigError::Inconsistent {
                name: "joint child is a body",
            });
        };
        if parent == child {
            return Err(ConfigError::Inconsistent {
                name: "joint links distinct",
            });
        }
        if !anchor.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "anchor" });
        }
        self.check_tree(parent, c)?;
        self.check_anchor(parent, &anchor)?;
        self.check_anchor(child, &anchor)?;
        let rec = self.bodies.get(c).copied().unwrap_or_else(BodyRec::unused);
        let joint = Joint {
            kind,
            parent,
            child: c,
            anchor: SVector::from(anchor),
            frame: frame(u),
            r: rec.radius,
            first_row: self.rods,
        };
        let n = kind.rows(DIM);
        if self.rods + n > D {
            return Err(ConfigError::Inconsistent { name: "rods = D" });
        }
        if self.n_joints >= J {
            return Err(ConfigError::Inconsistent {
                name: "joints <= J",
            });
        }
        self.rods += n;
        let id = self.n_joints;
        if let Some(j) = self.joints.get_mut(id) {
            *j = joint;
        }
        if let Some(b) = self.bodies.get_mut(c) {
            b.parent = Some(id);
        }
        self.n_joints += 1;
        Ok(id)
    }

    /// Refuses an anchor farther than `r / √ε` from a body it joins (`r` the body's size, the
    /// distance measured from its node 0, entry by entry): a body point there has barycentric
    /// weights above `1/√ε`, and the joint's rows and readouts, differences of such points,
    /// would lose every digit (an anchor at `1e300` makes the hinge's tip and base one point).
    /// A difference that overflows is `∞` and refused too.
    fn check_anchor(&self, link: Link, anchor: &[T; DIM]) -> Result<(), ConfigError> {
        let Link::Body(l) = link else { return Ok(()) };
        let Some(b) = self.bodies.get(l) else {
            return Ok(());
        };
        let reach = b.radius / T::default_epsilon().sqrt();
        // `≤` is false for a NaN too (neither side can be one: both points are finite).
        let near = (0..DIM).all(|c| (anchor[c] - b.x0[c]).abs() <= reach);
        if !near {
            return Err(ConfigError::OutOfRange {
                name: "anchor",
                bound: "within r / sqrt(eps) of each body it joins (r: the body's size)",
            });
        }
        Ok(())
    }

    /// Refuses a joint that would close a loop: `child` already has a parent joint, or
    /// `parent` descends from `child`.
    fn check_tree(&self, parent: Link, child: usize) -> Result<(), ConfigError> {
        let err = ConfigError::Inconsistent {
            name: "joint tree (no closed loops)",
        };
        if self.bodies.get(child).is_some_and(|b| b.parent.is_some()) {
            return Err(err);
        }
        let mut cur = parent;
        for _ in 0..=self.n_joints {
            let Link::Body(x) = cur else { return Ok(()) };
            if x == child {
                return Err(err);
            }
            match self.bodies.get(x).and_then(|b| b.parent) {
                Some(j) => cur = self.joints.get(j).map_or(Link::Ground, |j| j.parent),
                None => return Ok(()),
            }
        }
        Ok(())
    }

    fn joint_checked(&self, j: usize) -> Result<Joint<T, DIM>, ConfigError> {
        match self.joints.get(j) {
            Some(r) if j < self.n_joints => Ok(*r),
            _ => Err(ConfigError::OutOfRange {
                name: "joint",
                bound: "< joints",
            }),
        }
    }

    /// A motor on joint `j`: command `τ` (N·m) on a revolute joint, `F` (N) on a prismatic one
    /// (module docs). Returns the actuator's index for [`Mechanism::actuation`](crate::mechanism::Mechanism::actuation).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"joint"`; [`ConfigError::Inconsistent`] `"joint motor on a
    /// revolute or prismatic joint"`; `"actuators <= N"`.
    pub fn joint_motor(&mut self, j: usize) -> Result<usize, ConfigError> {
        let joint = self.joint_checked(j)?;
        if !(joint.kind.hinge(DIM) || joint.kind == JointKind::Prismatic) {
            return Err(ConfigError::Inconsistent {
                name: "joint motor on a revolute or prismatic joint",
            });
        }
        self.push_actuator(Actuator::Joint { joint: j })
    }

    /// A damper `c ≥ 0` on joint `j` (N·m·s for a revolute or spherical joint, N·s/m for a
    /// prismatic one), as dashpots between body-fixed points (module docs for what it is and
    /// its error away from the build pose).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"joint"`; `"damping"` as [`MechanismBuilder::dashpot`];
    /// [`ConfigError::Inconsistent`] `"joint damping on a fixed joint"`.
    pub fn joint_damping(&mut self, j: usize, c: T) -> Result<(), ConfigError> {
        let joint = self.joint_checked(j)?;
        let c = check_nonnegative(c, "damping")?;
        let child = Link::Body(joint.child);
        // The dashpots' body-fixed points and coefficients: at most `2 DIM ≤ 6`.
        let mut ends = [(joint.anchor, c); 6];
        let r2 = joint.r * joint.r;
        let n = match joint.kind {
            JointKind::Fixed => {
                return Err(ConfigError::Inconsistent {
                    name: "joint damping on a fixed joint",
                })
            }
            JointKind::Prismatic => 1,
            kind if kind.hinge(DIM) => {
                let (a, _) = joint.hinge_frame();
                let cc = c / (r2 + r2);
                ends[0] = (joint.anchor + a * joint.r, cc);
                ends[1] = (joint.anchor - a * joint.r, cc);
                2
            }
            _ => {
                let cc = c / (T::lit(4.0) * r2);
                for (k, pair) in ends.chunks_exact_mut(2).take(DIM).enumerate() {
                    let mut e = SVector::<T, DIM>::zeros();
                    e[k] = joint.r;
                    pair[0] = (joint.anchor + e, cc);
                    pair[1] = (joint.anchor - e, cc);
                }
                2 * DIM
            }
        };
        let dashpots = ends.map(|(x, cc)| {
            let pc = link_point(&self.bodies, child, &x);
            (pc, link_point(&self.bodies, joint.parent, &x), cc)
        });
        add_dashpots(&mut self.damping, dashpots.get(..n).unwrap_or(&[]))
    }
}

/// A body point as a dashpot's end: `w · (-f)` and `(-w) · f` round alike (negation is exact),
/// so the matrix is the one a signed scatter gives.
impl<T: Real, const DIM: usize> Attachment<T, DIM> for BodyPoint<T, DIM> {
    fn shift<const N: usize>(&self, delta: &SVector<T, N>) -> [T; DIM] {
        self.point(delta, false)
    }
    fn gather<const N: usize>(&self, out: &mut SVector<T, N>, f: &[T; DIM]) {
        self.scatter(out, f, T::one());
    }
}
