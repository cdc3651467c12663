//! The rapier peer: `rapier2d-f64`'s reduced-coordinate multibody (`MultibodyJointSet`, one
//! revolute joint per link, the root fixed at the shoulder) on the arm's three compound links
//! ([`super::methods::chain`]: masses, centres of mass, inertias from the URDF).
//!
//! Each link is a dynamic body whose origin is its joint, laid along `+x` (the build pose), with
//! its mass, centre of mass and rotational inertia as `additional_mass_properties`. Gravity
//! `(0, −9.81)`, no colliders, sleeping off, joint damping set to 0 (rapier's default is 0.1
//! per angular degree of freedom, another model: see `chain_peers::rapier`). rapier's integrator
//! is first-order semi-implicit Euler; `num_solver_iterations` substeps each step.

use super::methods::{chain, wrap};
use crate::experiments::work_precision::search::Outcome;
use rapier2d_f64::prelude::*;

/// The joint angles (relative, counter-clockwise) after each of `n_out` output intervals of
/// `dt_out`, from the build pose at rest, with step `h` (dividing `dt_out`) and `substeps`
/// solver iterations, flattened; a non-finite angle fails.
pub fn run(h: f64, substeps: usize, dt_out: f64, n_out: usize) -> Outcome {
    let arm = chain();
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -arm.gravity);
    world.integration_parameters.dt = h;
    world.integration_parameters.num_solver_iterations = substeps;
    let mut parent = world.insert_body(RigidBodyBuilder::fixed());
    let (mut x, mut anchor, mut last) = (0.0, 0.0, None);
    let mut bodies = Vec::with_capacity(3);
    for link in &arm.links {
        let props = MassProperties::new(
            Vector::new(link.com[0], link.com[1]),
            link.mass,
            link.inertia,
        );
        let body = RigidBodyBuilder::dynamic()
            .translation(Vector::new(x, 0.0))
            .additional_mass_properties(props)
            .can_sleep(false);
        let handle = world.insert_body(body);
        let joint = RevoluteJointBuilder::new()
            .local_anchor1(Vector::new(anchor, 0.0))
            .local_anchor2(Vector::ZERO);
        last = world.insert_multibody_joint(parent, handle, joint);
        if last.is_none() {
            return Err("rapier refused the multibody joint".into());
        }
        bodies.push(handle);
        parent = handle;
        anchor = link.length;
        x += link.length;
    }
    let (multibody, _) = last
        .and_then(|j| world.multibody_joints.get_mut(j))
        .ok_or("no multibody")?;
    multibody.damping_mut().fill(0.0);
    let per = (dt_out / h).round() as usize;
    let mut out = Vec::with_capacity(3 * n_out);
    for k in 0..n_out {
        for _ in 0..per {
            world.step();
        }
        let mut before = 0.0;
        for &b in &bodies {
            let a = world.bodies[b].rotation().angle();
            if !a.is_finite() {
                return Err(format!("non-finite angle at output {}", k + 1));
            }
            out.push(wrap(a - before));
            before = a;
        }
    }
    Ok(out)
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
