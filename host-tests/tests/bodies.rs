//! Rigid bodies and joints in the mechanism builder: the affine body's mass and inertia, the
//! joint rows' derivatives, typed errors with the builder untouched, motors, damping and the
//! joint readouts.

use host_tests::experiments::bodies::{compute, report, run::Method, Results, Setup};
use host_tests::report::Output;
use macrostep::mechanism::{
    body_constraints, body_coordinates, Body, JointKind, Link, Mechanism, MechanismBuilder,
};
use macrostep::model::{Constraint, Hessian, Potential, ThirdDerivative};
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::{ConfigError, Real};
use std::sync::OnceLock;

/// `reproduce bodies --quick`, printed once (run with `--nocapture` to see it).
fn results() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| {
        let r = compute(&Setup::quick());
        report(&r, &Output::default());
        r
    })
}

#[test]
fn double_compound_pendulum_converges_at_second_order_for_every_method() {
    for o in &results().orders {
        assert!(!o.failed, "{:?}: a step failed", o.method);
        // Second-order methods, errors well above the references' tolerance (1e-13).
        assert!(
            (1.85..=2.15).contains(&o.order),
            "{:?}: order {}",
            o.method,
            o.order
        );
        // Energy of the method's own Hamiltonian: bounded, O(h²) small at the smallest step.
        assert!(o.max_de < 1e-5, "{:?}: max |ΔE| {}", o.method, o.max_de);
        match o.method {
            Method::Rattle => {
                assert!(
                    o.residual < 1e-10,
                    "RATTLE keeps the joints: {}",
                    o.residual
                );
                assert!(o.total < 1e-6, "RATTLE vs Lagrangian {}", o.total);
            }
            // The penalty model error at ω = 1000 (the sag of the joints under the links'
            // weight, O(ω⁻²): the compound pendulum's is 5.6e-3 rad there, measured by the
            // ω sweep) dominates the total error; the relative residual is the sag itself.
            _ => assert!(o.total < 2e-2 && o.residual < 3e-2, "{o:?}"),
        }
    }
}

#[test]
fn penalty_model_error_falls_as_omega_to_the_minus_two() {
    let r = results();
    assert!(
        (-2.2..=-1.8).contains(&r.model_slope),
        "slope {}",
        r.model_slope
    );
}

#[test]
fn compound_pendulum_in_f32_and_f64() {
    let r = results();
    // RATTLE at h = 1 ms, T = 1 s: the O(h²) discretisation error ≈ 1e-5 rad in f64; f32
    // round-off over 1000 steps (ε ≈ 6e-8 per operation on coordinates ≈ 1) adds ≈ 1e-3.
    assert!(r.single_f64 < 1e-4, "f64 {}", r.single_f64);
    assert!(r.single_f32 < 1e-2, "f32 {}", r.single_f32);
}

#[test]
fn free_body_conserves_momentum_and_flips_on_time() {
    let r = results();
    let flip = r.flip_reference.expect("the reference flips");
    for (m, f) in &r.free {
        assert!(!f.failed, "{m:?}");
        let t = f.flip_time.expect("the mechanism flips");
        // The flip time is sensitive (exponential growth of the perturbation): 1 ms of 4.1 s.
        assert!((t - flip).abs() < 1e-3, "{m:?}: flip {t} vs {flip}");
        assert!(f.l_drift < 1e-11, "{m:?}: |ΔL|/L {}", f.l_drift);
        assert!(f.max_de < 1e-5, "{m:?}: |ΔE|/E {}", f.max_de);
    }
}

#[test]
fn spherical_pendulum_keeps_its_vertical_angular_momentum_and_pivot() {
    for (m, f) in &results().spherical {
        assert!(!f.failed, "{m:?}");
        assert!(f.lz_drift < 1e-11, "{m:?}: |ΔL_z| {}", f.lz_drift);
        assert!(f.max_de < 1e-4, "{m:?}: |ΔE| {}", f.max_de);
        let (res, gap) = if *m == Method::Rattle {
            (1e-10, 1e-10)
        } else {
            (1e-2, 1e-3)
        };
        assert!(f.residual < res && f.pivot_gap < gap, "{m:?}: {f:?}");
    }
}

const J3: [[f64; 3]; 3] = [[0.30, 0.02, -0.01], [0.02, 0.20, 0.03], [-0.01, 0.03, 0.15]];

