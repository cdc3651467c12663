//! The tables, figure lines and chart of `reproduce lc-circuit`.

use super::model::{KT, R_GIBBS};
use super::{compute, LcCircuitExperiment, Results, Setup, Stat};
use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::plot::{self, Chart, Series};
use crate::report::{figure, sci, Output, Table};

/// Prints the tables, the figure lines and the Fig 7.2 chart.
pub fn report(r: &Results, out: &Output) {
    let setup = &r.setup;
    report_fig72(setup, r, out);
    report_orders(setup, r, out);
    report_gibbs(setup, r, out);
    report_structure_and_flavor(setup, r, out);
    chart(r, out);
    flavor_chart(
        &r.flavor[0],
        "fig73_seed",
        "as printed: eps = 1e-3, delta = 1e-3, q0 = (1, 0)",
        out,
    );
    flavor_chart(
        &r.flavor[1],
        "fig73",
        "in FLAVOR's regime: eps = 1e-6, tau = 1e-4, delta = 1e-2, q0 = (0, 1)",
        out,
    );
}

fn report_fig72(setup: &Setup, r: &Results, out: &Output) {
    crate::say!(
        out,
        "004 §7.1.6 Fig 7.2: Var p1, Var p2 (Σ = 0.01, h = {}, {} paths)",
        setup.h,
        setup.paths
    );
    let t = Table::new(
        out,
        &[
            "t",
            "Var p1 exact",
            "Var p1 MC",
            "± se",
            "Var p2 exact",
            "Var p2 MC",
            "± se",
        ],
    );
    let every = (r.times.len() / 10).max(1);
    for (k, (time, v)) in r.times.iter().zip(&r.var).enumerate() {
        if (k + 1) % every == 0 {
            t.row(&[
                format!("{time:.1}"),
                sci(v[0].exact),
                sci(v[0].mc),
                sci(v[0].se),
                sci(v[1].exact),
                sci(v[1].mc),
                sci(v[1].se),
            ]);
        }
    }
    if let Some(last) = r.var.last() {
        for (i, name) in ["p1", "p2"].iter().enumerate() {
            figure(&format!("lc-circuit.fig72.var_{name}_exact"), last[i].exact);
            figure(&format!("lc-circuit.fig72.var_{name}_mc"), last[i].mc);
            figure(&format!("lc-circuit.fig72.var_{name}_se"), last[i].se);
        }
    }
    figure("lc-circuit.fig72.max_z_scheme", r.max_z_scheme);
    figure("lc-circuit.fig72.max_rel_bias", r.max_rel_bias);
    figure("lc-circuit.fig72.max_rel_dev", r.max_rel_dev);
}

fn report_orders(setup: &Setup, r: &Results, out: &Output) {
    crate::say!(
        out,
        "\norders (deterministic/weak: T = 10, exact propagation; strong: T = 5, {} paths)",
        setup.strong_paths
    );
    let t = Table::new(
        out,
        &[
            "h",
            "mean error",
            "cov rel error",
            "strong RMS",
            "Gibbs <H> bias",
        ],
    );
    for (i, h) in setup.steps.iter().enumerate() {
        t.row(&[
            format!("{h}"),
            sci(r.mean_err[i]),
            sci(r.cov_err[i]),
            sci(r.strong_err[i]),
            sci(r.gibbs_bias[i]),
        ]);
    }
    figure(
        "lc-circuit.order.deterministic",
        loglog_slope(&setup.steps, &r.mean_err),
    );
    figure(
        "lc-circuit.order.weak",
        loglog_slope(&setup.steps, &r.cov_err),
    );
    figure(
        "lc-circuit.order.strong",
        loglog_slope(&setup.steps, &r.strong_err),
    );
}

fn report_gibbs(setup: &Setup, r: &Results, out: &Output) {
    crate::say!(
        out,
        "\nGibbs (R1 = R2 = {R_GIBBS}, Johnson–Nyquist noise, kT = {KT}, h = {}, {} paths × {})",
        setup.gibbs_h,
        setup.gibbs_paths,
        setup.gibbs_time
    );
    let t = Table::new(out, &["quantity", "exact", "MC", "± se", "scheme exact"]);
    for (name, s) in ["energy", "q3_var", "q4_var", "i1_var"]
        .iter()
        .zip(&r.gibbs)
    {
        t.row(&[
            name.to_string(),
            sci(s.exact),
            sci(s.mc),
            sci(s.se),
            sci(s.scheme),
        ]);
        for (what, v) in [
            ("exact", s.exact),
            ("mc", s.mc),
            ("se", s.se),
            ("scheme", s.scheme),
        ] {
            figure(&format!("lc-circuit.gibbs.{name}_{what}"), v);
        }
    }
    let z = |s: &Stat| (s.mc - s.scheme).abs() / s.se;
    figure(
        "lc-circuit.gibbs.max_z_scheme",
        r.gibbs.iter().map(z).fold(0.0, f64::max),
    );
    let rel = |s: &Stat| (s.scheme - s.exact).abs() / s.exact;
    figure(
        "lc-circuit.gibbs.max_rel_bias",
        r.gibbs.iter().map(rel).fold(0.0, f64::max),
    );
    figure(
        "lc-circuit.gibbs.bias_order",
        loglog_slope(&setup.steps, &r.gibbs_bias),
    );
}

