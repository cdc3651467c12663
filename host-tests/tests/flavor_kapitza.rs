//! Kapitza's inverted pendulum under FLAVOR (004 §2.6.6): the recommended
//! setting is accurate, the thesis's δ = 0.002 is not, and the reason is the ratio `R = δ/τ`
//! (cheap versions of `reproduce kapitza`; see `experiments::flavor::kapitza` for the analysis).

use host_tests::experiments::flavor::kapitza::Setup;
use host_tests::measure::{max_abs, window_err};
use macrostep::flavor::{advice, Params};

/// The recommended setting (nonintrusive FLAVOR 2.115, τ = 6.25e-6, δ = 3.125e-5) keeps the
/// pendulum up with the reference's swing and window averages within `Setup::TARGET` = 1e-2 over the
/// study's T = 10 (measured 8.0e-3: legacy error 3.1e-3 at τ plus averaging error 4.9e-3 at R = 5).
#[test]
fn recommended_setting_tracks_the_reference() {
    let setup = Setup::paper();
    let theta_ref = setup.slowed_theta(1.0);
    let win_ref = setup.windows(&theta_ref, setup.dt_ref);
    let (tau, delta, symmetric) = Setup::RECOMMENDED;
    let (theta, _) = setup.flavor_theta(tau, delta, symmetric).unwrap();
    let err = window_err(&setup.windows(&theta, delta), &win_ref);
    assert!(err <= Setup::TARGET, "window error {err:e}");
    // Stays up, with the reference's swing (0.353): 1 % (measured 0.357).
    let (m, m_ref) = (max_abs(&theta), max_abs(&theta_ref));
    assert!((m - m_ref).abs() < 0.01 * m_ref + 0.005, "{m} vs {m_ref}");
    // The advice helper accepts it (Ω = 2πω, slow period 0.52).
    let big = 2.0 * std::f64::consts::PI * setup.model.omega();
    let slow = 2.0 * std::f64::consts::PI / 0.52;
    let p = Params::new(delta, tau).unwrap();
    assert_eq!(advice::check_forcing(&p, big, slow), None);
}

/// δ = 0.002 fails for every τ, and it is the ratio R = δ/τ, not the discretisation: at the
/// thesis's τ = 0.75·h₀ (R = 40; h₀ itself does not divide the sampling) the FLAVOR is off by
/// 0.49 in window averages, and the *exact* slowed pendulum (the δ → 0 limit at R = 40) is off by
/// 0.33 on its own, against 4.9e-3 at R = 5. The advice helper flags R = 40.
#[test]
fn thesis_delta_fails_because_of_the_ratio() {
    let setup = Setup::paper();
    let h0 = setup.h0();
    let theta_ref = setup.slowed_theta(1.0);
    let win_ref = setup.windows(&theta_ref, setup.dt_ref);
    let tau = 0.75 * h0;
    let (theta, _) = setup.flavor_theta(tau, 0.002, false).unwrap();
    let err = window_err(&setup.windows(&theta, 0.002), &win_ref);
    // Measured 0.49; more than 20 times the recommended setting's error.
    assert!(err > 0.3, "window error {err:e}");
    let slowed = |r: f64| {
        window_err(
            &setup.windows(&setup.slowed_theta(r), setup.dt_ref),
            &win_ref,
        )
    };
    let (e40, e5) = (slowed(40.0), slowed(5.0));
    assert!(e40 > 0.25, "slowed R = 40: {e40:e}"); // measured 0.33
    assert!(e5 < 6e-3, "slowed R = 5: {e5:e}"); // measured 4.9e-3
                                                // And a smaller τ at δ = 0.002 means a larger R: R = 160 leaves the upright position.
    let fell = setup
        .flavor_theta(0.1875 * h0, 0.002, false)
        .is_none_or(|(th, _)| max_abs(&th) > 1.5);
    assert!(fell, "R = 160 should lose the upright position");
    let big = 2.0 * std::f64::consts::PI * setup.model.omega();
    let slow = 2.0 * std::f64::consts::PI / 0.52;
    let p = Params::new(0.002, tau).unwrap();
    assert_eq!(
        advice::check_forcing(&p, big, slow),
        Some(advice::Violation::SlowedForcing)
    );
}

/// `reproduce kapitza --quick` through its `Results` (004 §2.6.6 over T = 1.5): the reference
/// stays inverted, the averaging error grows with R = δ/τ and the legacy error is second order
/// in τ, the recommended FLAVOR keeps the pendulum up within `TARGET` while running faster than
/// the legacy integrator at its τ (measured 2.8x, best of 15 timings each), and δ = 0.002 misses
/// the target at every τ.
#[test]
fn kapitza_quick_recommended_is_accurate_and_faster() {
    use host_tests::experiments::flavor::kapitza::{KapitzaExperiment, TARGET};
    use host_tests::experiments::Experiment;
    let r = KapitzaExperiment::compute(&KapitzaExperiment::quick());
    // θ₀ = 0.2 swings to 0.353 about the inverted position.
    assert!(r.max_ref > 0.3 && r.max_ref < 0.4, "{}", r.max_ref);
    let averaging: Vec<f64> = r.averaging.iter().map(|a| a.2).collect();
    assert!(
        averaging.windows(2).all(|w| w[0] < w[1]),
        "averaging error not increasing in R: {averaging:?}"
    );
    assert!((r.legacy_slope - 2.0).abs() < 0.3, "{}", r.legacy_slope);
    let rec = r.recommended;
    assert!(rec.pick.is_some(), "no setting of the sweep meets TARGET");
    assert!(rec.err <= TARGET, "recommended window error {:e}", rec.err);
    assert!(
        (rec.max - r.max_ref).abs() < 0.05,
        "{} vs {}",
        rec.max,
        r.max_ref
    );
    assert!(rec.speedup > 1.0, "recommended speed-up {}", rec.speedup);
    assert!(!r.thesis.is_empty());
    for (row, _) in &r.thesis {
        assert!(
            row.err > TARGET,
            "δ = 0.002 at τ = {:e}: {:e}",
            row.tau,
            row.err
        );
    }
}
