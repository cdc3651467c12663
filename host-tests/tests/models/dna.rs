//! The DNA model of 000 §4.4.

use super::*;

/// 000's Morse potential written out independently: `U(θ) = (exp(−a[1 − cos θ − x₀]) − 1)²`.
fn morse(theta: f64, a: f64, x0: f64) -> f64 {
    ((-a * (1.0 - theta.cos() - x0)).exp() - 1.0).powi(2)
}

#[test]
fn dna_force_is_eq_4_9() {
    let (a, x0, eps) = (7.0, 0.3, 1.0 / 1400.0);
    let dna = Dna::<f64, 12>::new(a, x0, eps).unwrap();
    let sys = dna.system();
    let mut r = rng(19);
    let theta = SVector::<f64, 12>::repeat(0.8) + random_vector::<12>(&mut r, 0.5);
    let acc = sys.acceleration(&theta);
    for k in 0..12 {
        let next = theta[(k + 1) % 12];
        let prev = theta[(k + 11) % 12];
        let h = 1e-5;
        let du = (morse(theta[k] + h, a, x0) - morse(theta[k] - h, a, x0)) / (2.0 * h);
        let rhs = next - 2.0 * theta[k] + prev - eps * du;
        assert!((acc[k] - rhs).abs() < 1e-8, "k = {k}: {} vs {rhs}", acc[k]);
    }
    let energy: f64 = (0..12)
        .map(|k| 0.5 * (theta[(k + 1) % 12] - theta[k]).powi(2) + eps * morse(theta[k], a, x0))
        .sum();
    assert!((sys.potential.energy(&theta) - energy).abs() < 1e-13);
}

#[test]
fn dna_derivatives_match_central_differences() {
    let p = Dna::<f64, 8>::paper().potential();
    check_potential_around(&p, &SVector::repeat(0.8), 1.0, 20);
    check_potential_around(&p, &SVector::repeat(3.0), 3.0, 21);
    // A large ε makes the on-site part dominate the check.
    let p = Dna::<f64, 5>::new(7.0, 0.3, 5.0).unwrap().potential();
    check_potential_around(&p, &SVector::repeat(0.8), 1.0, 22);
}

#[test]
fn dna_hessian_is_tridiagonal_with_periodic_corners() {
    let p = Dna::<f64, 10>::paper().potential();
    let mut r = rng(23);
    let theta = SVector::<f64, 10>::repeat(0.8) + random_vector::<10>(&mut r, 1.0);
    let h = p.hessian(&theta);
    let d = p.hessian_diagonal(&theta);
    for i in 0..10usize {
        for j in 0..10usize {
            let gap = i.abs_diff(j);
            let expected = if i == j {
                d[i]
            } else if gap == 1 || gap == 9 {
                -1.0
            } else {
                0.0
            };
            assert_eq!(h[(i, j)], expected, "({i}, {j})");
        }
    }
}

#[test]
fn dna_initial_state_is_the_seeds() {
    const N: usize = 200;
    let dna = Dna::<f64, N>::paper();
    // Standard normals by Box–Muller from a seeded PCG (the model itself holds no RNG).
    let mut r = rng(24);
    let xi = SVector::<f64, N>::from_fn(|_, _| {
        let u1: f64 = r.random_range(f64::EPSILON..1.0);
        let u2: f64 = r.random_range(0.0..1.0);
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    });
    let s = dna.initial_state(&xi);
    let mut calls = 0;
    let s2 = dna.initial_state_from_fn(|k| {
        assert_eq!(k, calls, "ξ drawn in order");
        calls += 1;
        xi[k]
    });
    assert_eq!(calls, N);
    assert_eq!(s, s2);
    for k in 0..N {
        assert!((s.q[k] - (0.8 + 0.1 * xi[k])).abs() < 1e-15);
        let v = (4.0 * std::f64::consts::PI * (k + 1) as f64 / N as f64).cos() / (N as f64).sqrt();
        assert!((s.v[k] - v).abs() < 1e-14, "k = {k}");
    }
    assert_eq!(s.t, 0.0);
    // θ̄ starts near 0.8 (0.1/√200 standard deviation).
    assert!((dna.mean_angle(&s.q) - 0.8).abs() < 0.05);
    // The velocity profile has zero mean (two full cosine periods).
    assert!(s.v.sum().abs() < 1e-12);
}

#[test]
fn dna_rejects_bad_parameters() {
    assert_eq!(
        Dna::<f64, 2>::new(7.0, 0.3, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "N",
            bound: ">= 3"
        }
    );
    assert_eq!(
        Dna::<f64, 4>::new(0.0, 0.3, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "a",
            bound: "> 0"
        }
    );
    assert_eq!(
        Dna::<f64, 4>::new(7.0, f64::NAN, 0.1).unwrap_err(),
        ConfigError::NonFinite { name: "x0" }
    );
    assert_eq!(
        Dna::<f64, 4>::new(7.0, 0.3, -0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "eps",
            bound: ">= 0"
        }
    );
}
