//! SIM (004 §4.2): exactness of the fast flow, structure, order, bad input.

use host_tests::measure::{
    from_phase, integrator_defect, jacobian_determinant, loglog_slope, reversibility_error,
    to_phase,
};
use macrostep::model::{Mass, Potential, Zero};
use macrostep::sim::{FastParams, Friction, Noise, Sim1, Sim1Order, Sim2, Sim4};
// Sim1/Sim2 implement both stepping traits: the deterministic `Integrator` is in scope, the
// stochastic steps are named (`macrostep::StochasticIntegrator::step`).
use macrostep::{ConfigError, Integrator, Real, State, StepError};
use nalgebra::{matrix, vector, DMatrix, DVector, Matrix3, SMatrix, SVector, Vector3};
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// A smooth anharmonic soft potential `V = Σ qᵢ⁴/4 + ½(q₁ − q₂)² + cos(q₃)` for N = 3.
#[derive(Clone, Copy, Debug)]
struct Soft;
impl<T: Real> Potential<T, 3> for Soft {
    fn energy(&self, q: &SVector<T, 3>) -> T {
        let quarter = T::lit(0.25);
        let d = q[0] - q[1];
        q.iter()
            .map(|&x| x * x * x * x * quarter)
            .fold(T::zero(), |a, b| a + b)
            + d * d * T::lit(0.5)
            + q[2].cos()
    }
    fn gradient(&self, q: &SVector<T, 3>) -> SVector<T, 3> {
        let d = q[0] - q[1];
        SVector::<T, 3>::new(
            q[0] * q[0] * q[0] + d,
            q[1] * q[1] * q[1] - d,
            q[2] * q[2] * q[2] - q[2].sin(),
        )
    }
}

/// A non-diagonal stiff K (SPD, frequencies ≈ 30–60) and a full SPD mass: exercises Jacobi.
fn stiff_k() -> Matrix3<f64> {
    matrix![2000.0, -500.0, 100.0; -500.0, 1500.0, -300.0; 100.0, -300.0, 1000.0]
}
fn full_mass() -> Mass<f64, 3> {
    Mass::full(matrix![2.0, 0.3, 0.0; 0.3, 1.0, 0.2; 0.0, 0.2, 1.5]).unwrap()
}

/// Independent reference: `exp(h [[0, M⁻¹], [−K, −c]])` on `(q, p)` with nalgebra's (std) expm.
fn generator(m: &Mass<f64, 3>, k: &Matrix3<f64>, c: f64) -> DMatrix<f64> {
    let minv = m.matrix().try_inverse().unwrap();
    let mut a = DMatrix::zeros(6, 6);
    for i in 0..3 {
        for j in 0..3 {
            a[(i, 3 + j)] = minv[(i, j)];
            a[(3 + i, j)] = -k[(i, j)];
        }
        a[(3 + i, 3 + i)] = -c;
    }
    a
}

fn exact_linear(m: &Mass<f64, 3>, k: &Matrix3<f64>, c: f64, h: f64) -> DMatrix<f64> {
    (generator(m, k, c) * h).exp()
}

/// Van Loan's method: the covariance of `∫₀ʰ e^{A(h−s)} G dW` with `G = [0; σ]`.
fn van_loan(
    m: &Mass<f64, 3>,
    k: &Matrix3<f64>,
    c: f64,
    sigma: &Matrix3<f64>,
    h: f64,
) -> DMatrix<f64> {
    let a = generator(m, k, c);
    let mut q = DMatrix::zeros(6, 6);
    let ss = sigma * sigma.transpose();
    for i in 0..3 {
        for j in 0..3 {
            q[(3 + i, 3 + j)] = ss[(i, j)];
        }
    }
    let mut big = DMatrix::zeros(12, 12);
    big.view_mut((0, 0), (6, 6)).copy_from(&(-&a));
    big.view_mut((0, 6), (6, 6)).copy_from(&q);
    big.view_mut((6, 6), (6, 6)).copy_from(&a.transpose());
    let e = (big * h).exp();
    let phi = e.view((6, 6), (6, 6)).transpose();
    let e12 = e.view((0, 6), (6, 6)).clone_owned();
    phi * e12
}

// ---------------------------------------------------------------- item 1: exactness

