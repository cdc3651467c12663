//! The tables, charts and `figure` lines of `reproduce flavor-3dof`.

use super::{compute, Fig25aRow, Flavor3DofExperiment, Results, Setup};
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::{figure, sci, Output, Table};

fn report_tau(r: &Results, out: &Output) {
    crate::say!(
        out,
        "reference: DOP853 rtol = atol = 1e-11, sampled every {} ({:.1} s)",
        r.dt_ref,
        r.reference_seconds
    );
    crate::say!(
        out,
        "\nslow variable (x+y+z)/3, delta = 0.01, eps = 1e-6, T = 50: choice of tau"
    );
    let table = Table::new(
        out,
        &[
            "tau",
            "d*t*w^2",
            "slow_err_max",
            "slow_err_int_t",
            "fast_rel_err",
        ],
    );
    for row in &r.tau_rows {
        let a = row.accuracy;
        table.row(&[
            sci(row.tau),
            format!("{:.3}", row.dtw2),
            sci(a.slow_err_max),
            sci(a.slow_err_int_t),
            sci(a.fast_rel_err),
        ]);
    }
    crate::say!(
        out,
        "slow_err_max is the max over every mesostep (t = k·delta); slow_err_int_t over integer \
         t only, as the thesis samples"
    );
    crate::say!(out, "chosen tau = {:e} (smallest slow error)", r.tau);
    figure("flavor-3dof.tau", r.tau);
    figure("flavor-3dof.delta", r.delta);
    figure("flavor-3dof.slow_err_max", r.accuracy.slow_err_max);
    figure(
        "flavor-3dof.slow_err_max_integer_t",
        r.accuracy.slow_err_int_t,
    );
    figure("flavor-3dof.fast_window_rel_err", r.accuracy.fast_rel_err);
}

fn report_fig2_5(r: &Results, out: &Output) {
    crate::say!(
        out,
        "\nFig 2.5a: |window mean of q over [T-1, T]| error against delta (tau = 1e-5, T = 10); \
         slow = window mean of (x+y+z)/3, fast = the rest of q, phi = fast phase the FLAVOR \
         covers in the window"
    );
    let table = Table::new(out, &["M", "delta", "error (q)", "slow", "fast", "phi"]);
    for row in &r.fig2_5a {
        table.row(&[
            row.m.to_string(),
            sci(row.delta),
            sci(row.err),
            sci(row.slow),
            sci(row.fast),
            format!("{:.2}", row.phi),
        ]);
    }
    let (slope, slope_all, slope_slow) = (r.delta_slope, r.delta_slope_all, r.delta_slope_slow);
    crate::say!(
        out,
        "log-log slope of error against delta: q (the thesis's norm) {slope:.3} on M = 25..400 \
         ({slope_all:.3} on M = 50..1600, where the fast part's residual takes over); slow \
         variable {slope_slow:.3} on M = 25..1600 (first order: 1)"
    );
    figure("flavor-3dof.delta_slope", slope);
    figure("flavor-3dof.delta_slope_slow", slope_slow);
    crate::say!(out, "\nFig 2.5c: slow error (T = 10) against omega = eps^-1/2 at delta = 0.01, tau = 0.05/omega");
    let table = Table::new(out, &["omega", "tau", "slow_err_max"]);
    for &(w, tau_w, e) in &r.fig2_5c {
        table.row(&[format!("{w}"), sci(tau_w), sci(e)]);
    }
    let wslope = r.omega_slope;
    crate::say!(
        out,
        "log-log slope of error against omega: {wslope:.3} (not growing: <= 0)"
    );
    figure("flavor-3dof.omega_slope", wslope);
    let errs = &r.fig2_5c;
    figure(
        "flavor-3dof.omega_err_ratio",
        errs[errs.len() - 1].2 / errs[0].2,
    );
}

fn report_speed(r: &Results, out: &Output) {
    let (t_legacy, t_flavor, delta, tau) = (r.t_legacy, r.t_flavor, r.delta, r.tau);
    crate::say!(
        out,
        "\nthread CPU time over T = 50: symplectic Euler at tau {t_legacy:.4} s, FLAVOR {t_flavor:.5} s \
         (delta/tau = {:.0})",
        delta / tau
    );
    // Not at equal accuracy: the legacy map runs at the micro-step τ (the equal-error
    // comparison is `work_precision.trimer.*`). Both names print the same value:
    // `flavor-3dof.speedup` is a published name (names are stable), the second says what it is.
    figure("flavor-3dof.speedup", t_legacy / t_flavor);
    figure("flavor-3dof.speedup_vs_legacy_at_tau", t_legacy / t_flavor);
    let (fused, t_fused) = r.fused;
    crate::say!(
        out,
        "fused FLAVOR (on: drift-kick 2.50, off: kick-drift 2.49): slow_err_max {:.3e}, \
         fast_rel_err {:.3e}, {t_fused:.5} s, speed-up {:.0} = {:.2}·delta/tau",
        fused.slow_err_max,
        fused.fast_rel_err,
        t_legacy / t_fused,
        t_legacy / t_fused / (delta / tau)
    );
    figure("flavor-3dof.fused.slow_err_max", fused.slow_err_max);
    figure("flavor-3dof.fused.fast_window_rel_err", fused.fast_rel_err);
    figure("flavor-3dof.fused.speedup", t_legacy / t_fused);
    figure(
        "flavor-3dof.fused.speedup_vs_legacy_at_tau",
        t_legacy / t_fused,
    );
    let (zs, t_zs, t_zs_legacy) = r.zs;
    crate::say!(
        out,
        "FLAVOR over Z&S (Switched::new, stiffness set through system_mut): slow_err_max \
         {:.3e}, fast_rel_err {:.3e}; Z&S at tau {t_zs_legacy:.4} s, FLAVOR {t_zs:.5} s, \
         speed-up {:.0}",
        zs.slow_err_max,
        zs.fast_rel_err,
        t_zs_legacy / t_zs
    );
    figure("flavor-3dof.zs.slow_err_max", zs.slow_err_max);
    figure("flavor-3dof.zs.fast_window_rel_err", zs.fast_rel_err);
    figure("flavor-3dof.zs.speedup", t_zs_legacy / t_zs);
    figure(
        "flavor-3dof.zs.speedup_vs_legacy_at_tau",
        t_zs_legacy / t_zs,
    );
}

