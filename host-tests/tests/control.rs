//! The control layer ([`macrostep::control`]): LQR by the doubling iteration against an
//! independent plain Riccati iteration, the EKF against the truth, and every error path
//! (non-finite or non-PSD weights and covariances, an uncontrollable pair, a Riccati
//! iteration that does not converge within its cap), nothing changed on `Err`.
//!
//! Tolerances: gains `≤ 1e-9` relative between the two Riccati routes (both converge to
//! roundoff; the plain iteration stops at a `1e-15` relative change); the EKF's position error
//! below a fifth of the measurement noise after 10 s (the filter averages ~10³ measurements).

use macrostep::baselines::VelocityVerlet;
use macrostep::control::{lqr, ControlError, Ekf, RiccatiParams};
use macrostep::langevin::Normal;
use macrostep::nalgebra::{matrix, vector, Matrix1, Matrix2, SMatrix};
use macrostep::systems::HarmonicOscillator;
use macrostep::{ConfigError, Guards, Integrator, State, StepError, Stepper};
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn double_integrator(h: f64) -> (Matrix2<f64>, SMatrix<f64, 2, 1>) {
    (matrix![1.0, h; 0.0, 1.0], matrix![0.5 * h * h; h])
}

/// The textbook route: `P ← Q + AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA` to a fixed point.
fn plain_riccati(a: &Matrix2<f64>, b: &SMatrix<f64, 2, 1>, q: &Matrix2<f64>, r: f64) -> [f64; 2] {
    let mut p = *q;
    for _ in 0..1_000_000 {
        let pb = p * b;
        let k = (b.transpose() * p * a) / (r + (b.transpose() * pb)[(0, 0)]);
        let p1 = q + a.transpose() * p * a - a.transpose() * pb * k;
        let done = (p1 - p).amax() <= 1e-15 * p1.amax();
        p = (p1 + p1.transpose()) * 0.5;
        if done {
            break;
        }
    }
    let k = (b.transpose() * p * a) / (r + (b.transpose() * p * b)[(0, 0)]);
    [k[0], k[1]]
}

#[test]
fn lqr_matches_the_plain_riccati_iteration() {
    for h in [0.1, 0.01] {
        let (a, b) = double_integrator(h);
        let q = matrix![2.0, 0.3; 0.3, 1.0];
        let r = 0.5;
        let got = lqr(&a, &b, &q, &Matrix1::new(r), &RiccatiParams::default()).unwrap();
        let want = plain_riccati(&a, &b, &q, r);
        for (k, w) in got.k.iter().zip(want) {
            assert!((k - w).abs() <= 1e-9 * w.abs(), "h {h}: {k} vs {w}");
        }
        assert!(got.iterations <= 20, "{}", got.iterations);
        // The Riccati residual of the returned P.
        let p = got.p;
        let pb = p * b;
        let res = q + a.transpose() * p * a
            - a.transpose() * pb * (b.transpose() * p * a) / (r + (b.transpose() * pb)[(0, 0)])
            - p;
        assert!(res.amax() <= 1e-10 * p.amax(), "{res}");
    }
}

#[test]
fn lqr_runs_in_f32() {
    let (a, b) = double_integrator(0.01);
    let k64 = lqr(
        &a,
        &b,
        &Matrix2::identity(),
        &Matrix1::new(1.0),
        &RiccatiParams::default(),
    )
    .unwrap()
    .k;
    let k32 = lqr(
        &a.cast::<f32>(),
        &b.cast::<f32>(),
        &Matrix2::identity(),
        &Matrix1::new(1.0f32),
        &RiccatiParams::default(),
    )
    .unwrap()
    .k;
    assert!(
        (k32.cast::<f64>() - k64).amax() <= 1e-3 * k64.amax(),
        "{k32} vs {k64}"
    );
}

