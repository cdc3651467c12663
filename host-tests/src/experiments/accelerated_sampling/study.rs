//! The runs, the figure lines and the charts of `reproduce accelerated-sampling`.

use super::{ensemble, exact, fig64_schemes, schedule_schemes, Curve, Exact, Scheme, BETA, H, Q0};
use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::timing::process_cpu_seconds;
use macrostep::langevin::{Cooling, FrictionRule};

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Paths per ensemble (common random numbers across schemes).
    pub paths: usize,
    /// The fixed horizon of Figs 6.4 and 6.6.
    pub t_total: f64,
    /// Length of the fixed-temperature runs (their error curve gives the time to reach `tol`).
    pub t_long: f64,
    /// Horizons `N h` of the annealed runs (Fig 6.5); must contain `t_total`.
    pub horizons: Vec<f64>,
    /// Longer horizons, run for an annealed scheme only while its error + 2 SE is above `tol`.
    pub extra_horizons: Vec<f64>,
    /// GLA frictions of Fig 6.3, its paths and its fixed time.
    pub sweep: (Vec<f64>, usize, f64),
    /// Tolerance on the error of the mean position.
    pub tol: f64,
    /// Record every this many steps.
    pub every: usize,
    /// Labels of the schemes to run (empty: every scheme of Figs 6.4–6.6).
    pub only: Vec<&'static str>,
}

impl Setup {
    /// 2 000 paths, horizons 2.5 … 50, GLA to `t = 100`, 13 frictions × 300 paths
    /// to `t = 100` for Fig 6.3.
    pub fn paper() -> Self {
        Self {
            paths: 2000,
            t_total: 30.0,
            t_long: 100.0,
            horizons: vec![2.5, 5.0, 7.5, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0],
            extra_horizons: vec![75.0, 100.0],
            sweep: (
                vec![
                    0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0,
                ],
                300,
                100.0,
            ),
            tol: 0.05,
            every: 10,
            only: vec![],
        }
    }
    /// 200 paths, horizons 10 and 30, three frictions to `t = 30`.
    pub fn quick() -> Self {
        Self {
            paths: 200,
            t_long: 30.0,
            horizons: vec![10.0, 30.0],
            extra_horizons: vec![],
            sweep: (vec![0.1, 0.7, 5.0], 50, 30.0),
            ..Self::paper()
        }
    }
}

/// What the experiment measured.
pub struct Results {
    /// The setup.
    pub setup: Setup,
    /// The exact Boltzmann–Gibbs law at `β = 10`.
    pub exact: Exact,
    /// Fixed-temperature schemes: one curve to `t_long`.
    pub fixed: Vec<(Scheme, Curve)>,
    /// Annealed schemes: `(horizon, curve)` per horizon run.
    pub annealed: Vec<(Scheme, Vec<(f64, Curve)>)>,
    /// Fig 6.3: `(c, mean q(T), SE)`.
    pub sweep: Vec<(f64, f64, f64)>,
    /// CPU seconds of the whole study.
    pub cpu: f64,
}

fn steps(t: f64) -> usize {
    (t / H).round() as usize
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let t0 = process_cpu_seconds();
    let ex = exact(BETA, 240_000);
    let (p, every, b) = (setup.paths, setup.every, ex.barrier);
    let schemes: Vec<Scheme> = fig64_schemes()
        .into_iter()
        .chain(
            schedule_schemes()
                .into_iter()
                .filter(|s| !matches!(s.label, "constant" | "inverse_linear")),
        )
        .filter(|s| setup.only.is_empty() || setup.only.contains(&s.label))
        .collect();
    let (mut fixed, mut annealed) = (Vec::new(), Vec::new());
    for s in schemes {
        if s.annealed() {
            let run = |t: f64| (t, ensemble(&s, BETA, Q0, p, steps(t), steps(t), every, b));
            let mut curves: Vec<(f64, Curve)> = setup.horizons.iter().map(|&t| run(t)).collect();
            for &t in &setup.extra_horizons {
                // Until the pessimistic end of the bracket (error + 2 SE) is below tol.
                let above = |c: &Curve| {
                    let (e, se, _) = c.last(ex.mean);
                    e + 2.0 * se > setup.tol
                };
                if curves.last().is_some_and(|(_, c)| above(c)) {
                    curves.push(run(t));
                }
            }
            annealed.push((s, curves));
        } else {
            let n = steps(setup.t_long);
            fixed.push((s, ensemble(&s, BETA, Q0, p, n, n, every, b)));
        }
    }
    let (cs, sweep_paths, t_sweep) = &setup.sweep;
    let n = steps(*t_sweep);
    let sweep = cs
        .iter()
        .map(|&c| {
            let s = Scheme {
                label: "gla",
                friction: FrictionRule::Fixed(c),
                cooling: |_| Cooling::Constant,
            };
            let curve = ensemble(&s, BETA, Q0, *sweep_paths, n, n, n, b);
            (c, curve.mean[1], curve.se[1])
        })
        .collect();
    Results {
        setup: setup.clone(),
        exact: ex,
        fixed,
        annealed,
        sweep,
        cpu: process_cpu_seconds() - t0,
    }
}

