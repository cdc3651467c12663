//! Cases `cargo xtask fuzz` found, reduced to a few lines each: the promise of the energy run
//! guard under a held force, `|E − E_ref − W| ≤ r·S` (`W = Σ uₖᵀ(qₖ₊₁ − qₖ)` the work of the
//! held forces, `S` the run's energy scale, `r = 0.2`), for a finite but huge force; a
//! mechanism's damping matrix built from dashpots whose sum overflows; a rigid body with a huge
//! inertia whose joint readouts overflow; a joint anchored far from its body; an EKF update that
//! leaves an indefinite covariance; a joint motor's or a body twist's finite but huge command
//! whose node forces or velocities overflow; subnormal joint dampers whose damping matrix the
//! damping split refused as not symmetric.

use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::{Actuate, Actuated, Damped};
use macrostep::mechanism::{Body, Link, Mechanism, MechanismBuilder};
use macrostep::model::{Potential, System};
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::{DoublePendulum, GravityPenalty};
use macrostep::zs::{Sylipn, ZsParams};
use macrostep::{Integrator, State};

type Dp = System<f64, GravityPenalty<f64, 4, 2>, 4>;

fn system() -> Dp {
    DoublePendulum::<f64>::paper().penalised(20.0).unwrap()
}

/// One step with `u = 0`, then `set_force(u)` and one more step; returns the step's result and
/// `(|E − E_ref − W|, S)` after it (the scale `S = K₀ + |V₀|`, raised by every kinetic energy).
fn held_force_step<I: Integrator<f64, 4> + Actuate<f64, 4>>(
    m: &mut I,
    sys: &Dp,
    u: SVector<f64, 4>,
) -> (bool, f64, f64) {
    let dp = DoublePendulum::<f64>::paper();
    let mut s = State::new(0.0, dp.from_angles(0.7, -0.4), vector![0.4, 0.3, 1.7, -2.0]);
    let e = |s: &State<f64, 4>| (sys.mass.kinetic(&s.v), sys.potential.energy(&s.q));
    let (k0, v0) = e(&s);
    m.step(&mut s).unwrap();
    m.set_force(&u).unwrap();
    let q1 = s.q;
    let ok = m.step(&mut s).is_ok();
    let work = u.dot(&(s.q - q1));
    let (k, v) = e(&s);
    let scale = (k0 + v0.abs()).max(k).max(e(&State::new(0.0, q1, s.v)).0);
    (ok, (k + v - (k0 + v0) - work).abs(), scale)
}

/// The guard's promise after a step: refused, or the drift within `0.2·S`.
fn promise_kept((ok, drift, scale): (bool, f64, f64)) -> bool {
    !ok || drift <= 0.2 * scale
}

/// A natural force: the promise holds (the control case of the test below, which would also
/// fail if the bookkeeping of this file were wrong).
#[test]
fn a_natural_held_force_keeps_the_run_guards_promise() {
    let sys = system();
    let mut m = Sylipn::new(
        System::new(sys.mass, Actuated::new(sys.potential)),
        0.01,
        ZsParams::default(),
    )
    .unwrap();
    let r = held_force_step(&mut m, &sys, vector![0.0, 3.0, 0.0, -2.0]);
    assert!(r.0 && promise_kept(r), "{r:?}");
}

/// Fuzz case `zs::DampedZs<Sylipn>/dp set_force` 9280002946465924433 (`C = 0`): a held force
/// `u = 1e300` and `h = 1e-160` give `v ≈ 8.5e140`, `K ≈ 4.2e280`, while the displacement
/// `½h²u/m ≈ 5e-21` is below the rounding of `q ≈ 7.4`: `W = 0` in floating point, and the step
/// returns `Ok` with `|E − E_ref − W| = K = S`. The guard accounts the force change as
/// `−Δuᵀq ≈ 7.4e300` in its reference energy, where `K` is below the rounding of the sum, so
/// it cannot see the kinetic energy the step created; Velocity Verlet does the same. The guard
/// refuses the steps of a run whose energies' round-off exceeds the run's scale.
#[test]
fn a_huge_held_force_is_refused_or_keeps_the_run_guards_promise() {
    let sys = system();
    let u = vector![0.0, 1e300, 0.0, 0.0];
    let forced = System::new(sys.mass, Actuated::new(sys.potential));
    let mut zss = Sylipn::new(forced, 1e-160, ZsParams::default()).unwrap();
    let r = held_force_step(&mut zss, &sys, u);
    assert!(promise_kept(r), "Sylipn: {r:?}");
    let mut vv = VelocityVerlet::new(forced, 1e-160).unwrap();
    let r = held_force_step(&mut vv, &sys, u);
    assert!(promise_kept(r), "VelocityVerlet: {r:?}");
}