#[test]
fn v_zero_sim_equals_closed_form_harmonic() {
    // Diagonal K, identity mass: compare against HarmonicFlow's closed form (cos/sin).
    let omega = vector![3.0, 50.0, 200.0];
    let k = SMatrix::from_diagonal(&omega.component_mul(&omega));
    let flow = macrostep::baselines::HarmonicFlow::new(omega).unwrap();
    let s0 = State::new(0.0, vector![1.0, -0.5, 0.25], vector![0.3, 2.0, -1.0]);
    let h = 0.37;
    type Stepper = Box<dyn FnMut(&mut State<f64, 3>)>;
    let mut sims: Vec<Stepper> = vec![
        {
            let mut i = Sim1::new(Mass::identity(), FastParams::hamiltonian(k), Zero, h).unwrap();
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim1::new(Mass::identity(), FastParams::hamiltonian(k), Zero, h)
                .unwrap()
                .with_order(Sim1Order::KickThenFlow);
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim2::new(Mass::identity(), FastParams::hamiltonian(k), Zero, h).unwrap();
            Box::new(move |s| i.step(s).unwrap())
        },
        {
            let mut i = Sim4::new(Mass::identity(), FastParams::hamiltonian(k), Zero, h).unwrap();
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
            stiffness: k,
            friction: Friction::Scalar(c),
            noise: Noise::Scalar(0.0),
        };
        let mut sim = Sim1::new(m, fast, Zero, h).unwrap();
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
        stiffness: k,
        friction: Friction::Matrix(c),
        noise: Noise::Scalar(0.0),
    };
    let mut sim = Sim1::new(Mass::identity(), fast, Zero, 0.1).unwrap();
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
            stiffness: k,
            friction: Friction::Scalar(c),
            noise: Noise::Matrix(sigma),
        };
        let sim = Sim1::new(m, fast, Zero, h).unwrap();
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
    // Item 1: 10⁵ increments from a fixed x: sample mean vs B(H)x, sample covariance vs Σ(H).
    let m = full_mass();
    let k = stiff_k();
    let (c, h) = (0.9, 0.05);
    let sigma = matrix![0.3, 0.0, 0.1; 0.0, 0.5, 0.0; 0.2, 0.0, 0.4];
    let fast = FastParams {
        stiffness: k,
        friction: Friction::Scalar(c),
        noise: Noise::Matrix(sigma),
    };
    let mut sim = Sim1::new(m, fast, Zero, h).unwrap();
    let s0 = State::new(0.0, vector![0.4, -0.2, 0.7], vector![1.0, 0.5, -0.3]);
    let mean_exact = exact_linear(&m, &k, c, h) * to_phase(&s0, &m);
    let cov_exact = van_loan(&m, &k, c, &sigma, h);
    let n = 100_000;
    let mut rng = Pcg32::seed_from_u64(2024);
    let mut sum = DVector::zeros(6);
    let mut sum2 = DMatrix::zeros(6, 6);
    for _ in 0..n {
        let mut s = s0;
        macrostep::StochasticIntegrator::step(&mut sim, &mut s, &mut rng).unwrap();
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
        stiffness: k,
        friction: Friction::Scalar(0.3),
        noise: Noise::Matrix(sigma),
    };
    let mut sim = Sim1::new(Mass::identity(), fast, Zero, 0.1).unwrap();
    let mut det = Sim1::new(
        Mass::identity(),
        FastParams {
            stiffness: k,
            friction: Friction::Scalar(0.3),
            noise: Noise::Scalar(0.0),
        },
        Zero,
        0.1,
    )
    .unwrap();
    let mut rng = Pcg32::seed_from_u64(1);
    let s0: State<f64, 3> = State::new(0.0, vector![0.1, 0.2, 0.3], vector![0.0, 1.0, -1.0]);
    let (mut a, mut b) = (s0, s0);
    macrostep::StochasticIntegrator::step(&mut sim, &mut a, &mut rng).unwrap();
    det.step(&mut b).unwrap();
    assert!((a.q[0] - b.q[0]).abs() > 1e-6, "noisy direction must move");
    for i in 1..3 {
        assert!((a.q[i] - b.q[i]).abs() < 1e-14 && (a.v[i] - b.v[i]).abs() < 1e-12);
    }
}

// ---------------------------------------------------------------- item 2: structure

