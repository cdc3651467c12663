//! Unit tests of the SO(3) methods and their model.

use super::*;
use nalgebra::Rotation3;

#[test]
fn hat_is_the_cross_product_and_vee_inverts_it() {
    let w = Vector3::new(0.3, -1.2, 2.0);
    let x = Vector3::new(-0.7, 0.4, 1.1);
    assert!((hat(&w) * x - w.cross(&x)).amax() < 1e-15);
    assert!((vee(&hat(&w)) - w).amax() < 1e-15);
}

#[test]
fn potential_torque_is_minus_the_body_derivative() {
    // dV/dε of V(R exp(ε η̂)) at ε = 0 equals −τ·η, by central differences.
    let body = RigidBody {
        inertia: Vector3::new(1.0f64, 2.0, 2.5),
        b_mu: 1.7,
    };
    let r = *Rotation3::from_scaled_axis(Vector3::new(0.4, -0.9, 0.3)).matrix();
    let tau = body.torque(&r);
    for k in 0..3 {
        let mut eta = Vector3::zeros();
        eta[k] = 1.0;
        let e = 1e-6;
        let rp = r * Rotation3::from_scaled_axis(eta * e).matrix();
        let rm = r * Rotation3::from_scaled_axis(-eta * e).matrix();
        let d = (body.potential(&rp) - body.potential(&rm)) / (2.0 * e);
        assert!(
            (d + tau[k]).abs() < 1e-9,
            "component {k}: {d} vs {}",
            -tau[k]
        );
    }
}

#[test]
fn matrix_inertia_gives_the_kinetic_energy() {
    let body = RigidBody {
        inertia: Vector3::new(1.0f64, 2.0, 2.5),
        b_mu: 0.0,
    };
    let r = *Rotation3::from_scaled_axis(Vector3::new(0.1, 0.2, -0.3)).matrix();
    let s = BodyState {
        t: 0.0,
        rotation: r,
        omega: Vector3::new(0.5, -1.0, 2.0),
    };
    let relaxed = body.relaxed_energy(&s.to_relaxed(), 10.0);
    assert!((relaxed - body.energy(&s)).abs() < 1e-12);
    let back = BodyState::from_relaxed(&s.to_relaxed());
    assert!((back.omega - s.omega).amax() < 1e-14);
}

#[test]
fn bad_inputs_are_rejected() {
    let skewed = Matrix3::new(1.0, 1e-3, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    assert_eq!(
        BodyState::new(skewed, Vector3::zeros()),
        Err(ConfigError::OutOfRange {
            name: "rotation",
            bound: "orthogonal with determinant +1"
        })
    );
    let reflection = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0f32));
    assert!(BodyState::new(reflection, Vector3::zeros()).is_err());
    assert!(BodyState::new(Matrix3::<f32>::identity(), Vector3::new(f32::NAN, 0.0, 0.0)).is_err());
    let mut body = RigidBody::<f64>::paper();
    body.inertia[1] = 0.0;
    assert_eq!(
        body.validate(),
        Err(ConfigError::OutOfRange {
            name: "inertia",
            bound: "> 0"
        })
    );
    body.inertia[1] = f64::INFINITY;
    assert_eq!(
        body.validate(),
        Err(ConfigError::NonFinite { name: "inertia" })
    );
    assert!(So3ZsParams {
        omega: 0.0,
        beta: 0.4
    }
    .validate()
    .is_err());
    assert!(So3ZsParams {
        omega: 10.0,
        beta: -0.1
    }
    .validate()
    .is_err());
}
// The methods on the driver: what the step guards and the clock refuse, and that runs inside
// the guards keep their numbers.

use crate::guard::Guard;
use crate::zs::ImplicitNewtonParams;
use crate::{Guards, Integrator, StepError, Stepper};

/// An asymmetric body and a start off `R = I`.
fn other_body() -> (RigidBody<f64>, BodyState<f64>) {
    let body = RigidBody {
        inertia: Vector3::new(1.0, 1.6, 2.1),
        b_mu: -0.7,
    };
    let r = *Rotation3::from_scaled_axis(Vector3::new(0.3, -0.5, 0.2)).matrix();
    let s = BodyState::new(r, Vector3::new(-0.4, 0.9, 0.6)).expect("valid start");
    (body, s)
}

