//! The mechanisms `urdf2mech` emits for the shipped URDFs compile (through `host-tests/build.rs`)
//! and run: sizes and start pose as the URDF says, a second of free fall under gravity with
//! RATTLE and Z&S (joint residuals, energy, `L_z`), the penalty form approaching the exact one as
//! `ω` grows, and a joint motor's torque showing up as the angular momentum it should.

use host_tests::experiments::urdf_arms::models::{arm6, planar_arm3};
use host_tests::experiments::urdf_arms::run::{run, Method};
use host_tests::experiments::urdf_arms::{compute, Results, Setup};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::Integrator;
use std::sync::OnceLock;

/// `reproduce urdf-arms --quick`: both arms, both methods, `T = 1 s` (≈ 2 s of CPU).
fn results() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| compute(&Setup::quick()))
}

#[test]
fn emitted_sizes_are_the_urdfs_bodies_and_joints() {
    // Planar: 3 bodies × 6 coordinates, 3 × 3 rigidity rods + 3 hinges × 2 rows.
    assert_eq!(
        (planar_arm3::DIM, planar_arm3::N, planar_arm3::D),
        (2, 18, 15)
    );
    // Spatial: 6 bodies × 12 coordinates, 6 × 6 rods + 6 hinges × 5 rows.
    assert_eq!((arm6::DIM, arm6::N, arm6::D), (3, 72, 66));
    assert_eq!(arm6::JOINT_NAMES[4], "wrist_2_joint");
    // arm6.urdf writes the wrist's ±2π to 12 digits, its effort and velocity as 28 and 3.2.
    let [lower, upper, effort, velocity] = arm6::JOINT_LIMITS[4];
    assert_eq!(lower, -upper);
    assert!((upper - std::f64::consts::TAU).abs() < 1e-11, "{upper}");
    assert_eq!((effort, velocity), (28.0, 3.2));
    assert_eq!(
        planar_arm3::JOINT_LIMITS[2][..2],
        [f64::NEG_INFINITY, f64::INFINITY]
    );
}

#[test]
fn emitted_arms_build_in_f32_and_f64_at_the_urdf_pose() {
    let (m, ids) = arm6::build::<f64>(9.81).unwrap();
    let q = m.initial_state().q;
    // The upper arm's centre of mass, by hand from arm6.urdf: the shoulder-lift origin
    // (0, 0.13585, 0.089159) plus 0.28 along its z axis, which is world x.
    let (com, rot) = m.body_pose(ids.bodies[1], &q).unwrap();
    assert!(
        (com - SVector::from([0.28, 0.13585, 0.089159])).norm() < 1e-12,
        "{com}"
    );
    assert!((rot - macrostep::nalgebra::Matrix3::identity()).norm() < 1e-12);
    for &j in &ids.joints {
        assert!(m.joint_angle(j, &q).unwrap().abs() < 1e-12);
    }
    let (m, ids) = planar_arm3::build::<f32>(9.81).unwrap();
    let q = m.initial_state().q;
    // The hand + tool body: 0.5 kg at x = 0.8 and 0.1 kg at x = 1.1, height 0.5.
    let (com, _) = m.body_pose(ids.bodies[2], &q).unwrap();
    assert!((com - SVector::from([0.85f32, 0.5])).norm() < 1e-6, "{com}");
    assert_eq!(m.actuators(), 3);
    assert!(arm6::build::<f32>(9.81).is_ok());
}

