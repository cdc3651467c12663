//! `reproduce baselines`: the measured properties of the explicit baselines (symplectic Euler in
//! both orderings, velocity Verlet) — observed order, symplecticity defect, reversibility and
//! long-run energy drift — against the claims in their `ORDER`/`SYMPLECTIC`/`SYMMETRIC`.
//!
//! The measurements live in [`crate::measure::baselines`], which `tests/baselines.rs` runs at
//! cheaper settings.

use crate::experiments::Experiment;
use crate::fixtures::HenonHeiles;
use crate::measure::baselines::{
    defect_henon_heiles, order_harmonic, order_henon_heiles, reversibility_henon_heiles,
    verlet_energy_drift, Baseline,
};
use crate::report::{figure, sci, Output, Table};
use macrostep::model::Quadratic;

/// The step sizes of the order measurements (each divides `T = 2`).
pub const HS: [f64; 4] = [0.04, 0.02, 0.01, 0.005];

/// The settings of the long Verlet energy run on Hénon–Heiles.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Step of the energy run.
    pub drift_h: f64,
    /// Steps of the energy run.
    pub drift_steps: usize,
    /// Every how many steps the energy is sampled.
    pub drift_every: usize,
}

impl Setup {
    /// `h = 0.05` to `t = 10⁴`.
    pub fn paper() -> Self {
        Self {
            drift_h: 0.05,
            drift_steps: 200_000,
            drift_every: 100,
        }
    }

    /// The same measurements with a ten times shorter energy run (`t = 10³`).
    pub fn quick() -> Self {
        Self {
            drift_steps: 20_000,
            ..Self::paper()
        }
    }
}

/// The order of one method on one system.
#[derive(Clone, Debug)]
pub struct OrderRow {
    /// The method.
    pub method: Baseline,
    /// `"harmonic"` or `"henon-heiles"`.
    pub system: &'static str,
    /// Errors at [`HS`].
    pub errors: Vec<f64>,
    /// Log–log slope of the errors.
    pub slope: f64,
    /// The method's `ORDER` claim.
    pub claimed: u32,
}

/// What the experiment measures.
#[derive(Clone, Debug)]
pub struct Results {
    /// Orders, method by method, harmonic then Hénon–Heiles.
    pub orders: Vec<OrderRow>,
    /// `(method, symplecticity defect, reversibility error)` on Hénon–Heiles.
    pub properties: Vec<(Baseline, f64, f64)>,
    /// Verlet's energy-drift slope on Hénon–Heiles.
    pub drift: f64,
    /// Verlet's largest energy error there.
    pub max_energy_error: f64,
    /// The setup measured.
    pub setup: Setup,
}

impl Results {
    /// The slope of `method` on `system` (NaN if it was not measured).
    pub fn slope(&self, method: Baseline, system: &str) -> f64 {
        self.orders
            .iter()
            .find(|r| r.method == method && r.system == system)
            .map_or(f64::NAN, |r| r.slope)
    }
}

/// Runs every measurement.
pub fn compute(setup: &Setup) -> Results {
    let mut orders = Vec::new();
    for method in Baseline::ALL {
        for (system, (errors, slope), claimed) in [
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
            orders.push(OrderRow {
                method,
                system,
                errors,
                slope,
                claimed,
            });
        }
    }
    let properties = Baseline::ALL
        .iter()
        .map(|&m| {
            let d = defect_henon_heiles(m, 0.1, 10);
            let r = reversibility_henon_heiles(m, 0.05, 1000);
            (m, d, r)
        })
        .collect();
    let (drift, max_energy_error) =
        verlet_energy_drift(setup.drift_h, setup.drift_steps, setup.drift_every);
    Results {
        orders,
        properties,
        drift,
        max_energy_error,
        setup: *setup,
    }
}

/// Prints the tables and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let table = Table::new(out, &["method", "system", "h", "error", "slope", "ORDER"]);
    for row in &r.orders {
        for (h, err) in HS.iter().zip(&row.errors) {
            table.row(&[
                row.method.name().into(),
                row.system.into(),
                format!("{h}"),
                sci(*err),
                format!("{:.3}", row.slope),
                format!("{}", row.claimed),
            ]);
        }
    }
    crate::say!(out);
    let table = Table::new(out, &["method", "defect", "reversibility"]);
    for (m, d, rev) in &r.properties {
        table.row(&[m.name().into(), sci(*d), sci(*rev)]);
    }
    let t_end = r.setup.drift_h * r.setup.drift_steps as f64;
    crate::say!(out);
    crate::say!(
        out,
        "Verlet on Henon-Heiles, h = {}, t = {t_end}: energy-drift slope {:.3e}, max |ΔH| {:.3e}",
        r.setup.drift_h,
        r.drift,
        r.max_energy_error
    );
    crate::say!(out);
    figures(r);
}

/// The `figure` lines.
fn figures(r: &Results) {
    let henon = "henon-heiles";
    figure("baselines.verlet.order", r.slope(Baseline::Verlet, henon));
    figure(
        "baselines.verlet.order_harmonic",
        r.slope(Baseline::Verlet, "harmonic"),
    );
    figure(
        "baselines.symplectic_euler.order",
        r.slope(Baseline::EulerKickDrift, henon),
    );
    figure(
        "baselines.symplectic_euler.order_drift_kick",
        r.slope(Baseline::EulerDriftKick, henon),
    );
    figure(
        "baselines.symplectic_euler.order_harmonic",
        r.slope(Baseline::EulerKickDrift, "harmonic"),
    );
    for (m, d, rev) in &r.properties {
        let key = match m {
            Baseline::Verlet => "verlet",
            Baseline::EulerKickDrift => "symplectic_euler",
            Baseline::EulerDriftKick => "symplectic_euler_drift_kick",
        };
        figure(&format!("baselines.{key}.defect"), *d);
        figure(&format!("baselines.{key}.reversibility"), *rev);
    }
    figure("baselines.verlet.energy_drift_slope", r.drift);
    figure("baselines.verlet.energy_error_max", r.max_energy_error);
}

/// `reproduce baselines` (`--quick`: the shorter energy run).
pub struct BaselinesExperiment;

impl Experiment for BaselinesExperiment {
    const NAME: &'static str = "baselines";
    const SEED: &'static str = "(self-check)";
    const SECONDS: f64 = 0.0;
    const ABOUT: &'static str =
        "order, symplecticity, reversibility, energy drift of symplectic Euler and Verlet";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
