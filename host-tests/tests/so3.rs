//! The SO(3) integrators of `macrostep::lie` (000 §4.5): claims measured, a cross-check against
//! the crate's generic Z&S, torques and inertia beyond the paper, bad input.

use host_tests::experiments::so3::{compute, Setup};
use host_tests::measure::{loglog_slope, reversibility_error};
use host_tests::rigid::so3::{
    cayley_order_errors, relaxed_reference, rigid_reference, run_zs, zs_defect, zs_order_errors,
};
use host_tests::{for_scalars, Tolerance};
use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::lie::{
    matrix_of, orthogonality_error, BodyState, CayleyVariational, LinearizedZs, LinearizedZs1,
    LinearizedZs2, RigidBody, So3ZsParams,
};
use macrostep::model::System;
use macrostep::zs::{ImplicitNewtonParams, ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Integrator, Real, StepError};
use nalgebra::{Matrix3, Rotation3, Vector3};

/// An asymmetric body and a start other than the paper's.
fn other_body() -> (RigidBody<f64>, BodyState<f64>) {
    let body = RigidBody {
        inertia: Vector3::new(1.0, 1.6, 2.1),
        b_mu: -0.7,
    };
    let r = *Rotation3::from_scaled_axis(Vector3::new(0.3, -0.5, 0.2)).matrix();
    let s = BodyState::new(r, Vector3::new(-0.4, 0.9, 0.6)).expect("valid start");
    (body, s)
}

// Steps in the asymptotic regime of the penalty modes (h·2√2ω ≤ 0.3, see the experiment).
const HS: [f64; 4] = [0.01, 0.005, 0.0025, 0.00125];
// The first-order methods' positions are second-order accurate (their position sequences are
// Störmer–Verlet's) and their velocities first order, so the slope of the max of both reaches 1
// only once the velocity error dominates: eight times smaller steps.
const HS1: [f64; 4] = [0.00125, 0.000625, 0.0003125, 0.00015625];

#[test]
fn orders_match_the_claims() {
    let p = So3ZsParams::default();
    for (body, s0) in [(RigidBody::paper(), BodyState::paper()), other_body()] {
        let o1 = loglog_slope(&HS1, &zs_order_errors::<false>(body, p, &s0, 1.0, &HS1));
        let o2 = loglog_slope(&HS, &zs_order_errors::<true>(body, p, &s0, 1.0, &HS));
        let oc = loglog_slope(&HS1, &cayley_order_errors(body, &s0, 1.0, &HS1));
        // ±0.2: four halvings, pre-asymptotic terms of relative size hω_p.
        assert!(
            (o1 - LinearizedZs1::<f64>::ORDER as f64).abs() < 0.2,
            "first order {o1}"
        );
        assert!(
            (o2 - LinearizedZs2::<f64>::ORDER as f64).abs() < 0.2,
            "trapezoidal {o2}"
        );
        assert!(
            (oc - CayleyVariational::<f64>::ORDER as f64).abs() < 0.2,
            "benchmark {oc}"
        );
    }
}

#[test]
fn both_forms_are_symplectic_in_r18() {
    let p = So3ZsParams::default();
    for (body, s0) in [(RigidBody::paper(), BodyState::paper()), other_body()] {
        let mut x0 = s0.to_relaxed();
        x0.q[1] += 0.02; // off SO(3): the penalty acts
        x0.q[6] -= 0.01;
        for h in [0.1, 0.03] {
            // Central differences with eps = 1e-6 on O(1) entries: error ~1e-8 at worst.
            let d2 = zs_defect::<true>(body, p, h, &x0, 10);
            let d1 = zs_defect::<false>(body, p, h, &x0, 10);
            assert!(d2 < 1e-7, "trapezoidal defect {d2} at h = {h}");
            assert!(d1 < 1e-7, "first-order defect {d1} at h = {h}");
        }
    }
}

