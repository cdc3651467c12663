//! Joint construction: the builder's revolute, prismatic, spherical and fixed joints, and the
//! checks a joint passes (its links, its anchor, the tree).

use super::body::BodyRec;
use super::joint::{frame, Joint, JointKind, Link};
use super::MechanismBuilder;
use crate::{ConfigError, Real};
use nalgebra::SVector;

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
}