fn body3<T: Real>(mass: f64, com: [f64; 3]) -> Body<T, 3> {
    Body {
        mass: T::lit(mass),
        com: com.map(T::lit),
        inertia: J3.map(|r| r.map(T::lit)),
    }
}

const N1: usize = body_coordinates(3);
const D1: usize = body_constraints(3);

/// One free body: its nodes carry its mass, COM and full inertia tensor.
fn free_body_matches<T: Real>(tol: f64) {
    let mut b = MechanismBuilder::<T, 3, N1, D1, 0, 1, 0>::new().unwrap();
    let com = [1.5, -0.7, 2.25];
    let l = b.body(body3::<T>(2.5, com)).unwrap();
    let m = b.build().unwrap();
    let q = m.initial_state().q;
    // Spin it with ω: v_i = ω × (x_i − com); then L = J ω about the COM, T = ½ ωᵀJω.
    let w = SVector::<f64, 3>::new(0.3, -1.1, 0.7);
    let mut v = SVector::<T, N1>::zeros();
    for i in 0..4 {
        let x = m.position(i, &q).unwrap().map(|x| x.to_f64());
        let r = x - SVector::from(com);
        let vi = w.cross(&r);
        for c in 0..3 {
            v[3 * i + c] = T::lit(vi[c]);
        }
    }
    let j = SMatrix::<f64, 3, 3>::from_fn(|r, c| J3[r][c]);
    let want = j * w;
    let got = m
        .body_angular_momentum(l, &q, &v)
        .unwrap()
        .map(|x| x.to_f64());
    assert!((got - want).amax() < tol, "L = J ω: {got} vs {want}");
    let ke = m.kinetic_energy(&v).to_f64();
    assert!((ke - 0.5 * w.dot(&want)).abs() < tol, "kinetic energy");
    let (c, rot) = m.body_pose(l, &q).unwrap();
    assert!(
        (c.map(|x| x.to_f64()) - SVector::from(com)).amax() < tol,
        "COM"
    );
    assert!((rot.map(|x| x.to_f64()) - SMatrix::<f64, 3, 3>::identity()).amax() < tol);
    let (vc, om) = m.body_twist(l, &q, &v).unwrap();
    assert!(vc.map(|x| x.to_f64()).amax() < tol, "COM velocity");
    assert!((om.map(|x| x.to_f64()) - w).amax() < 10.0 * tol, "ω = J⁻¹L");
    // A uniform unit velocity along x: the momentum is the total mass.
    let ones = SVector::<T, N1>::from_fn(|i, _| if i % 3 == 0 { T::one() } else { T::zero() });
    assert!((m.momentum(&ones)[0].to_f64() - 2.5).abs() < tol, "mass");
}

#[test]
fn affine_body_carries_mass_com_and_full_inertia_f64_and_f32() {
    free_body_matches::<f64>(1e-12);
    free_body_matches::<f32>(2e-5);
}

/// Two bodies in space: a revolute joint to the ground off the origin and a second joint of
/// `kind` between them.
fn arm3<const D: usize>(kind: JointKind) -> Mechanism<f64, 3, 24, D, 0, 2, 2> {
    let mut b = MechanismBuilder::<f64, 3, 24, D, 0, 2, 2>::new().unwrap();
    let l1 = b.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let l2 = b.body(body3(0.8, [0.9, 1.1, -0.2])).unwrap();
    b.revolute(
        Link::Ground,
        Link::Body(l1),
        [0.1, 1.0, -0.3],
        [0.0, 0.3, 1.0],
    )
    .unwrap();
    let (p, a) = ([0.7, 1.05, -0.25], [0.2, 1.0, 0.1]);
    match kind {
        JointKind::Revolute => b.revolute(Link::Body(l1), Link::Body(l2), p, a),
        JointKind::Prismatic => b.prismatic(Link::Body(l1), Link::Body(l2), p, a),
        JointKind::Spherical => b.spherical(Link::Body(l1), Link::Body(l2), p),
        JointKind::Fixed => b.fixed(Link::Body(l1), Link::Body(l2), p),
    }
    .unwrap();
    b.gravity(9.81).unwrap();
    b.build().unwrap()
}