#[test]
fn the_defect_measurement_sees_a_non_symplectic_map() {
    // The same measurement on the Z&S with the paper's printed sign of the f_k correction
    // would have to fail; emulate it by the first-order map with an extra non-gradient force
    // of the same size (a torque is not a gradient): the defect must be far above 1e-7.
    let (body, s0) = other_body();
    let mut zs = LinearizedZs1::new(body, 0.1, So3ZsParams::default()).unwrap();
    zs.set_torque(Vector3::new(0.0, 0.0, 1e-3)).unwrap();
    let mass = zs.mass();
    let d = host_tests::measure::integrator_defect(&mut zs, &mass, &s0.to_relaxed(), 10, 1e-6);
    assert!(d > 1e-5, "defect {d}");
}

#[test]
fn trapezoidal_form_is_symmetric_first_order_is_not() {
    let (body, s0) = other_body();
    let p = So3ZsParams::default();
    let mut z2 = LinearizedZs2::new(body, 0.1, p).unwrap();
    let mut z1 = LinearizedZs1::new(body, 0.1, p).unwrap();
    let e2 = reversibility_error(&mut z2, &s0.to_relaxed(), 50);
    let e1 = reversibility_error(&mut z1, &s0.to_relaxed(), 50);
    assert!(e2 < 1e-12, "trapezoidal {e2}");
    assert!(e1 > 1e-4, "first order {e1}");
    const { assert!(LinearizedZs2::<f64>::SYMMETRIC && !LinearizedZs1::<f64>::SYMMETRIC) };
}

/// The energy `V(vec R) = Bμ R₃₃ + ½ω²‖RᵀR − I‖²` written once, for the crate's generic Z&S.
struct Relaxed {
    b_mu: f64,
    omega: f64,
}

impl Energy<f64, 9> for Relaxed {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 9]) -> S {
        let r = |i: usize, j: usize| q[i + 3 * j];
        let mut pen = S::lit(0.0);
        for i in 0..3 {
            for j in 0..3 {
                let mut d = r(0, i) * r(0, j) + r(1, i) * r(1, j) + r(2, i) * r(2, j);
                if i == j {
                    d -= S::lit(1.0);
                }
                pen += d * d;
            }
        }
        r(2, 2) * S::lit(self.b_mu) + pen * S::lit(0.5 * self.omega * self.omega)
    }
}

#[test]
fn trapezoidal_form_is_generic_zs_with_half_beta() {
    // The module docs' claim: the paper's method is Z&S on vec R with mass J_d and β/2. The
    // generic Z&S takes V‴ from automatic differentiation, so this checks the sign and the
    // transposes of f_k independently of the hand-written matrix formula.
    let (body, s0) = other_body();
    let p = So3ZsParams::default();
    let zs = LinearizedZs2::new(body, 0.1, p).unwrap();
    let system = System::new(
        zs.mass(),
        AutoDiff(Relaxed {
            b_mu: body.b_mu,
            omega: p.omega,
        }),
    );
    let mut generic = ZhangSkeel::new(system, 0.1, ZsParams::with_beta(p.beta / 2.0)).unwrap();
    let ours = run_zs::<f64, true>(body, p, 0.1, &s0, 200);
    let mut s = s0.to_relaxed();
    let mut worst = 0.0f64;
    for mine in &ours[1..] {
        generic.step(&mut s).unwrap();
        worst = worst.max((s.q - mine.q).amax()).max((s.v - mine.v).amax());
    }
    // Same mathematics, different rounding, 200 steps.
    assert!(worst < f64::SAME_MATH, "max difference {worst}");
}