#[test]
fn lqr_rejects_bad_input_with_typed_errors() {
    let (a, b) = double_integrator(0.1);
    let (q, r) = (Matrix2::<f64>::identity(), Matrix1::new(1.0));
    let p = RiccatiParams::default();
    let mut bad_a = a;
    bad_a[(0, 1)] = f64::NAN;
    assert_eq!(
        lqr(&bad_a, &b, &q, &r, &p),
        Err(ControlError::NonFinite { name: "A" })
    );
    assert_eq!(
        lqr(&a, &(b * f64::INFINITY), &q, &r, &p),
        Err(ControlError::NonFinite { name: "B" })
    );
    let nan_q = matrix![1.0, f64::NAN; f64::NAN, 1.0];
    assert_eq!(
        lqr(&a, &b, &nan_q, &r, &p),
        Err(ControlError::NonFinite { name: "Q" })
    );
    let indefinite = matrix![1.0, 0.0; 0.0, -1e-3];
    assert_eq!(
        lqr(&a, &b, &indefinite, &r, &p),
        Err(ControlError::NotPsd { name: "Q" })
    );
    let skew = matrix![1.0, 0.5; 0.0, 1.0];
    assert_eq!(
        lqr(&a, &b, &skew, &r, &p),
        Err(ControlError::NotSymmetric { name: "Q" })
    );
    for bad_r in [0.0, -1.0] {
        assert_eq!(
            lqr(&a, &b, &q, &Matrix1::new(bad_r), &p),
            Err(ControlError::NotPositiveDefinite { name: "R" })
        );
    }
    assert_eq!(
        lqr(&a, &b, &q, &Matrix1::new(f64::NAN), &p),
        Err(ControlError::NonFinite { name: "R" })
    );
    // A positive semidefinite Q is accepted (here it weighs the position only).
    assert!(lqr(&a, &b, &matrix![1.0, 0.0; 0.0, 0.0], &r, &p).is_ok());
    let bad = RiccatiParams { max_iter: 0, ..p };
    assert_eq!(
        lqr(&a, &b, &q, &r, &bad),
        Err(ControlError::Config(ConfigError::OutOfRange {
            name: "max_iter",
            bound: ">= 1"
        }))
    );
}

#[test]
fn uncontrollable_and_unconverged_pairs_are_typed_errors() {
    let p = RiccatiParams::default();
    let (q, r) = (Matrix2::<f64>::identity(), Matrix1::new(1.0));
    let b = matrix![0.0; 1.0];
    // An unstable mode the input cannot reach: the cost-to-go overflows.
    let unstable = matrix![1.1, 0.0; 0.0, 0.5];
    assert_eq!(
        lqr(&unstable, &b, &q, &r, &p),
        Err(ControlError::Unstabilizable)
    );
    // A marginal mode the input cannot reach: the cost grows with the horizon, never converging.
    let marginal = matrix![1.0, 0.0; 0.0, 0.5];
    assert_eq!(
        lqr(&marginal, &b, &q, &r, &p),
        Err(ControlError::NotConverged)
    );
    // An unstable mode Q does not see: the converged P leaves it unstable.
    let unseen = matrix![1.1, 0.0; 0.0, 0.5];
    let q0 = matrix![0.0, 0.0; 0.0, 1.0];
    assert_eq!(
        lqr(&unseen, &b, &q0, &r, &p),
        Err(ControlError::Unstabilizable)
    );
    // A slow controllable plant with too small a cap.
    let (a, b) = double_integrator(1e-3);
    let capped = RiccatiParams { max_iter: 3, ..p };
    assert_eq!(
        lqr(&a, &b, &q, &r, &capped),
        Err(ControlError::NotConverged)
    );
    assert!(lqr(&a, &b, &q, &r, &p).is_ok());
}

fn oscillator_filter(r: f64) -> Ekf<f64, 1, 2, 1> {
    Ekf::new(
        State::at_rest(vector![0.0]),
        Matrix2::identity(),
        Matrix2::identity() * 1e-10,
        Matrix1::new(r),
        matrix![1.0, 0.0],
    )
    .unwrap()
}

