//! Sampling: the invariant measure against closed forms and quadrature, faster equilibration
//! on the chapter's problem, and the fixture's derivatives and exact law.

use super::*;

/// Per-path time averages of `f(state)` over `[t0, t1]` of `paths` independent paths; returns
/// (mean over paths, standard error).
fn time_average<P: Hessian<f64, N>, const N: usize, const K: usize>(
    mut m: AnnealTuneGla<f64, P, N>,
    s0: State<f64, N>,
    (t0, t1): (f64, f64),
    paths: usize,
    f: impl Fn(&State<f64, N>) -> [f64; K],
) -> [(f64, f64); K] {
    let h = m.step_size();
    let (n0, n1) = ((t0 / h).round() as usize, (t1 / h).round() as usize);
    let mut per_path = vec![[0.0; K]; paths];
    for (i, acc) in per_path.iter_mut().enumerate() {
        let mut rng = Pcg32::seed_from_u64(77 + i as u64);
        let mut s = s0;
        m.reset();
        m.integrate_noisy(&mut s, n0, &mut rng).unwrap();
        for _ in n0..n1 {
            m.step_noisy(&mut s, &mut rng).unwrap();
            for (a, x) in acc.iter_mut().zip(f(&s)) {
                *a += x / (n1 - n0) as f64;
            }
        }
    }
    let pf = paths as f64;
    std::array::from_fn(|j| {
        let mean = per_path.iter().map(|a| a[j]).sum::<f64>() / pf;
        let var = per_path.iter().map(|a| (a[j] - mean).powi(2)).sum::<f64>() / (pf - 1.0);
        (mean, (var / pf).sqrt())
    })
}

fn within(label: &str, (est, se): (f64, f64), exact: f64) {
    assert!(
        (est - exact).abs() < 5.0 * se,
        "{label}: {est} vs exact {exact}, SE {se}, z = {:.2}",
        (est - exact) / se
    );
}

/// Tuned friction on a 2-D quadratic with a full mass matrix (the mass-weighted eigen path):
/// `E qqᵀ = K⁻¹/β`, `E vvᵀ = M⁻¹/β` (Boltzmann–Gibbs in closed form).
#[test]
fn tuned_friction_samples_gaussian_boltzmann_gibbs_with_full_mass() {
    let k = matrix![4.0, 1.0; 1.0, 3.0];
    let mm = matrix![2.0, 0.5; 0.5, 1.0];
    let sys = System::new(Mass::full(mm).unwrap(), Quadratic::new(k));
    let beta = 10.0;
    for friction in [
        tuned(0.0),
        FrictionRule::Tuned {
            alpha: 0.0,
            hessian_fraction: 1.0,
        },
    ] {
        let sched = constant_temperature(1.0 / beta).unwrap();
        let m = AnnealTuneGla::new(
            sys,
            0.01,
            AnnealTuneParams {
                friction,
                schedule: sched,
            },
        )
        .unwrap();
        let s0 = State::at_rest(vector![1.0, -1.0]);
        let est = time_average(m, s0, (5.0, 45.0), 200, |s| {
            [
                s.q[0] * s.q[0],
                s.q[0] * s.q[1],
                s.q[1] * s.q[1],
                s.v[0] * s.v[0],
                s.v[0] * s.v[1],
                s.v[1] * s.v[1],
            ]
        });
        let cq: Matrix2<f64> = k.try_inverse().unwrap() / beta;
        let cv: Matrix2<f64> = mm.try_inverse().unwrap() / beta;
        let exact = [
            cq[(0, 0)],
            cq[(0, 1)],
            cq[(1, 1)],
            cv[(0, 0)],
            cv[(0, 1)],
            cv[(1, 1)],
        ];
        for (j, (e, x)) in est.iter().zip(exact).enumerate() {
            within(&format!("{friction:?} moment {j}"), *e, x);
        }
    }
}