#[test]
fn joint_rows_and_penalty_match_central_differences() {
    for kind in [JointKind::Revolute, JointKind::Prismatic] {
        let m = arm3::<22>(kind);
        let g = m.constraint();
        let q0 = m.initial_state().q;
        assert!(
            g.residual(&q0) < 1e-14,
            "{kind:?}: rows vanish at the build pose"
        );
        let q = q0 + SVector::<f64, 24>::from_fn(|i, _| 0.01 * ((i * 7 % 11) as f64 - 5.0));
        let a = SVector::<f64, 24>::from_fn(|i, _| 0.1 * ((i * 5 % 13) as f64 - 6.0));
        let h = 1e-6;
        let jac = g.jacobian(&q);
        let fdj = (g.value(&(q + a * h)) - g.value(&(q - a * h))) / (2.0 * h);
        // Rows are quadratic: central differences are exact up to roundoff ε·|g|/h ≈ 1e-10.
        assert!((fdj - jac * a).amax() < 1e-8, "{kind:?}: jacobian");
        let hv = g.hessian_times(&q, &a);
        let fdh = (g.jacobian(&(q + a * h)) - g.jacobian(&(q - a * h))) / (2.0 * h);
        assert!((fdh * a - hv * a).amax() < 1e-8, "{kind:?}: hessian_times");
        let w = SVector::<f64, 22>::from_fn(|i, _| 1.0 + i as f64 * 0.1);
        let wh = g.weighted_hessian(&q, &w);
        assert!(
            (fdh.tr_mul(&w) - wh * a).amax() < 1e-7,
            "{kind:?}: weighted_hessian"
        );
        let pen = m.penalised(40.0).unwrap().potential;
        let grad = pen.gradient(&q);
        let fdg = (pen.energy(&(q + a * h)) - pen.energy(&(q - a * h))) / (2.0 * h);
        assert!(
            (fdg - grad.dot(&a)).abs() < 1e-5 * (1.0 + grad.amax()),
            "{kind:?}: ∇V"
        );
        let hess = pen.hessian(&q);
        let fdhv = (pen.gradient(&(q + a * h)) - pen.gradient(&(q - a * h))) / (2.0 * h);
        assert!(
            (fdhv - hess * a).amax() < 1e-5 * (1.0 + hess.amax()),
            "{kind:?}: Hess V"
        );
        let t = pen.third_contraction(&q, &a);
        let h3 = 1e-4;
        let fd3 = (pen.gradient(&(q + a * h3)) - pen.gradient(&q) * 2.0
            + pen.gradient(&(q - a * h3)))
            / (h3 * h3);
        // V is quartic in q: the second difference's error is O(h²·V⁗) ≈ 1e-8·|V⁗|.
        assert!(
            (fd3 - t).amax() < 1e-4 * (1.0 + t.amax()),
            "{kind:?}: a·V‴·a"
        );
    }
}

/// `f` on a copy must fail with `want` and leave the builder bit-identical (its `Debug` form
/// prints every field, floats exactly).
fn refused<X: Copy + std::fmt::Debug, R: std::fmt::Debug>(
    b: &X,
    want: ConfigError,
    f: impl FnOnce(&mut X) -> Result<R, ConfigError>,
) {
    let mut c = *b;
    let before = format!("{c:?}");
    let got = f(&mut c).map(|_| ());
    assert_eq!(got, Err(want));
    assert_eq!(
        format!("{c:?}"),
        before,
        "builder changed by a refused call ({want:?})"
    );
}

