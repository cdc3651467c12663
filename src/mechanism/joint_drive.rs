//! Joint drives: the builder's joint motors and joint dampers (the dashpots a damper is made
//! of, and a body point as a dashpot's end).

use super::body::link_point;
use super::forces::{add_dashpots, Attachment};
use super::joint::{Joint, JointKind, Link};
use super::row::BodyPoint;
use super::{Actuator, MechanismBuilder};
use crate::validate::check_nonnegative;
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
