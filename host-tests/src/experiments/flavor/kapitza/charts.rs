//! The charts of `reproduce kapitza`: the window error of the FLAVOR and of the legacy
//! integrator against τ, and the averaging error of the slowed pendulum against R = δ/τ. The
//! run keeps window errors, not θ(t), so the thesis's trajectory panel (Fig 2.17) is not drawn.

use super::{KapitzaExperiment, Results};
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::Output;

/// The y label of both charts.
const WINDOW_ERR: &str = "max |window mean of θ − reference| [rad]";

/// Writes the charts `out` asks for.
pub fn charts(r: &Results, out: &Output) {
    let name = KapitzaExperiment::NAME;
    let flavor: Vec<(f64, f64)> = r.thesis.iter().map(|(row, _)| (row.tau, row.err)).collect();
    emit(
        out,
        &Chart {
            stem: format!("{name}.window_error_vs_tau"),
            title: format!(
                "Kapitza pendulum (004 §2.6.6), ω = {}: window error vs micro-step τ",
                r.model.omega()
            ),
            x_label: "micro-step τ [s]".into(),
            y_label: WINDOW_ERR.into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series::new(
                    "variational Euler + d'Alembert at step τ (legacy)",
                    r.legacy.iter().map(|&(_, tau, e)| (tau, e)).collect(),
                ),
                Series::new(
                    "FLAVOR (004 eq 2.115), δ = 0.002 (thesis); runs that fell are not drawn",
                    flavor,
                ),
            ],
        },
    );
    let mut series = vec![Series::new(
        format!("ω = {}", r.model.omega()),
        r.averaging
            .iter()
            .map(|&(ratio, _, e)| (ratio, e))
            .collect(),
    )];
    series.extend(
        r.averaging_omega
            .iter()
            // The model's own ω is the first series already.
            .filter(|(w, _)| *w != r.model.omega())
            .map(|(w, errs)| Series::new(format!("ω = {w}"), errs.clone())),
    );
    emit(
        out,
        &Chart {
            stem: format!("{name}.averaging_error_vs_ratio"),
            title: "Kapitza pendulum: slowed (δ → 0 limit of the FLAVOR) vs true pendulum".into(),
            x_label: "R = δ/τ [1]".into(),
            y_label: WINDOW_ERR.into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
}
