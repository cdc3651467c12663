//! The self-check experiments `reproduce baselines` and `reproduce reference`, through their
//! `compute` and `Results`: the explicit baselines show their claimed orders, and the reference
//! solver meets its tolerance on closed forms.

use host_tests::experiments::{baselines, reference};
use host_tests::measure::baselines::Baseline;

#[test]
fn baselines_experiment_measures_the_claimed_orders() {
    let r = baselines::compute(&baselines::Setup::quick());
    assert_eq!(r.orders.len(), 2 * Baseline::ALL.len());
    for row in &r.orders {
        // The four steps are in the asymptotic range on both systems: slopes within 0.1.
        assert!(
            (row.slope - f64::from(row.claimed)).abs() < 0.1,
            "{} on {}: slope {} vs ORDER {}",
            row.method.name(),
            row.system,
            row.slope,
            row.claimed
        );
    }
    for (m, defect, reversal) in &r.properties {
        // All three are symplectic: the defect is central-difference roundoff (~1e-10).
        assert!(*defect < 1e-9, "{} defect {defect}", m.name());
        // Only Verlet is symmetric: it retraces 1000 steps to roundoff, the Eulers do not.
        if *m == Baseline::Verlet {
            assert!(*reversal < 1e-12, "Verlet reversal {reversal}");
        } else {
            assert!(*reversal > 1e-3, "{} reversal {reversal}", m.name());
        }
    }
    // Verlet's energy error is O(h²) and bounded: the fitted linear trend over the whole run
    // stays below the error's own amplitude (a drifting method fails this).
    let t_end = r.setup.drift_h * r.setup.drift_steps as f64;
    assert!(r.max_energy_error < 1e-4, "max |ΔH| {}", r.max_energy_error);
    assert!(
        r.drift.abs() * t_end < 0.5 * r.max_energy_error,
        "drift slope {} over t = {t_end} vs max |ΔH| {}",
        r.drift,
        r.max_energy_error
    );
}

#[test]
fn reference_experiment_meets_its_tolerance() {
    let r = reference::compute(&reference::Setup::quick());
    // Tolerance 1e-13: the global errors against closed forms stay within 100 times that.
    assert!(r.harmonic_error < 1e-11, "harmonic {}", r.harmonic_error);
    assert!(r.kepler_error < 1e-11, "kepler {}", r.kepler_error);
    assert!((r.period_measured - r.period_closed).abs() < 1e-11);
    // The seed (002 §5) prints the period to 9 decimals: within half a unit of the last one.
    assert!((r.period_closed - 7.416298709).abs() < 5e-10);
    // Energy and the DAE residual of the rigid double pendulum to t = 100.
    assert!(
        r.dp.0 < 1e-11 && r.dp.1 < 1e-11,
        "double pendulum {:?}",
        r.dp
    );
}
