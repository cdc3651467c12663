//! The pendulum (002 §5), the double pendulum (000 §4.1) and chains of pendula (000 §4.2,
//! 004 §5.4.3).

use super::*;

fn pendulum_starts_on_constraint<T: Real + host_tests::Tolerance>() {
    let p = Pendulum::<T>::paper();
    let s = p.initial_state();
    assert_eq!(p.constraint().value(&s.q)[0], T::zero());
    assert_eq!(s.v, SVector::<T, 2>::zeros());
    assert_eq!(s.q, vector![T::one(), T::zero()]);
}
host_tests::for_scalars!(pendulum_starts_on_constraint);

#[test]
fn pendulum_derivatives_match_central_differences() {
    let p = Pendulum::<f64>::new(1.3, 0.9, 1.7).unwrap();
    let start = p.initial_state().q;
    check_potential_around(&p.system().potential, &start, 0.5, 2);
    check_potential_around(&p.penalised(3.0).unwrap().potential, &start, 0.5, 3);
    let mut r = rng(4);
    for _ in 0..3 {
        let q = start + random_vector::<2>(&mut r, 0.5);
        check_constraint(
            &p.constraint(),
            &q,
            &vector![r.random_range(-2.0..2.0)],
            &random_vector::<2>(&mut r, 1.0),
        );
    }
    // V = m g y.
    assert_eq!(
        p.system().potential.energy(&vector![5.0, 2.0]),
        1.3 * 0.9 * 2.0
    );
}

#[test]
fn pendulum_period_matches_reich() {
    // 002 §5: T ≈ 7.416298709 for φ₀ = π/2, m = g = L = 1.
    let p = Pendulum::<f64>::paper();
    assert!((p.period(core::f64::consts::FRAC_PI_2) - 7.416298709).abs() < 1e-9);
    // Small-amplitude limit 2π √(L/g).
    let q = Pendulum::<f64>::new(1.0, 4.0, 9.0).unwrap();
    assert!((q.period(0.0) - 2.0 * core::f64::consts::PI * 1.5).abs() < 1e-12);
}