/// Prints the tables, the charts (`--plot`, `--csv`) and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    report_tau(r, out);
    report_fig2_5(r, out);
    report_speed(r, out);
    charts(r, out);
}

/// 004 Figs 2.4 (slow variable over time), 2.5a (error against δ), 2.5b (error over time) and
/// 2.5c (error against ω) for `flavor-3dof`.
fn charts(r: &Results, out: &Output) {
    let flavor = format!(
        "FLAVOR over symplectic Euler, δ = {}, τ = {:e}",
        r.delta, r.tau
    );
    let curve = |col: usize| r.slow_curve.iter().map(|p| (p[0], p[col])).collect();
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.slow".into(),
            title: "004 Fig 2.4: slow variable of system 2.100 (ε = 1e-6), FLAVOR vs reference"
                .into(),
            x_label: "time t".into(),
            y_label: "slow variable (x + y + z)/3".into(),
            log_x: false,
            log_y: false,
            // The reference first, so the FLAVOR curve is drawn over it.
            series: vec![
                Series::new("reference (DOP853, rtol = atol = 1e-11)", curve(2)),
                Series::new(flavor.clone(), curve(1)),
            ],
        },
    );
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.slow_error".into(),
            title: "004 Fig 2.5b: FLAVOR error on the slow variable over time (system 2.100)"
                .into(),
            x_label: "time t".into(),
            y_label: "|slow(FLAVOR) − slow(reference)|, slow = (x + y + z)/3 (log scale)".into(),
            log_x: false,
            log_y: true,
            series: vec![Series::new(
                flavor,
                // t = 0 is exact: left out of the log plot.
                r.slow_curve
                    .iter()
                    .skip(1)
                    .map(|p| (p[0], (p[1] - p[2]).abs()))
                    .collect(),
            )],
        },
    );
    fig2_5a(r, out);
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.fig2_5c".into(),
            title: "004 Fig 2.5c: FLAVOR error does not grow with the stiffness ω".into(),
            x_label: "ω = ε^(-1/2) (log scale)".into(),
            y_label: "max over t ≤ 10 of the slow-variable error (log scale)".into(),
            log_x: true,
            log_y: true,
            series: vec![Series::new(
                "FLAVOR over symplectic Euler, δ = 0.01, τ = 0.05/ω",
                r.fig2_5c.iter().map(|&(w, _, e)| (w, e)).collect(),
            )],
        },
    );
}

/// 004 Fig 2.5a: error of the window mean of q against δ, split into its slow and fast parts.
fn fig2_5a(r: &Results, out: &Output) {
    let rows = &r.fig2_5a;
    let pts = |f: fn(&Fig25aRow) -> f64| -> Vec<(f64, f64)> {
        rows.iter().map(|row| (row.delta, f(row))).collect()
    };
    // A first-order guide through the coarsest point of the q error.
    let guide = match rows.first() {
        Some(first) => pts(|row| row.delta)
            .into_iter()
            .map(|(d, _)| (d, first.err * d / first.delta))
            .collect(),
        None => vec![],
    };
    emit(
        out,
        &Chart {
            stem: "flavor-3dof.fig2_5a".into(),
            title: "004 Fig 2.5a: error against δ, first order until the fast residual takes over"
                .into(),
            x_label: "mesostep δ = 1/M (log scale)".into(),
            y_label: "error of the M-sample mean over [T − 1, T], T = 10 (log scale)".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series::new(
                    "q = (x, y, z), Euclidean norm (the thesis's)",
                    pts(|row| row.err),
                ),
                Series::new("slow part (x + y + z)/3", pts(|row| row.slow)),
                Series::new("fast part (the rest of q)", pts(|row| row.fast)),
                Series::new("slope 1 (guide)", guide),
            ],
        },
    );
}

impl Experiment for Flavor3DofExperiment {
    const NAME: &'static str = "flavor-3dof";
    const SEED: &'static str = "004 §2.6.2 Fig 2.5";
    const SECONDS: f64 = 15.0;
    const ABOUT: &'static str =
        "nonintrusive FLAVOR on the 3-DOF system 2.100: slow/fast accuracy, Fig 2.5, speed-up";
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