/// Steps the relaxed method from the paper's start until it fails; checks that every `Ok`
/// step is inside the default guards, as the driver measures them, and that a failed step
/// leaves the state untouched. Returns the number of `Ok` steps and the error.
fn run_until_refused<const S: bool>(h: f64) -> (usize, StepError) {
    let body = RigidBody::<f64>::paper();
    let p = So3ZsParams::default();
    let mut zs = LinearizedZs::<f64, S>::new(body, h, p).unwrap();
    assert_eq!(zs.guards(), Guards::default());
    let probe = So3Probe::new(&body, p.omega);
    let mut s = BodyState::paper().to_relaxed();
    let (k0, v0) = probe.energy(&s).unwrap();
    let (e0, mut scale) = (k0 + v0, k0 + v0.abs());
    for k in 0..50 {
        let before = s;
        match zs.step(&mut s) {
            Ok(()) => {
                let (k1, v1) = probe.energy(&s).unwrap();
                scale = scale.max(k1);
                assert!((k1 + v1 - e0).abs() <= 0.2 * scale, "step {k}: {s:?}");
                assert!(orthogonality_error(&matrix_of(&s.q)) <= 0.1, "step {k}");
            }
            Err(e) => {
                assert_eq!(s, before);
                return (k, e);
            }
        }
    }
    panic!("50 Ok steps at h = {h}");
}

/// The step the guards refused, taken with every guard off: how far it is from the start's
/// energy, relative to the run's energy scale (the largest kinetic energy and the range of
/// the potential seen, as `crate::guard` defines it).
fn unguarded_drift<const S: bool>(h: f64, steps: usize) -> f64 {
    let body = RigidBody::<f64>::paper();
    let p = So3ZsParams::default();
    let mut zs = LinearizedZs::<f64, S>::new(body, h, p)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let probe = So3Probe::new(&body, p.omega);
    let mut s = BodyState::paper().to_relaxed();
    let (k0, v0) = probe.energy(&s).unwrap();
    let (e0, mut k_max, mut v_lo, mut v_hi) = (k0 + v0, k0, v0, v0);
    for _ in 0..steps {
        zs.step(&mut s).unwrap();
        let (k, v) = probe.energy(&s).unwrap();
        (k_max, v_lo, v_hi) = (k_max.max(k), v_lo.min(v), v_hi.max(v));
    }
    let (k1, v1) = probe.energy(&s).unwrap();
    (k1 + v1 - e0).abs() / k_max.max(v_hi - v_lo)
}

#[test]
fn linearized_zs1_past_its_stability_bound_is_refused() {
    // h = 0.2 > 0.158, the bound of the module docs for β = 0.4, ω = 10: the run diverges
    // (ΔE = 5.2 by the fourth step) and the guards refuse its first step out of bounds.
    let (ok, err) = run_until_refused::<false>(0.2);
    assert!(matches!(err, StepError::Diverged { .. }), "{err:?}");
    assert!(ok <= 3, "{ok} Ok steps");
    // The refused step starts a real divergence: taken without guards it is beyond the
    // stretched tier's bound (`0.1·S`, the body off SO(3) by more than a third of the residual
    // bound), and two steps later the drift is beyond the run's scale (a step later still, the
    // unguarded body is no longer a rotation).
    let d = unguarded_drift::<false>(0.2, ok + 1);
    assert!(d > 0.1, "{ok} Ok steps, then a drift of {d}·S");
    let later = unguarded_drift::<false>(0.2, ok + 3);
    assert!(later > 1.0, "two steps later a drift of {later}·S");
}

#[test]
fn linearized_zs2_past_its_stability_bound_is_refused() {
    let (ok, err) = run_until_refused::<true>(0.2);
    assert!(matches!(err, StepError::Diverged { .. }), "{err:?}");
    assert!(ok <= 3, "{ok} Ok steps");
    let d = unguarded_drift::<true>(0.2, ok + 1);
    assert!(d > 0.25, "{ok} Ok steps, then a drift of {d}·S");
}

