//! The table, figures and chart of `reproduce arm-peers`.

use super::{Results, MODEL_TOL};
#[cfg(test)]
use crate::experiments::peers::report::Entry;
use crate::experiments::peers::report::{self, Layout};
use crate::plot::Chart;
use crate::report::{figure, sci, Output};
use crate::say;

/// The penalty methods' keys, Z&S (the base of the `÷` column) first.
const PENALTY_KEYS: [&str; 2] = ["zs", "sylipn"];

/// Every method's entry at every target: penalty methods, exact-joint methods and peers,
/// MuJoCo's integrators.
#[cfg(test)]
pub fn entries(r: &Results) -> Vec<Entry> {
    report::entries(&r.comparison.compared(&r.targets), PENALTY_KEYS)
}

/// Prints everything.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "planar 3-link arm (planar_arm3.urdf), from the build pose at rest, g = 9.81, T = {}: \
         cost = median thread CPU per simulated second at the coarsest setting meeting each target",
        r.span
    );
    say!(
        out,
        "reference: DOP853 1e-13 on the articulated-body chain; against 1e-12: {}; the arm \
         swings to {:.2} rad at a joint",
        sci(r.reference_check),
        r.max_angle
    );
    figure("arm-peers.reference_check", r.reference_check);
    figure("arm-peers.max_angle", r.max_angle);
    for (w, me) in &r.comparison.model_errors {
        say!(out, "penalty ω = {w}: model error {}", sci(*me));
    }
    report::model_tol_check("arm-peers", &r.model_tol_check, MODEL_TOL, out);
    let layout = Layout {
        prefix: "arm-peers".into(),
        penalty_keys: PENALTY_KEYS,
        base_header: "÷ Z&S",
        cost_header: "µs CPU / sim s",
        cost_scale: 1e6,
        cost_figure: "cpu_us_per_sim_s",
        speedups: true,
    };
    let chart = Chart {
        stem: "arm-peers.work_precision".into(),
        title: format!(
            "3-link arm (URDF), free swing: joint-angle error, T = {}",
            r.span
        ),
        x_label: "thread CPU seconds per simulated second (one sample per point)".into(),
        y_label: "max |θ − θ_ref| over joints and outputs [rad]".into(),
        log_x: true,
        log_y: true,
        series: Vec::new(),
    };
    report::report(&r.comparison.compared(&r.targets), &layout, chart, out);
}