#[test]
fn bad_bodies_and_joints_are_typed_errors_and_leave_the_builder_untouched() {
    // Room for a third body, so that the third is refused by its coordinates.
    type B = MechanismBuilder<f64, 3, 24, 17, 0, 3, 2>;
    let mut b = B::new().unwrap();
    let l1 = b.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    let l2 = b.body(body3(1.0, [0.5, 0.0, 1.0])).unwrap();
    let (p, a) = ([0.25, 0.0, 1.0], [0.0, 0.0, 1.0]);
    let inc = |name| ConfigError::Inconsistent { name };
    let body = |inertia| Body {
        mass: 1.0,
        com: [0.0; 3],
        inertia,
    };
    // Bodies: no room left, a non-positive-definite tensor, a flat plate (J₃ = J₁ + J₂), an
    // asymmetric tensor, a non-positive mass.
    refused(&b, inc("coordinates = N"), |b| b.body(body3(1.0, [0.0; 3])));
    let mut small = MechanismBuilder::<f64, 3, 36, 17, 0, 3, 0>::new().unwrap();
    small.body(body3(1.0, [0.0; 3])).unwrap();
    small.body(body3(1.0, [1.0, 0.0, 0.0])).unwrap();
    refused(&small, inc("rods = D"), |b| {
        b.body(body3(1.0, [2.0, 0.0, 0.0]))
    });
    let npd = ConfigError::NotPositiveDefinite { name: "inertia" };
    refused(&small, npd, |b| {
        b.body(body([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]))
    });
    let plate = ConfigError::NotPositiveDefinite {
        name: "second moment",
    };
    refused(&small, plate, |b| {
        b.body(body([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]))
    });
    let asym = ConfigError::NotSymmetric { name: "inertia" };
    refused(&small, asym, |b| {
        b.body(body([[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    });
    let mass = ConfigError::OutOfRange {
        name: "mass",
        bound: "> 0",
    };
    refused(&small, mass, |b| {
        b.body(Body {
            mass: 0.0,
            ..body3(1.0, [0.0; 3])
        })
    });
    // Joints: a zero axis, a missing body, a body joined to itself, the ground as a child, a
    // non-finite anchor.
    let zero_axis = ConfigError::OutOfRange {
        name: "joint axis",
        bound: "a non-zero vector of finite length",
    };
    refused(&b, zero_axis, |b| {
        b.revolute(Link::Ground, Link::Body(l1), p, [0.0; 3])
    });
    let missing = ConfigError::OutOfRange {
        name: "body",
        bound: "< bodies",
    };
    refused(&b, missing, |b| {
        b.revolute(Link::Body(7), Link::Body(l1), p, a)
    });
    refused(&b, missing, |b| b.spherical(Link::Ground, Link::Body(2), p));
    refused(&b, inc("joint links distinct"), |b| {
        b.fixed(Link::Body(l1), Link::Body(l1), p)
    });
    refused(&b, inc("joint child is a body"), |b| {
        b.fixed(Link::Body(l1), Link::Ground, p)
    });
    let nan = ConfigError::NonFinite { name: "anchor" };
    refused(&b, nan, |b| {
        b.spherical(Link::Ground, Link::Body(l1), [f64::NAN, 0.0, 0.0])
    });
    // Closed loops: a second parent for a body, and a joint making a body its own ancestor.
    let tree = b;
    let j1 = b
        .revolute(Link::Ground, Link::Body(l1), [0.0, 0.0, 1.2], a)
        .unwrap();
    let lp = inc("joint tree (no closed loops)");
    refused(&b, lp, |b| b.revolute(Link::Ground, Link::Body(l1), p, a));
    let mut chain = tree;
    chain
        .revolute(Link::Body(l1), Link::Body(l2), p, a)
        .unwrap();
    refused(&chain, lp, |b| {
        b.spherical(Link::Body(l2), Link::Body(l1), p)
    });
    // Rows beyond D, motors and dampers on a weld, an unknown joint.
    refused(&b, inc("rods = D"), |b| {
        b.fixed(Link::Body(l1), Link::Body(l2), p)
    });
    let mut welded = MechanismBuilder::<f64, 3, 24, 18, 0, 2, 1>::new().unwrap();
    let w1 = welded.body(body3(1.0, [0.0; 3])).unwrap();
    let w2 = welded.body(body3(1.0, [0.5, 0.0, 0.0])).unwrap();
    let weld = welded.fixed(Link::Body(w1), Link::Body(w2), p).unwrap();
    let motor = inc("joint motor on a revolute or prismatic joint");
    refused(&welded, motor, |b| b.joint_motor(weld));
    refused(&welded, inc("joint damping on a fixed joint"), |b| {
        b.joint_damping(weld, 1.0)
    });
    let unknown = ConfigError::OutOfRange {
        name: "joint",
        bound: "< joints",
    };
    refused(&b, unknown, |b| b.joint_motor(j1 + 1));
    // Sizes: fewer rows than D.
    assert_eq!(tree.build().err(), Some(inc("rods = D")));
    assert_eq!(JointKind::Fixed.rows(3), 6);
    assert_eq!(JointKind::Revolute.rows(2), 2);
}

/// Body and joint storage is a capacity (`B`, `J`): a point-mass builder (both 0 by default)
/// refuses a body, and one body or joint beyond the capacity is a typed error that leaves the
/// builder unchanged, even when the coordinates and rows would fit.
#[test]
fn bodies_and_joints_beyond_their_capacity_are_typed_errors() {
    let inc = |name| ConfigError::Inconsistent { name };
    let points = MechanismBuilder::<f64, 3, 24, 12>::new().unwrap();
    refused(&points, inc("bodies <= B"), |b| {
        b.body(body3(1.0, [0.0; 3]))
    });
    let (p, a) = ([0.25, 0.0, 1.0], [0.0, 0.0, 1.0]);
    // Room for the coordinates and rows of two bodies and a joint, but for one body only.
    let mut one = MechanismBuilder::<f64, 3, 24, 17, 0, 1, 1>::new().unwrap();
    one.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    refused(&one, inc("bodies <= B"), |b| {
        b.body(body3(1.0, [0.5, 0.0, 1.0]))
    });
    // Two bodies, room for one joint: the second joint is refused.
    let mut two = MechanismBuilder::<f64, 3, 24, 22, 0, 2, 1>::new().unwrap();
    let b1 = two.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    let b2 = two.body(body3(1.0, [0.5, 0.0, 1.0])).unwrap();
    two.revolute(Link::Ground, Link::Body(b1), [0.0, 0.0, 1.2], a)
        .unwrap();
    refused(&two, inc("joints <= J"), |b| {
        b.revolute(Link::Body(b1), Link::Body(b2), p, a)
    });
    // No joint storage at all: room for the rows, none for a joint record.
    let mut none = MechanismBuilder::<f64, 3, 12, 9, 0, 1, 0>::new().unwrap();
    let l0 = none.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    refused(&none, inc("joints <= J"), |b| {
        b.spherical(Link::Ground, Link::Body(l0), p)
    });
    // A capacity is an upper bound: fewer bodies and joints than `B`, `J` build.
    let mut roomy = MechanismBuilder::<f64, 3, 12, 11, 0, 4, 3>::new().unwrap();
    let l = roomy.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let j = roomy.revolute(Link::Ground, Link::Body(l), p, a).unwrap();
    let m = roomy.build().unwrap();
    assert_eq!((m.bodies(), m.joints()), (1, 1));
    assert!(m.joint_angle(j, &m.initial_state().q).is_some());
}

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

/// Joint dampers on one body, each twice as strong as the last, until their sum overflows:
/// every accepted call leaves a finite damping matrix, and the one that overflows is refused
/// as `Overflow "damping"` with the builder unchanged (the dashpots are checked before any is
/// written).
fn joint_damping_until_it_overflows<const D: usize>(
    join: impl Fn(&mut MechanismBuilder<f64, 3, 12, D, 0, 1, 1>, usize) -> usize,
) {
    let mut b = MechanismBuilder::<f64, 3, 12, D, 0, 1, 1>::new().unwrap();
    let l = b.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let j = join(&mut b, l);
    let mut c = 1e300;
    for accepted in 0.. {
        let before = format!("{b:?}");
        match b.joint_damping(j, c) {
            Ok(()) => {
                let m = b.build().unwrap().damping();
                assert!(m.iter().all(|x| x.is_finite()), "accepted {m}");
                assert!(accepted < 64, "never refused");
                c *= 2.0;
            }
            Err(e) => {
                assert_eq!(e, ConfigError::Overflow { name: "damping" });
                assert_eq!(
                    format!("{b:?}"),
                    before,
                    "builder changed by a refused damper"
                );
                assert!(accepted > 0, "the first damper (c = 1e300) fits");
                return;
            }
        }
    }
}

#[test]
fn a_joint_damper_that_overflows_is_refused_and_leaves_the_builder_untouched() {
    let (p, a) = ([0.1, 1.0, -0.3], [0.0, 0.3, 1.0]);
    const HINGE: usize = body_constraints(3) + JointKind::Revolute.rows(3);
    joint_damping_until_it_overflows::<HINGE>(|b, l| {
        b.revolute(Link::Ground, Link::Body(l), p, a).unwrap()
    });
    const SLIDER: usize = body_constraints(3) + JointKind::Prismatic.rows(3);
    joint_damping_until_it_overflows::<SLIDER>(|b, l| {
        b.prismatic(Link::Ground, Link::Body(l), p, a).unwrap()
    });
    const BALL: usize = body_constraints(3) + JointKind::Spherical.rows(3);
    joint_damping_until_it_overflows::<BALL>(|b, l| {
        b.spherical(Link::Ground, Link::Body(l), p).unwrap()
    });
}
