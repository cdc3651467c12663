//! SHAKE (VS), RATTLE (VR), Reich's composition and the multiplier window: order, symplecticity
//! on the constraint manifold, energy without drift, reversibility, bad input.

use host_tests::measure::loglog_slope;
use host_tests::rigid;
use host_tests::{for_scalars, Tolerance};
use macrostep::constrained::{
    ConstraintNewtonParams, MultiplierWindow, OffManifold, Rattle, Reich4, Shake, Stage,
};
use macrostep::model::Constraint;
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::{DoublePendulum, Link, Pendulum, PlanarDistances};
use macrostep::{ConfigError, Integrator, Real, State, StepError};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Runs `n` steps of size `h`, panicking on failure.
fn run<I: Integrator<f64, N>, const N: usize>(i: &mut I, s: &mut State<f64, N>, n: usize) {
    i.integrate(s, n).expect("step failed");
}

/// Global error at t = 2 of the pendulum (002 §5) against the rigid reference, for step `h`.
fn pendulum_error(make: impl Fn(f64) -> Box<dyn FnMut(&mut State<f64, 2>)>, h: f64) -> f64 {
    let p = Pendulum::<f64>::paper();
    let t_end = 2.0;
    let n = (t_end / h).round() as usize;
    let mut s = p.initial_state();
    let mut step = make(h);
    for _ in 0..n {
        step(&mut s);
    }
    let r = rigid::Pendulum::default();
    let refs = r.solve(&[1.0, 0.0], &[0.0, 0.0], &[t_end], 1e-13, 1e-13);
    let (q, v) = (refs[0].q, refs[0].v);
    let dq = (s.q[0] - q[0]).abs().max((s.q[1] - q[1]).abs());
    let dv = (s.v[0] - v[0]).abs().max((s.v[1] - v[1]).abs());
    dq.max(dv)
}

use host_tests::manifold::{from_x, manifold_defect, to_x};

/// A double-pendulum start on the manifold with motion: rods at angles (0.9, −0.4), angular
/// velocities (0.3, −0.7).
fn moving_double_pendulum() -> State<f64, 4> {
    let (th, ph, wth, wph) = (0.9_f64, -0.4_f64, 0.3_f64, -0.7_f64);
    let (l1, l2) = (1.0, 2.0_f64.sqrt());
    let (x1, y1) = (l1 * th.sin(), -l1 * th.cos());
    let q = vector![x1, y1, x1 + l2 * ph.sin(), y1 - l2 * ph.cos()];
    let (vx1, vy1) = (l1 * th.cos() * wth, l1 * th.sin() * wth);
    let v = vector![
        vx1,
        vy1,
        vx1 + l2 * ph.cos() * wph,
        vy1 + l2 * ph.sin() * wph
    ];
    State::new(0.0, q, v)
}

// ---------------------------------------------------------------------------------------------
// Order
// ---------------------------------------------------------------------------------------------

#[test]
fn rattle_and_shake_are_second_order_on_the_pendulum() {
    let hs = [0.1, 0.05, 0.025, 0.0125];
    let p = Pendulum::<f64>::paper();
    let rattle: Vec<f64> = hs
        .iter()
        .map(|&h| {
            pendulum_error(
                |h| {
                    let mut r = Rattle::new(
                        p.system(),
                        p.constraint(),
                        h,
                        ConstraintNewtonParams::default(),
                    )
                    .unwrap();
                    Box::new(move |s| r.step(s).unwrap())
                },
                h,
            )
        })
        .collect();
    let shake: Vec<f64> = hs
        .iter()
        .map(|&h| {
            pendulum_error(
                |h| {
                    let mut r = Shake::new(
                        p.system(),
                        p.constraint(),
                        h,
                        ConstraintNewtonParams::default(),
                    )
                    .unwrap();
                    Box::new(move |s| r.step(s).unwrap())
                },
                h,
            )
        })
        .collect();
    let sr = loglog_slope(&hs, &rattle);
    let ss = loglog_slope(&hs, &shake);
    eprintln!("pendulum slopes: RATTLE {sr:.3}, SHAKE {ss:.3}");
    assert!((sr - 2.0).abs() < 0.1, "RATTLE slope {sr} ({rattle:?})");
    assert!((ss - 2.0).abs() < 0.1, "SHAKE slope {ss} ({shake:?})");
}

#[test]
fn reich_composition_is_fourth_order_on_the_pendulum() {
    let hs = [0.2, 0.1, 0.05, 0.025];
    let p = Pendulum::<f64>::paper();
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            pendulum_error(
                |h| {
                    let mut r = Reich4::new(
                        p.system(),
                        p.constraint(),
                        h,
                        Stage::Reich,
                        ConstraintNewtonParams::default(),
                    )
                    .unwrap();
                    Box::new(move |s| r.step(s).unwrap())
                },
                h,
            )
        })
        .collect();
    let slope = loglog_slope(&hs, &errs);
    eprintln!("pendulum slope: Reich4 {slope:.3}");
    assert!((slope - 4.0).abs() < 0.2, "Reich4 slope {slope} ({errs:?})");
}

