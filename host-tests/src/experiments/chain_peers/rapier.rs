//! The rapier peer: `rapier2d-f64`'s reduced-coordinate multibody (`MultibodyJointSet`, one
//! revolute joint per rod, the root fixed at the pivot) on the chain of unit point masses.
//!
//! Each mass is a dynamic body at its node with mass 1 and no rotational inertia of its own.
//! Gravity `(0, −1)`, no colliders, sleeping off, and **joint damping set to 0**: rapier gives
//! every angular multibody degree of freedom a default damping of 0.1, which changes the model
//! (a simple pendulum from the horizontal is 1.6 % short of the rigid one at t = 0.5 with it).
//! rapier's integrator is its semi-implicit (symplectic) Euler on the generalised velocities,
//! first order; `num_solver_iterations` substeps each step. The search varies the step `dt`, at
//! each substep count of [`SUBSTEPS`].

use super::super::work_precision::search::Outcome;
use rapier2d_f64::prelude::*;

/// The substep counts (rapier's `num_solver_iterations`) searched at each step size.
pub const SUBSTEPS: [usize; 2] = [1, 4];

/// Node positions `(x₁, y₁, …)` of the chain of `n` masses after `n_out` output intervals of
/// `dt_out` from the horizontal start at rest, with step `h` (dividing `dt_out`) and `substeps`
/// solver iterations: what one rapier run returns, flattened; a non-finite position fails.
pub fn run(n: usize, h: f64, substeps: usize, dt_out: f64, n_out: usize) -> Outcome {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -1.0);
    world.integration_parameters.dt = h;
    world.integration_parameters.num_solver_iterations = substeps;
    let mut parent = world.insert_body(RigidBodyBuilder::fixed());
    let mut bodies = Vec::with_capacity(n);
    let mut last = None;
    for i in 1..=n {
        let body = RigidBodyBuilder::dynamic()
            .translation(Vector::new(i as f64, 0.0))
            .additional_mass_properties(MassProperties::new(Vector::ZERO, 1.0, 0.0))
            .can_sleep(false);
        let handle = world.insert_body(body);
        // The joint sits at the parent's origin (the pivot, or the parent mass).
        let joint = RevoluteJointBuilder::new()
            .local_anchor1(Vector::ZERO)
            .local_anchor2(Vector::new(-1.0, 0.0));
        last = world.insert_multibody_joint(parent, handle, joint);
        if last.is_none() {
            return Err("rapier refused the multibody joint".into());
        }
        bodies.push(handle);
        parent = handle;
    }
    // One multibody holds every joint: no joint damping (rapier's default is 0.1).
    let (multibody, _) = last
        .and_then(|j| world.multibody_joints.get_mut(j))
        .ok_or("no multibody")?;
    multibody.damping_mut().fill(0.0);
    let per = (dt_out / h).round() as usize;
    let mut out = Vec::with_capacity(2 * n * n_out);
    for k in 0..n_out {
        for _ in 0..per {
            world.step();
        }
        for &b in &bodies {
            let p = world.bodies[b].translation();
            if !(p.x.is_finite() && p.y.is_finite()) {
                return Err(format!("non-finite position at output {}", k + 1));
            }
            out.push(p.x);
            out.push(p.y);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::chain_peers::methods::max_diff;
    use crate::reference::chain::reference;

    #[test]
    fn rapier_chain_converges_at_first_order() {
        // rapier's symplectic Euler on the chain of 3: the error against the rigid reference
        // falls about in proportion to the step.
        let refq = reference(3, 1.0, 2);
        let err = |h: f64| max_diff(&run(3, h, 1, 0.5, 2).unwrap(), &refq);
        let (e1, e2) = (err(1e-3), err(2.5e-4));
        // With rapier's default joint damping (0.1) the limit is another model: ~3e-2 away.
        assert!(e2 < e1, "{e1} → {e2}");
        let order = (e1 / e2).log(4.0);
        assert!((0.7..1.5).contains(&order), "order {order}: {e1} → {e2}");
        assert!(e2 < 1e-2, "{e2}");
    }
}
