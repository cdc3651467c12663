//! The tables, `figure` lines and Fig 2.2 chart of `reproduce flavor-stability`, read from
//! [`Results`].

use super::{compute, FlavorStabilityExperiment, Results, Setup};
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::{figure, figure_int, sci, Output, Table};

/// Prints the thresholds of system 2.93 at the headline τ.
fn report_thresholds(r: &Results, out: &Output) {
    let worst = r.matrix_rel_diff;
    crate::say!(
        out,
        "step matrices vs the thesis's eqs 2.94/2.97: max relative difference {worst:.2e}"
    );
    figure("flavor-stability.matrix_rel_diff", worst);
    let (thr, predicted) = (r.nonintrusive, r.nonintrusive_predicted);
    crate::say!(
        out,
        "nonintrusive, tau = 1e-6: threshold {thr:.6} (theory 2; 2 − τω²/2 = {predicted:.6}; \
         rel. diff {:.2e})",
        (thr - predicted).abs() / predicted
    );
    figure("flavor-stability.nonintrusive.threshold", thr);
    figure(
        "flavor-stability.nonintrusive.threshold_rel_err_vs_2",
        (thr - 2.0).abs() / 2.0,
    );
    figure(
        "flavor-stability.nonintrusive.threshold_rel_err_vs_expansion",
        (thr - predicted).abs() / predicted,
    );
    figure_count(
        "flavor-stability.nonintrusive.unstable_below_threshold",
        r.nonintrusive_unstable_below,
    );
    let thr_a = r.artificial;
    let exact = 2.0 * 2f64.sqrt();
    crate::say!(
        out,
        "artificial, tau = 1e-6: threshold {thr_a:.6} (theory 2√2 = {exact:.6}; rel. diff {:.2e})",
        (thr_a - exact).abs() / exact
    );
    figure("flavor-stability.artificial.threshold", thr_a);
    figure(
        "flavor-stability.artificial.threshold_rel_err",
        (thr_a - exact).abs() / exact,
    );
    figure_count(
        "flavor-stability.artificial.unstable_below_threshold",
        r.artificial_unstable_below,
    );
}

/// Prints Fig 2.2: the nonintrusive threshold shrinks as τω² grows.
fn report_fig2_2(r: &Results, out: &Output) {
    crate::say!(
        out,
        "\nFig 2.2 (omega = 100): largest stable delta against tau"
    );
    let table = Table::new(
        out,
        &[
            "tau",
            "tau*w^2",
            "nonintrusive",
            "2-tw^2/2",
            "2/(tau w^2)",
            "artificial",
        ],
    );
    for row in &r.fig2_2 {
        let t = row.tau;
        let tw = t * r.omega * r.omega;
        table.row(&[
            sci(t),
            sci(tw),
            format!("{:.6}", row.nonintrusive),
            format!("{:.6}", 2.0 - tw / 2.0),
            format!("{:.6}", 2.0 / tw),
            format!("{:.6}", row.artificial),
        ]);
        let exp = -(t.log10().round() as i32);
        figure(
            &format!("flavor-stability.nonintrusive.threshold_tau_1e-{exp}"),
            row.nonintrusive,
        );
        figure(
            &format!("flavor-stability.artificial.threshold_tau_1e-{exp}"),
            row.artificial,
        );
    }
}

/// Prints the Fig 2.4 setting on 2.100 (ε = 10⁻⁶, δ = 0.01, τ = 5·10⁻⁴).
fn report_fig2_4(r: &Results, out: &Output) {
    crate::say!(
        out,
        "\nFig 2.4 setting (system 2.100 linearised, eps = 1e-6):"
    );
    let (lmax, w2max, rho_fig) = (r.lambda_max, r.omega2_max, r.rho_fig2_4);
    crate::say!(
        out,
        "  lambda_max = {lmax:.4}, omega_max^2 = {w2max:.4e}, delta*tau*omega^2 = {:.3}; \
         spectral radius at the thesis's parameters: {rho_fig:.4}",
        0.01 * 5e-4 * w2max
    );
    figure(
        "flavor-stability.fig2_4.delta_tau_omega2",
        0.01 * 5e-4 * w2max,
    );
    figure("flavor-stability.fig2_4.rho", rho_fig);
    let (dmax, tmax) = (r.delta_max, r.tau_max);
    crate::say!(
        out,
        "  stable range: delta < {dmax:.4e} at tau = 5e-4 (bound 4/(tau w^2) = {:.4e}); \
         tau < {tmax:.4e} at delta = 0.01 (bound {:.4e})",
        4.0 / (5e-4 * w2max),
        4.0 / (0.01 * w2max)
    );
    figure("flavor-stability.fig2_4.delta_max_at_tau_5e-4", dmax);
    figure("flavor-stability.fig2_4.tau_max_at_delta_0.01", tmax);
}

/// Prints the table, the chart (`--plot`, `--csv`) and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    report_thresholds(r, out);
    report_fig2_2(r, out);
    report_fig2_4(r, out);
    chart(r, out);
}

fn figure_count(name: &str, n: usize) {
    figure_int(name, n as i64);
}

impl Experiment for FlavorStabilityExperiment {
    const NAME: &'static str = "flavor-stability";
    const SEED: &'static str = "004 Thm 2.5.1, Fig 2.2";
    const SECONDS: f64 = 0.0;
    const ABOUT: &'static str =
        "FLAVOR linear stability: Theorem 2.5.1 and Fig 2.2 on system 2.93 (004 §2.5.1)";
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

/// 004 Fig 2.2: the largest stable δ against τω² for both FLAVORs on system 2.93, with the
/// limits of Theorem 2.5.1 (δ < 2 nonintrusive, δ < 2√2 artificial, as τω² → 0).
fn chart(r: &Results, out: &Output) {
    let w2 = r.omega * r.omega;
    let x = |tau: f64| tau * w2;
    let rows = &r.fig2_2;
    let limit = |v: f64| rows.iter().map(|row| (x(row.tau), v)).collect();
    emit(
        out,
        &Chart {
            stem: "flavor-stability.fig2_2".into(),
            title: format!(
                "004 Fig 2.2: FLAVOR stability on system 2.93 (ω = {}): stable below each curve",
                r.omega
            ),
            x_label: "τω² = τ/ε, micro-step × stiffness (log scale)".into(),
            y_label: "largest stable mesostep δ (log scale)".into(),
            log_x: true,
            log_y: true,
            // The limits first, so the measured curves are drawn over them.
            series: vec![
                Series::new("Thm 2.5.1 limit τω² → 0, nonintrusive: δ = 2", limit(2.0)),
                Series::new(
                    "Thm 2.5.1 limit τω² → 0, artificial: δ = 2√2 (under the measured curve)",
                    limit(2.0 * 2f64.sqrt()),
                ),
                Series::new(
                    "nonintrusive FLAVOR (spectral radius of the step matrix)",
                    rows.iter()
                        .map(|row| (x(row.tau), row.nonintrusive))
                        .collect(),
                ),
                Series::new(
                    "artificial FLAVOR (spectral radius of the step matrix)",
                    rows.iter()
                        .map(|row| (x(row.tau), row.artificial))
                        .collect(),
                ),
            ],
        },
    );
}