/// Order on a system with two coupled constraints (D = 2), against the rigid double-pendulum
/// reference in generalised coordinates (an independent solver).

#[test]
fn rattle_and_reich_orders_on_the_double_pendulum() {
    let dp = DoublePendulum::<f64>::paper();
    let s0 = moving_double_pendulum();
    let t_end = 1.0;
    let r = rigid::DoublePendulum::seed();
    let q0: [f64; 4] = s0.q.into();
    let v0: [f64; 4] = s0.v.into();
    let refq = r.solve(&q0, &v0, &[t_end], 1e-13, 1e-13)[0].q;
    let err = |s: &State<f64, 4>| (0..4).map(|i| (s.q[i] - refq[i]).abs()).fold(0.0, f64::max);
    let hs = [0.05, 0.025, 0.0125, 0.00625];
    let mut e2 = vec![];
    let mut e4 = vec![];
    for &h in &hs {
        let n = (t_end / h).round() as usize;
        let mut s = s0;
        let mut ra = Rattle::new(
            dp.system(),
            dp.constraint(),
            h,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        run(&mut ra, &mut s, n);
        e2.push(err(&s));
        let mut s = s0;
        let mut y4 = Reich4::new(
            dp.system(),
            dp.constraint(),
            4.0 * h,
            Stage::Reich,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        run(&mut y4, &mut s, n / 4);
        e4.push(err(&s));
    }
    let s2 = loglog_slope(&hs, &e2);
    let s4 = loglog_slope(&hs, &e4);
    eprintln!("double pendulum slopes: RATTLE {s2:.3}, Reich4 {s4:.3}");
    assert!((s2 - 2.0).abs() < 0.1, "RATTLE slope {s2} ({e2:?})");
    assert!((s4 - 4.0).abs() < 0.2, "Reich4 slope {s4} ({e4:?})");
}

// ---------------------------------------------------------------------------------------------
// Symplecticity on the manifold
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Bad input (issue item 6)
// ---------------------------------------------------------------------------------------------

#[test]
fn config_errors() {
    let p = Pendulum::<f64>::paper();
    let (sys, g) = (p.system(), p.constraint());
    let d = ConstraintNewtonParams::<f64>::default();
    assert_eq!(
        Rattle::new(sys, g, 0.0, d).err(),
        Some(ConfigError::StepSize)
    );
    assert_eq!(
        Shake::new(sys, g, f64::NAN, d).err(),
        Some(ConfigError::StepSize)
    );
    let bad = ConstraintNewtonParams { tol: f64::NAN, ..d };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::NonFinite { name: "tol" })
    );
    let bad = ConstraintNewtonParams { tol: -1.0, ..d };
    assert_eq!(
        Reich4::new(sys, g, 0.1, Stage::Reich, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "tol",
            bound: "> 0"
        })
    );
    let bad = ConstraintNewtonParams { max_iter: 0, ..d };
    assert_eq!(
        Shake::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "max_iter",
            bound: ">= 1"
        })
    );
    let bad = ConstraintNewtonParams {
        manifold_tol: 0.0,
        ..d
    };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "manifold_tol",
            bound: "> 0"
        })
    );
    let bad = ConstraintNewtonParams {
        tol: 1e-10,
        manifold_tol: 1e-12,
        ..d
    };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::Inconsistent {
            name: "tol <= manifold_tol"
        })
    );
    assert_eq!(
        MultiplierWindow::<f64, 1, 4>::new(vector![1.0], 5).err(),
        Some(ConfigError::OutOfRange {
            name: "len",
            bound: "in 1..=CAP"
        })
    );
    assert_eq!(
        MultiplierWindow::<f64, 1, 4>::new(vector![-1.0], 2).err(),
        Some(ConfigError::OutOfRange {
            name: "omega2",
            bound: "> 0"
        })
    );
}

/// Every error leaves the state bit-identical.
fn expect_err<I: Integrator<f64, N>, const N: usize>(i: &mut I, s: &State<f64, N>, e: StepError) {
    let mut t = *s;
    assert_eq!(i.step(&mut t), Err(e));
    assert_eq!(t.q.map(f64::to_bits), s.q.map(f64::to_bits));
    assert_eq!(t.v.map(f64::to_bits), s.v.map(f64::to_bits));
    assert_eq!(t.t.to_bits(), s.t.to_bits());
}