fn energy_bounded<T: Real + Tolerance>() {
    let body = RigidBody::<T>::paper();
    let p = So3ZsParams::<T>::default();
    let mut zs = LinearizedZs2::new(body, T::lit(0.1), p).unwrap();
    let mut s = BodyState::<T>::paper().to_relaxed();
    let e0 = body.relaxed_energy(&s, p.omega).to_f64();
    let (mut early, mut late) = (0.0f64, 0.0f64);
    let n = 100_000;
    for k in 0..n {
        zs.step(&mut s).unwrap();
        let de = (body.relaxed_energy(&s, p.omega).to_f64() - e0).abs();
        if k < n / 10 {
            early = early.max(de);
        } else if k >= n - n / 10 {
            late = late.max(de);
        }
        assert!(orthogonality_error(&matrix_of(&s.q)).to_f64() < 0.1);
    }
    // Bounded, no drift: the last tenth of 10⁴ time units is no worse than the first, up to
    // 20% (the error oscillates with the slow motion and is sampled, not enveloped).
    assert!(early < 0.1, "energy error {early}");
    assert!(
        late < 1.2 * early + 100.0 * T::EPS,
        "early {early}, late {late}"
    );
}

fn f32_tracks_f64<T: Real + Tolerance>() {
    let run_t = run_zs::<T, true>(
        RigidBody::paper(),
        So3ZsParams::default(),
        T::lit(0.1),
        &BodyState::paper(),
        200,
    );
    let run_d = run_zs::<f64, true>(
        RigidBody::paper(),
        So3ZsParams::default(),
        0.1,
        &BodyState::paper(),
        200,
    );
    let diff = run_t
        .iter()
        .zip(&run_d)
        .map(|(a, b)| (a.cast::<f64>().q - b.q).amax())
        .fold(0.0, f64::max);
    // Rounding amplified by the (non-chaotic) motion over 200 steps.
    assert!(diff < 2e3 * T::EPS, "max difference {diff}");
}

fn cayley_stays_on_so3<T: Real + Tolerance>() {
    let body = RigidBody::<T>::paper();
    let mut cay =
        CayleyVariational::new(body, T::lit(0.1), ImplicitNewtonParams::default()).unwrap();
    let mut s = BodyState::<T>::paper().to_relaxed();
    let e0 = body.energy(&cay.body_state(&s)).to_f64();
    for _ in 0..10_000 {
        cay.step(&mut s).unwrap();
        let b = cay.body_state(&s);
        assert!(orthogonality_error(&b.rotation).to_f64() < 1e4 * T::EPS);
        // Variational: bounded energy error (0.11 at h = 0.1 over T = 10, measured).
        assert!((body.energy(&b).to_f64() - e0).abs() < 0.15);
    }
}

fn views_agree_with_the_matrix<T: Real + Tolerance>() {
    let r =
        *Rotation3::from_scaled_axis(Vector3::new(T::lit(0.3), T::lit(-1.1), T::lit(0.4))).matrix();
    let s = BodyState::new(r, Vector3::zeros()).unwrap();
    assert!((s.rotation().matrix() - r).amax().to_f64() < 10.0 * T::EPS);
    let q = s.quaternion();
    assert!((q.to_rotation_matrix().matrix() - r).amax().to_f64() < 10.0 * T::EPS);
    // A relaxed R close to SO(3) maps to its nearest rotation.
    let mut near = r;
    near[(0, 1)] += T::lit(1e-3);
    let proj = BodyState {
        rotation: near,
        ..s
    }
    .rotation();
    assert!(orthogonality_error(proj.matrix()).to_f64() < 100.0 * T::EPS);
    assert!((proj.matrix() - r).amax().to_f64() < 2e-3);
}

for_scalars!(
    energy_bounded,
    f32_tracks_f64,
    cayley_stays_on_so3,
    views_agree_with_the_matrix
);

