//! Joint readouts (angle, slide and their rates) and joint motors' node forces (see the
//! [joint docs](super::joint) for the conventions).

use super::body::to3;
use super::joint::{JointKind, Link};
use super::row::BodyPoint;
use super::Mechanism;
use crate::Real;
use nalgebra::SVector;

/// `P_a − P_b` at `q` (or its rate for `q = v` with `with_origin = false`).
fn diff<T: Real, const DIM: usize, const N: usize>(
    a: &BodyPoint<T, DIM>,
    b: &BodyPoint<T, DIM>,
    q: &SVector<T, N>,
    with_origin: bool,
) -> SVector<T, DIM> {
    SVector::from(a.point(q, with_origin)) - SVector::from(b.point(q, with_origin))
}

impl<
        T: Real,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, S, B, J>
{
    /// The number of joints.
    pub fn joints(&self) -> usize {
        self.n_joints
    }

    /// `(value, rate)` of joint `j`'s coordinate at `(q, v)`.
    fn joint_coordinate(&self, j: usize, q: &SVector<T, N>, v: &SVector<T, N>) -> Option<(T, T)> {
        let joint = self.joint_rec(j)?;
        let child = Link::Body(joint.child);
        let vec = |link: Link, x: &SVector<T, DIM>| {
            let tip = joint.anchor + x * joint.r;
            (
                self.link_point(link, &tip),
                self.link_point(link, &joint.anchor),
            )
        };
        if joint.kind.hinge(DIM) {
            let (ra, rb) = joint.hinge_frame();
            let (c1, c0) = vec(child, &ra);
            let (a1, a0) = vec(joint.parent, &ra);
            let (b1, b0) = vec(joint.parent, &rb);
            let (c, cd) = (diff(&c1, &c0, q, true), diff(&c1, &c0, v, false));
            let (e1, e1d) = (diff(&a1, &a0, q, true), diff(&a1, &a0, v, false));
            let (e2, e2d) = (diff(&b1, &b0, q, true), diff(&b1, &b0, v, false));
            let (x, y) = (c.dot(&e1), c.dot(&e2));
            let (xd, yd) = (cd.dot(&e1) + c.dot(&e1d), cd.dot(&e2) + c.dot(&e2d));
            let r2 = x * x + y * y;
            return Some((y.atan2(x), (x * yd - y * xd) / r2));
        }
        if joint.kind == JointKind::Prismatic {
            let [u, _, _] = joint.frame;
            let (u1, u0) = vec(joint.parent, &u);
            let cp = self.link_point(child, &joint.anchor);
            let (d, dd) = (diff(&cp, &u0, q, true), diff(&cp, &u0, v, false));
            let (e, ed) = (diff(&u1, &u0, q, true), diff(&u1, &u0, v, false));
            return Some(((d.dot(&e)) / joint.r, (dd.dot(&e) + d.dot(&ed)) / joint.r));
        }
        None
    }

    /// Joint `j`'s angle (rad, counter-clockwise about its axis, zero at the build pose) for a
    /// revolute joint (and a ball joint in the plane), its slide (m along its axis) for a
    /// prismatic one; `None` for a spherical or fixed joint or a missing `j`.
    pub fn joint_angle(&self, j: usize, q: &SVector<T, N>) -> Option<T> {
        self.joint_coordinate(j, q, &SVector::zeros()).map(|x| x.0)
    }

    /// The rate of [`Mechanism::joint_angle`] at `(q, v)` (rad/s or m/s).
    pub fn joint_rate(&self, j: usize, q: &SVector<T, N>, v: &SVector<T, N>) -> Option<T> {
        self.joint_coordinate(j, q, v).map(|x| x.1)
    }

    /// `u += ` joint `j`'s motor force for command `f` at `q`.
    pub(super) fn add_joint_motor(&self, j: usize, f: T, q: &SVector<T, N>, u: &mut SVector<T, N>) {
        let Some(joint) = self.joint_rec(j) else {
            return;
        };
        let child = self.body_rec(joint.child);
        let parent = match joint.parent {
            Link::Body(p) => self.body_rec(p),
            Link::Ground => None,
        };
        let [axis, _, _] = joint.frame;
        if joint.kind.hinge(DIM) {
            let tau = if DIM == 2 {
                SVector::from([T::zero(), T::zero(), f])
            } else {
                let c = Link::Body(joint.child);
                let tip = self.link_point(c, &(joint.anchor + axis * joint.r));
                let base = self.link_point(c, &joint.anchor);
                let a = diff(&tip, &base, q, true);
                let n = a.norm();
                if n <= T::zero() || !n.finite() {
                    return;
                }
                to3(&a) * (f / n)
            };
            if let Some(b) = child {
                b.add_torque(u, q, &tau);
            }
            if let Some(b) = parent {
                b.add_torque(u, q, &(-tau));
            }
        } else if joint.kind == JointKind::Prismatic {
            let tip = self.link_point(joint.parent, &(joint.anchor + axis * joint.r));
            let base = self.link_point(joint.parent, &joint.anchor);
            let a = diff(&tip, &base, q, true);
            let n = a.norm();
            if n <= T::zero() || !n.finite() {
                return;
            }
            let force: [T; DIM] = (a * (f / n)).into();
            self.link_point(Link::Body(joint.child), &joint.anchor)
                .scatter(u, &force, T::one());
            base.scatter(u, &force, -T::one());
        }
    }
}
