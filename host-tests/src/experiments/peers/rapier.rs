//! The rapier peer's common part: a planar chain of dynamic bodies joined by revolute joints in
//! one reduced-coordinate multibody (`rapier2d-f64`'s `MultibodyJointSet`, the root fixed), laid
//! along `+x` at rest, stepped to each output.
//!
//! Gravity along `−y`, no colliders, sleeping off, and **joint damping set to 0**: rapier gives
//! every angular multibody degree of freedom a default damping of 0.1, which changes the model
//! (a simple pendulum from the horizontal is 1.6 % short of the rigid one at t = 0.5 with it).
//! rapier's integrator is its semi-implicit (symplectic) Euler on the generalised velocities,
//! first order; `num_solver_iterations` substeps each step.

use crate::experiments::work_precision::search::Outcome;
use rapier2d_f64::prelude::*;

/// The substep counts (rapier's `num_solver_iterations`) searched at each step size, with their
/// method keys.
pub const SUBSTEPS: [(&str, usize); 2] = [("rapier_sub1", 1), ("rapier_sub4", 4)];

/// One body of the chain: where its origin starts on the `x` axis, its mass properties (centre
/// of mass in its own frame), and its joint to the previous body (or the ground): the anchor in
/// the parent's frame and in its own, along `x`.
pub struct Body {
    /// Start of the body's origin, `(x, 0)`.
    pub x: f64,
    /// Mass, centre of mass (body frame) and rotational inertia about it.
    pub mass: MassProperties,
    /// The joint's anchor in the parent's frame, `(anchor_parent, 0)`.
    pub anchor_parent: f64,
    /// The joint's anchor in the body's frame, `(anchor_body, 0)`.
    pub anchor_body: f64,
}

/// Runs the chain of `bodies` under gravity `g` with step `h` (dividing `dt_out`) and `substeps`
/// solver iterations over `n_out` output intervals of `dt_out`; after each interval
/// `observe(world, handles, output index, out)` appends the observables (an error fails the run).
///
/// # Errors
/// rapier refusing a joint, or `observe`'s error.
pub fn run(
    bodies: impl IntoIterator<Item = Body>,
    g: f64,
    (h, substeps): (f64, usize),
    (dt_out, n_out): (f64, usize),
    mut observe: impl FnMut(
        &PhysicsWorld,
        &[RigidBodyHandle],
        usize,
        &mut Vec<f64>,
    ) -> Result<(), String>,
) -> Outcome {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -g);
    world.integration_parameters.dt = h;
    world.integration_parameters.num_solver_iterations = substeps;
    let mut parent = world.insert_body(RigidBodyBuilder::fixed());
    let mut handles = Vec::new();
    let mut last = None;
    for b in bodies {
        let body = RigidBodyBuilder::dynamic()
            .translation(Vector::new(b.x, 0.0))
            .additional_mass_properties(b.mass)
            .can_sleep(false);
        let handle = world.insert_body(body);
        let joint = RevoluteJointBuilder::new()
            .local_anchor1(Vector::new(b.anchor_parent, 0.0))
            .local_anchor2(Vector::new(b.anchor_body, 0.0));
        last = world.insert_multibody_joint(parent, handle, joint);
        if last.is_none() {
            return Err("rapier refused the multibody joint".into());
        }
        handles.push(handle);
        parent = handle;
    }
    // One multibody holds every joint: no joint damping (rapier's default is 0.1).
    let (multibody, _) = last
        .and_then(|j| world.multibody_joints.get_mut(j))
        .ok_or("no multibody")?;
    multibody.damping_mut().fill(0.0);
    let per = (dt_out / h).round() as usize;
    let mut out = Vec::new();
    for k in 0..n_out {
        for _ in 0..per {
            world.step();
        }
        observe(&world, &handles, k, &mut out)?;
    }
    Ok(out)
}