impl Results {
    /// The curve of `label` over `[0, t_total]` (annealed: the `t_total` horizon).
    pub fn curve(&self, label: &str) -> Option<Curve> {
        if let Some((_, c)) = self.fixed.iter().find(|(s, _)| s.label == label) {
            let n = steps(self.setup.t_total) / self.setup.every + 1;
            return Some(Curve {
                t: c.t[..n].to_vec(),
                mean: c.mean[..n].to_vec(),
                se: c.se[..n].to_vec(),
                right: c.right[..n].to_vec(),
            });
        }
        let (_, cs) = self.annealed.iter().find(|(s, _)| s.label == label)?;
        let t_total = self.setup.t_total;
        cs.iter()
            .find(|(t, _)| (t - t_total).abs() < 1e-9)
            .map(|(_, c)| c.clone())
    }

    /// `(horizon, error, SE)` at every horizon of the grid for `label`.
    pub fn by_horizon(&self, label: &str) -> Vec<(f64, f64, f64)> {
        let target = self.exact.mean;
        if let Some((_, c)) = self.fixed.iter().find(|(s, _)| s.label == label) {
            return self
                .setup
                .horizons
                .iter()
                .chain(&self.setup.extra_horizons)
                .filter(|&&t| t <= self.setup.t_long + 1e-9)
                .map(|&t| {
                    let k = steps(t) / self.setup.every;
                    (t, (c.mean[k] - target).abs(), c.se[k])
                })
                .collect();
        }
        let (_, cs) = self
            .annealed
            .iter()
            .find(|(s, _)| s.label == label)
            .expect("known scheme");
        cs.iter()
            .map(|(t, c)| {
                let (e, se, _) = c.last(target);
                (*t, e, se)
            })
            .collect()
    }

    /// The time to reach the tolerance (see the module docs) when each error is shifted by
    /// `z` standard errors (`z = 0`: the estimate; `z = ∓2`: an optimistic / pessimistic
    /// bracket); `NaN` when it is not reached.
    pub fn t_reach(&self, label: &str, z: f64) -> f64 {
        let (target, tol) = (self.exact.mean, self.setup.tol);
        let points: Vec<(f64, f64)> = match self.fixed.iter().find(|(s, _)| s.label == label) {
            Some((_, c)) => {
                c.t.iter()
                    .zip(c.mean.iter().zip(&c.se))
                    .map(|(&t, (&m, &se))| (t, (m - target).abs() + z * se))
                    .collect()
            }
            None => self
                .by_horizon(label)
                .into_iter()
                .map(|(t, e, se)| (t, e + z * se))
                .collect(),
        };
        match points.iter().rposition(|&(_, e)| e > tol) {
            None => points.first().map_or(f64::NAN, |p| p.0),
            Some(i) if i + 1 < points.len() => points[i + 1].0,
            Some(_) => f64::NAN,
        }
    }
}

/// Prints the tables and the `figure` lines, and emits the charts.
pub fn report(r: &Results, out: &Output) {
    let (s, ex) = (&r.setup, &r.exact);
    crate::say!(
        out,
        "004 Ch 6 (§6.5): LJ double well, β = {BETA}, q(0) = {Q0}, p(0) = 0, h = {H}; {} paths \
         (common random numbers), tol = {} on |mean q − E q(∞)|; CPU {:.1} s (all threads)",
        s.paths,
        s.tol,
        r.cpu
    );
    crate::say!(
        out,
        "exact B-G (quadrature): E q = {:.5}, sd q = {:.4}, barrier at q = {:.4}, P(right) = {:.5}",
        ex.mean,
        ex.sd,
        ex.barrier,
        ex.right
    );
    figure("accel.exact.mean_q", ex.mean);
    figure("accel.exact.right_fraction", ex.right);
    let gla = &r
        .fixed
        .iter()
        .find(|(s, _)| s.label == "gla")
        .expect("gla")
        .1;
    let (e, se, _) = gla.last(ex.mean);
    crate::say!(
        out,
        "GLA c = 0.7 at t = {}: error {} ± {}",
        s.t_long,
        sci(e),
        sci(se)
    );
    figure("accel.gla.error_long", e);
    figure("accel.gla.error_long_se", se);
    report_sweep(r, out);
    crate::say!(out, "\n== Fig 6.4 / time to reach tol (GLA = 1×)");
    let t_gla = r.t_reach("gla", 0.0);
    let tab = Table::new(
        out,
        &[
            "scheme",
            "err(t=30)",
            "SE",
            "P(right)",
            "t_reach",
            "±2SE range",
            "speed-up",
        ],
    );
    let labels = r.fixed.iter().map(|(s, _)| s.label);
    for name in labels.chain(r.annealed.iter().map(|(s, _)| s.label)) {
        let c = r.curve(name).expect("curve");
        let (e, se, right) = c.last(ex.mean);
        let tr = r.t_reach(name, 0.0);
        let (lo, hi) = (r.t_reach(name, -2.0), r.t_reach(name, 2.0));
        tab.row(&[
            name.into(),
            sci(e),
            sci(se),
            format!("{right:.4}"),
            format!("{tr:.1}"),
            format!("{lo:.1}–{hi:.1}"),
            format!("{:.2}", t_gla / tr),
        ]);
        figure(&format!("accel.{name}.error_t30"), e);
        figure(&format!("accel.{name}.error_t30_se"), se);
        figure(&format!("accel.{name}.right_t30"), right);
        figure(&format!("accel.{name}.t_reach"), tr);
        figure(&format!("accel.{name}.t_reach_lo"), lo);
        figure(&format!("accel.{name}.t_reach_hi"), hi);
        figure(&format!("accel.{name}.speedup"), t_gla / tr);
    }
    charts(r, out);
}