/// Fuzz case `mechanism::Mechanism/penalised ZhangSkeel set_force` 2076007295148601439: two
/// dashpots on one coordinate (`f64::MAX` and `1e300`) whose sum overflows must not give a
/// mechanism whose `damping()` (documented symmetric, `≥ 0`) holds `+∞`: the second dashpot is
/// refused.
#[test]
fn dashpots_whose_sum_overflows_are_refused() {
    let mut b = MechanismBuilder::<f64, 2, 4, 2>::new().unwrap();
    b.node(1.0, [0.0, -1.0]).unwrap();
    b.node(1.0, [0.0, -2.0]).unwrap();
    b.pin(0, [0.0, 0.0]).unwrap();
    b.rod(0, 1).unwrap();
    b.dashpot(0, 1, f64::MAX).unwrap();
    assert_eq!(
        b.dashpot_to_ground(1, 1e300),
        Err(macrostep::ConfigError::Overflow { name: "damping" })
    );
    let c = b.build().unwrap().damping();
    assert!(c.iter().all(|x| x.is_finite()), "built with damping {c:?}");
}

/// The control case: dashpots of natural size build a finite damping matrix.
#[test]
fn natural_dashpots_build_a_finite_damping_matrix() {
    let mut b = MechanismBuilder::<f64, 2, 4, 2>::new().unwrap();
    b.node(1.0, [0.0, -1.0]).unwrap();
    b.node(1.0, [0.0, -2.0]).unwrap();
    b.pin(0, [0.0, 0.0]).unwrap();
    b.rod(0, 1).unwrap();
    b.dashpot(0, 1, 0.5).unwrap();
    b.dashpot_to_ground(1, 0.2).unwrap();
    let c = b.build().unwrap().damping();
    assert!(c.iter().all(|x| x.is_finite()) && c[(3, 3)] > 0.0, "{c:?}");
}

/// Fuzz case `mechanism::bodies+joints calls+build+readouts (plane)`, reduced: a body whose
/// inertia is finite but huge (`I_zz = 2e300`, nodes `√(I_zz/m) ~ 1e150` from the COM) is
/// accepted by `body` and `build`, and its hinge's rate readout at the build pose is NaN (the
/// squared node distances overflow). `body` refuses the inertia (the body's size `√(I_zz/m)`
/// above `MAX^(1/4) / 2`).
#[test]
fn a_huge_inertia_is_refused_or_reads_out_finite() {
    // The control case: a natural inertia reads out a finite rate.
    assert!(hinge_rate(0.1, [0.0, 0.0]).is_some_and(f64::is_finite));
    let r = hinge_rate(2e300, [0.0, 0.0]);
    assert!(r.is_none_or(f64::is_finite), "joint_rate = {r:?}");
}

/// A plane body (mass 1, COM `[0, −1]`, `I_zz = izz`) hinged to the ground at `anchor`: the
/// hinge's rate readout at the build pose for node velocities `0.1·(i + 1)`, `None` when a
/// builder call or `build` refuses.
fn hinge_rate(izz: f64, anchor: [f64; 2]) -> Option<f64> {
    let mut b = MechanismBuilder::<f64, 2, 6, 5, 0, 1, 1>::new().unwrap();
    let body = Body {
        mass: 1.0,
        com: [0.0, -1.0],
        inertia: [[izz, 0.0], [0.0, 0.0]],
    };
    let l = b.body(body).ok()?;
    let j = b
        .revolute(Link::Ground, Link::Body(l), anchor, [1.0, 0.0])
        .ok()?;
    let m = b.build().ok()?;
    let q = m.initial_state().q;
    let v = SVector::<f64, 6>::from_fn(|i, _| 0.1 * (i as f64 + 1.0));
    m.joint_rate(j, &q, &v)
}

