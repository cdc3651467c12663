//! The `--plot` and `--csv` outputs of `reproduce work-precision`: one log–log chart per
//! problem (error against cost, one curve per method, the failure step in the legend) and one
//! CSV per problem with every sweep point (parameter, error — `inf` for a failed run — and cost).

use super::search::{Curve, Study};
use crate::csv::{self, Column};
use crate::plot::{self, Chart, Series};
use crate::report::Output;

/// The legend: the label, and where the method's sweep failed (the coarsest step that ran
/// without failing is above the finest failing one only for non-monotone failures).
fn legend(c: &Curve) -> String {
    let failed = c
        .points
        .iter()
        .filter(|p| p.failure.is_some())
        .map(|p| p.p)
        .fold(f64::INFINITY, f64::min);
    if failed.is_finite() {
        format!("{} (fails at {} ≥ {failed:.3e})", c.label, c.param_name)
    } else {
        c.label.to_string()
    }
}

/// Writes the chart and the sweep CSV of `s` where the options ask for them.
pub fn emit(s: &Study, out: &Output) {
    let series = s
        .curves
        .iter()
        .map(|c| Series {
            label: legend(c),
            points: c
                .points
                .iter()
                .filter(|p| p.failure.is_none())
                .map(|p| (p.cost, p.err))
                .collect(),
        })
        .collect();
    plot::emit(
        out,
        &Chart {
            stem: format!("work_precision.{}", s.key),
            title: s.title.clone(),
            x_label: "CPU seconds per unit simulated time (median)".into(),
            y_label: s.error_label.into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
    if let Some(dir) = &out.csv {
        let cols: Vec<(String, Vec<f64>)> = s
            .curves
            .iter()
            .flat_map(|c| {
                [
                    (
                        format!("{} {}", c.key, c.param_name),
                        c.points.iter().map(|p| p.p).collect(),
                    ),
                    (
                        format!("{} error", c.key),
                        c.points.iter().map(|p| p.err).collect(),
                    ),
                    (
                        format!("{} cost", c.key),
                        c.points.iter().map(|p| p.cost).collect(),
                    ),
                ]
            })
            .collect();
        let columns: Vec<Column<'_>> = cols
            .iter()
            .map(|(n, v)| Column { name: n, values: v })
            .collect();
        let file = format!("work_precision.{}.points.csv", s.key);
        if let Err(e) = csv::write(dir, &file, &columns) {
            eprintln!("warning: could not write {file}: {e}");
        }
    }
}
