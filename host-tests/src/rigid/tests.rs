//! Checks of the rigid references against the seeds and the core models.

use super::*;

/// Seed 002 §5: m = g = L = 1 from q = (1, 0) at rest (θ₀ = π/2), T ≈ 7.416298709.
#[test]
fn pendulum_period_matches_seed() {
    let p = Pendulum::default();
    let th0 = p.from_cartesian(&[1.0, 0.0], &[0.0, 0.0])[0];
    assert!((th0 - PI / 2.0).abs() < 1e-15);
    // Closed form (AGM) against the seed's printed digits.
    assert!((p.period(th0) - 7.416298709).abs() < 1e-9);
    // The reference solver's period against the closed form.
    let measured = p.measured_period(th0, 1e-13, 1e-13);
    assert!(
        (measured - p.period(th0)).abs() < 1e-10,
        "{measured} vs {}",
        p.period(th0)
    );
}

#[test]
fn elliptic_k_small_modulus() {
    // K(0) = π/2; K(k) = π/2 (1 + k²/4 + 9k⁴/64 + …).
    assert!((complete_elliptic_k(0.0) - PI / 2.0).abs() < 1e-15);
    let k: f64 = 1e-3;
    let series = PI / 2.0 * (1.0 + k * k / 4.0 + 9.0 * k.powi(4) / 64.0);
    assert!((complete_elliptic_k(k) - series).abs() < 1e-15);
}

#[test]
fn pendulum_energy_and_constraint_force() {
    let p = Pendulum {
        m: 2.0,
        g: 9.81,
        l: 0.5,
    };
    let times = reference::linspace(0.0, 5.0, 20);
    let out = p.solve(&[0.3, -0.4], &[0.0, 0.0], &times, 1e-13, 1e-13);
    for s in &out {
        assert!((s.energy - out[0].energy).abs() < 1e-10 * out[0].energy.abs());
        let r2 = s.q[0] * s.q[0] + s.q[1] * s.q[1];
        assert!((r2 - 0.25).abs() < 1e-12);
        // m a = −∇V + λ ∇c with ∇V = (0, m g), ∇c = 2q.
        let fx = p.m * s.a[0] - s.lambda[0] * 2.0 * s.q[0];
        let fy = p.m * s.a[1] + p.m * p.g - s.lambda[0] * 2.0 * s.q[1];
        assert!(fx.abs() < 1e-12 && fy.abs() < 1e-12, "{fx} {fy}");
    }
}

#[test]
fn seed_initial_state_in_generalised_coordinates() {
    let dp = DoublePendulum::seed();
    let (q0, v0) = DoublePendulum::seed_initial();
    let y = dp.from_cartesian(&q0, &v0);
    assert!(y[0].abs() < 1e-15);
    assert!((y[1] - PI / 4.0).abs() < 1e-15);
    assert_eq!([y[2], y[3]], [0.0, 0.0]);
    let (q, v, _) = dp.cartesian(&y);
    for i in 0..4 {
        assert!((q[i] - q0[i]).abs() < 1e-15 && v[i] == 0.0);
    }
}

#[test]
fn cartesian_velocities_round_trip() {
    let dp = DoublePendulum {
        m1: 1.5,
        m2: 0.7,
        g: 2.0,
        l1: 1.2,
        l2: 0.8,
    };
    let y = [0.4, -1.1, 0.9, -2.3];
    let (q, v, _) = dp.cartesian(&y);
    let back = dp.from_cartesian(&q, &v);
    for i in 0..4 {
        assert!((back[i] - y[i]).abs() < 1e-14);
    }
    assert!((dp.cartesian_energy(&q, &v) - dp.energy(&y)).abs() < 1e-13);
}

/// The generalised equations agree with the Cartesian DAE (consistent 4×2 multiplier system)
/// for general masses, and the Cartesian acceleration matches a finite difference of the
/// Cartesian velocity along the reference solution.
#[test]
fn double_pendulum_equations_match_cartesian_dae() {
    let dp = DoublePendulum {
        m1: 1.5,
        m2: 0.7,
        g: 2.0,
        l1: 1.2,
        l2: 0.8,
    };
    for y in [
        [0.4, -1.1, 0.9, -2.3],
        [2.0, 0.5, -0.3, 1.7],
        [0.0, 0.0, 0.0, 0.0],
    ] {
        assert!(dp.multiplier_residual(&y) < 1e-12, "{y:?}");
    }
    // A wrong equation (drop the velocity coupling) must be caught by the residual.
    let wrong = |y: &[f64]| {
        let mut z = y.to_vec();
        z[3] = 0.0;
        dp.multipliers(&z)
    };
    let y = [0.4, -1.1, 0.9, -2.3];
    assert!((wrong(&y)[0] - dp.multipliers(&y)[0]).abs() > 1e-3);
    let h = 1e-5;
    let out = dp.solve(
        &dp.cartesian(&y).0,
        &dp.cartesian(&y).1,
        &[1.0 - h, 1.0, 1.0 + h],
        1e-13,
        1e-13,
    );
    for i in 0..4 {
        let fd = (out[2].v[i] - out[0].v[i]) / (2.0 * h);
        assert!((fd - out[1].a[i]).abs() < 1e-6, "{i}: {fd} {}", out[1].a[i]);
    }
}

