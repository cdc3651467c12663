//! Order of SHAKE, RATTLE and Reich's composition (log–log slopes).

use super::*;

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