#[test]
fn ekf_tracks_an_oscillator_from_noisy_positions() {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(2.0).unwrap();
    let h = 0.01;
    let mut model = VelocityVerlet::new(osc.system(), h).unwrap();
    model.set_guards(Guards::off()).unwrap();
    let sigma = 0.05;
    let mut ekf = oscillator_filter(sigma * sigma);
    let mut rng = Pcg64::seed_from_u64(7);
    let mut truth = State::new(0.0, vector![1.0], vector![0.5]);
    let mut plant = VelocityVerlet::new(osc.system(), h).unwrap();
    for _ in 0..1000 {
        plant.step(&mut truth).unwrap();
        ekf.predict(&mut model).unwrap();
        let y = truth.q[0] + sigma * Normal::sample::<f64, _>(&mut rng);
        ekf.update(&vector![y]).unwrap();
    }
    let err = (ekf.state().q[0] - truth.q[0]).abs();
    assert!(err < sigma / 5.0, "position error {err} vs noise {sigma}");
    assert!((ekf.state().v[0] - truth.v[0]).abs() < sigma, "velocity");
    // The covariance stays symmetric positive definite (Joseph form).
    let p = ekf.covariance();
    assert_eq!(*p, p.transpose());
    assert!(p[(0, 0)] > 0.0 && p.determinant() > 0.0);
}

#[test]
fn ekf_rejects_bad_input_and_changes_nothing_on_err() {
    let x = State::at_rest(vector![0.0]);
    let (p, h) = (Matrix2::identity(), matrix![1.0, 0.0]);
    let q_bad = matrix![1.0, 0.0; 0.0, -1.0];
    let new = |p, q, r, h| Ekf::<f64, 1, 2, 1>::new(x, p, q, Matrix1::new(r), h).err();
    assert_eq!(
        new(p, q_bad, 1.0, h),
        Some(ControlError::NotPsd { name: "Q" })
    );
    assert_eq!(
        new(q_bad, p, 1.0, h),
        Some(ControlError::NotPsd { name: "P" })
    );
    assert_eq!(
        new(p, p, 0.0, h),
        Some(ControlError::NotPositiveDefinite { name: "R" })
    );
    assert_eq!(
        new(p, p, f64::NAN, h),
        Some(ControlError::NonFinite { name: "R" })
    );
    let nan_h = matrix![f64::NAN, 0.0];
    assert_eq!(
        new(p, p, 1.0, nan_h),
        Some(ControlError::NonFinite { name: "H" })
    );
    let mut nan_x = x;
    nan_x.v[0] = f64::INFINITY;
    assert_eq!(
        Ekf::<f64, 1, 2, 1>::new(nan_x, p, p, Matrix1::new(1.0), h).err(),
        Some(ControlError::NonFinite { name: "x" })
    );

    let mut ekf = oscillator_filter(1.0);
    let before = (*ekf.state(), *ekf.covariance());
    assert_eq!(
        ekf.update(&vector![f64::NAN]),
        Err(ControlError::NonFinite { name: "y" })
    );
    assert_eq!((*ekf.state(), *ekf.covariance()), before);
    // A model whose step fails: h = 0 is refused at construction, so use a step that overflows.
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1e100).unwrap();
    let mut model = VelocityVerlet::new(osc.system(), 1e100).unwrap();
    model.set_guards(Guards::off()).unwrap();
    let mut far =
        Ekf::<f64, 1, 2, 1>::new(State::at_rest(vector![1e200]), p, p, Matrix1::new(1.0), h)
            .unwrap();
    let before = (*far.state(), *far.covariance());
    assert_eq!(
        far.predict(&mut model),
        Err(ControlError::Step(StepError::NonFiniteResult))
    );
    assert_eq!((*far.state(), *far.covariance()), before);
}

