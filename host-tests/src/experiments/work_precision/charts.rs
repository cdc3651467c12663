//! The `--plot` and `--csv` outputs of `reproduce work-precision` (and its ω and chain
//! variants): one log–log chart per problem (error against cost, one curve per method, the
//! failure step in the legend) and one long CSV per problem with every sweep point (error —
//! `inf` for a failed run — against the method's step or tolerance).

use super::search::{Curve, Study};
use crate::plot::{self, Chart, Series};
use crate::report::Output;

/// A method key as a reader knows the method (legends of the ratio and cap charts).
pub fn human(key: &str) -> &str {
    match key {
        "zs" => "Z&S",
        "sylipn" => "Z&Ss",
        "stiff_sylipn" => "stiff Z&Ss",
        "zs4" => "Z&S4",
        "newmark" => "Newmark",
        "verlet" => "Velocity Verlet",
        "rattle" => "RATTLE",
        "shake" => "SHAKE",
        "reich4" => "Reich4",
        "dop853_angles" => "DOP853",
        "dop853_aba" => "DOP853 (O(n) chain)",
        "radau5_penalty" => "Radau5",
        other => other,
    }
}

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
        format!("{} (fails at {} ≥ {failed:.2e})", c.label, c.param_name)
    } else {
        c.label.to_string()
    }
}

/// Writes the chart and the sweep CSV of `s` of experiment `experiment` where the options ask
/// for them.
pub fn emit(experiment: &str, s: &Study, out: &Output) {
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
            stem: format!("{experiment}.{}", s.key),
            title: s.title.clone(),
            x_label: "CPU time per unit simulated time [s/s] (median)".into(),
            y_label: s.error_label.into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
    if let Some(dir) = &out.csv {
        let pts: Vec<(String, Vec<(f64, f64)>)> = s
            .curves
            .iter()
            .map(|c| {
                (
                    format!("{} [{}]", c.label, c.param_name),
                    c.points.iter().map(|p| (p.p, p.err)).collect(),
                )
            })
            .collect();
        let series: Vec<(&str, &[(f64, f64)])> = pts
            .iter()
            .map(|(l, p)| (l.as_str(), p.as_slice()))
            .collect();
        let text = crate::csv::long_to_string(
            experiment,
            "the method's step h or tolerance tol (series name)",
            &format!("{} (inf: the run failed)", s.error_label),
            &series,
        );
        let file = format!("{experiment}.{}_sweep.csv", s.key);
        if let Err(e) =
            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(&file), text))
        {
            eprintln!("warning: could not write {file}: {e}");
        }
    }
}
