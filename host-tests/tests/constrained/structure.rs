//! Symplecticity on the constraint manifold, energy without drift, reversibility, SHAKE = RATTLE
//! positions, and the f32/f64 checks.

use super::*;

fn tight() -> ConstraintNewtonParams<f64> {
    ConstraintNewtonParams {
        tol: 1e-15,
        ..ConstraintNewtonParams::default()
    }
}

#[test]
fn rattle_is_symplectic_on_the_manifold() {
    let dp = DoublePendulum::<f64>::paper();
    let mass = dp.system().mass;
    let g = dp.constraint();
    let s0 = moving_double_pendulum();
    let mut ra = Rattle::new(dp.system(), g, 0.1, tight()).unwrap();
    let proj = Rattle::new(dp.system(), g, 0.1, tight()).unwrap();
    let x0 = to_x(&s0, &mass);
    let defect = manifold_defect(
        &g,
        &mass,
        &x0,
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
    eprintln!("manifold defect {defect:.3e}");
    assert!(defect < 1e-8, "RATTLE manifold defect {defect}");
}

#[test]
fn reich_composition_is_symplectic_on_the_manifold() {
    let dp = DoublePendulum::<f64>::paper();
    let mass = dp.system().mass;
    let g = dp.constraint();
    let s0 = moving_double_pendulum();
    let mut y4 = Reich4::new(dp.system(), g, 0.1, Stage::Reich, tight()).unwrap();
    let proj = Rattle::new(dp.system(), g, 0.1, tight()).unwrap();
    let x0 = to_x(&s0, &mass);
    let defect = manifold_defect(
        &g,
        &mass,
        &x0,
        |x| {
            let mut s = from_x(x, &mass);
            y4.integrate(&mut s, 5).unwrap();
            to_x(&s, &mass)
        },
        |x| {
            let mut s = from_x(x, &mass);
            proj.project(&mut s).unwrap();
            to_x(&s, &mass)
        },
        1e-5,
    );
    eprintln!("manifold defect {defect:.3e}");
    assert!(defect < 1e-8, "Reich4 manifold defect {defect}");
}

/// The measurement is sensitive: a RATTLE step followed by a 1 % damping of the velocity (a map
/// of the manifold that is not symplectic) shows a defect of order 10⁻².
#[test]
fn manifold_defect_detects_a_non_symplectic_map() {
    let dp = DoublePendulum::<f64>::paper();
    let mass = dp.system().mass;
    let g = dp.constraint();
    let s0 = moving_double_pendulum();
    let mut ra = Rattle::new(dp.system(), g, 0.1, tight()).unwrap();
    let proj = Rattle::new(dp.system(), g, 0.1, tight()).unwrap();
    let x0 = to_x(&s0, &mass);
    let defect = manifold_defect(
        &g,
        &mass,
        &x0,
        |x| {
            let mut s = from_x(x, &mass);
            ra.step(&mut s).unwrap();
            s.v *= 0.99;
            to_x(&s, &mass)
        },
        |x| {
            let mut s = from_x(x, &mass);
            proj.project(&mut s).unwrap();
            to_x(&s, &mass)
        },
        1e-5,
    );
    assert!(defect > 1e-3, "damped map defect {defect}");
}

// ---------------------------------------------------------------------------------------------
// Energy, reversibility, VS = VR
// ---------------------------------------------------------------------------------------------

/// 10⁵ RATTLE steps of the pendulum (h = 0.05, ~670 periods): the energy error stays bounded —
/// the maximum over the last tenth is no larger than 1.5× the maximum over the first tenth, and
/// the least-squares drift over the run is below 10⁻⁹ per unit time.
#[test]
fn rattle_energy_does_not_drift_over_1e5_steps() {
    let p = Pendulum::<f64>::paper();
    let sys = p.system();
    let mut ra = Rattle::new(sys, p.constraint(), 0.05, ConstraintNewtonParams::default()).unwrap();
    let mut s = p.initial_state();
    let e0 = sys.energy(&s);
    let n = 100_000;
    let mut ts = Vec::with_capacity(n);
    let mut es = Vec::with_capacity(n);
    for _ in 0..n {
        ra.step(&mut s).unwrap();
        ts.push(s.t);
        es.push(sys.energy(&s) - e0);
    }
    let first = es[..n / 10].iter().fold(0.0_f64, |a, e| a.max(e.abs()));
    let last = es[n - n / 10..].iter().fold(0.0_f64, |a, e| a.max(e.abs()));
    let drift = host_tests::measure::linear_slope(&ts, &es);
    eprintln!(
        "energy 1e5 steps: first tenth {first:.3e}, last tenth {last:.3e}, drift {drift:.3e}"
    );
    assert!(first > 1e-6, "energy error suspiciously small: {first}");
    assert!(
        last <= 1.5 * first,
        "energy error grows: first {first}, last {last}"
    );
    assert!(drift.abs() < 1e-9, "energy drift slope {drift}");
}

#[test]
fn rattle_shake_reich_are_reversible() {
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let mut ra = Rattle::new(
        dp.system(),
        dp.constraint(),
        0.05,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let e = host_tests::measure::reversibility_error(&mut ra, &s0, 100);
    eprintln!("reversibility RATTLE {e:.3e}");
    assert!(e < 1e-10, "RATTLE reversibility {e}");
    let mut y4 = Reich4::new(
        dp.system(),
        dp.constraint(),
        0.05,
        Stage::Reich,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let e = host_tests::measure::reversibility_error(&mut y4, &s0, 100);
    eprintln!("reversibility Reich4 {e:.3e}");
    assert!(e < 1e-10, "Reich4 reversibility {e}");
    // VS is reversible on VS trajectories (the mesh velocity is a central difference).
    let mut vs = Shake::new(
        dp.system(),
        dp.constraint(),
        0.05,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut s1 = s0;
    vs.integrate(&mut s1, 3).unwrap();
    let e = host_tests::measure::reversibility_error(&mut vs, &s1, 100);
    eprintln!("reversibility SHAKE {e:.3e}");
    assert!(e < 1e-10, "SHAKE reversibility {e}");
}

/// 001 §4: VS and VR give the same positions from the same start; VS's mesh velocities violate
/// the hidden constraint by `O(h²)` (halving `h` divides the worst residual by ≈ 4).
#[test]
fn shake_and_rattle_positions_agree() {
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let mut hidden = vec![];
    for h in [0.02, 0.01] {
        let mut ra = Rattle::new(
            dp.system(),
            dp.constraint(),
            h,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let mut vs = Shake::new(
            dp.system(),
            dp.constraint(),
            h,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let (mut a, mut b) = (s0, s0);
        let mut worst = 0.0_f64;
        let mut res = 0.0_f64;
        for _ in 0..(4.0 / h) as usize {
            ra.step(&mut a).unwrap();
            vs.step(&mut b).unwrap();
            worst = worst.max((a.q - b.q).amax());
            res = res.max((dp.constraint().jacobian(&b.q) * b.v).amax());
        }
        assert!(worst < 1e-10, "VS vs VR positions differ by {worst}");
        hidden.push(res);
    }
    let ratio = hidden[0] / hidden[1];
    assert!(hidden[1] > 1e-6, "VS hidden residual {hidden:?}");
    assert!(
        (3.5..4.5).contains(&ratio),
        "VS hidden residual ratio {ratio} ({hidden:?})"
    );
}

/// The two stage variants of Reich's composition agree (projecting between stages does not
/// change the next stage's result).
#[test]
fn reich_stage_variants_agree() {
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let mk = |stage| {
        Reich4::new(
            dp.system(),
            dp.constraint(),
            0.05,
            stage,
            ConstraintNewtonParams::default(),
        )
        .unwrap()
    };
    let (mut a, mut b) = (s0, s0);
    let (mut ra, mut rb) = (mk(Stage::Reich), mk(Stage::Rattle));
    run(&mut ra, &mut a, 100);
    run(&mut rb, &mut b, 100);
    let d = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(d < 1e-10, "stage variants differ by {d}");
}

/// RATTLE's multipliers approximate the rigid double pendulum's.
#[test]
fn rattle_multipliers_match_the_rigid_reference() {
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let r = rigid::DoublePendulum::seed();
    let h = 0.01;
    let n = 100;
    let mut ra = Rattle::new(
        dp.system(),
        dp.constraint(),
        h,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut s = s0;
    run(&mut ra, &mut s, n - 1);
    let lv_prev = ra.multipliers().end;
    ra.step(&mut s).unwrap();
    let lr = ra.multipliers().start;
    let mid = (lv_prev + lr) * 0.5; // λ at t = (n−1)h, O(h²)
    let q0: [f64; 4] = s0.q.into();
    let v0: [f64; 4] = s0.v.into();
    let lam = r.solve(&q0, &v0, &[(n - 1) as f64 * h], 1e-13, 1e-13)[0].lambda;
    for i in 0..2 {
        assert!(
            (mid[i] - lam[i]).abs() < 1e-3 * (1.0 + lam[i].abs()),
            "λ{i}: RATTLE {} vs rigid {}",
            mid[i],
            lam[i]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// f32 and f64
// ---------------------------------------------------------------------------------------------

fn rattle_keeps_the_constraints<T: Real + Tolerance>() {
    let p = Pendulum::<T>::paper();
    let mut ra = Rattle::new(
        p.system(),
        p.constraint(),
        T::lit(0.05),
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut s = p.initial_state();
    let e0 = p.system().energy(&s).to_f64();
    ra.integrate(&mut s, 2000).unwrap();
    // Constraint residuals at the solver tolerance (1000 ε, see ConstraintNewtonParams) and energy within
    // the O(h²) oscillation of RATTLE (≈ 3e-3 at h = 0.05) plus f32 roundoff.
    let g = p.constraint().value(&s.q)[0].to_f64().abs();
    let f = (p.constraint().jacobian(&s.q) * s.v)[0].to_f64().abs();
    assert!(g <= 1e3 * T::EPS, "g = {g}");
    assert!(f <= 1e3 * T::EPS, "g'v = {f}");
    let de = (p.system().energy(&s).to_f64() - e0).abs();
    assert!(de < 1e-2, "energy error {de}");
}
for_scalars!(rattle_keeps_the_constraints);

/// SHAKE and Reich4 in f32 and f64 on the double pendulum agree with the f64 RATTLE positions
/// after 200 steps (h = 0.02): VS = VR exactly in positions (up to tolerance and roundoff), Reich4
/// to its O(h²)-vs-O(h⁴) difference from RATTLE, ≈ 1e-4 here.
fn shake_and_reich_track_rattle<T: Real + Tolerance>() {
    let dp = DoublePendulum::<T>::paper();
    let s0 = moving_double_pendulum().cast::<T>();
    let h = T::lit(0.02);
    let mut vs = Shake::new(
        dp.system(),
        dp.constraint(),
        h,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut y4 = Reich4::new(
        dp.system(),
        dp.constraint(),
        h,
        Stage::Reich,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let dp64 = DoublePendulum::<f64>::paper();
    let mut ra = Rattle::new(
        dp64.system(),
        dp64.constraint(),
        0.02,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let (mut a, mut b, mut c) = (s0, s0, moving_double_pendulum());
    vs.integrate(&mut a, 200).unwrap();
    y4.integrate(&mut b, 200).unwrap();
    ra.integrate(&mut c, 200).unwrap();
    let da = (host_tests::measure::to_f64(&a.q) - c.q).amax();
    let db = (host_tests::measure::to_f64(&b.q) - c.q).amax();
    // f32: roundoff 1.2e-7 amplified over 200 steps of a chaotic-ish system.
    assert!(da < 1e-10_f64.max(1e2 * T::SAME_MATH), "VS vs VR {da}");
    assert!(db < 1e-3, "Reich4 vs RATTLE {db}");
    assert!(db > 1e-7, "Reich4 suspiciously equal to RATTLE: {db}");
    let g = dp.constraint().value(&b.q).amax().to_f64();
    assert!(g <= 1e3 * T::EPS, "Reich4 g = {g}");
}
for_scalars!(shake_and_reich_track_rattle);