/// The device's gain (`macrostep_scenarios::lqr_gain`: Z&S on the frozen-mass cart-pole with
/// closed-form derivatives of `V = m_p g L cos θ`) against the host experiment's gain from the
/// same model built on the crate's AD (`reproduce linearise`, method `zs`), in f64: the two
/// evaluate the same derivatives (at the upright, `sin 0 = 0` and `cos 0 = 1` are exact), so the
/// gains agree to roundoff, `≤ 1e-12` relative.
#[test]
fn device_gain_matches_the_ad_built_models_gain() {
    use host_tests::experiments::linearise::cart;
    use macrostep_scenarios::{lqr_gain, LqrWeights, CART_POLE_H};
    let device = lqr_gain(CART_POLE_H, &LqrWeights::cart_pole()).expect("device gain");
    let host = cart::gains(CART_POLE_H)[0].clone().expect("host zs gain");
    let scale = host.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (d, h) in device.iter().zip(&host) {
        assert!((d - h).abs() <= 1e-12 * scale, "{device:?} vs {host:?}");
    }
}

/// The error paths on the device path, in f32 (the firmware's scalar): the start-up gain computation and
/// the EKF loop's set-up return typed errors for bad weights and covariances, never panic, and
/// leave the loop's slot untouched.
#[test]
fn device_setup_rejects_bad_input_with_typed_errors_in_f32() {
    use macrostep_scenarios::{lqr_gain, mechanism, EkfCartPole, LqrWeights, ScenarioError};
    let h = 1e-3f32;
    let good = LqrWeights::<f32>::cart_pole();
    assert!(lqr_gain(h, &good).is_ok());
    let control = |w: &LqrWeights<f32>| match lqr_gain(h, w) {
        Err(ScenarioError::Control(e)) => e,
        other => panic!("expected a control error, got {other:?}"),
    };
    let mut indefinite = good;
    indefinite.q[1][1] = -1.0;
    assert_eq!(control(&indefinite), ControlError::NotPsd { name: "Q" });
    let mut skew = good;
    skew.q[0][1] = 1.0;
    assert_eq!(control(&skew), ControlError::NotSymmetric { name: "Q" });
    let mut nan_q = good;
    nan_q.q[2][2] = f32::NAN;
    assert_eq!(control(&nan_q), ControlError::NonFinite { name: "Q" });
    for r in [0.0, -0.1] {
        assert_eq!(
            control(&LqrWeights { r, ..good }),
            ControlError::NotPositiveDefinite { name: "R" }
        );
    }
    assert_eq!(
        control(&LqrWeights {
            r: f32::INFINITY,
            ..good
        }),
        ControlError::NonFinite { name: "R" }
    );
    // A bad step size is the linearisation's configuration error.
    assert!(matches!(
        lqr_gain(0.0f32, &good),
        Err(ScenarioError::Config(_))
    ));

    // The loop's filter: σ = 0 makes R singular; the slot stays empty.
    let mech = mechanism::<f32>().expect("mechanism");
    let gain = lqr_gain(h, &good).expect("gain");
    let mut slot = None;
    assert_eq!(
        EkfCartPole::build_into(&mut slot, &mech, gain, 0.0, 1),
        Err(ScenarioError::Control(ControlError::NotPositiveDefinite {
            name: "R"
        }))
    );
    assert!(slot.is_none());
    assert_eq!(
        EkfCartPole::build_into(&mut slot, &mech, gain, f32::NAN, 1),
        Err(ScenarioError::Control(ControlError::NonFinite {
            name: "R"
        }))
    );
    assert!(slot.is_none());
    assert!(EkfCartPole::build_into(&mut slot, &mech, gain, 0.01, 1).is_ok());
    assert!(slot.is_some());
}

