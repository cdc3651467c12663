//! The multiplier window, 002 §5 Tables 1–2, the 001 §7 spring chain, 000 Theorem 1.3 and
//! regressions.

use super::*;

/// The window average of a sampled `cos(ωt)`-modulated signal: `g(t) = −(λ₀ + A cos ωt)/ω²`
/// averages to `λ₀` over whole periods while the pointwise value swings by `±A`.
#[test]
fn multiplier_window_averages_out_the_fast_oscillation() {
    let omega = 50.0_f64;
    let lam0 = -0.7;
    let h = 2.0 * std::f64::consts::PI / omega / 20.0; // 20 samples per fast period
    let mut w = MultiplierWindow::<f64, 1, 64>::new(vector![omega * omega], 40).unwrap();
    let mut worst_pt = 0.0_f64;
    for k in 0..200 {
        let t = k as f64 * h;
        let g = -(lam0 + 0.5 * (omega * t).cos()) / (omega * omega);
        w.push(t, vector![g]);
        worst_pt = worst_pt.max((w.pointwise().unwrap()[0] - lam0).abs());
        if let Some(est) = w.estimate() {
            assert!((est[0] - lam0).abs() < 1e-12, "estimate {}", est[0]);
        }
    }
    assert!(worst_pt > 0.4);
    assert!(w.is_full());
    assert_eq!(w.len(), 40);
}

// ---------------------------------------------------------------------------------------------
// 002 §5, Tables 1–2 (the full table is `reproduce reich`)
// ---------------------------------------------------------------------------------------------