/// Fuzz case `mechanism::bodies+joints calls+build+readouts (plane)` 10465125878098249243,
/// reduced: a hinge anchored at `x = 1e300`, far from a body of size `0.3`. The anchor's
/// barycentric weights (`~1e300 / 0.3`) make the hinge's tip `anchor + r·u` and its base one
/// point in floating point, and the rate readout at the build pose is `0 / 0`. The builder
/// refuses an anchor farther than `r / √ε` from a body it joins.
#[test]
fn a_far_anchor_is_refused_or_reads_out_finite() {
    // The control case: an anchor a body size away reads out a finite rate.
    assert!(hinge_rate(0.1, [0.3, 0.0]).is_some_and(f64::is_finite));
    let r = hinge_rate(0.1, [1e300, 0.0]);
    assert!(r.is_none_or(f64::is_finite), "joint_rate = {r:?}");
}

/// Fuzz case `control::Ekf new+predict+update/spring` 1306099367696374747 (replayed through the
/// entry point): an update cancelling a huge prior variance left eigenvalues
/// `1.7e14, −1.5e6, 1.8, 0.43`, an indefinite `P` from an `Ok` update; the update is refused.
#[test]
fn an_ekf_update_keeps_the_covariance_positive_semidefinite() {
    use host_tests::contract::{control, tally::replay, Outcome};
    let e = control::ENTRIES
        .iter()
        .find(|e| e.name.starts_with("control::Ekf"))
        .unwrap();
    let o = replay(e, 1306099367696374747);
    assert!(!matches!(o, Outcome::Violation(_)), "{o:?}");
}

/// Two plane bodies (masses 1 and 0.7, `I_zz` 0.1 and 0.05) in a chain hinged to the ground at
/// the origin and to each other at `[0.4, -1]`, with a motor and a damper `c` on each hinge.
fn arm(c: f64) -> Mechanism<f64, 2, 12, 10, 0, 2, 2> {
    let mut b = MechanismBuilder::<f64, 2, 12, 10, 0, 2, 2>::new().unwrap();
    let body = |mass, com, izz| Body {
        mass,
        com,
        inertia: [[izz, 0.0], [0.0, 0.0]],
    };
    let l0 = b.body(body(1.0, [0.2, -0.5], 0.1)).unwrap();
    let l1 = b.body(body(0.7, [0.7, -1.3], 0.05)).unwrap();
    let j0 = b
        .revolute(Link::Ground, Link::Body(l0), [0.0, 0.0], [0.0, 0.0])
        .unwrap();
    let j1 = b
        .revolute(Link::Body(l0), Link::Body(l1), [0.4, -1.0], [0.0, 0.0])
        .unwrap();
    for j in [j0, j1] {
        b.joint_motor(j).unwrap();
        b.joint_damping(j, c).unwrap();
    }
    b.build().unwrap()
}

/// Fuzz case `mechanism::bodies+joints/Rattle set_force (plane)`, reduced: a joint motor's
/// command `f64::MAX / 2` is finite, and its node forces (the torque over the body's size)
/// overflow: `actuation` returned `Ok` with `u = ±∞`. It refuses the command as an overflow and
/// leaves `u` unchanged.
#[test]
fn a_huge_joint_motor_command_is_refused_with_u_unchanged() {
    let m = arm(0.2);
    let q = m.initial_state().q;
    // The control case: a natural command gives a finite, non-zero force.
    let mut u = SVector::<f64, 12>::zeros();
    m.actuation(&[2.0, -1.0], &q, &mut u).unwrap();
    assert!(u.iter().all(|x| x.is_finite()) && u.amax() > 0.0, "{u:?}");
    let before = SVector::<f64, 12>::from_element(0.25);
    let mut u = before;
    let r = m.actuation(&[f64::MAX / 2.0, 1.0], &q, &mut u);
    assert_eq!(
        r,
        Err(macrostep::ConfigError::Overflow { name: "command" }),
        "u = {u:?}"
    );
    assert_eq!(u, before);
}

