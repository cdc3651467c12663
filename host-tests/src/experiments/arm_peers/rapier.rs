//! The rapier peer ([`crate::experiments::peers::rapier`]): the arm's three compound links
//! ([`super::methods::chain`]: masses, centres of mass, inertias from the URDF) as one multibody
//! of revolute joints, the root fixed at the shoulder.
//!
//! Each link is a dynamic body whose origin is its joint, laid along `+x` (the build pose), with
//! its mass, centre of mass and rotational inertia as `additional_mass_properties`; gravity
//! `(0, −9.81)`.

use super::methods::{chain, wrap};
use crate::experiments::peers::rapier::{self, Body};
use crate::experiments::work_precision::search::Outcome;
use rapier2d_f64::prelude::*;

/// The joint angles (relative, counter-clockwise) after each of `n_out` output intervals of
/// `dt_out`, from the build pose at rest, with step `h` (dividing `dt_out`) and `substeps`
/// solver iterations, flattened; a non-finite angle fails.
pub fn run(h: f64, substeps: usize, dt_out: f64, n_out: usize) -> Outcome {
    let arm = chain();
    let (mut x, mut anchor) = (0.0, 0.0);
    let bodies = arm.links.iter().map(|link| {
        let body = Body {
            x,
            mass: MassProperties::new(
                Vector::new(link.com[0], link.com[1]),
                link.mass,
                link.inertia,
            ),
            anchor_parent: anchor,
            anchor_body: 0.0,
        };
        anchor = link.length;
        x += link.length;
        body
    });
    let angles =
        |world: &PhysicsWorld, handles: &[RigidBodyHandle], k: usize, out: &mut Vec<f64>| {
            let mut before = 0.0;
            for &b in handles {
                let a = world.bodies[b].rotation().angle();
                if !a.is_finite() {
                    return Err(format!("non-finite angle at output {}", k + 1));
                }
                out.push(wrap(a - before));
                before = a;
            }
            Ok(())
        };
    rapier::run(bodies, arm.gravity, (h, substeps), (dt_out, n_out), angles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::arm_peers::methods::{max_angle_diff, reference};

    #[test]
    fn rapier_arm_converges_to_the_reference_at_first_order() {
        let refq = reference(0.5, 1);
        let err = |h: f64| max_angle_diff(&run(h, 1, 0.5, 1).unwrap(), &refq);
        let (e1, e2) = (err(1e-3), err(2.5e-4));
        let order = (e1 / e2).log(4.0);
        assert!((0.7..1.5).contains(&order), "order {order}: {e1} → {e2}");
        assert!(e2 < 1e-2, "{e2}");
    }
}
