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

    /// Joint `j`'s coordinate and its rate at `(q, v)`, read together: `(angle, rate)` (rad,
    /// rad/s) for a revolute joint (and a ball joint in the plane), `(slide, rate)` (m, m/s) for
    /// a prismatic one; `None` for a spherical or fixed joint or a missing `j`. The values are
    /// those of [`Mechanism::joint_angle`] and [`Mechanism::joint_rate`], bit for bit, for the
    /// cost of one of them: a controller reads each joint once per tick.
    ///
    /// ```
    /// use macrostep::mechanism::{body_constraints, body_coordinates, Body, JointKind, Link, MechanismBuilder};
    /// use macrostep::nalgebra::SVector;
    /// const N: usize = body_coordinates(2);
    /// const D: usize = body_constraints(2) + JointKind::Revolute.rows(2);
    /// let mut b = MechanismBuilder::<f64, 2, N, D, 0, 1, 1>::new()?;
    /// let link = b.body(Body { mass: 1.0, com: [0.3, 0.95], inertia: [[0.02, 0.0], [0.0, 0.0]] })?;
    /// let hinge = b.revolute(Link::Ground, Link::Body(link), [0.3, 1.2], [0.0, 0.0])?;
    /// let mech = b.build()?;
    /// let q = mech.initial_state().q;
    /// // Every node moving at (1, 0): the link swings about the hinge, counter-clockwise.
    /// let v = SVector::<f64, N>::from_fn(|i, _| if i % 2 == 0 { 1.0 } else { 0.0 });
    /// let (angle, rate) = mech.joint_state(hinge, &q, &v).unwrap();
    /// assert!(angle.abs() < 1e-12 && rate > 0.0);
    /// assert_eq!(mech.joint_angle(hinge, &q), Some(angle));
    /// assert_eq!(mech.joint_rate(hinge, &q, &v), Some(rate));
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    pub fn joint_state(&self, j: usize, q: &SVector<T, N>, v: &SVector<T, N>) -> Option<(T, T)> {
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
        self.joint_state(j, q, &SVector::zeros()).map(|x| x.0)
    }

    /// The rate of [`Mechanism::joint_angle`] at `(q, v)` (rad/s or m/s). A controller that
    /// needs the angle too reads both at once with [`Mechanism::joint_state`].
    pub fn joint_rate(&self, j: usize, q: &SVector<T, N>, v: &SVector<T, N>) -> Option<T> {
        self.joint_state(j, q, v).map(|x| x.1)
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

#[cfg(test)]
mod tests {
    use crate::mechanism::{body_constraints, body_coordinates, Body, JointKind, Link};
    use crate::mechanism::{Mechanism, MechanismBuilder};
    use crate::Real;
    use nalgebra::SVector;

    const N2: usize = 2 * body_coordinates(2);
    const D2: usize = 2 * body_constraints(2) + 2 * JointKind::Revolute.rows(2);
    const N3: usize = 2 * body_coordinates(3);
    const D3: usize = 2 * body_constraints(3) + 2 * JointKind::Revolute.rows(3);

    /// A body of mass `m` at `com` with `J = a I`.
    fn body<T: Real, const DIM: usize>(m: f64, com: [f64; DIM], a: f64) -> Body<T, DIM> {
        Body {
            mass: T::lit(m),
            com: com.map(T::lit),
            inertia: core::array::from_fn(|r| {
                core::array::from_fn(|c| T::lit(if r == c { a } else { 0.0 }))
            }),
        }
    }

    /// Two bodies: a revolute joint to the ground and `second` between them.
    fn plane<T: Real>(second: JointKind) -> Mechanism<T, 2, N2, D2, 0, 2, 2> {
        let mut b = MechanismBuilder::<T, 2, N2, D2, 0, 2, 2>::new().unwrap();
        let p = b.body(body(1.2, [0.2, 0.1], 0.02)).unwrap();
        let c = b.body(body(0.7, [0.6, -0.1], 0.01)).unwrap();
        let l = T::lit;
        b.revolute(Link::Ground, Link::Body(p), [l(0.0), l(0.1)], [l(0.0); 2])
            .unwrap();
        let (anchor, axis) = ([l(0.45), l(0.0)], [l(0.6), l(-0.8)]);
        match second {
            JointKind::Prismatic => b.prismatic(Link::Body(p), Link::Body(c), anchor, axis),
            _ => b.revolute(Link::Body(p), Link::Body(c), anchor, axis),
        }
        .unwrap();
        b.build().unwrap()
    }

    /// Two bodies in space: revolute joints about skew axes, to the ground and between them.
    fn space<T: Real>() -> Mechanism<T, 3, N3, D3, 0, 2, 2> {
        let mut b = MechanismBuilder::<T, 3, N3, D3, 0, 2, 2>::new().unwrap();
        let p = b.body(body(1.0, [0.1, 0.2, -0.3], 0.05)).unwrap();
        let c = b.body(body(0.5, [0.4, 0.1, -0.6], 0.02)).unwrap();
        let l = T::lit;
        let at = |x: [f64; 3]| x.map(T::lit);
        b.revolute(
            Link::Ground,
            Link::Body(p),
            at([0.0, 0.2, 0.0]),
            at([0.3, 0.4, 1.2]),
        )
        .unwrap();
        let axis = [l(-1.0), l(0.5), l(0.25)];
        b.revolute(Link::Body(p), Link::Body(c), at([0.3, 0.1, -0.45]), axis)
            .unwrap();
        b.build().unwrap()
    }

    /// The start perturbed by `scale` times a fixed pseudo-random pattern (seed `k`).
    fn perturbed<T: Real, const N: usize>(x: SVector<T, N>, k: u64, scale: f64) -> SVector<T, N> {
        let mut s = k.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        x.map(|xi| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            xi + T::lit(scale * ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5))
        })
    }

    /// `joint_state` reads `(joint_angle, joint_rate)` bit for bit at 50 random states near the
    /// build pose, for every joint of `m` (the angle does not depend on `v`).
    fn reads_both<T: Real, const DIM: usize, const N: usize, const D: usize>(
        m: &Mechanism<T, DIM, N, D, 0, 2, 2>,
    ) {
        let s0 = m.initial_state();
        for k in 0..50 {
            let q = perturbed(s0.q, k, 0.02);
            let v = perturbed(SVector::zeros(), k + 1000, 2.0);
            for j in 0..m.joints() {
                let (a, r) = m.joint_state(j, &q, &v).unwrap();
                assert!(a.finite() && r.finite() && r != T::zero());
                let want = (
                    m.joint_angle(j, &q).unwrap(),
                    m.joint_rate(j, &q, &v).unwrap(),
                );
                assert_eq!(
                    (a.to_f64().to_bits(), r.to_f64().to_bits()),
                    (want.0.to_f64().to_bits(), want.1.to_f64().to_bits()),
                    "joint {j}, state {k}"
                );
            }
        }
        assert_eq!(m.joint_state(m.joints(), &s0.q, &s0.v), None);
    }

    fn joint_state_is_angle_and_rate<T: Real>() {
        reads_both(&plane::<T>(JointKind::Revolute));
        reads_both(&plane::<T>(JointKind::Prismatic));
        reads_both(&space::<T>());
    }

    #[test]
    fn joint_state_is_angle_and_rate_f32() {
        joint_state_is_angle_and_rate::<f32>();
    }

    #[test]
    fn joint_state_is_angle_and_rate_f64() {
        joint_state_is_angle_and_rate::<f64>();
    }
}