#[test]
fn a_second_of_free_fall_keeps_joints_and_energy() {
    let r = results();
    for (name, arm) in [("planar3", &r.planar3), ("arm6", &r.arm6)] {
        for (method, run) in [("RATTLE", &arm.rattle), ("Z&S", &arm.zs)] {
            assert!(
                run.error.is_none(),
                "{name} {method}: {:?} after {}",
                run.error,
                run.steps
            );
        }
        // RATTLE: Newton solves the constraints to rounding (measured ≤ 2e-14).
        assert!(
            arm.rattle.residual < 1e-11,
            "{name}: {}",
            arm.rattle.residual
        );
        // The arms fall, so something moved.
        assert!(
            arm.rattle.angles.iter().any(|a| a.abs() > 0.3),
            "{name}: {:?}",
            arm.rattle.angles
        );
    }
    // RATTLE at h = 1 ms, second order: measured max |ΔE| 4.0e-3 J (arm6, E0 = 14.7 J) and
    // 2.8e-4 J (planar3); the bounds leave 2.5× for rounding and platform differences.
    assert!(r.arm6.rattle.max_de < 1e-2, "{}", r.arm6.rattle.max_de);
    assert!(
        r.planar3.rattle.max_de < 7e-4,
        "{}",
        r.planar3.rattle.max_de
    );
    // L_z: gravity along −z and the base hinge about z exert no z torque.
    assert!(r.arm6.rattle.lz_drift < 1e-10, "{}", r.arm6.rattle.lz_drift);
    assert!(r.arm6.zs.lz_drift < 1e-10, "{}", r.arm6.zs.lz_drift);
}

#[test]
fn penalty_form_approaches_the_exact_one_as_omega_grows() {
    // The planar arm after 0.3 s from rest: Z&S's joint angles at ω and 10ω against RATTLE's,
    // all at h = 0.1 ms (RATTLE's own O(h²) error is then far below the penalty's O(ω⁻²)).
    let (m, ids) = planar_arm3::build::<f64>(9.81).unwrap();
    let (h, t) = (1e-4, 0.3);
    let exact = run(&m, &ids.joints, Method::Rattle, h, t, usize::MAX);
    let gap = |omega: f64| {
        let zs = run(&m, &ids.joints, Method::Zs(omega), h, t, usize::MAX);
        assert!(zs.error.is_none(), "ω = {omega}: {:?}", zs.error);
        let d = zs
            .angles
            .iter()
            .zip(&exact.angles)
            .map(|(a, b)| (a - b).abs());
        d.fold(0.0, f64::max)
    };
    let (coarse, fine) = (gap(3e3), gap(3e4));
    println!("angle gap to RATTLE: ω = 3e3: {coarse:.3e}, ω = 3e4: {fine:.3e}");
    // O(ω⁻²) predicts a factor 100; 30 allows the O(h²) parts that do not shrink with ω.
    assert!(fine * 30.0 < coarse, "{coarse:.3e} → {fine:.3e}");
}

#[test]
fn a_joint_motor_torque_is_the_rate_of_angular_momentum() {
    // The arm without gravity, a constant 2 N·m on the base (pan) motor: no other z torque acts
    // (the base hinge's reaction passes through the z axis), so L_z(t) = 2 t.
    let (m, ids) = arm6::build::<f64>(0.0).unwrap();
    let (h, steps, tau) = (1e-3, 300, 2.0);
    let exact = m.system();
    let sys = System::new(exact.mass, Actuated::new(exact.potential));
    let mut rattle =
        Rattle::new(sys, m.constraint(), h, ConstraintNewtonParams::default()).unwrap();
    let mut s = m.initial_state();
    let mut commands = [0.0; arm6::MOTORS];
    commands[ids.motors[0]] = tau;
    let mut u = SVector::zeros();
    for _ in 0..steps {
        m.actuation(&commands, &s.q, &mut u).unwrap();
        rattle.set_force(&u).unwrap();
        rattle.step(&mut s).unwrap();
    }
    let lz = m.angular_momentum(&s.q, &s.v)[2];
    let want = tau * h * steps as f64;
    println!("L_z = {lz:.12e}, τ t = {want:.12e}");
    // The force is held over each step at its start-of-step value while the bodies turn, a
    // defect of order h·Ω in the torque it exerts; measured: relative 2.0e-9 (the arm turns
    // slowly, Ω ≈ 0.2 rad/s); the bound leaves 50×.
    assert!((lz - want).abs() < 1e-7 * want, "{lz} vs {want}");
    // The pan joint turned the positive way about +z.
    assert!(m.joint_angle(ids.joints[0], &s.q).unwrap() > 0.0);
}