#[test]
fn torque_and_inertia_match_the_references() {
    // Beyond the paper: a general inertia and a constant body torque, Bμ ≠ 0. The trapezoidal
    // Z&S converges to the penalised relaxed system, the benchmark to the rigid body.
    let (body, s0) = other_body();
    let u = Vector3::new(0.3, -0.2, 0.5);
    let p = So3ZsParams::default();
    let t = 1.0;
    let rel = relaxed_reference(&body, p.omega, u, &s0.to_relaxed(), &[0.0, t]);
    let rig = rigid_reference(&body, u, &s0, &[0.0, t]);
    let mut errs_zs = vec![];
    let mut errs_c = vec![];
    for &h in &HS {
        let n = (t / h).round() as usize;
        let mut zs = LinearizedZs2::new(body, h, p).unwrap();
        zs.set_torque(u).unwrap();
        let mut s = s0.to_relaxed();
        zs.integrate(&mut s, n).unwrap();
        errs_zs.push((s.q - rel[1].q).amax());
        let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default()).unwrap();
        cay.set_torque(u).unwrap();
        let mut b = s0.to_relaxed();
        cay.integrate(&mut b, n).unwrap();
        errs_c.push((cay.body_state(&b).rotation - rig[1].rotation).amax());
    }
    assert!(errs_zs[3] < 1e-4, "Z&S error {errs_zs:?}");
    // First order for a general inertia (the gyroscopic term), 1.9e-4 at h = 1/800 measured.
    assert!(errs_c[3] < 3e-4, "benchmark error {errs_c:?}");
    assert!((loglog_slope(&HS, &errs_c) - 1.0).abs() < 0.2, "{errs_c:?}");
    assert!(
        (loglog_slope(&HS, &errs_zs) - 2.0).abs() < 0.2,
        "{errs_zs:?}"
    );
    // The penalised system is O(ω⁻²)-close to the rigid one: the two references differ little.
    assert!((matrix_of(&rel[1].q) - rig[1].rotation).amax() < 0.05);
}

#[test]
fn torque_changes_act_at_once() {
    // The trapezoidal cache holds f without the torque: a new torque must change the next step.
    let (body, s0) = other_body();
    let mut a = LinearizedZs2::new(body, 0.1, So3ZsParams::default()).unwrap();
    let mut b = a;
    let mut sa = s0.to_relaxed();
    let mut sb = sa;
    a.step(&mut sa).unwrap();
    b.step(&mut sb).unwrap();
    b.set_torque(Vector3::new(1.0, 0.0, 0.0)).unwrap();
    a.step(&mut sa).unwrap();
    b.step(&mut sb).unwrap();
    assert!((sa.v - sb.v).amax() > 1e-3);
}

#[test]
fn bad_configuration_is_rejected() {
    let p = So3ZsParams::default();
    // Non-orthogonal R(0) beyond the tolerance.
    let mut skew = Matrix3::<f64>::identity();
    skew[(0, 1)] = 1e-6;
    assert_eq!(
        BodyState::new(skew, Vector3::zeros()),
        Err(ConfigError::OutOfRange {
            name: "rotation",
            bound: "orthogonal with determinant +1"
        })
    );
    // Non-positive inertia, a flat body (J_d singular), bad penalty, bad step.
    let mut body = RigidBody::<f64>::paper();
    body.inertia[2] = -1.0;
    assert!(LinearizedZs2::new(body, 0.1, p).is_err());
    assert!(CayleyVariational::new(body, 0.1, ImplicitNewtonParams::default()).is_err());
    body.inertia = Vector3::new(1.0, 1.0, 2.0);
    assert_eq!(
        LinearizedZs2::new(body, 0.1, p).err(),
        Some(ConfigError::Inconsistent {
            name: "J_i < J_j + J_k"
        })
    );
    assert!(LinearizedZs1::new(RigidBody::paper(), 0.0, p).is_err());
    // Non-finite torque: rejected, the previous torque kept.
    let mut zs = LinearizedZs2::new(RigidBody::paper(), 0.1, p).unwrap();
    zs.set_torque(Vector3::new(0.1, 0.0, 0.0)).unwrap();
    assert_eq!(
        zs.set_torque(Vector3::new(f64::NAN, 0.0, 0.0)),
        Err(ConfigError::NonFinite { name: "torque" })
    );
    assert_eq!(zs.torque(), Vector3::new(0.1, 0.0, 0.0));
    let mut cay =
        CayleyVariational::new(RigidBody::paper(), 0.1, ImplicitNewtonParams::default()).unwrap();
    assert!(cay
        .set_torque(Vector3::new(0.0, f64::INFINITY, 0.0))
        .is_err());
}

