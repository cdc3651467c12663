//! `reproduce baselines`: the measured properties of the explicit baselines (symplectic Euler in
//! both orderings, velocity Verlet) — observed order, symplecticity defect, reversibility and
//! long-run energy drift — against the claims in their `ORDER`/`SYMPLECTIC`/`SYMMETRIC`.
//!
//! The measurements live in [`crate::measure::baselines`], which `tests/baselines.rs` runs at
//! cheaper settings.

use crate::fixtures::HenonHeiles;
use crate::measure::baselines::{
    defect_henon_heiles, order_harmonic, order_henon_heiles, reversibility_henon_heiles,
    verlet_energy_drift, Baseline,
};
use crate::report::{figure, sci, Table};
use macrostep::model::Quadratic;

/// The step sizes of the order measurements (each divides `T = 2`).
pub const HS: [f64; 4] = [0.04, 0.02, 0.01, 0.005];

/// Runs the experiment.
pub fn run() {
    let table = Table::new(&["method", "system", "h", "error", "slope", "ORDER"]);
    let mut slopes = Vec::new();
    for method in Baseline::ALL {
        for (sysname, (e, slope), order) in [
            (
                "harmonic",
                order_harmonic::<f64>(method, &HS),
                method.claimed_order::<f64, Quadratic<f64, 1>, 1>(),
            ),
            (
                "henon-heiles",
                order_henon_heiles::<f64>(method, &HS),
                method.claimed_order::<f64, HenonHeiles, 2>(),
            ),
        ] {
            for (h, err) in HS.iter().zip(&e) {
                table.row(&[
                    method.name().into(),
                    sysname.into(),
                    format!("{h}"),
                    sci(*err),
                    format!("{slope:.3}"),
                    format!("{order}"),
                ]);
            }
            slopes.push((method, sysname, slope));
        }
    }
    crate::say!();
    let table = Table::new(&["method", "defect", "reversibility"]);
    let mut props = Vec::new();
    for method in Baseline::ALL {
        let d = defect_henon_heiles(method, 0.1, 10);
        let r = reversibility_henon_heiles(method, 0.05, 1000);
        table.row(&[method.name().into(), sci(d), sci(r)]);
        props.push((method, d, r));
    }
    let (drift, max_de) = verlet_energy_drift(0.05, 200_000, 100);
    crate::say!();
    crate::say!("Verlet on Henon-Heiles, h = 0.05, t = 10^4: energy-drift slope {drift:.3e}, max |ΔH| {max_de:.3e}");
    crate::say!();
    let slope = |m: Baseline, s: &str| {
        slopes
            .iter()
            .find(|(a, b, _)| *a == m && *b == s)
            .map(|x| x.2)
            .unwrap_or(f64::NAN)
    };
    figure(
        "baselines.verlet.order",
        slope(Baseline::Verlet, "henon-heiles"),
    );
    figure(
        "baselines.verlet.order_harmonic",
        slope(Baseline::Verlet, "harmonic"),
    );
    figure(
        "baselines.symplectic_euler.order",
        slope(Baseline::EulerKickDrift, "henon-heiles"),
    );
    figure(
        "baselines.symplectic_euler.order_drift_kick",
        slope(Baseline::EulerDriftKick, "henon-heiles"),
    );
    figure(
        "baselines.symplectic_euler.order_harmonic",
        slope(Baseline::EulerKickDrift, "harmonic"),
    );
    for (m, d, r) in &props {
        let key = match m {
            Baseline::Verlet => "verlet",
            Baseline::EulerKickDrift => "symplectic_euler",
            Baseline::EulerDriftKick => "symplectic_euler_drift_kick",
        };
        figure(&format!("baselines.{key}.defect"), *d);
        figure(&format!("baselines.{key}.reversibility"), *r);
    }
    figure("baselines.verlet.energy_drift_slope", drift);
    figure("baselines.verlet.energy_error_max", max_de);
}
