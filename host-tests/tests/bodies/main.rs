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

mod joints;
mod refused;