/// The "Yoshida" row of Reich's Tables 1–2: |p_y| at T, 2T, 4T with h = 0.04T (0.77e-1, 0.15,
/// 0.31), max |H − H₀| on [0, 4T] with h = 0.04T (0.15e-1) and h = 0.004T (0.86e-6), within 5 %.
#[test]
fn reich_tables_1_2_yoshida_row() {
    let p = Pendulum::<f64>::paper();
    let sys = p.system();
    let period = 7.416298709;
    for (k, paper_py, paper_dh) in [
        (25usize, Some([0.077, 0.15, 0.31]), 0.015),
        (250, None, 0.86e-6),
    ] {
        let h = period / k as f64;
        let mut y4 = Reich4::new(
            sys,
            p.constraint(),
            h,
            Stage::Reich,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let mut s = p.initial_state();
        let e0 = sys.energy(&s);
        let mut dh = 0.0_f64;
        let mut py = vec![];
        for n in 1..=4 * k {
            y4.step(&mut s).unwrap();
            dh = dh.max((sys.energy(&s) - e0).abs());
            if n == k || n == 2 * k || n == 4 * k {
                py.push(s.v[1].abs());
            }
        }
        if let Some(paper) = paper_py {
            for (m, r) in py.iter().zip(paper) {
                assert!((m / r - 1.0).abs() < 0.05, "|p_y| {m} vs paper {r}");
            }
        }
        assert!(
            (dh / paper_dh - 1.0).abs() < 0.05,
            "max dH {dh} vs paper {paper_dh}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The 001 §7 spring chain (N = 12, D = 5)
// ---------------------------------------------------------------------------------------------

/// RATTLE on the spring chain: symplectic on the 14-dimensional solution manifold, and VS gives
/// the same positions with a bounded hidden-constraint residual (001 Fig 2, cheap version of
/// `reproduce vs-vr`).
#[test]
fn spring_chain_rattle_symplectic_and_vs_equals_vr() {
    use macrostep::systems::SpringChain;
    let sc = SpringChain::<f64>::paper();
    let (sys, g, mass) = (sc.system(), sc.constraint(), sc.system().mass);
    let s0 = sc.initial_state();
    // Coordinates up to 4: |d|² carries roundoff ~1e-15, so the tight tolerance is 1e-14 here.
    let tight = ConstraintNewtonParams {
        tol: 1e-14,
        ..ConstraintNewtonParams::default()
    };
    // (manifold_tol stays at its default 2.2e-12 ≥ tol.)
    let mut ra = Rattle::new(sys, g, 0.05, tight).unwrap();
    let proj = Rattle::new(sys, g, 0.05, tight).unwrap();
    let defect = manifold_defect(
        &g,
        &mass,
        &to_x(&s0, &mass),
        |x| {
            let mut s = from_x(x, &mass);
            ra.integrate(&mut s, 10).unwrap();
            to_x(&s, &mass)
        },
        |x| {
            let mut s = from_x(x, &mass);
            proj.project(&mut s).unwrap();
            to_x(&s, &mass)
        },
        1e-5,
    );
    eprintln!("spring chain manifold defect {defect:.3e}");
    assert!(
        defect < 1e-8,
        "spring chain RATTLE manifold defect {defect}"
    );

    let h = 0.01;
    let mut vr = Rattle::new(sys, g, h, ConstraintNewtonParams::default()).unwrap();
    let mut vs = Shake::new(sys, g, h, ConstraintNewtonParams::default()).unwrap();
    let (mut a, mut b) = (s0, s0);
    let (mut dq, mut rr, mut rs) = (0.0_f64, 0.0_f64, 0.0_f64);
    for _ in 0..300 {
        vr.step(&mut a).unwrap();
        vs.step(&mut b).unwrap();
        dq = dq.max((a.q - b.q).amax());
        rr = rr.max((g.jacobian(&a.q) * a.v).amax());
        rs = rs.max((g.jacobian(&b.q) * b.v).amax());
    }
    assert!(dq < 1e-11, "VS vs VR positions {dq}");
    assert!(rr < 1e-12, "VR hidden residual {rr}");
    assert!(rs > 1e-5 && rs < 1e-1, "VS hidden residual {rs}");
}

// ---------------------------------------------------------------------------------------------
// 000 Theorem 1.3: the multiplier recovered from a penalty run (cheap `reproduce multiplier`)
// ---------------------------------------------------------------------------------------------

/// On the double pendulum, the window average of `−ω²g` approaches RATTLE's window-averaged λ as
/// ω grows (ω = 20 → 100), while the pointwise `−ω²g` stays O(1) away.
#[test]
fn recovered_multiplier_converges_in_window_average_only() {
    use host_tests::rigid::multiplier_errors;
    use macrostep::baselines::VelocityVerlet;
    let dp = DoublePendulum::<f64>::paper();
    let (h, w, t_end) = (0.001, 200, 2.0);
    let mut res = vec![];
    for omega in [20.0, 100.0] {
        let mut vv = VelocityVerlet::new(dp.penalised(omega).unwrap(), h).unwrap();
        res.push(multiplier_errors(omega, h, w, t_end, |s| {
            vv.step(s).unwrap()
        }));
    }
    let (w20, p20, _) = res[0];
    let (w100, p100, _) = res[1];
    assert!(w100 < 0.6 * w20, "window error {w20} → {w100}");
    assert!(w100 < 0.1, "window error at ω = 100: {w100}");
    assert!(
        p100 > 0.5 * p20 && p100 > 0.3,
        "pointwise error {p20} → {p100}"
    );
}

/// Regression guard for `reproduce chain`: RATTLE with h = 0.05 on the chain of 20 pendula
/// (004 §5.4.3) cannot solve the position constraint near t = 19.55, when the free end whips at
/// |v| ≈ 11 (h = 0.025 gets through). The failure is a typed error with the state untouched.
#[test]
fn chain_whip_newton_failure_is_typed_and_keeps_the_state() {
    use macrostep::systems::Chain;
    let chain = Chain::<f64, 40, 20>::horizontal();
    let params = ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    };
    let mut ra = Rattle::new(chain.system(), chain.constraint(), 0.05, params).unwrap();
    let mut s = chain.initial_state();
    let err = loop {
        let before = s;
        match ra.step(&mut s) {
            Ok(()) => assert!(s.t < 20.0),
            Err(e) => {
                assert_eq!(s, before);
                break e;
            }
        }
    };
    assert_eq!(err, StepError::NotConverged);
    assert!(s.t > 19.0 && s.t < 20.0, "failed at t = {}", s.t);
    assert!(s.v.amax() > 8.0);
}

#[test]
fn multiplier_window_bookkeeping() {
    let p = Pendulum::<f64>::paper();
    let mut w = MultiplierWindow::<f64, 1, 8>::new(vector![4.0], 3).unwrap();
    assert!(w.is_empty() && w.estimate().is_none() && w.centre_time().is_none());
    w.push(0.0, vector![f64::NAN]); // ignored
    assert!(w.is_empty());
    for k in 0..10 {
        let q = vector![1.0 + 0.01 * k as f64, 0.0]; // g = (1 + 0.01k)² − 1
        w.push_state(&p.constraint(), k as f64, &q);
    }
    // Window holds k = 7, 8, 9: mean of −4 g.
    let want = -4.0
        * (7..10)
            .map(|k| (1.0 + 0.01 * k as f64).powi(2) - 1.0)
            .sum::<f64>()
        / 3.0;
    assert!((w.estimate().unwrap()[0] - want).abs() < 1e-14);
    assert_eq!(w.centre_time(), Some(8.0));
    w.clear();
    assert!(w.is_empty() && w.estimate().is_none());
}

/// Reich's eq 27 equals the generic triple-jump composition (`compose::SymmetricComposition`) of
/// RATTLE steps — an independent implementation of the same coefficients and stage order — up to
/// the Newton tolerance.
#[test]
fn reich4_equals_the_generic_triple_jump_of_rattle() {
    use macrostep::compose::{Scheme, SymmetricComposition};
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let h = 0.05;
    let mut y4 = Reich4::new(
        dp.system(),
        dp.constraint(),
        h,
        Stage::Reich,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let ra = Rattle::new(
        dp.system(),
        dp.constraint(),
        h,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut tj = SymmetricComposition::new(ra, Scheme::TripleJump).unwrap();
    let (mut a, mut b) = (s0, s0);
    run(&mut y4, &mut a, 100);
    run(&mut tj, &mut b, 100);
    let d = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(d < 1e-10, "Reich4 vs triple-jump RATTLE: {d}");
}