#[test]
fn failed_steps_leave_the_state_untouched() {
    let mut zs = LinearizedZs2::new(RigidBody::paper(), 0.1, So3ZsParams::default()).unwrap();
    let mut cay =
        CayleyVariational::new(RigidBody::paper(), 0.1, ImplicitNewtonParams::default()).unwrap();
    // Non-finite state: typed error, state bit-identical.
    let mut s = BodyState::<f64>::paper().to_relaxed();
    s.v[4] = f64::NAN;
    let before = s;
    assert_eq!(zs.step(&mut s), Err(StepError::NonFiniteState));
    let bits = |x: &macrostep::State<f64, 9>| -> Vec<u64> {
        x.q.iter().chain(x.v.iter()).map(|y| y.to_bits()).collect()
    };
    assert_eq!(bits(&s), bits(&before));
    let mut b = BodyState::<f64>::paper().to_relaxed();
    b.v[1] = f64::INFINITY;
    let before = b;
    assert_eq!(cay.step(&mut b), Err(StepError::NonFiniteState));
    assert_eq!(bits(&b), bits(&before));
    // Newton capped at one update with a tight tolerance: NotConverged, state untouched.
    let tight = ImplicitNewtonParams {
        tol: 1e-300,
        max_iter: 1,
    };
    let mut cay = CayleyVariational::new(RigidBody::paper(), 0.1, tight).unwrap();
    let mut b = other_body().1.to_relaxed(); // off R = I: a torque acts, Ω_k is not the solution
    let before = b;
    assert_eq!(cay.step(&mut b), Err(StepError::NotConverged));
    assert_eq!(bits(&b), bits(&before));
    // A blow-up (huge step through the penalty, β = 0 makes it explicit): NonFiniteResult or
    // another typed error, and the state is the last good one.
    let mut wild = LinearizedZs::<f64, true>::new(
        RigidBody::paper(),
        5.0,
        So3ZsParams {
            omega: 1e150,
            beta: 0.0,
        },
    )
    .unwrap();
    let mut s = BodyState::<f64>::paper().to_relaxed();
    s.q[1] = 0.5;
    let mut last = s;
    let mut failed = false;
    for _ in 0..50 {
        match wild.step(&mut s) {
            Ok(()) => last = s,
            Err(_) => {
                failed = true;
                assert_eq!(s, last);
                break;
            }
        }
    }
    assert!(
        failed,
        "the explicit step through ω = 1e150 should overflow"
    );
}

#[test]
fn quick_reproduction() {
    let r = compute(&Setup::quick());
    // Fig 10 (a) vs (b) at h = 0.1 over T = 5: both deviations well below the O(1) saturation,
    // Z&S's orthogonality defect O(ω⁻²·|Ω|²) small but far above the benchmark's rounding.
    assert!(r.zs.max_err_r < 0.3 && r.cayley.max_err_r < 0.3, "{r:?}");
    assert!(r.zs.max_orth_err < 0.1 && r.zs.max_orth_err > 1e-3, "{r:?}");
    assert!(r.cayley.max_orth_err < 1e-12, "{r:?}");
    assert!(
        r.zs.max_energy_err < 0.1 && r.cayley.max_energy_err < 0.15,
        "{r:?}"
    );
    assert!(
        (r.order_zs2 - 2.0).abs() < 0.2 && (r.order_zs1 - 1.0).abs() < 0.2,
        "{r:?}"
    );
    assert!(r.f32_vs_f64 < 1e-3, "{r:?}");
}
