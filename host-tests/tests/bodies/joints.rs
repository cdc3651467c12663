//! Joint readouts, motors, dampers and sliders on rigidly moved bodies.

use super::*;

/// A rotation of `x` about the unit axis `k` through `p` by `angle` (Rodrigues).
fn rotate(
    x: SVector<f64, 3>,
    p: SVector<f64, 3>,
    k: SVector<f64, 3>,
    angle: f64,
) -> SVector<f64, 3> {
    let r = x - p;
    let (s, c) = angle.sin_cos();
    p + r * c + k.cross(&r) * s + k * (k.dot(&r) * (1.0 - c))
}

/// The two-body arm with its second body turned rigidly about the joint by `angle` at rate
/// `rate` (the first at rest at the build pose): `(q, v)`.
fn turned(
    m: &Mechanism<f64, 3, 24, 22, 0, 2, 2>,
    p: [f64; 3],
    axis: [f64; 3],
    angle: f64,
    rate: f64,
) -> (SVector<f64, 24>, SVector<f64, 24>) {
    let (mut q, mut v) = (m.initial_state().q, SVector::zeros());
    let (p, k) = (SVector::from(p), SVector::from(axis).normalize());
    for i in 4..8 {
        let x = m.position(i, &q).unwrap();
        let y = rotate(x, p, k, angle);
        let vy = k.cross(&(y - p)) * rate;
        for c in 0..3 {
            q[3 * i + c] = y[c];
            v[3 * i + c] = vy[c];
        }
    }
    (q, v)
}

#[test]
fn joint_angle_and_rate_read_a_rigid_turn_about_a_skew_axis() {
    let m = arm3::<22>(JointKind::Revolute);
    let (p, a) = ([0.7, 1.05, -0.25], [0.2, 1.0, 0.1]);
    for angle in [0.3, -1.2, 2.9] {
        let (q, v) = turned(&m, p, a, angle, 0.7);
        assert!(
            m.constraint().residual(&q) < 1e-13,
            "a rigid turn keeps every row"
        );
        let got = m.joint_angle(1, &q).unwrap();
        assert!((got - angle).abs() < 1e-12, "angle {got} vs {angle}");
        let rate = m.joint_rate(1, &q, &v).unwrap();
        assert!((rate - 0.7).abs() < 1e-12, "rate {rate}");
        assert!(
            m.joint_angle(0, &q).unwrap().abs() < 1e-12,
            "joint 0 unmoved"
        );
    }
    let sph = arm3::<20>(JointKind::Spherical);
    assert_eq!(sph.joint_angle(1, &sph.initial_state().q), None);
    assert_eq!(m.joint_angle(2, &m.initial_state().q), None);
}

/// Σ f and Σ x × f of a generalised force `u` over the nodes `range`.
fn wrench(
    m: &Mechanism<f64, 3, 24, 22, 0, 2, 2>,
    q: &SVector<f64, 24>,
    u: &SVector<f64, 24>,
    nodes: std::ops::Range<usize>,
    about: SVector<f64, 3>,
) -> (SVector<f64, 3>, SVector<f64, 3>) {
    let (mut f, mut t) = (SVector::zeros(), SVector::zeros());
    for i in nodes {
        let fi = SVector::<f64, 3>::from_fn(|c, _| u[3 * i + c]);
        f += fi;
        t += (m.position(i, q).unwrap() - about).cross(&fi);
    }
    (f, t)
}

#[test]
fn a_joint_motor_is_a_torque_pair_about_the_joint_axis() {
    let (p, a) = ([0.7, 1.05, -0.25], [0.2, 1.0, 0.1]);
    let mut b = MechanismBuilder::<f64, 3, 24, 22, 0, 2, 2>::new().unwrap();
    let l1 = b.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let l2 = b.body(body3(0.8, [0.9, 1.1, -0.2])).unwrap();
    let j0 = b
        .revolute(
            Link::Ground,
            Link::Body(l1),
            [0.1, 1.0, -0.3],
            [0.0, 0.3, 1.0],
        )
        .unwrap();
    let j1 = b.revolute(Link::Body(l1), Link::Body(l2), p, a).unwrap();
    let m0 = b.joint_motor(j0).unwrap();
    let m1 = b.joint_motor(j1).unwrap();
    let m = b.build().unwrap();
    let (q, _) = turned(&m, p, a, 0.8, 0.0);
    let mut u = SVector::zeros();
    let mut cmd = [0.0; 2];
    cmd[m1] = 2.5;
    m.actuation(&cmd, &q, &mut u).unwrap();
    let k = SVector::from(a).normalize();
    let (c1, _) = m.body_pose(l1, &q).unwrap();
    let (c2, _) = m.body_pose(l2, &q).unwrap();
    let (f1, t1) = wrench(&m, &q, &u, 0..4, c1);
    let (f2, t2) = wrench(&m, &q, &u, 4..8, c2);
    assert!(
        f1.amax() < 1e-12 && f2.amax() < 1e-12,
        "no net force: {f1} {f2}"
    );
    assert!((t2 - k * 2.5).amax() < 1e-12, "child torque {t2}");
    assert!((t1 + k * 2.5).amax() < 1e-12, "parent torque {t1}");
    cmd = [0.0; 2];
    cmd[m0] = -1.5;
    m.actuation(&cmd, &q, &mut u).unwrap();
    let (f1, t1) = wrench(&m, &q, &u, 0..4, c1);
    let k0 = SVector::<f64, 3>::new(0.0, 0.3, 1.0).normalize();
    assert!(
        f1.amax() < 1e-12 && (t1 + k0 * 1.5).amax() < 1e-12,
        "grounded motor {t1}"
    );
    assert!(u.rows(12, 12).amax() == 0.0, "the other body untouched");
}