/// The uncontrollable and unconverged cases in f32, the device's precision: an unstable mode the
/// input cannot reach, a marginal one (its cost grows without bound), and a controllable plant
/// with too small an iteration cap, each a typed error.
#[test]
fn uncontrollable_and_unconverged_pairs_are_typed_errors_in_f32() {
    let p = RiccatiParams::<f32>::default();
    let (q, r) = (Matrix2::<f32>::identity(), Matrix1::new(1.0f32));
    let b = matrix![0.0f32; 1.0];
    let unstable = matrix![1.1f32, 0.0; 0.0, 0.5];
    assert_eq!(
        lqr(&unstable, &b, &q, &r, &p),
        Err(ControlError::Unstabilizable)
    );
    let marginal = matrix![1.0f32, 0.0; 0.0, 0.5];
    assert_eq!(
        lqr(&marginal, &b, &q, &r, &p),
        Err(ControlError::NotConverged)
    );
    let h = 1e-3f32;
    let a = matrix![1.0f32, h; 0.0, 1.0];
    let bi = matrix![0.5 * h * h; h];
    let capped = RiccatiParams { max_iter: 3, ..p };
    assert_eq!(
        lqr(&a, &bi, &q, &r, &capped),
        Err(ControlError::NotConverged)
    );
    assert!(lqr(&a, &bi, &q, &r, &p).is_ok());
}

/// The scenarios' `f32` sine/cosine kernel against `f64`: within 2 ulp of the rounded value over
/// the angles a cart-pole sees (`|x| ≤ 0.78`, no reduction); after the reduction (up to 8192)
/// within `2 ε` absolute — the reduced argument carries the rounding of `k·P₂`, so near a zero
/// of `sin` or `cos` the error in ulp of the (tiny) result is large, as for any `f32` reduction
/// of this kind. `f64` is `libm`'s own `sin`/`cos`, bit for bit.
#[test]
fn f32_sin_cos_kernel_accuracy() {
    use macrostep_scenarios::sin_cos;
    let ulps = |got: f32, want: f64| {
        let w = want as f32;
        // ulp of the rounded value (at least the smallest normal's, near a zero of sin/cos)
        let ulp = (f32::from_bits(w.abs().max(f32::MIN_POSITIVE).to_bits() + 1) - w.abs()) as f64;
        (f64::from(got) - want).abs() / ulp
    };
    let (mut small, mut reduced) = (0.0f64, 0.0f64);
    for i in -200_000..=200_000 {
        let x = i as f32 * 0.78 / 200_000.0;
        let (s, c) = sin_cos(x);
        let xd = f64::from(x);
        small = small.max(ulps(s, xd.sin())).max(ulps(c, xd.cos()));
        let x = i as f32 * 0.040_96;
        let (s, c) = sin_cos(x);
        let xd = f64::from(x);
        let e = (f64::from(s) - xd.sin())
            .abs()
            .max((f64::from(c) - xd.cos()).abs());
        reduced = reduced.max(e);
    }
    println!("sin_cos f32: worst {small:.3} ulp below 0.78, {reduced:.3e} absolute up to 8192");
    assert!(small <= 2.0, "{small} ulp");
    assert!(reduced <= 2.0 * f64::from(f32::EPSILON), "{reduced}");
    for x in [0.3f64, -2.0, 100.0, 1e5] {
        assert_eq!(sin_cos(x), (x.sin(), x.cos()));
    }
    assert_eq!(sin_cos(0.0f32), (0.0, 1.0));
    let (s, c) = sin_cos(f32::NAN);
    assert!(s.is_nan() && c.is_nan());
}

/// The Joseph update of `P`, `x` computed the textbook way (`K = P Hᵀ (H P Hᵀ + R)⁻¹`, full
/// products): the independent reference for [`Ekf::update`].
fn reference_update(
    p: &SMatrix<f64, 4, 4>,
    x: &SMatrix<f64, 4, 1>,
    h: &SMatrix<f64, 2, 4>,
    r: &SMatrix<f64, 2, 2>,
    y: &SMatrix<f64, 2, 1>,
) -> (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 1>) {
    let k = p * h.transpose() * (h * p * h.transpose() + r).try_inverse().unwrap();
    let l = SMatrix::<f64, 4, 4>::identity() - k * h;
    (
        l * p * l.transpose() + k * r * k.transpose(),
        x + k * (y - h * x),
    )
}

