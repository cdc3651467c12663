//! Exactness of the fast flow: closed forms, matrix exponentials, Van Loan noise covariances and
//! increment statistics.

use super::*;

#[test]
fn v_zero_sim_equals_closed_form_harmonic() {
    // Diagonal K, identity mass: compare against HarmonicFlow's closed form (cos/sin).
    let omega = vector![3.0, 50.0, 200.0];
    let k = SMatrix::from_diagonal(&omega.component_mul(&omega));
    let flow = macrostep::baselines::HarmonicFlow::new(omega).unwrap();
    let s0 = State::new(0.0, vector![1.0, -0.5, 0.25], vector![0.3, 2.0, -1.0]);
    let h = 0.37;
    type Stepper = Box<dyn FnMut(&mut State<f64, 3>)>;
    let sys = SimSystem::new(Mass::identity(), k, Zero);
    let fast = FastParams::default();
    let mut sims: Vec<Stepper> = vec![
        {
            let mut i = Sim1::new(sys, h, fast).unwrap();
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim1::new(sys, h, fast)
                .unwrap()
                .with_order(Sim1Order::KickThenFlow);
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim2::new(sys, h, fast).unwrap();
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim4::new(sys, h, fast).unwrap();
            Box::new(move |s| i.step(s).unwrap())
        },
    ];
    for (n, step) in sims.iter_mut().enumerate() {
        let mut s = s0;
        for _ in 0..20 {
            step(&mut s);
        }
        let e = flow.evolve(&s0, 20.0 * h);
        let err = (s.q - e.q).amax().max((s.v - e.v).amax() / 200.0);
        assert!(err < 1e-12, "method {n}: error {err:e}");
    }
}

#[test]
fn v_zero_full_mass_and_friction_match_matrix_exponential() {
    let m = full_mass();
    let k = stiff_k();
    let s0 = State::new(0.0, vector![0.4, -0.2, 0.7], vector![1.0, 0.5, -0.3]);
    for c in [0.0, 0.8, 150.0] {
        let h = 0.21;
        let fast = FastParams {
            friction: Friction::Scalar(c),
            noise: Noise::Scalar(0.0),
        };
        let mut sim = Sim1::new(SimSystem::new(m, k, Zero), h, fast).unwrap();
        let mut s = s0;
        sim.integrate(&mut s, 5).unwrap();
        let x = exact_linear(&m, &k, c, 5.0 * h) * to_phase(&s0, &m);
        let err = (to_phase(&s, &m) - &x).amax() / x.amax().max(1e-300);
        // 1e-12 relative: the nalgebra Padé expm itself is good to ~1e-14 here.
        assert!(err < 1e-12, "c = {c}: relative error {err:e}");
    }
}

#[test]
fn matrix_friction_sharing_modes_is_exact() {
    // c = 0.5 I + 0.001 K (Rayleigh damping) commutes with K (identity mass).
    let k = stiff_k();
    let c = Matrix3::identity() * 0.5 + k * 0.001;
    let fast = FastParams {
        friction: Friction::Matrix(c),
        noise: Noise::Scalar(0.0),
    };
    let mut sim = Sim1::new(SimSystem::new(Mass::identity(), k, Zero), 0.1, fast).unwrap();
    let s0 = State::new(0.0, vector![0.4, -0.2, 0.7], vector![1.0, 0.5, -0.3]);
    let mut s = s0;
    sim.step(&mut s).unwrap();
    let minv = Matrix3::identity();
    let mut a = DMatrix::zeros(6, 6);
    for i in 0..3 {
        for j in 0..3 {
            a[(i, 3 + j)] = minv[(i, j)];
            a[(3 + i, j)] = -k[(i, j)];
            a[(3 + i, 3 + j)] = -c[(i, j)];
        }
    }
    let x = (a * 0.1).exp() * to_phase(&s0, &Mass::identity());
    let err = (to_phase(&s, &Mass::identity()) - &x).amax();
    assert!(err < 1e-12, "{err:e}");
}

#[test]
fn noise_covariance_matches_van_loan() {
    let m = full_mass();
    let k = stiff_k();
    let sigma = matrix![0.3, 0.0, 0.1; 0.0, 0.5, 0.0; 0.2, 0.0, 0.4];
    // c·h stays moderate: Van Loan exponentiates +A too, so e^{ch} growth would cost the
    // reference (not our recursion) its accuracy.
    for (c, h) in [(0.0, 0.13), (0.7, 0.13), (60.0, 0.05)] {
        let fast = FastParams {
            friction: Friction::Scalar(c),
            noise: Noise::Matrix(sigma),
        };
        let sim = Sim1::new(SimSystem::new(m, k, Zero), h, fast).unwrap();
        let exact = van_loan(&m, &k, c, &sigma, h);
        let ours = covariance_in_phase(&sim, &m);
        let err = (&ours - &exact).amax() / exact.amax();
        // Doubling recursion from a Taylor start: ~k·ε with k ≈ 20 levels.
        assert!(err < 1e-10, "c = {c}: relative covariance error {err:e}");
    }
}