#[test]
fn a_grounded_joint_damper_dissipates_exactly_c_times_rate_squared() {
    // The arm's first joint (to the ground): turn body 1 about it at rate ω; power = −c ω².
    let mut b = MechanismBuilder::<f64, 3, 12, 11, 0, 1, 1>::new().unwrap();
    let l1 = b.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let (p, a) = ([0.1, 1.0, -0.3], [0.0, 0.3, 1.0]);
    let j = b.revolute(Link::Ground, Link::Body(l1), p, a).unwrap();
    b.joint_damping(j, 0.35).unwrap();
    let m = b.build().unwrap();
    let (pv, k) = (SVector::from(p), SVector::from(a).normalize());
    for (angle, rate) in [(0.0, 1.0), (1.1, -2.0), (-2.5, 0.4)] {
        let (mut q, mut v) = (m.initial_state().q, SVector::<f64, 12>::zeros());
        for i in 0..4 {
            let y = rotate(m.position(i, &q).unwrap(), pv, k, angle);
            let vy = k.cross(&(y - pv)) * rate;
            for c in 0..3 {
                q[3 * i + c] = y[c];
                v[3 * i + c] = vy[c];
            }
        }
        let power = -(v.transpose() * m.damping() * v)[0];
        assert!(
            (power + 0.35 * rate * rate).abs() < 1e-12,
            "power {power} at {angle}"
        );
        assert!((m.joint_rate(j, &q, &v).unwrap() - rate).abs() < 1e-12);
    }
}

#[test]
fn a_planar_slider_on_an_incline_falls_at_g_sin_alpha() {
    use macrostep::constrained::{ConstraintNewtonParams, Rattle};
    use macrostep::Integrator;
    // A body on a prismatic joint to the ground along (cos α, sin α) through a point off the
    // origin: the slide is s(t) = −½ g sin α t², which RATTLE (a Verlet scheme) integrates
    // exactly up to round-off.
    let alpha: f64 = 0.6;
    let mut b = MechanismBuilder::<f64, 2, 6, 5, 0, 1, 1>::new().unwrap();
    let l = b
        .body(Body {
            mass: 0.7,
            com: [1.3, -0.4],
            inertia: [[0.01, 0.0], [0.0, 0.02]],
        })
        .unwrap();
    let axis = [alpha.cos(), alpha.sin()];
    let j = b
        .prismatic(Link::Ground, Link::Body(l), [1.0, -0.2], axis)
        .unwrap();
    b.gravity(9.81).unwrap();
    let m = b.build().unwrap();
    let h = 1e-3;
    let mut rattle = Rattle::new(
        m.system(),
        m.constraint(),
        h,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut s = m.initial_state();
    for _ in 0..500 {
        rattle.step(&mut s).unwrap();
    }
    let t = 500.0 * h;
    let want = -0.5 * 9.81 * alpha.sin() * t * t;
    let got = m.joint_angle(j, &s.q).unwrap();
    assert!((got - want).abs() < 1e-9, "slide {got} vs {want}");
    let rate = m.joint_rate(j, &s.q, &s.v).unwrap();
    assert!((rate + 9.81 * alpha.sin() * t).abs() < 1e-9, "rate {rate}");
    // No rotation: the orientation lock holds.
    let (_, a) = m.body_pose(l, &s.q).unwrap();
    assert!((a - SMatrix::<f64, 2, 2>::identity()).amax() < 1e-9, "{a}");
}
