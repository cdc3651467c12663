//! Named constructors against validated ones, end-to-end dynamics of the models.

use super::*;

#[test]
fn named_constructors_match_validated_ones() {
    let q4 = vector![0.3, -0.9, 1.2, -1.7];
    assert_eq!(
        Pendulum::<f64>::paper()
            .penalised(5.0)
            .unwrap()
            .potential
            .gradient(&vector![0.4, 0.7]),
        Pendulum::new(1.0, 1.0, 1.0)
            .unwrap()
            .penalised(5.0)
            .unwrap()
            .potential
            .gradient(&vector![0.4, 0.7])
    );
    assert_eq!(
        DoublePendulum::<f64>::paper()
            .penalised(5.0)
            .unwrap()
            .potential
            .hessian(&q4),
        DoublePendulum::new([1.0, 1.0], 1.0, [1.0, 2f64.sqrt()])
            .unwrap()
            .penalised(5.0)
            .unwrap()
            .potential
            .hessian(&q4)
    );
    let c = Chain::<f64, 4, 2>::horizontal();
    let c2 = Chain::<f64, 4, 2>::new(vector![1.0, 1.0], 1.0).unwrap();
    assert_eq!(c.initial_state(), c2.initial_state());
    assert_eq!(c.constraint(), c2.constraint());
    let x = vector![0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    assert_eq!(
        Fpu::<f64, 6>::paper().split().gradient(&x),
        Fpu::<f64, 6>::new(200.0).unwrap().split().gradient(&x)
    );
    let th = SVector::<f64, 5>::repeat(0.9);
    assert_eq!(
        Dna::<f64, 5>::paper().potential().gradient(&th),
        Dna::<f64, 5>::new(7.0, 0.3, 1.0 / 1400.0)
            .unwrap()
            .potential()
            .gradient(&th)
    );
    assert_eq!(
        SpringTrimer::<f64>::paper()
            .split()
            .gradient(&vector![0.1, 0.2, 0.3]),
        SpringTrimer::<f64>::new(1e-6, [1.1, 0.97])
            .unwrap()
            .split()
            .gradient(&vector![0.1, 0.2, 0.3])
    );
    let tp = TwoSpring::<f64>::paper();
    let tn = TwoSpring::<f64>::new(100.0, 0.1, 10.0).unwrap();
    assert_eq!(tp.langevin(), tn.langevin());
    assert_eq!(
        tp.split().gradient(&vector![0.1, 0.2]),
        tn.split().gradient(&vector![0.1, 0.2])
    );
    let kp = Kapitza::<f64>::paper();
    let kn = Kapitza::<f64>::new(9.8, 9.0, 1000.0).unwrap();
    assert_eq!(
        kp.generalised_force(0.3, 0.123),
        kn.generalised_force(0.3, 0.123)
    );
}

// ---------------------------------------------------------------------------------------------
// End-to-end checks of the models' dynamics

#[test]
fn penalised_pendulum_swings_with_reichs_period() {
    use macrostep::baselines::VelocityVerlet;
    use macrostep::Integrator;
    // A stiff penalty approximates the rod (model error O(ω⁻²), 000 Remark A.3); Verlet with
    // h = 2e-4 resolves the penalty frequency 2ωL = 400 (hω_eff = 0.08).
    let p = Pendulum::<f64>::paper();
    let h = 2e-4;
    let mut verlet = VelocityVerlet::new(p.penalised(200.0).unwrap(), h).unwrap();
    let mut s = p.initial_state();
    // Released horizontally at x = L, the mass reaches the vertical x = 0 after a quarter period.
    let mut prev = s;
    while s.q[0] > 0.0 {
        prev = s;
        verlet.step(&mut s).unwrap();
        assert!(s.t < 3.0, "never reached the vertical");
    }
    let crossing = prev.t + h * prev.q[0] / (prev.q[0] - s.q[0]);
    let quarter = 7.416298709 / 4.0;
    host_tests::report::figure("pendulum_quarter_period_error", (crossing - quarter).abs());
    // Tolerance 1e-4: the penalty model error is O(ω⁻²) = O(2.5e-5) (measured 2.0e-5); Verlet's
    // O(h²) error and the linear interpolation of the crossing are ~1e-7.
    assert!(
        (crossing - quarter).abs() < 1e-4,
        "quarter period {crossing} vs {quarter}"
    );
    // And the mass is at the bottom of the swing, y ≈ −L.
    assert!((s.q[1] + 1.0).abs() < 1e-3);
}

#[test]
fn dna_morse_minimum_is_the_closed_state() {
    // U vanishes with zero slope where 1 − cos θ = x₀, i.e. θ = arccos(0.7) ≈ 0.795 (000 §4.4).
    let p = Dna::<f64, 4>::paper().potential();
    let theta = 0.7f64.acos();
    assert!((theta - 0.795).abs() < 1e-3);
    assert!(p.morse(theta).abs() < 1e-30);
    assert!(p.morse_d1(theta).abs() < 1e-14);
    assert!(p.morse_d2(theta) > 0.0);
    assert!(p.morse_d1(2.0 * std::f64::consts::PI - theta).abs() < 1e-13);
}

#[test]
fn double_pendulum_angles_round_trip() {
    let dp = DoublePendulum::<f64>::new([1.0, 2.0], 1.0, [0.7, 1.3]).unwrap();
    let mut r = rng(31);
    for _ in 0..5 {
        let (theta, phi) = (r.random_range(-3.0..3.0), r.random_range(-3.0..3.0));
        let q = dp.from_angles(theta, phi);
        assert!(dp.constraint().value(&q).amax() < 1e-14);
        let (t2, p2) = dp.angles(&q);
        assert!((t2 - theta).abs() < 1e-14 && (p2 - phi).abs() < 1e-14);
    }
    // The seed's start: mass 1 straight below the pivot, rod 2 at 45°.
    let (theta, phi) =
        DoublePendulum::<f64>::paper().angles(&DoublePendulum::<f64>::paper().initial_state().q);
    assert_eq!(theta, 0.0);
    assert!((phi - std::f64::consts::FRAC_PI_4).abs() < 1e-15);
}