/// The increment covariance of a SIM1 flow in `(q, p)`, built exactly from unit normals.
fn covariance_in_phase<F: macrostep::sim::Force<f64, 3>>(
    sim: &Sim1<f64, F, 3>,
    m: &Mass<f64, 3>,
) -> DMatrix<f64> {
    let mut cov = DMatrix::zeros(6, 6);
    for k in 0..6 {
        let mut xi = macrostep::sim::Increment::<f64, 3>::zero();
        if k % 2 == 0 {
            xi.z[k / 2] = 1.0;
        } else {
            xi.zeta[k / 2] = 1.0;
        }
        let r = sim.flow().increment_from_normals(&xi);
        let (dq, dv) = sim.stiff().increment_in_state(&r);
        let dp = m.mul(&dv);
        let col = DVector::from_iterator(6, dq.iter().chain(dp.iter()).copied());
        cov += &col * col.transpose();
    }
    cov
}

#[test]
fn increment_statistics_within_three_standard_errors() {
    // 10⁵ increments from a fixed x: sample mean vs B(H)x, sample covariance vs Σ(H).
    let m = full_mass();
    let k = stiff_k();
    let (c, h) = (0.9, 0.05);
    let sigma = matrix![0.3, 0.0, 0.1; 0.0, 0.5, 0.0; 0.2, 0.0, 0.4];
    let fast = FastParams {
        friction: Friction::Scalar(c),
        noise: Noise::Matrix(sigma),
    };
    let mut sim = Sim1::new(SimSystem::new(m, k, Zero), h, fast).unwrap();
    let s0 = State::new(0.0, vector![0.4, -0.2, 0.7], vector![1.0, 0.5, -0.3]);
    let mean_exact = exact_linear(&m, &k, c, h) * to_phase(&s0, &m);
    let cov_exact = van_loan(&m, &k, c, &sigma, h);
    let n = 100_000;
    let mut rng = Pcg32::seed_from_u64(2024);
    let mut sum = DVector::zeros(6);
    let mut sum2 = DMatrix::zeros(6, 6);
    for _ in 0..n {
        let mut s = s0;
        macrostep::StochasticIntegrator::step_noisy(&mut sim, &mut s, &mut rng).unwrap();
        let x = to_phase(&s, &m) - &mean_exact;
        sum += &x;
        sum2 += &x * x.transpose();
    }
    let nf = n as f64;
    let mean = &sum / nf;
    let cov = &sum2 / nf - &mean * mean.transpose();
    for i in 0..6 {
        let se = (cov_exact[(i, i)] / nf).sqrt();
        assert!(
            mean[i].abs() < 3.0 * se,
            "mean[{i}] = {:e}, se {se:e}",
            mean[i]
        );
        for j in 0..6 {
            let se =
                ((cov_exact[(i, i)] * cov_exact[(j, j)] + cov_exact[(i, j)].powi(2)) / nf).sqrt();
            let d = cov[(i, j)] - cov_exact[(i, j)];
            assert!(d.abs() < 3.0 * se, "cov[{i},{j}] off by {d:e}, se {se:e}");
        }
    }
}

#[test]
fn semidefinite_noise_draws_nothing_in_silent_directions() {
    // σ acts on coordinate 0 only; K diagonal and M = I: modes 1, 2 stay deterministic.
    let k = SMatrix::from_diagonal(&vector![100.0, 400.0, 900.0]);
    let sigma = SMatrix::from_diagonal(&vector![0.5, 0.0, 0.0]);
    let fast = FastParams {
        friction: Friction::Scalar(0.3),
        noise: Noise::Matrix(sigma),
    };
    let mut sim = Sim1::new(SimSystem::new(Mass::identity(), k, Zero), 0.1, fast).unwrap();
    let mut det = Sim1::new(
        SimSystem::new(Mass::identity(), k, Zero),
        0.1,
        FastParams {
            friction: Friction::Scalar(0.3),
            noise: Noise::Scalar(0.0),
        },
    )
    .unwrap();
    let mut rng = Pcg32::seed_from_u64(1);
    let s0: State<f64, 3> = State::new(0.0, vector![0.1, 0.2, 0.3], vector![0.0, 1.0, -1.0]);
    let (mut a, mut b) = (s0, s0);
    macrostep::StochasticIntegrator::step_noisy(&mut sim, &mut a, &mut rng).unwrap();
    det.step(&mut b).unwrap();
    assert!((a.q[0] - b.q[0]).abs() > 1e-6, "noisy direction must move");
    for i in 1..3 {
        assert!((a.q[i] - b.q[i]).abs() < 1e-14 && (a.v[i] - b.v[i]).abs() < 1e-12);
    }
}