#[test]
fn paper_runs_stay_inside_the_guards() {
    // No false alarms on the paper's runs (h = 0.1, ω = 10, β = 0.4), in f64 and f32.
    fn run<T: Real>(n: usize) {
        let body = RigidBody::<T>::paper();
        let p = So3ZsParams::default();
        let h = T::lit(0.1);
        let s0 = BodyState::<T>::paper().to_relaxed();
        let mut z2 = LinearizedZs2::new(body, h, p).unwrap();
        let mut s = s0;
        z2.integrate(&mut s, n).unwrap();
        let mut z1 = LinearizedZs1::new(body, h, p).unwrap();
        let mut s = s0;
        z1.integrate(&mut s, n).unwrap();
        let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default()).unwrap();
        let mut s = s0;
        cay.integrate(&mut s, n).unwrap();
    }
    run::<f64>(10_000);
    run::<f32>(10_000);
}

#[test]
fn cayley_huge_step_is_refused_by_the_energy_guard() {
    // One step of h = 1000 from the paper's start lands at E − E₀ = −1.98 (E₀ = 1.525).
    let body = RigidBody::<f64>::paper();
    let mut cay = CayleyVariational::new(body, 0.1, ImplicitNewtonParams::default()).unwrap();
    let mut s = BodyState::paper().to_relaxed();
    let before = s;
    assert_eq!(
        cay.step_by(&mut s, 1e3),
        Err(StepError::Diverged {
            guard: Guard::EnergyRun
        })
    );
    assert_eq!(s, before);
    // Without guards the same step is taken: the refusal is the guard's.
    let mut raw = CayleyVariational::new(body, 0.1, ImplicitNewtonParams::default())
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    raw.step_by(&mut s, 1e3).unwrap();
    let de = body.energy(&raw.body_state(&s)) - body.energy(&BodyState::paper());
    assert!((de + 1.98).abs() < 0.01, "ΔE = {de}");
}

#[test]
fn the_clock_stalls_in_f32_at_two_to_the_21() {
    // At t = 2²¹ an f32 clock moves by 0.25 for h = 0.13: refused, state untouched.
    let body = RigidBody::<f32>::paper();
    let mut s = BodyState::<f32>::paper().to_relaxed();
    s.t = 2_097_152.0;
    let before = s;
    let mut z1 = LinearizedZs1::new(body, 0.13, So3ZsParams::default()).unwrap();
    assert_eq!(z1.step(&mut s), Err(StepError::ClockStalled));
    let mut z2 = LinearizedZs2::new(body, 0.13, So3ZsParams::default()).unwrap();
    assert_eq!(z2.step(&mut s), Err(StepError::ClockStalled));
    let mut cay = CayleyVariational::new(body, 0.13, ImplicitNewtonParams::default()).unwrap();
    assert_eq!(cay.step(&mut s), Err(StepError::ClockStalled));
    assert_eq!(s, before);
}

/// The benchmark on `(R, Ω)`, written out: the map the driver's proposal must reproduce.
fn cayley_on_body(
    body: &RigidBody<f64>,
    h: f64,
    tol: f64,
    r: &Matrix3<f64>,
    w0: &Vector3<f64>,
) -> (Matrix3<f64>, Vector3<f64>) {
    let j = body.inertia;
    let half_h = h * 0.5;
    let quarter_h2 = h * h * 0.25;
    let m0 = j.component_mul(w0);
    let tau = body.torque(r);
    let c = m0 - w0.cross(&m0) * half_h + w0 * (quarter_h2 * w0.dot(&m0)) + tau * h;
    let mut w = *w0;
    for _ in 0..20 {
        let m = j.component_mul(&w);
        let wm = w.dot(&m);
        let g = m + w.cross(&m) * half_h + w * (quarter_h2 * wm) - c;
        let jac = Matrix3::from_diagonal(&j)
            + (hat(&w) * Matrix3::from_diagonal(&j) - hat(&m)) * half_h
            + (Matrix3::identity() * wm + w * m.transpose() * 2.0) * quarter_h2;
        let dw = jac.lu().solve(&g).unwrap();
        w -= dw;
        if dw.amax() <= tol * (1.0 + w.amax()) {
            break;
        }
    }
    let x = w * h;
    let xh = hat(&x);
    let cay = Matrix3::identity() + (xh + xh * xh * 0.5) * (4.0 / (4.0 + x.norm_squared()));
    (r * cay, w)
}