/// The update, sequential (diagonal `R`) and joint (correlated `R`), against the textbook
/// Joseph update, with a dense `H` and a selection `H`: equal to `1e-12` relative.
#[test]
fn ekf_update_matches_the_textbook_joseph_update() {
    let l = SMatrix::<f64, 4, 4>::from_fn(|i, j| ((i * 7 + j * 3) % 5) as f64 * 0.3 - 0.5);
    let p = l * l.transpose() + SMatrix::identity() * 0.2;
    let x0 = State::new(0.0, vector![0.3, -0.2], vector![1.1, 0.4]);
    let xv = SMatrix::<f64, 4, 1>::new(0.3, -0.2, 1.1, 0.4);
    let y = vector![0.5, -0.7];
    let dense = matrix![1.0, 0.5, -0.2, 0.0; 0.3, -1.0, 0.0, 0.7];
    let select = matrix![1.0, 0.0, 0.0, 0.0; 0.0, 1.0, 0.0, 0.0];
    let diag = matrix![0.04, 0.0; 0.0, 0.09];
    let corr = matrix![0.04, 0.01; 0.01, 0.09];
    for (h, r) in [(dense, diag), (select, diag), (dense, corr), (select, corr)] {
        let mut ekf = Ekf::<f64, 2, 4, 2>::new(x0, p, p * 0.1, r, h).unwrap();
        let nu = ekf.update(&y).unwrap();
        assert_eq!(nu, y - h * xv, "the innovation is the prior one");
        let (pr, xr) = reference_update(&p, &xv, &h, &r, &y);
        let got = ekf.covariance();
        assert_eq!(*got, got.transpose());
        assert!((got - pr).amax() <= 1e-12 * pr.amax(), "P {got} vs {pr}");
        let xs = ekf.vector();
        assert!((xs - xr).amax() <= 1e-12 * xr.amax(), "x {xs} vs {xr}");
    }
}

/// `linearise_state_into` gives `linearise`'s state blocks bit for bit (Z&S skips the input
/// sensitivities; the default path zeroes them) and leaves its output alone on `Err`.
#[test]
fn state_linearisation_is_the_full_ones_state_blocks() {
    use macrostep::linearise::{Linearise, StepJacobian};
    use macrostep::zs::{ZhangSkeel, ZsParams};
    use macrostep_scenarios::frozen_model;
    let zs = ZhangSkeel::new(frozen_model::<f64>().unwrap(), 1e-2, ZsParams::default()).unwrap();
    let osc = HarmonicOscillator::<f64, 1>::isotropic(2.0).unwrap();
    let vv = VelocityVerlet::new(osc.system(), 0.01).unwrap();
    let s = State::new(0.0, vector![0.1, 0.4], vector![-0.3, 1.2]);
    let full = zs.linearise(&s).unwrap();
    let mut j = StepJacobian::zeros();
    j.bq[(0, 0)] = 7.0;
    zs.linearise_state_into(&s, &mut j).unwrap();
    assert_eq!(
        (j.qq, j.qv, j.vq, j.vv),
        (full.qq, full.qv, full.vq, full.vv)
    );
    assert_eq!((j.bq, j.bv), (SMatrix::zeros(), SMatrix::zeros()));
    let mut k = StepJacobian::zeros();
    zs.linearise_into(&s, &mut k).unwrap();
    assert_eq!(k, full);
    let s1 = State::new(0.0, vector![0.5], vector![0.1]);
    let mut j1 = StepJacobian::zeros();
    vv.linearise_state_into(&s1, &mut j1).unwrap();
    let f1 = vv.linearise(&s1).unwrap();
    assert_eq!((j1.qq, j1.vv, j1.bv), (f1.qq, f1.vv, SMatrix::zeros()));
    let bad = State::new(0.0, vector![f64::NAN, 0.0], vector![0.0, 0.0]);
    let before = j;
    assert_eq!(
        zs.linearise_state_into(&bad, &mut j),
        Err(StepError::NonFiniteState)
    );
    assert_eq!(j, before);
}