fn report_structure_and_flavor(setup: &Setup, r: &Results, out: &Output) {
    crate::say!(
        out,
        "\nstructure: symplecticity defect (R = 0), volume factor error (R > 0), reversibility"
    );
    figure("lc-circuit.symplectic_defect", r.symplectic_defect);
    figure("lc-circuit.volume_factor_error", r.volume_error);
    figure("lc-circuit.reversibility", r.reversibility);
    crate::say!(
        out,
        "\n§7.1.7 FLAVOR vs small-step variational, t ≤ {}",
        setup.flavor_time
    );
    let t = Table::new(out, &["case", "method", "slow error", "fast q1 error"]);
    for (name, f) in ["seed", "regime"].iter().zip(&r.flavor) {
        t.row(&[
            name.to_string(),
            "FLAVOR".into(),
            sci(f.slow_error[0]),
            sci(f.fast_error[0]),
        ]);
        t.row(&[
            name.to_string(),
            "variational".into(),
            sci(f.slow_error[1]),
            sci(f.fast_error[1]),
        ]);
        figure(
            &format!("lc-circuit.flavor.{name}.slow_error"),
            f.slow_error[0],
        );
        figure(
            &format!("lc-circuit.flavor.{name}.bench_slow_error"),
            f.slow_error[1],
        );
        figure(
            &format!("lc-circuit.flavor.{name}.fast_error"),
            f.fast_error[0],
        );
        figure(
            &format!("lc-circuit.flavor.{name}.steps_ratio"),
            f.steps_ratio,
        );
    }
}

fn chart(r: &Results, out: &Output) {
    let curve = |i: usize, mc: bool| -> Vec<(f64, f64)> {
        r.times
            .iter()
            .zip(&r.var)
            .map(|(t, v)| (*t, 1e3 * if mc { v[i].mc } else { v[i].exact }))
            .collect()
    };
    let series = vec![
        Series {
            label: "Var p1 exact (7.24b)".into(),
            points: curve(0, false),
        },
        Series {
            label: "Var p1 ensemble (7.25b)".into(),
            points: curve(0, true),
        },
        Series {
            label: "Var p2 exact (7.24b)".into(),
            points: curve(1, false),
        },
        Series {
            label: "Var p2 ensemble (7.25b)".into(),
            points: curve(1, true),
        },
    ];
    plot::emit(
        out,
        &Chart {
            stem: "lc-circuit.fig72".into(),
            title: "004 Fig 7.2: flux variances of the noisy LC circuit, SVI h = 0.1".into(),
            x_label: "time t".into(),
            y_label: "variance (x 1e-3)".into(),
            log_x: false,
            log_y: false,
            series,
        },
    );
}

fn flavor_chart(f: &super::flavor::FlavorResults, stem: &str, what: &str, out: &Output) {
    let curve = |which: &[[f64; 3]], i: usize| -> Vec<(f64, f64)> {
        f.times.iter().zip(which).map(|(t, y)| (*t, y[i])).collect()
    };
    let series = vec![
        Series {
            label: "mesh current v2, exact".into(),
            points: curve(&f.exact, 1),
        },
        Series {
            label: "v2, FLAVOR".into(),
            points: curve(&f.flavor, 1),
        },
        Series {
            label: "mesh charge q2, exact".into(),
            points: curve(&f.exact, 0),
        },
        Series {
            label: "q2, FLAVOR".into(),
            points: curve(&f.flavor, 0),
        },
    ];
    plot::emit(
        out,
        &Chart {
            stem: format!("lc-circuit.{stem}"),
            title: format!("004 Figs 7.3-7.4, FLAVOR {what}"),
            x_label: "time t".into(),
            y_label: "mesh charge q2 / mesh current v2".into(),
            log_x: false,
            log_y: false,
            series,
        },
    );
}

impl Experiment for LcCircuitExperiment {
    const NAME: &'static str = "lc-circuit";
    const SEED: &'static str = "004 §7.1.6 Fig 7.2";
    const SECONDS: f64 = 8.0;
    const ABOUT: &'static str = "004 §7.1: noisy LC circuit, variational + stochastic variational integrator: Fig 7.2 variances, orders, Gibbs statistics";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn with_paths(setup: Setup, paths: usize) -> Setup {
        Setup { paths, ..setup }
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