#[test]
fn rank_deficient_constraint_jacobian_is_singular() {
    // The same rod twice: g' has two equal rows.
    let link = Link::anchored(0, SVector::zeros(), 1.0);
    let g = PlanarDistances::<f64, 2, 2>::new([link, link]).unwrap();
    let sys = Pendulum::<f64>::paper().system();
    let s = State::at_rest(vector![1.0, 0.0]);
    let d = ConstraintNewtonParams::default();
    expect_err(
        &mut Rattle::new(sys, g, 0.1, d).unwrap(),
        &s,
        StepError::Singular,
    );
    expect_err(
        &mut Shake::new(sys, g, 0.1, d).unwrap(),
        &s,
        StepError::Singular,
    );
    expect_err(
        &mut Reich4::new(sys, g, 0.1, Stage::Reich, d).unwrap(),
        &s,
        StepError::Singular,
    );
}

#[test]
fn nan_positions_are_rejected() {
    let p = Pendulum::<f64>::paper();
    let d = ConstraintNewtonParams::default();
    let s = State::at_rest(vector![f64::NAN, 0.0]);
    expect_err(
        &mut Rattle::new(p.system(), p.constraint(), 0.1, d).unwrap(),
        &s,
        StepError::NonFiniteState,
    );
    expect_err(
        &mut Shake::new(p.system(), p.constraint(), 0.1, d).unwrap(),
        &s,
        StepError::NonFiniteState,
    );
    let mut r = Rattle::new(p.system(), p.constraint(), 0.1, d).unwrap();
    let mut t = p.initial_state();
    assert_eq!(r.step_by(&mut t, 0.0), Err(StepError::StepSize));
}

#[test]
fn newton_not_converging_is_reported() {
    let p = Pendulum::<f64>::paper();
    let capped = ConstraintNewtonParams {
        max_iter: 1,
        ..ConstraintNewtonParams::default()
    };
    // A fast pendulum and a big step: one Newton update cannot reach 2e-13.
    let s = State::new(0.0, vector![0.0, -1.0], vector![3.0, 0.0]);
    expect_err(
        &mut Rattle::new(p.system(), p.constraint(), 0.3, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    expect_err(
        &mut Shake::new(p.system(), p.constraint(), 0.3, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    expect_err(
        &mut Reich4::new(p.system(), p.constraint(), 0.3, Stage::Reich, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    // The default cap converges from the same start.
    let mut ok = s;
    Rattle::new(
        p.system(),
        p.constraint(),
        0.3,
        ConstraintNewtonParams::default(),
    )
    .unwrap()
    .step(&mut ok)
    .unwrap();
}

#[test]
fn off_manifold_start_is_rejected_or_projected_as_asked() {
    let p = Pendulum::<f64>::paper();
    let g = p.constraint();
    // Position off (|q| = 1.1) and velocity off (radial component).
    let off_q = State::at_rest(vector![1.1, 0.0]);
    let off_v = State::new(0.0, vector![1.0, 0.0], vector![0.2, 0.5]);
    let reject = ConstraintNewtonParams::default();
    for s in [off_q, off_v] {
        expect_err(
            &mut Rattle::new(p.system(), g, 0.1, reject).unwrap(),
            &s,
            StepError::Precondition,
        );
        expect_err(
            &mut Reich4::new(p.system(), g, 0.1, Stage::Reich, reject).unwrap(),
            &s,
            StepError::Precondition,
        );
    }
    // SHAKE checks the position only (its mesh velocities are off the hidden constraint).
    expect_err(
        &mut Shake::new(p.system(), g, 0.1, reject).unwrap(),
        &off_q,
        StepError::Precondition,
    );
    let mut t = off_v;
    Shake::new(p.system(), g, 0.1, reject)
        .unwrap()
        .step(&mut t)
        .unwrap();
    // Project: the step starts from the projection.
    let project = ConstraintNewtonParams {
        off_manifold: OffManifold::Project,
        ..reject
    };
    let mut r = Rattle::new(p.system(), g, 0.1, project).unwrap();
    for s in [off_q, off_v] {
        let mut a = s;
        r.step(&mut a).unwrap();
        let mut b = s;
        r.project(&mut b).unwrap();
        assert!(g.value(&b.q)[0].abs() < 1e-12);
        assert!((g.jacobian(&b.q) * b.v)[0].abs() < 1e-12);
        let mut rr = Rattle::new(p.system(), g, 0.1, reject).unwrap();
        rr.step(&mut b).unwrap();
        assert_eq!(a, b);
    }
}

// ---------------------------------------------------------------------------------------------
// Multiplier window
// ---------------------------------------------------------------------------------------------

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
    use host_tests::experiments::constrained::multiplier_errors;
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