fn report_sweep(r: &Results, out: &Output) {
    let (_, paths, t) = &r.setup.sweep;
    crate::say!(
        out,
        "\n== Fig 6.3: GLA mean q(t = {t}) vs friction ({paths} paths)"
    );
    let tab = Table::new(out, &["c", "mean q", "SE"]);
    for &(c, m, se) in &r.sweep {
        tab.row(&[format!("{c}"), format!("{m:.4}"), sci(se)]);
    }
    let best = r
        .sweep
        .iter()
        .copied()
        .fold((f64::NAN, f64::NEG_INFINITY, 0.0), |b, x| {
            if x.1 > b.1 {
                x
            } else {
                b
            }
        });
    figure("accel.gla_friction.best_c", best.0);
    figure("accel.gla_friction.best_mean_q", best.1);
}

fn error_series(r: &Results, label: &str, legend: &str) -> Series {
    let c = r.curve(label).expect("curve");
    Series {
        label: legend.into(),
        points: c
            .t
            .iter()
            .zip(&c.mean)
            .map(|(&t, &m)| (t, (m - r.exact.mean).abs()))
            .collect(),
    }
}

/// A chart of the chapter: `(x, y)` axis labels, `(log x, log y)` scales.
fn chart(
    stem: &str,
    title: &str,
    axes: (&str, &str),
    log: (bool, bool),
    series: Vec<Series>,
) -> Chart {
    Chart {
        stem: format!("accelerated-sampling.{stem}"),
        title: title.into(),
        x_label: axes.0.into(),
        y_label: axes.1.into(),
        log_x: log.0,
        log_y: log.1,
        series,
    }
}

/// Figs 6.3–6.6 (`--plot`, `--csv`).
fn charts(r: &Results, out: &Output) {
    let sweep = Series::new("GLA", r.sweep.iter().map(|&(c, m, _)| (c, m)).collect());
    let s64 = fig64_schemes()
        .iter()
        .map(|s| error_series(r, s.label, s.label))
        .collect();
    let sched = schedule_schemes();
    let map = |l: &'static str| match l {
        "constant" => "tune_gla",
        "inverse_linear" => "anneal_tune_gla_a07",
        x => x,
    };
    let s65 = sched
        .iter()
        .map(|s| {
            let by_horizon = r.by_horizon(map(s.label)).into_iter();
            Series::new(s.label, by_horizon.map(|(t, e, _)| (t, e)).collect())
        })
        .collect();
    let s66 = sched
        .iter()
        .map(|s| error_series(r, map(s.label), s.label))
        .collect();
    let error = "|mean q - E q(inf)|";
    for c in [
        chart(
            "fig6_3",
            "Fig 6.3: GLA mean position at fixed time vs friction",
            ("c", "mean q(T)"),
            (true, false),
            vec![sweep],
        ),
        chart(
            "fig6_4",
            "Fig 6.4: error of mean position, horizon 30",
            ("t", error),
            (false, true),
            s64,
        ),
        chart(
            "fig6_5",
            "Fig 6.5: final error vs total time, AnnealTuneGLA schedules",
            ("N h", "|mean q_N - E q(inf)|"),
            (false, true),
            s65,
        ),
        chart(
            "fig6_6",
            "Fig 6.6: error over time, schedules, horizon 30",
            ("t", error),
            (false, true),
            s66,
        ),
    ] {
        emit(out, &c);
    }
}

/// `reproduce accelerated-sampling` (`--quick`: 200 paths, two horizons; `--paths N`).
pub struct AcceleratedSamplingExperiment;

impl Experiment for AcceleratedSamplingExperiment {
    const NAME: &'static str = "accelerated-sampling";
    const SEED: &'static str = "004 Ch 6 Figs 6.3–6.6";
    const SECONDS: f64 = 42.0;
    const ABOUT: &'static str = "004 Ch 6: friction-tuned and annealed GLA (AnnealTuneGLA, eq 6.6) on the LJ double well: time to reach B-G vs GLA, cooling schedules";
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
