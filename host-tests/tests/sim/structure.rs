//! Structure and order: symplecticity, conformal symplecticity, reversibility, the impulse method,
//! the mollified kick (eq 4.8), orders 1, 2, 4, f32 against f64, GLA (eq 6.3).

use super::*;

/// Central-difference step for the symplecticity defect: balances truncation (∝ eps²) and
/// roundoff (∝ ε/eps · |DΦ|², with |DΦ| ≈ ω ≈ 50 here).
const EPS_FD: f64 = 1e-5;

#[test]
fn symplectic_when_no_friction_or_noise() {
    let m = full_mass();
    let sys = SimSystem::new(m, stiff_k(), Soft);
    let fast = FastParams::default();
    let s0 = soft_system_states();
    let h = 0.05;
    let d1 = integrator_defect(&mut Sim1::new(sys, h, fast).unwrap(), &m, &s0, 5, EPS_FD);
    let d1b = integrator_defect(
        &mut Sim1::new(sys, h, fast)
            .unwrap()
            .with_order(Sim1Order::KickThenFlow),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    let d2 = integrator_defect(&mut Sim2::new(sys, h, fast).unwrap(), &m, &s0, 5, EPS_FD);
    let d4 = integrator_defect(&mut Sim4::new(sys, h, fast).unwrap(), &m, &s0, 5, EPS_FD);
    for (name, d) in [("sim1", d1), ("sim1-dual", d1b), ("sim2", d2), ("sim4", d4)] {
        assert!(d <= 1e-9, "{name}: symplecticity defect {d:e}");
    }
    // The measurement can fail: a damped step is not symplectic.
    let damped = FastParams {
        friction: Friction::Scalar(0.5),
        ..fast
    };
    let dd = integrator_defect(&mut Sim1::new(sys, h, damped).unwrap(), &m, &s0, 5, EPS_FD);
    assert!(dd > 1e-3, "friction must show a defect, got {dd:e}");
}

#[test]
fn mollified_kick_is_not_symplectic_in_q_mv_for_distinct_frequencies() {
    // The eq 4.8 kick `v += M⁻¹ W F(q)` with a mode-dependent filter W is symplectic in (q, Mv)
    // only when W·Hess V is symmetric (scalar systems, equal frequencies). Documented, measured.
    let m = Mass::identity();
    let sys = SimSystem::new(m, stiff_k(), Soft);
    let fast = FastParams::default();
    let s0 = soft_system_states();
    let d = integrator_defect(
        &mut Sim1::new(sys, 0.05, fast).unwrap().mollified(true),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    assert!(d > 1e-4, "{d:e}");
    let iso = SimSystem::new(m, Matrix3::identity() * 900.0, Soft);
    let d = integrator_defect(
        &mut Sim1::new(iso, 0.05, fast).unwrap().mollified(true),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    assert!(d < 1e-9, "equal frequencies: {d:e}");
}

#[test]
fn conformally_symplectic_with_scalar_friction() {
    let m = full_mass();
    let c = 0.8_f64;
    let h = 0.05;
    let sys = SimSystem::new(m, stiff_k(), Soft);
    let fast = FastParams {
        friction: Friction::Scalar(c),
        ..FastParams::default()
    };
    let s0 = soft_system_states();
    let x0 = to_phase(&s0, &m);
    let expected = (-c * 3.0 * h).exp();
    let mut sim1 = Sim1::new(sys, h, fast).unwrap();
    let mut sim2 = Sim2::new(sys, h, fast).unwrap();
    let mut sim4 = Sim4::new(sys, h, fast).unwrap();
    let det = |step: &mut dyn FnMut(&mut State<f64, 3>)| {
        jacobian_determinant(
            |x| {
                let mut s = from_phase(x, &m, 0.0);
                step(&mut s);
                to_phase(&s, &m)
            },
            &x0,
            1e-6,
        )
    };
    let d1 = det(&mut |s| sim1.step(s).unwrap());
    let d2 = det(&mut |s| sim2.step(s).unwrap());
    let d4 = det(&mut |s| sim4.step(s).unwrap());
    for (name, d) in [("sim1", d1), ("sim2", d2), ("sim4", d4)] {
        assert!(
            (d - expected).abs() < 1e-9,
            "{name}: det {d} vs e^(-cdH) = {expected}"
        );
    }
}

#[test]
fn sim2_and_sim4_reversible() {
    let m = full_mass();
    let sys = SimSystem::new(m, stiff_k(), Soft);
    let fast = FastParams::default();
    let s0 = soft_system_states();
    let e2 = reversibility_error(&mut Sim2::new(sys, 0.05, fast).unwrap(), &s0, 50);
    let e4 = reversibility_error(&mut Sim4::new(sys, 0.05, fast).unwrap(), &s0, 50);
    assert!(e2 < 1e-11 && e4 < 1e-11, "sim2 {e2:e}, sim4 {e4:e}");
    // SIM1 is not symmetric: the measurement sees it.
    let e1 = reversibility_error(&mut Sim1::new(sys, 0.05, fast).unwrap(), &s0, 50);
    assert!(e1 > 1e-4, "sim1 must not be reversible, got {e1:e}");
}

#[test]
fn sim2_without_friction_is_the_impulse_method() {
    // r-RESPA written out independently: half kick, exact harmonic flow (M = I, diagonal K), half kick.
    let omega = vector![40.0, 70.0, 0.0];
    let k = SMatrix::from_diagonal(&omega.component_mul(&omega));
    let h = 0.03;
    let mut sim = Sim2::new(
        SimSystem::new(Mass::identity(), k, Soft),
        h,
        FastParams::default(),
    )
    .unwrap();
    let mut s = soft_system_states();
    let mut r = s;
    for _ in 0..30 {
        sim.step(&mut s).unwrap();
        let v = r.v - Potential::<f64, 3>::gradient(&Soft, &r.q) * (h / 2.0);
        let mut q = r.q;
        let mut v2 = v;
        for i in 0..3 {
            let w: f64 = omega[i];
            let (sn, cs) = (w * h).sin_cos();
            let sinc = if w == 0.0 { h } else { sn / w };
            q[i] = r.q[i] * cs + v[i] * sinc;
            v2[i] = -r.q[i] * w * sn + v[i] * cs;
        }
        r = State::new(
            r.t + h,
            q,
            v2 - Potential::<f64, 3>::gradient(&Soft, &q) * (h / 2.0),
        );
    }
    assert!((s.q - r.q).amax() < 1e-12 && (s.v - r.v).amax() < 1e-10);
}

#[test]
fn mollified_kick_is_eq_4_8() {
    // Scalar oscillator ω with soft V: v⁺ = flow v − (sin ωH/ω) V'(q⁺).
    let w: f64 = 30.0;
    let h = 0.07;
    let k = matrix![w * w];
    #[derive(Clone, Copy)]
    struct Cubic;
    impl Potential<f64, 1> for Cubic {
        fn energy(&self, q: &SVector<f64, 1>) -> f64 {
            q[0].powi(4) / 4.0
        }
        fn gradient(&self, q: &SVector<f64, 1>) -> SVector<f64, 1> {
            vector![q[0].powi(3)]
        }
    }
    let mut sim = Sim1::new(
        SimSystem::new(Mass::identity(), k, Cubic),
        h,
        FastParams::default(),
    )
    .unwrap()
    .mollified(true);
    let mut s = State::new(0.0, vector![0.8], vector![-0.4]);
    let (sn, cs) = (w * h).sin_cos();
    let q1 = cs * 0.8 + sn / w * -0.4;
    let v1 = -w * sn * 0.8 + cs * -0.4 - sn / w * q1.powi(3);
    sim.step(&mut s).unwrap();
    assert!((s.q[0] - q1).abs() < 1e-14 && (s.v[0] - v1).abs() < 1e-12);
}

#[test]
fn orders_1_2_4_when_h_resolves_omega() {
    // Regime H ≪ 1/ω: ω = 5 (K = 25 I), soft potential; error at T = 1 vs a SIM4 run at H/64.
    let k = Matrix3::identity() * 25.0;
    let fast = FastParams::default();
    let m = Mass::identity();
    let sys = SimSystem::new(m, k, Soft);
    let s0 = soft_system_states();
    let t_end = 1.0;
    let reference = {
        let mut r = Sim4::new(sys, 1.0 / 2048.0, fast).unwrap();
        let mut s = s0;
        r.integrate(&mut s, 2048).unwrap();
        s
    };
    let hs = [1.0 / 16.0, 1.0 / 32.0, 1.0 / 64.0];
    let run = |which: u32, h: f64| -> f64 {
        let n = (t_end / h).round() as usize;
        let mut s = s0;
        match which {
            1 => Sim1::new(sys, h, fast)
                .unwrap()
                .integrate(&mut s, n)
                .unwrap(),
            2 => Sim2::new(sys, h, fast)
                .unwrap()
                .integrate(&mut s, n)
                .unwrap(),
            _ => Sim4::new(sys, h, fast)
                .unwrap()
                .integrate(&mut s, n)
                .unwrap(),
        }
        (s.q - reference.q).amax()
    };
    for (which, order) in [(1, 1.0), (2, 2.0), (4, 4.0)] {
        let errs: Vec<f64> = hs.iter().map(|&h| run(which, h)).collect();
        let slope = loglog_slope(&hs, &errs);
        assert!(
            (slope - order).abs() < 0.25,
            "SIM{which}: slope {slope} (errors {errs:?})"
        );
    }
}

#[test]
fn f32_sim2_tracks_f64() {
    let k = Matrix3::identity() * 2500.0;
    let h = 0.02;
    let sys64 = SimSystem::new(Mass::<f64, 3>::identity(), k, Soft);
    let sys32 = SimSystem::new(Mass::<f32, 3>::identity(), k.map(|x| x as f32), Soft);
    let mut a = Sim2::new(sys64, h, FastParams::default()).unwrap();
    let mut b = Sim2::new(sys32, h as f32, FastParams::default()).unwrap();
    let s0 = soft_system_states();
    let (mut x, mut y) = (s0, s0.cast::<f32>());
    a.integrate(&mut x, 200).unwrap();
    b.integrate(&mut y, 200).unwrap();
    let d = (x.q - y.q.map(|v| v as f64)).amax();
    // f32 roundoff amplified over 200 steps of an O(1)-Lyapunov soft flow.
    assert!(d < 1e-4, "{d:e}");
}

// ---------------------------------------------------------------- GLA (004 eq 6.3)

#[test]
fn gla_is_conformally_symplectic_and_matches_eq_6_3() {
    use macrostep::langevin::{Gla, GlaParams, Ou};
    use macrostep::model::System;
    use macrostep::StochasticIntegrator;
    let m = full_mass();
    let (c, beta, h) = (0.7, 4.0, 0.01);
    let params = GlaParams {
        friction: c,
        inverse_temperature: beta,
    };
    let mut gla = Gla::new(System::new(m, Soft), h, params).unwrap();
    let xi = vector![0.3, -1.1, 0.4];
    let s0 = soft_system_states();
    let x0 = to_phase(&s0, &m);
    let det = jacobian_determinant(
        |x| {
            let mut s = from_phase(x, &m, 0.0);
            gla.step_with_noise(&mut s, &xi).unwrap();
            to_phase(&s, &m)
        },
        &x0,
        1e-6,
    );
    assert!((det - (-c * 3.0 * h).exp()).abs() < 1e-9, "det {det}");
    // Identity mass: eq 6.3 written out.
    let mut g1 = Gla::new(System::new(Mass::identity(), Soft), h, params).unwrap();
    let mut s = s0;
    g1.step_with_noise(&mut s, &xi).unwrap();
    let ou = Ou::<f64>::thermal(c, beta, 1.0, h).unwrap();
    let ph = s0.v.map(|p| p * ou.decay()) + xi * ou.std_dev();
    let q = s0.q + ph * h;
    let p = ph - Potential::<f64, 3>::gradient(&Soft, &q) * h;
    assert!((s.q - q).amax() < 1e-15 && (s.v - p).amax() < 1e-15);
}

// ---------------------------------------------------------------- f32 and f64

fn exact_with_v_zero<T: Real + host_tests::Tolerance>() {
    // Stiff oscillator ω = 200 with friction 0.5, no slow force: SIM1/SIM2/SIM4 are the exact
    // damped flow (closed form written here) at H = 0.05 (ωH = 10).
    let (w, c, h) = (200.0f64, 0.5f64, 0.05f64);
    let sys = SimSystem::new(Mass::identity(), matrix![T::lit(w * w)], Zero);
    let fast = FastParams::<T, 1> {
        friction: Friction::Scalar(T::lit(c)),
        noise: Noise::Scalar(T::zero()),
    };
    let s0 = State::<T, 1>::new(T::zero(), vector![T::lit(0.3)], vector![T::lit(-2.0)]);
    let n = 20;
    let t = n as f64 * h;
    let wd = (w * w - c * c / 4.0).sqrt();
    let (q0, v0) = (0.3, -2.0);
    let e = (-c * t / 2.0).exp();
    let q = e * (q0 * (wd * t).cos() + (v0 + c / 2.0 * q0) / wd * (wd * t).sin());
    let mut a = s0;
    Sim1::new(sys, T::lit(h), fast)
        .unwrap()
        .integrate(&mut a, n)
        .unwrap();
    let mut b = s0;
    Sim2::new(sys, T::lit(h), fast)
        .unwrap()
        .integrate(&mut b, n)
        .unwrap();
    let mut d = s0;
    Sim4::new(sys, T::lit(h), fast)
        .unwrap()
        .integrate(&mut d, n)
        .unwrap();
    // f64: 1e-12 (the fast flow is exact). f32: the phase ωt = 200 carries ~ωt·ε relative error.
    let tol = if T::EPS > 1e-10 { 2e-4 } else { 1e-12 };
    for (name, s) in [("sim1", a), ("sim2", b), ("sim4", d)] {
        let err = (s.q[0].to_f64() - q).abs();
        assert!(err < tol, "{name}: {err:e}");
    }
}
host_tests::for_scalars!(exact_with_v_zero);
