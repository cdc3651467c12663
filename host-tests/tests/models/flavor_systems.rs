//! The FLAVOR test systems: the 3-DOF system of 004 eq 2.100, the two-spring Langevin system
//! (004 §4.2.5) and Kapitza's pendulum (004 §2.6.6).

use super::*;

#[test]
fn trimer_is_eq_2_100() {
    let m = SpringTrimer::<f64>::new(1e-3, [1.1, 0.97]).unwrap();
    let sys = m.system();
    let mut r = rng(25);
    for _ in 0..3 {
        let q = vector![0.8, 0.81, 0.72] + random_vector::<3>(&mut r, 0.3);
        let (x, y, z) = (q[0], q[1], q[2]);
        let v = x.powi(4) + 1e3 * (1.1 / 2.0 * (y - x).powi(2) + 0.97 / 2.0 * (z - y).powi(2));
        assert!((sys.potential.energy(&q) - v).abs() < 1e-12 * v.abs().max(1.0));
    }
    check_potential_around(&m.split(), &vector![0.8, 0.81, 0.72], 0.3, 26);
    let mut off = m.split();
    off.set_alpha(0.0);
    check_potential_around(&off, &vector![0.8, 0.81, 0.72], 0.3, 27);
}

fn trimer_paper_start<T: Real + host_tests::Tolerance>() {
    let m = SpringTrimer::<T>::paper();
    let s = m.initial_state();
    assert_eq!(s.q, vector![T::lit(0.8), T::lit(0.811), T::lit(0.721)]);
    assert_eq!(s.v, SVector::<T, 3>::zeros());
    assert_eq!(m.split().alpha, T::one() / T::lit(1e-6));
    assert_eq!(m.omega(), [T::lit(1.1), T::lit(0.97)]);
}
host_tests::for_scalars!(trimer_paper_start);

#[test]
fn trimer_rejects_bad_parameters() {
    assert_eq!(
        SpringTrimer::<f64>::new(0.0, [1.0, 1.0]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "eps",
            bound: "> 0"
        }
    );
    assert_eq!(
        SpringTrimer::<f64>::new(1e-6, [1.0, f64::INFINITY]).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Two-spring Langevin system (004 §4.2.5)

#[test]
fn two_spring_is_the_seeds_hamiltonian() {
    let m = TwoSpring::<f64>::new(3.0, 0.5, 2.0).unwrap();
    let sys = m.system();
    let mut r = rng(28);
    for _ in 0..3 {
        let q = random_vector::<2>(&mut r, 1.5);
        let (x, y) = (q[0], q[1]);
        let v = 0.5 * 9.0 * x * x + 0.25 * (y - x).powi(4);
        assert!((sys.potential.energy(&q) - v).abs() < 1e-13);
        let f = sys.acceleration(&q);
        assert!((f[0] + 9.0 * x + (x - y).powi(3)).abs() < 1e-12);
        assert!((f[1] + (y - x).powi(3)).abs() < 1e-12);
    }
    check_potential_around(&m.split(), &SVector::zeros(), 1.5, 29);
    // σ = √(2c/β) = √0.5.
    assert!((m.langevin().sigma - 0.5f64.sqrt()).abs() < 1e-15);
    assert!((m.langevin().inverse_temperature() - 2.0).abs() < 1e-14);
}

fn two_spring_paper_start<T: Real + host_tests::Tolerance>() {
    let m = TwoSpring::<T>::paper();
    assert_eq!(m.omega(), T::lit(100.0));
    assert_eq!(m.langevin().c, T::lit(0.1));
    assert!((m.langevin().inverse_temperature().to_f64() - 10.0).abs() < 100.0 * T::EPS);
    let s = m.initial_state();
    let x = 0.8 / 100.0;
    assert!((s.q[0].to_f64() - x).abs() < 4.0 * T::EPS * x);
    assert!((s.q[1].to_f64() - (1.1 + x)).abs() < 4.0 * T::EPS);
    assert_eq!(s.v, SVector::<T, 2>::zeros());
}
host_tests::for_scalars!(two_spring_paper_start);

#[test]
fn two_spring_rejects_bad_parameters() {
    assert_eq!(
        TwoSpring::<f64>::new(-1.0, 0.1, 10.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
    assert_eq!(
        TwoSpring::<f64>::new(1.0, -0.1, 10.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "c",
            bound: ">= 0"
        }
    );
    assert_eq!(
        TwoSpring::<f64>::new(1.0, 0.1, 0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "inverse_temperature",
            bound: "> 0"
        }
    );
    assert_eq!(
        LangevinParams::<f64>::from_inverse_temperature(f64::NAN, 1.0).unwrap_err(),
        ConfigError::NonFinite { name: "c" }
    );
}

// ---------------------------------------------------------------------------------------------
// Kapitza's pendulum (004 §2.6.6)

#[test]
fn kapitza_force_is_eq_2_113() {
    let k = Kapitza::<f64>::new(9.8, 9.0, 3.0).unwrap();
    let mut r = rng(30);
    for _ in 0..5 {
        let theta: f64 = r.random_range(-3.0..3.0);
        let t: f64 = r.random_range(0.0..2.0);
        let forcing = 9.8 + 9.0 * (2.0 * std::f64::consts::PI * 3.0 * t).sin();
        assert!((k.generalised_force(theta, t) - forcing * theta.sin()).abs() < 1e-12);
        // l θ̈ = force, with M = (l).
        let acc = k.system_at(t).acceleration(&vector![theta])[0];
        assert!((9.0 * acc - forcing * theta.sin()).abs() < 1e-12);
        check_potential(
            &k.potential_at(t),
            &vector![theta],
            &vector![r.random_range(-1.0..1.0)],
        );
        // The split: stiff on reproduces the full force, stiff off leaves gravity (eq 2.115).
        let mut split = k.split_at(t);
        let g_on = split.gradient(&vector![theta])[0];
        assert!((g_on + forcing * theta.sin()).abs() < 1e-12);
        split.set_alpha(0.0);
        assert!((split.gradient(&vector![theta])[0] + 9.8 * theta.sin()).abs() < 1e-12);
        let s = macrostep::State::new(t, vector![theta], vector![0.5]);
        let e = 0.5 * 9.0 * 0.25 + forcing * theta.cos();
        assert!((k.energy_at(&s, t) - e).abs() < 1e-12);
    }
    assert_eq!(k.flavor_clock(7, 0.25), 1.75);
}

fn kapitza_paper_start<T: Real + host_tests::Tolerance>() {
    let k = Kapitza::<T>::paper();
    assert_eq!(k.g(), T::lit(9.8));
    assert_eq!(k.l(), T::lit(9.0));
    assert_eq!(k.omega(), T::lit(1000.0));
    assert_eq!(k.mass().as_diagonal(), Some(vector![T::lit(9.0)]));
    let s = k.initial_state();
    assert_eq!(s.q[0], T::lit(0.2));
    assert_eq!(s.v[0], T::zero());
}
host_tests::for_scalars!(kapitza_paper_start);

#[test]
fn kapitza_rejects_bad_parameters() {
    assert_eq!(
        Kapitza::<f64>::new(-1.0, 1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "g",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Kapitza::<f64>::new(1.0, 0.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "l",
            bound: "> 0"
        }
    );
    assert_eq!(
        Kapitza::<f64>::new(1.0, 1.0, f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}
