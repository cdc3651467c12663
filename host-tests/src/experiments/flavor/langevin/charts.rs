//! The charts of `reproduce flavor-langevin`: how far the FLAVOR's moments sit from GLA's, in
//! standard errors, over the δ/τ study (§2.6.9) and over ω. The run keeps these maxima, not the
//! moment curves, so the thesis's moment-vs-time panels (Fig 2.20–2.21) are not drawn.

use super::{FlavorLangevinExperiment, Results};
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::Output;

/// The y label of both charts.
const Z: &str = "max over t of |E_FLAVOR − E_GLA| / standard error [1]";

/// The `|z| = 3` line over `[lo, hi]`.
fn three_se(lo: f64, hi: f64) -> Series {
    Series::new("3 standard errors", vec![(lo, 3.0), (hi, 3.0)])
}

/// The x range of `xs`.
fn span(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    })
}

/// Writes the charts `out` asks for.
pub fn charts(r: &Results, out: &Output) {
    let name = FlavorLangevinExperiment::NAME;
    // One series per δ: the study varies τ at a few fixed δ.
    let mut deltas: Vec<f64> = r.study.iter().map(|s| s.delta).collect();
    deltas.sort_by(f64::total_cmp);
    deltas.dedup();
    let mut series = vec![];
    for (what, z) in [
        (
            "E[x − y], E[(x − y)²]",
            (|s: &super::StudyRow| s.xy.0) as fn(&_) -> f64,
        ),
        ("E[x], E[x²]", |s: &super::StudyRow| s.x),
    ] {
        for &d in &deltas {
            let pts = r
                .study
                .iter()
                .filter(|s| s.delta == d)
                .map(|s| (s.delta / s.tau, z(s)))
                .collect();
            series.push(Series::new(format!("{what}, δ = {d:e}"), pts));
        }
    }
    let (lo, hi) = span(r.study.iter().map(|s| s.delta / s.tau));
    series.push(three_se(lo, hi));
    emit(
        out,
        &Chart {
            stem: format!("{name}.study_delta_over_tau"),
            title: format!(
                "004 §2.6.9: Langevin FLAVOR vs reference GLA, ω = 100, {} paths",
                r.paths
            ),
            x_label: "mesostep / microstep δ/τ [1]".into(),
            y_label: Z.into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
    let omega =
        |f: fn(&super::OmegaRow) -> f64| r.omega_study.iter().map(|w| (w.omega, f(w))).collect();
    let (lo, hi) = span(r.omega_study.iter().map(|w| w.omega));
    emit(
        out,
        &Chart {
            stem: format!("{name}.study_omega"),
            title: format!(
                "004 §2.6.9 at δ/τ = 100, τ = 0.2/ω²: FLAVOR vs GLA over ω, {} paths",
                r.paths
            ),
            x_label: "stiffness ω [rad/s]".into(),
            y_label: Z.into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series::new("E[x − y], E[(x − y)²]", omega(|w| w.z.0)),
                Series::new("E[x], E[x²]", omega(|w| w.z.1)),
                three_se(lo, hi),
            ],
        },
    );
}