/// Seed start, energy conserved by the reference to ~1e-10 over t ∈ [0, 20], for the printed
/// (upward) and the physical (downward) gravity.
#[test]
fn double_pendulum_energy_conserved() {
    for dp in [DoublePendulum::seed(), DoublePendulum::seed_printed_sign()] {
        let (q0, v0) = DoublePendulum::seed_initial();
        let times = reference::linspace(0.0, 20.0, 40);
        let out = dp.solve(&q0, &v0, &times, 1e-13, 1e-13);
        let e0 = dp.cartesian_energy(&q0, &v0);
        assert!((out[0].energy - e0).abs() < 1e-14);
        let drift = out
            .iter()
            .map(|s| (s.energy - e0).abs())
            .fold(0.0, f64::max);
        assert!(drift < 1e-10, "g = {}: energy drift {drift:e}", dp.g);
        // The constraints hold exactly in the Cartesian image (to roundoff).
        for s in &out {
            let c1 = s.q[0] * s.q[0] + s.q[1] * s.q[1] - 1.0;
            let c2 = (s.q[2] - s.q[0]).powi(2) + (s.q[3] - s.q[1]).powi(2) - 2.0;
            assert!(c1.abs() < 1e-13 && c2.abs() < 1e-13);
        }
        // At rest at t = 0: hanging, both rods in tension (λ < 0 pulls each bob toward its
        // anchor); with gravity toward +y, both rods are compressed (λ > 0).
        let l = out[0].lambda;
        if dp.g > 0.0 {
            assert!(l[0] < 0.0 && l[1] < 0.0, "{l:?}");
        } else {
            assert!(l[0] > 0.0 && l[1] > 0.0, "{l:?}");
        }
    }
}

/// Same conventions as the core models: energies and constraint values agree with
/// `macrostep::systems::{Pendulum, DoublePendulum}` on arbitrary states.
#[test]
fn conventions_match_core_models() {
    use macrostep::model::Constraint;
    use macrostep::nalgebra::vector;
    use macrostep::State;
    let core = macrostep::systems::DoublePendulum::<f64>::paper();
    let dp = DoublePendulum::seed();
    let (q0, _) = DoublePendulum::seed_initial();
    assert_eq!(core.initial_state().q.as_slice(), &q0);
    for y in [[0.4, -1.1, 0.9, -2.3], [2.0, 0.5, -0.3, 1.7]] {
        let (q, v, _) = dp.cartesian(&y);
        let s = State::new(
            0.0,
            vector![q[0], q[1], q[2], q[3]],
            vector![v[0], v[1], v[2], v[3]],
        );
        let e_core = core.system().energy(&s);
        assert!(
            (e_core - dp.energy(&y)).abs() < 1e-13,
            "{e_core} vs {}",
            dp.energy(&y)
        );
        assert!(core.constraint().value(&s.q).amax() < 1e-14);
        // Jacobian rows agree (same constraint functions, same sign).
        let jc = core.constraint().jacobian(&s.q);
        let j = DoublePendulum::constraint_jacobian(&q);
        for r in 0..2 {
            for c in 0..4 {
                assert!((jc[(r, c)] - j[r][c]).abs() < 1e-14);
            }
        }
    }
    let core_p = macrostep::systems::Pendulum::<f64>::paper();
    let p = Pendulum::default();
    let y = [0.7, -0.4];
    let (q, v, _) = p.cartesian(&y);
    let s = State::new(0.0, vector![q[0], q[1]], vector![v[0], v[1]]);
    assert!((core_p.system().energy(&s) - p.energy(&y)).abs() < 1e-14);
    assert!((core_p.period(PI / 2.0) - p.period(PI / 2.0)).abs() < 1e-12);
}