/// Central-difference step for the symplecticity defect: balances truncation (∝ eps²) and
/// roundoff (∝ ε/eps · |DΦ|², with |DΦ| ≈ ω ≈ 50 here).
const EPS_FD: f64 = 1e-5;

fn soft_system_states() -> State<f64, 3> {
    State::new(0.0, vector![0.3, -0.4, 0.5], vector![0.2, 0.1, -0.6])
}

#[test]
fn symplectic_when_no_friction_or_noise() {
    let m = full_mass();
    let fast = FastParams::hamiltonian(stiff_k());
    let s0 = soft_system_states();
    let h = 0.05;
    let d1 = integrator_defect(
        &mut Sim1::new(m, fast, Soft, h).unwrap(),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    let d1b = integrator_defect(
        &mut Sim1::new(m, fast, Soft, h)
            .unwrap()
            .with_order(Sim1Order::KickThenFlow),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    let d2 = integrator_defect(
        &mut Sim2::new(m, fast, Soft, h).unwrap(),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    let d4 = integrator_defect(
        &mut Sim4::new(m, fast, Soft, h).unwrap(),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    for (name, d) in [("sim1", d1), ("sim1-dual", d1b), ("sim2", d2), ("sim4", d4)] {
        assert!(d <= 1e-9, "{name}: symplecticity defect {d:e}");
    }
    // The measurement can fail: a damped step is not symplectic.
    let damped = FastParams {
        friction: Friction::Scalar(0.5),
        ..fast
    };
    let dd = integrator_defect(
        &mut Sim1::new(m, damped, Soft, h).unwrap(),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    assert!(dd > 1e-3, "friction must show a defect, got {dd:e}");
}

#[test]
fn mollified_kick_is_not_symplectic_in_q_mv_for_distinct_frequencies() {
    // The eq 4.8 kick `v += M⁻¹ W F(q)` with a mode-dependent filter W is symplectic in (q, Mv)
    // only when W·Hess V is symmetric (scalar systems, equal frequencies). Documented, measured.
    let m = Mass::identity();
    let fast = FastParams::hamiltonian(stiff_k());
    let s0 = soft_system_states();
    let d = integrator_defect(
        &mut Sim1::new(m, fast, Soft, 0.05).unwrap().mollified(true),
        &m,
        &s0,
        5,
        EPS_FD,
    );
    assert!(d > 1e-4, "{d:e}");
    let iso = FastParams::hamiltonian(Matrix3::identity() * 900.0);
    let d = integrator_defect(
        &mut Sim1::new(m, iso, Soft, 0.05).unwrap().mollified(true),
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
    let c = 0.8;
    let h = 0.05;
    let fast = FastParams {
        friction: Friction::Scalar(c),
        ..FastParams::hamiltonian(stiff_k())
    };
    let s0 = soft_system_states();
    let x0 = to_phase(&s0, &m);
    let expected = (-c * 3.0 * h).exp();
    let mut sim1 = Sim1::new(m, fast, Soft, h).unwrap();
    let mut sim2 = Sim2::new(m, fast, Soft, h).unwrap();
    let mut sim4 = Sim4::new(m, fast, Soft, h).unwrap();
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
    let fast = FastParams::hamiltonian(stiff_k());
    let s0 = soft_system_states();
    let e2 = reversibility_error(&mut Sim2::new(m, fast, Soft, 0.05).unwrap(), &s0, 50);
    let e4 = reversibility_error(&mut Sim4::new(m, fast, Soft, 0.05).unwrap(), &s0, 50);
    assert!(e2 < 1e-11 && e4 < 1e-11, "sim2 {e2:e}, sim4 {e4:e}");
    // SIM1 is not symmetric: the measurement sees it.
    let e1 = reversibility_error(&mut Sim1::new(m, fast, Soft, 0.05).unwrap(), &s0, 50);
    assert!(e1 > 1e-4, "sim1 must not be reversible, got {e1:e}");
}

#[test]
fn sim2_without_friction_is_the_impulse_method() {
    // r-RESPA written out independently: half kick, exact harmonic flow (M = I, diagonal K), half kick.
    let omega = vector![40.0, 70.0, 0.0];
    let k = SMatrix::from_diagonal(&omega.component_mul(&omega));
    let h = 0.03;
    let mut sim = Sim2::new(Mass::identity(), FastParams::hamiltonian(k), Soft, h).unwrap();
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
    let mut sim = Sim1::new(Mass::identity(), FastParams::hamiltonian(k), Cubic, h)
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
    let fast = FastParams::hamiltonian(k);
    let m = Mass::identity();
    let s0 = soft_system_states();
    let t_end = 1.0;
    let reference = {
        let mut r = Sim4::new(m, fast, Soft, 1.0 / 2048.0).unwrap();
        let mut s = s0;
        r.integrate(&mut s, 2048).unwrap();
        s
    };
    let hs = [1.0 / 16.0, 1.0 / 32.0, 1.0 / 64.0];
    let run = |which: u32, h: f64| -> f64 {
        let n = (t_end / h).round() as usize;
        let mut s = s0;
        match which {
            1 => Sim1::new(m, fast, Soft, h)
                .unwrap()
                .integrate(&mut s, n)
                .unwrap(),
            2 => Sim2::new(m, fast, Soft, h)
                .unwrap()
                .integrate(&mut s, n)
                .unwrap(),
            _ => Sim4::new(m, fast, Soft, h)
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
    let mut a = Sim2::new(
        Mass::<f64, 3>::identity(),
        FastParams::hamiltonian(k),
        Soft,
        h,
    )
    .unwrap();
    let mut b = Sim2::new(
        Mass::<f32, 3>::identity(),
        FastParams::hamiltonian(k.map(|x| x as f32)),
        Soft,
        h as f32,
    )
    .unwrap();
    let s0 = soft_system_states();
    let (mut x, mut y) = (s0, s0.cast::<f32>());
    a.integrate(&mut x, 200).unwrap();
    b.integrate(&mut y, 200).unwrap();
    let d = (x.q - y.q.map(|v| v as f64)).amax();
    // f32 roundoff amplified over 200 steps of an O(1)-Lyapunov soft flow.
    assert!(d < 1e-4, "{d:e}");
}

// ---------------------------------------------------------------- item 7: bad input

#[test]
fn bad_input_is_rejected_at_construction() {
    let k = stiff_k();
    let m = Mass::<f64, 3>::identity();
    let not_psd = matrix![1.0, 0.0, 0.0; 0.0, -4.0, 0.0; 0.0, 0.0, 1.0];
    assert_eq!(
        Sim1::new(m, FastParams::hamiltonian(not_psd), Zero, 0.1).unwrap_err(),
        ConfigError::NotPositiveDefinite { name: "stiffness" }
    );
    let asym = matrix![1.0, 0.5, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 1.0];
    assert_eq!(
        Sim2::new(m, FastParams::hamiltonian(asym), Zero, 0.1).unwrap_err(),
        ConfigError::NotSymmetric { name: "stiffness" }
    );
    let nan = Matrix3::from_element(f64::NAN);
    assert_eq!(
        Sim2::new(m, FastParams::hamiltonian(nan), Zero, 0.1).unwrap_err(),
        ConfigError::NonFinite { name: "stiffness" }
    );
    let noncommuting = FastParams {
        friction: Friction::Matrix(matrix![1.0, 0.0, 0.0; 0.0, 2.0, 0.0; 0.0, 0.0, 3.0]),
        ..FastParams::hamiltonian(k)
    };
    assert_eq!(
        Sim1::new(m, noncommuting, Zero, 0.1).unwrap_err(),
        ConfigError::Inconsistent {
            name: "friction commutes with stiffness"
        }
    );
    for h in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert_eq!(
            Sim1::new(m, FastParams::hamiltonian(k), Zero, h).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Sim2::new(m, FastParams::hamiltonian(k), Zero, h).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Sim4::new(m, FastParams::hamiltonian(k), Zero, h).unwrap_err(),
            ConfigError::StepSize
        );
    }
    assert_eq!(
        Sim1::new(m, FastParams::langevin(k, 0.1, -1.0), Zero, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "noise",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Sim1::new(m, FastParams::langevin(k, -0.1, 1.0), Zero, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "friction",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Sim1::new(m, FastParams::thermal(k, 0.1, 0.0), Zero, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "beta",
            bound: "> 0"
        }
    );
    assert_eq!(
        Sim1::new(
            m,
            FastParams {
                friction: Friction::Matrix(Matrix3::identity()),
                noise: Noise::Thermal { beta: 1.0 },
                ..FastParams::hamiltonian(k)
            },
            Zero,
            0.1
        )
        .unwrap_err(),
        ConfigError::Inconsistent {
            name: "thermal noise needs scalar friction"
        }
    );
    assert_eq!(
        Sim4::new(m, FastParams::langevin(k, 0.1, 1.0), Zero, 0.1).unwrap_err(),
        ConfigError::Inconsistent {
            name: "fourth-order SIM needs σ = 0"
        }
    );
}

#[test]
fn step_errors_leave_state_untouched() {
    let k = stiff_k();
    let m = Mass::<f64, 3>::identity();
    // Noisy system through the deterministic interface: precondition error.
    let mut noisy = Sim1::new(m, FastParams::langevin(k, 0.1, 1.0), Zero, 0.1).unwrap();
    let s0 = soft_system_states();
    let mut s = s0;
    assert_eq!(noisy.step(&mut s), Err(StepError::Precondition));
    assert_eq!(s, s0);
    // Non-finite input.
    let mut sim = Sim2::new(m, FastParams::hamiltonian(k), Soft, 0.1).unwrap();
    let mut bad = State::new(0.0, vector![f64::NAN, 0.0, 0.0], Vector3::zeros());
    let copy = bad;
    assert_eq!(sim.step(&mut bad), Err(StepError::NonFiniteState));
    assert!(bad.q[0].is_nan() && bad.v == copy.v);
    // Blow-up: a huge soft force overflows; state unchanged.
    let mut big = State::new(0.0, vector![1e120, 0.0, 0.0], Vector3::zeros());
    let before = big;
    assert_eq!(sim.step(&mut big), Err(StepError::NonFiniteResult));
    assert_eq!(big, before);
    let mut rng = Pcg32::seed_from_u64(3);
    let mut big2 = before;
    let mut noisy2 = Sim2::new(m, FastParams::langevin(k, 0.1, 1.0), Soft, 0.1).unwrap();
    assert_eq!(
        macrostep::StochasticIntegrator::step(&mut noisy2, &mut big2, &mut rng),
        Err(StepError::NonFiniteResult)
    );
    assert_eq!(big2, before);
}

// ---------------------------------------------------------------- GLA (004 eq 6.3)

#[test]
fn gla_is_conformally_symplectic_and_matches_eq_6_3() {
    use macrostep::langevin::{Gla, Ou};
    use macrostep::model::System;
    let m = full_mass();
    let (c, beta, h) = (0.7, 4.0, 0.01);
    let mut gla = Gla::new(System::new(m, Soft), c, beta, h).unwrap();
    let xi = vector![0.3, -1.1, 0.4];
    let s0 = soft_system_states();
    let x0 = to_phase(&s0, &m);
    let det = jacobian_determinant(
        |x| {
            let mut s = from_phase(x, &m, 0.0);
            gla.step_with_normals(&mut s, &xi).unwrap();
            to_phase(&s, &m)
        },
        &x0,
        1e-6,
    );
    assert!((det - (-c * 3.0 * h).exp()).abs() < 1e-9, "det {det}");
    // Identity mass: eq 6.3 written out.
    let mut g1 = Gla::new(System::new(Mass::identity(), Soft), c, beta, h).unwrap();
    let mut s = s0;
    g1.step_with_normals(&mut s, &xi).unwrap();
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
    let fast = FastParams::<T, 1> {
        stiffness: matrix![T::lit(w * w)],
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
    Sim1::new(Mass::identity(), fast, Zero, T::lit(h))
        .unwrap()
        .integrate(&mut a, n)
        .unwrap();
    let mut b = s0;
    Sim2::new(Mass::identity(), fast, Zero, T::lit(h))
        .unwrap()
        .integrate(&mut b, n)
        .unwrap();
    let mut d = s0;
    Sim4::new(Mass::identity(), fast, Zero, T::lit(h))
        .unwrap()
        .integrate(&mut d, n)
        .unwrap();
    // f64: 1e-12 (item 1). f32: the phase ωt = 200 carries ~ωt·ε relative error.
    let tol = if T::EPS > 1e-10 { 2e-4 } else { 1e-12 };
    for (name, s) in [("sim1", a), ("sim2", b), ("sim4", d)] {
        let err = (s.q[0].to_f64() - q).abs();
        assert!(err < tol, "{name}: {err:e}");
    }
}
host_tests::for_scalars!(exact_with_v_zero);