/// Fuzz case `mechanism::bodies+joints calls+build+readouts (space)`, reduced to the plane: a
/// finite twist near `f64::MAX` made `set_body_twist` return `Ok` with infinite node velocities
/// (`v_com + ω × ρ` overflows). It refuses the twist as an overflow and leaves `v` unchanged.
#[test]
fn a_huge_body_twist_is_refused_with_v_unchanged() {
    let m = arm(0.2);
    let q = m.initial_state().q;
    // The control case: a natural twist writes finite velocities and reads back.
    let mut v = SVector::<f64, 12>::zeros();
    m.set_body_twist(1, &q, [0.5, -0.25], [0.0, 0.0, 2.0], &mut v)
        .unwrap();
    let (vc, w) = m.body_twist(1, &q, &v).unwrap();
    assert!(
        (vc[0] - 0.5).abs() < 1e-12 && (w[2] - 2.0).abs() < 1e-12,
        "{vc} {w}"
    );
    let before = SVector::<f64, 12>::from_element(0.25);
    let mut v = before;
    let r = m.set_body_twist(1, &q, [f64::MAX, 0.0], [0.0, 0.0, f64::MAX], &mut v);
    assert_eq!(
        r,
        Err(macrostep::ConfigError::Overflow { name: "twist" }),
        "v = {v:?}"
    );
    assert_eq!(v, before);
}

/// Fuzz case `mechanism::bodies+joints/Damped<Rattle> set_force (plane)`, reduced: joint
/// dampers with subnormal coefficients built a damping matrix whose two triangles rounded
/// apart (entries `1e-323` against `1.5e-323`: subnormal rounding is absolute), and
/// `Damped::new` refused the mechanism's own damping as `NotSymmetric`. The builder assembles
/// an exactly symmetric matrix, which the damping split accepts for every coefficient.
#[test]
fn subnormal_joint_dampers_build_a_damping_the_split_accepts() {
    for c in [0.2, 1e-300, 1e-305, 3e-308, 1e-310, 1e-315, 1e-320, 5e-324] {
        let m = arm(c);
        let d = m.damping();
        let rattle = Rattle::new(
            m.system(),
            m.constraint(),
            1e-3,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let r = Damped::new(rattle, m.system().mass, d);
        assert!(r.is_ok(), "c = {c:e}: {:?}, damping {d:?}", r.err());
    }
    for c in [0.2, 1e-310] {
        let d = arm(c).damping();
        assert_eq!(d, d.transpose(), "c = {c:e}");
    }
}

/// Fuzz cases `mechanism::bodies+joints calls+build+readouts` (plane: 10465125878098436897,
/// …8632174, …8787343; space: 14488625982008932206, …9339286), replayed through the entry
/// points: a built mechanism's kinetic energy or momenta at its finite start and a natural
/// velocity are not finite. A body of mass near `f64::MAX` (accepted with an inertia of
/// `1e300`, its size then `1e-4`) has momenta and a kinetic energy no `f64` can hold; the
/// harness promises a readout finite only where the magnitudes of its terms are (a body of
/// natural mass far from the origin, or of huge mass, is otherwise judged).
#[test]
fn readouts_at_a_finite_start_are_finite() {
    use host_tests::contract::{bodies, tally::replay, Outcome};
    let cases: [(&str, u64); 5] = [
        ("(plane)", 10465125878098436897),
        ("(plane)", 10465125878098632174),
        ("(plane)", 10465125878098787343),
        ("(space)", 14488625982008932206),
        ("(space)", 14488625982009339286),
    ];
    for (space, seed) in cases {
        let e = bodies::ENTRIES
            .iter()
            .find(|e| {
                e.name.starts_with("mechanism::bodies+joints calls") && e.name.ends_with(space)
            })
            .unwrap();
        let o = replay(e, seed);
        assert!(
            !matches!(o, Outcome::Violation(_)),
            "{} {seed}: {o:?}",
            e.name
        );
    }
}