/// The chapter's problem from the left well: after an annealed horizon of 30 time units, the
/// ensemble continued at `T_f` samples the exact B-G law of `q` (mean, variance) and `v`
/// (`E v² = 1/β`).
#[test]
fn anneal_tune_gla_samples_lj_boltzmann_gibbs_after_the_horizon() {
    let ex = exact(BETA, 100_000);
    let tf = 1.0 / BETA;
    for friction in [tuned(0.0), tuned(0.7)] {
        let sched = Schedule::new(Cooling::InverseLinear { initial: 10.0 * tf }, tf, 3000).unwrap();
        let m = AnnealTuneGla::new(
            system(),
            H,
            AnnealTuneParams {
                friction,
                schedule: sched,
            },
        )
        .unwrap();
        let s0 = State::at_rest(vector![Q0]);
        let [mq, vq, v2] = time_average(m, s0, (40.0, 60.0), 300, |s| {
            let d = s.q[0] - ex.mean;
            [s.q[0], d * d, s.v[0] * s.v[0]]
        });
        within("mean q", mq, ex.mean);
        within("var q", vq, ex.sd * ex.sd);
        within("E v²", v2, tf);
    }
}

/// `reproduce accelerated-sampling` at the one horizon `t = 30`, `paths` paths, for the schemes
/// `only`.
fn at_t30(paths: usize, only: Vec<&'static str>) -> Results {
    compute(&Setup {
        paths,
        t_total: 30.0,
        t_long: 30.0,
        horizons: vec![30.0],
        extra_horizons: vec![],
        sweep: (vec![], 0, 30.0),
        every: (30.0 / H).round() as usize,
        only,
        ..Setup::quick()
    })
}

/// §6.5: tuning and annealing each speed up GLA (`c = 0.7`) at `t = 30`, and together most
/// (Fig 6.4's ordering). Unpaired differences over 4 000 paths, bound 4 combined SE.
#[test]
fn tuned_and_annealed_gla_equilibrate_faster_than_gla() {
    let fixed = at_t30(4000, vec!["gla", "tune_gla"]);
    let annealed = at_t30(1000, vec!["anneal_gla", "anneal_tune_gla_a0"]);
    let last = |r: &Results, label| r.curve(label).expect(label).last(r.exact.mean);
    let (gla, tune) = (last(&fixed, "gla"), last(&fixed, "tune_gla"));
    let anneal = last(&annealed, "anneal_gla");
    let both = last(&annealed, "anneal_tune_gla_a0");
    let better = |a: (f64, f64, f64), b: (f64, f64, f64), what: &str| {
        let se = (a.1 * a.1 + b.1 * b.1).sqrt();
        assert!(
            b.0 + 4.0 * se < a.0,
            "{what}: {} not below {} (SE {se})",
            b.0,
            a.0
        );
    };
    better(gla, tune, "TuneGLA vs GLA");
    better(gla, anneal, "AnnealGLA vs GLA");
    better(anneal, both, "AnnealTuneGLA vs AnnealGLA");
    // More paths have crossed the barrier (escape) with acceleration.
    assert!(
        both.2 > gla.2 + 0.2,
        "escape fraction {} vs {}",
        both.2,
        gla.2
    );
}

#[test]
fn lj_model_derivatives_match_finite_differences() {
    for q in [1.05, 1.5, 2.0, 2.9] {
        let x = vector![q];
        let e = 1e-6;
        let fd = |f: &dyn Fn(f64) -> f64| (f(q + e) - f(q - e)) / (2.0 * e);
        let g = fd(&|y| LjWell.energy(&vector![y]));
        let hs = fd(&|y| Potential::<f64, 1>::gradient(&LjWell, &vector![y])[0]);
        let gx = Potential::<f64, 1>::gradient(&LjWell, &x)[0];
        assert!((gx - g).abs() < 1e-6 * (1.0 + g.abs()), "gradient at {q}");
        assert!(
            (LjWell.hessian(&x)[(0, 0)] - hs).abs() < 1e-5 * (1.0 + hs.abs()),
            "hessian at {q}"
        );
    }
    // The quadrature of the exact law is converged (independent of the grid).
    let (a, b) = (exact(BETA, 50_000), exact(BETA, 100_000));
    assert!((a.mean - b.mean).abs() < 1e-10 && (a.sd - b.sd).abs() < 1e-10);
    // The barrier is located on the grid, so P(right) moves with it by the density there
    // (e^{−β ΔV} small) times the grid spacing.
    assert!((a.right - b.right).abs() < 1e-6);
}