#[test]
fn cayley_keeps_its_own_omega_along_a_run() {
    // From R = I the relaxed state carries Ω exactly; along the run the benchmark uses its own
    // Ω_{k+1}, not vee(RᵀṘ): the run is bit-identical to the method written on (R, Ω), also
    // across a refused step.
    let body = RigidBody::<f64>::paper();
    let newton = ImplicitNewtonParams::default();
    let mut cay = CayleyVariational::new(body, 0.1, newton).unwrap();
    let mut s = BodyState::paper().to_relaxed();
    let (mut r, mut w) = (Matrix3::identity(), BodyState::<f64>::paper().omega);
    for k in 0..200 {
        if k == 100 {
            let before = s;
            assert!(cay.step_by(&mut s, 1e3).is_err());
            assert_eq!(s, before);
        }
        cay.step(&mut s).unwrap();
        (r, w) = cayley_on_body(&body, 0.1, newton.tol, &r, &w);
        let b = cay.body_state(&s);
        assert_eq!(b.rotation, r, "step {k}");
        assert_eq!(b.omega, w, "step {k}");
    }
    assert!((s.t - 20.0).abs() < 1e-12);
}

#[test]
fn linearized_retry_after_a_refused_step_is_bit_identical() {
    // The trapezoidal cache is keyed on R and h²: a refused proposal leaves a later step
    // exactly as it would have been.
    let (body, b0) = other_body();
    let p = So3ZsParams::default();
    let mut a = LinearizedZs2::new(body, 0.05, p).unwrap();
    let mut b = a;
    let mut sa = b0.to_relaxed();
    let mut sb = sa;
    a.integrate(&mut sa, 10).unwrap();
    b.integrate(&mut sb, 10).unwrap();
    let before = sb;
    assert!(matches!(
        b.step_by(&mut sb, 0.3),
        Err(StepError::Diverged { .. })
    ));
    assert_eq!(sb, before);
    a.integrate(&mut sa, 10).unwrap();
    b.integrate(&mut sb, 10).unwrap();
    assert_eq!(sa, sb);
}

#[test]
fn torque_work_is_accounted() {
    // A constant body torque pumps energy in; the work each step reports keeps the run guard
    // on the energy the torque did not supply, so a long forced run is not refused.
    let (body, b0) = other_body();
    let u = Vector3::new(0.3, -0.2, 0.5);
    let h = 0.01;
    let p = So3ZsParams::default();
    let e0 = body.energy(&b0);
    let mut z1 = LinearizedZs1::new(body, h, p).unwrap();
    let mut z2 = LinearizedZs2::new(body, h, p).unwrap();
    let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default()).unwrap();
    z1.set_torque(u).unwrap();
    z2.set_torque(u).unwrap();
    cay.set_torque(u).unwrap();
    let (mut s1, mut s2, mut sc) = (b0.to_relaxed(), b0.to_relaxed(), b0.to_relaxed());
    z1.integrate(&mut s1, 1000).unwrap();
    z2.integrate(&mut s2, 1000).unwrap();
    cay.integrate(&mut sc, 1000).unwrap();
    // The torque did change the energy by far more than the guard's bound.
    let de = body.energy(&cay.body_state(&sc)) - e0;
    let scale = body.energy(&b0).abs().max(1.0);
    assert!(de.abs() > 0.2 * scale, "ΔE = {de}");
}

/// `½ΩᵀJΩ` just below the top of the range, where `ΣJᵢΩᵢ²` overflows: the body's energy and the
/// relaxed state's are the hand-computed `1.5625·2^top` (J = I, Ω = (1.25·2^((top+1)/2), 0, 0),
/// R = I, Bμ = 0), in f64 and f32.
#[test]
fn rigid_body_energy_does_not_overflow_before_the_energy_does() {
    fn check<T: Real>(top: i32) {
        let body = RigidBody {
            inertia: Vector3::repeat(T::one()),
            b_mu: T::zero(),
        };
        let w = T::lit(1.25 * 2f64.powi((top + 1) / 2));
        assert!(!(w * w).finite());
        let s = BodyState {
            t: T::zero(),
            rotation: Matrix3::identity(),
            omega: Vector3::new(w, T::zero(), T::zero()),
        };
        let want = T::lit(1.5625 * 2f64.powi(top));
        assert_eq!(body.energy(&s), want);
        assert_eq!(body.relaxed_energy(&s.to_relaxed(), T::lit(10.0)), want);
    }
    check::<f64>(1023);
    check::<f32>(127);
}