#[test]
fn pendulum_rejects_bad_parameters() {
    type P = Pendulum<f64>;
    assert_eq!(
        P::new(0.0, 1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "m",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new(1.0, -1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "g",
            bound: ">= 0"
        }
    );
    assert_eq!(
        P::new(1.0, 1.0, -1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new(f64::NAN, 1.0, 1.0).unwrap_err(),
        ConfigError::NonFinite { name: "m" }
    );
    assert_eq!(
        P::paper().penalised(0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Double pendulum (000 §4.1)

fn double_pendulum_starts_on_constraints<T: Real + host_tests::Tolerance>() {
    let dp = DoublePendulum::<T>::paper();
    let s = dp.initial_state();
    let two = T::lit(2.0);
    assert_eq!(s.q, vector![T::zero(), -T::one(), T::one(), -two]);
    // L₂² = (√2)² rounds, so g₂ is a few roundoffs.
    assert!(dp.constraint().value(&s.q).amax().to_f64() <= 4.0 * T::EPS);
}
host_tests::for_scalars!(double_pendulum_starts_on_constraints);

#[test]
fn double_pendulum_derivatives_match_central_differences() {
    let dp = DoublePendulum::<f64>::new([1.2, 0.7], 1.1, [0.9, 1.3]).unwrap();
    let start = dp.initial_state().q;
    check_potential_around(&dp.system().potential, &start, 0.4, 5);
    check_potential_around(&dp.penalised(2.0).unwrap().potential, &start, 0.4, 6);
    check_potential_around(
        &dp.penalised_per_constraint(vector![1.5, 2.5])
            .unwrap()
            .potential,
        &start,
        0.4,
        7,
    );
    let mut r = rng(8);
    for _ in 0..3 {
        let q = start + random_vector::<4>(&mut r, 0.4);
        let w = random_vector::<2>(&mut r, 2.0);
        check_constraint(&dp.constraint(), &q, &w, &random_vector::<4>(&mut r, 1.0));
    }
    // V = g (m₁ y₁ + m₂ y₂) (physical sign, gravity towards −y), M = diag(m₁, m₁, m₂, m₂).
    let v = dp.system().potential.energy(&vector![0.0, 2.0, 0.0, 3.0]);
    assert!((v - 1.1 * (1.2 * 2.0 + 0.7 * 3.0)).abs() < 1e-15);
    assert_eq!(
        dp.system().mass.as_diagonal(),
        Some(vector![1.2, 1.2, 0.7, 0.7])
    );
}

#[test]
fn double_pendulum_rejects_bad_parameters() {
    type P = DoublePendulum<f64>;
    assert_eq!(
        P::new([1.0, -1.0], 1.0, [1.0, 1.0]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "m",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new([1.0, 1.0], f64::INFINITY, [1.0, 1.0]).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        P::new([1.0, 1.0], 1.0, [1.0, 0.0]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::paper()
            .penalised_per_constraint(vector![1.0, f64::NAN])
            .unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Chain of pendula (000 §4.2, 004 §5.4.3)

fn chains_start_on_constraints<T: Real + host_tests::Tolerance>() {
    let c = Chain::<T, 40, 20>::horizontal();
    let s = c.initial_state();
    for i in 0..20 {
        assert_eq!(s.q[2 * i], T::lit((i + 1) as f64));
        assert_eq!(s.q[2 * i + 1], T::zero());
    }
    assert_eq!(c.constraint().value(&s.q).amax(), T::zero());
    let c = Chain::<T, 20, 10>::slanted();
    let s = c.initial_state();
    assert_eq!(s.q[18], T::lit(10.0));
    assert_eq!(s.q[19], T::lit(-20.0));
    // Lᵢ² = (√5)² rounds, so gᵢ is a few roundoffs of 5.
    assert!(c.constraint().value(&s.q).amax().to_f64() <= 20.0 * T::EPS);
    let c = Chain::<T, 6, 3>::new(vector![T::one(), T::lit(2.0), T::lit(0.5)], T::one()).unwrap();
    let s = c.initial_state();
    assert_eq!(s.q[4], T::lit(3.5));
    assert_eq!(c.constraint().value(&s.q).amax(), T::zero());
}
host_tests::for_scalars!(chains_start_on_constraints);

#[test]
fn chain_derivatives_match_central_differences() {
    let c = Chain::<f64, 10, 5>::new(vector![1.0, 0.8, 1.2, 0.9, 1.1], 1.3).unwrap();
    let start = c.initial_state().q;
    check_potential_around(&c.penalised(2.0).unwrap().potential, &start, 0.3, 9);
    check_potential_around(
        &c.penalised_per_constraint(vector![1.0, 2.0, 3.0, 1.5, 2.5])
            .unwrap()
            .potential,
        &start,
        0.3,
        10,
    );
    let mut r = rng(11);
    let q = start + random_vector::<10>(&mut r, 0.3);
    check_constraint(
        &c.constraint(),
        &q,
        &random_vector::<5>(&mut r, 2.0),
        &random_vector::<10>(&mut r, 1.0),
    );
}

#[test]
fn chain_hessian_is_banded() {
    let c = Chain::<f64, 40, 20>::horizontal();
    let sys = c.penalised(100.0).unwrap();
    let mut r = rng(12);
    let q = c.initial_state().q + random_vector::<40>(&mut r, 0.3);
    let h = sys.potential.hessian(&q);
    let band = Chain::<f64, 40, 20>::HALF_BANDWIDTH;
    let mut edge = 0.0f64;
    for row in 0..40usize {
        for col in 0..40 {
            if row.abs_diff(col) > band {
                assert_eq!(h[(row, col)], 0.0, "entry ({row}, {col}) outside the band");
            } else if row.abs_diff(col) == band {
                edge = edge.max(h[(row, col)].abs());
            }
        }
    }
    // The bandwidth is tight: the outermost diagonal is populated.
    assert!(edge > 0.0);
}

#[test]
fn chain_rejects_bad_parameters() {
    assert_eq!(
        Chain::<f64, 6, 2>::new(vector![1.0, 1.0], 1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "N = 2D" }
    );
    assert_eq!(
        Chain::<f64, 0, 0>::new(vector![], 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "D",
            bound: ">= 1"
        }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, -1.0], 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, 1.0], f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::horizontal()
            .penalised(-1.0)
            .unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
}
