//! `reproduce double-pendulum` (000 §4.1, Fig 1): Z&S, Z&Ss, Newmark, one-iteration Newmark and
//! velocity Verlet on the penalised double pendulum (ω = 20, β = 0.4, T = 50) against the rigid
//! reference: position error, energy error, constraint drift and cost per step.

use super::{dp_penalised, dp_reference, dp_start, DpPenalty};
use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::baselines::VelocityVerlet;
use macrostep::model::{Constraint, System};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkOneIteration, NewmarkParams, Sylipn, ZhangSkeel, ZsParams,
};
use macrostep::Integrator;

/// Per-method results of the double-pendulum run.
#[derive(Clone, Debug)]
pub struct DpRun {
    /// Step size.
    pub h: f64,
    /// Max-norm position error against the rigid reference at t = 10.
    pub err_t10: f64,
    /// The same, maximised over [0, T].
    pub err_max: f64,
    /// max |H − H₀| of the penalised Hamiltonian over [0, T].
    pub max_energy_err: f64,
    /// max ‖g(q)‖∞ over [0, T].
    pub max_g: f64,
    /// Thread CPU nanoseconds per step (a separate, unrecorded run).
    pub ns_per_step: f64,
    /// About 1000 samples `[t, |H − H₀|, ‖g(q)‖∞, position error]` over [0, T] (the curves of
    /// 000 Fig 1–2).
    pub series: Vec<[f64; 4]>,
}

fn dp_run<I: Integrator<f64, 4>>(
    make: impl Fn() -> I,
    sys: &System<f64, DpPenalty, 4>,
    h: f64,
    t_end: f64,
) -> DpRun {
    let n = (t_end / h).round() as usize;
    let times: Vec<f64> = (0..=n).map(|k| k as f64 * h).collect();
    let refq = dp_reference(&times);
    let k10 = (10.0 / h).round() as usize;
    let mut integ = make();
    let mut s = dp_start();
    let e0 = sys.energy(&s);
    let (mut err_t10, mut err_max, mut de, mut g) = (f64::NAN, 0.0f64, 0.0f64, 0.0f64);
    let stride = (n / 1000).max(1);
    let mut series = Vec::with_capacity(n / stride + 1);
    for (k, rq) in refq.iter().enumerate() {
        if k > 0 && integ.step(&mut s).is_err() {
            return DpRun {
                h,
                err_t10: f64::INFINITY,
                err_max: f64::INFINITY,
                max_energy_err: f64::INFINITY,
                max_g: f64::INFINITY,
                ns_per_step: f64::NAN,
                series,
            };
        }
        let e = (0..4).map(|i| (s.q[i] - rq[i]).abs()).fold(0.0, f64::max);
        if k == k10 {
            err_t10 = e;
        }
        err_max = err_max.max(e);
        let (de_k, g_k) = (
            (sys.energy(&s) - e0).abs(),
            sys.potential.constraint.value(&s.q).amax(),
        );
        de = de.max(de_k);
        g = g.max(g_k);
        if k % stride == 0 {
            series.push([s.t, de_k, g_k, e]);
        }
    }
    let mut integ = make();
    let mut s = dp_start();
    let start = crate::timing::CpuClock::start();
    let _ = integ.integrate(&mut s, n);
    let ns = start.elapsed_secs() * 1e9 / n as f64;
    std::hint::black_box(s);
    DpRun {
        h,
        err_t10,
        err_max,
        max_energy_err: de,
        max_g: g,
        ns_per_step: ns,
        series,
    }
}

/// The five runs of 000 Fig 1 rows 3–6 (+ Z&Ss): ω = 20, β = 0.4, T = 50.
pub fn dp_runs(t_end: f64) -> Vec<(&'static str, DpRun)> {
    let omega = 20.0;
    let sys = dp_penalised(omega);
    let p = ZsParams::with_beta(0.4);
    let h = 0.1;
    let np = NewmarkParams {
        beta: p.beta,
        newton: ImplicitNewtonParams {
            tol: 1e-12,
            max_iter: 50,
        },
    };
    vec![
        (
            "zs",
            dp_run(
                || ZhangSkeel::new(sys, h, p).expect("valid"),
                &sys,
                h,
                t_end,
            ),
        ),
        (
            "zss",
            dp_run(|| Sylipn::new(sys, h, p).expect("valid"), &sys, h, t_end),
        ),
        (
            "newmark",
            dp_run(|| Newmark::new(sys, h, np).expect("valid"), &sys, h, t_end),
        ),
        (
            "newmark1",
            dp_run(
                || NewmarkOneIteration::new(sys, h, p).expect("valid"),
                &sys,
                h,
                t_end,
            ),
        ),
        (
            "verlet",
            dp_run(
                || VelocityVerlet::new(sys, h / omega).expect("valid"),
                &sys,
                h / omega,
                t_end,
            ),
        ),
    ]
}

/// What to run.
pub struct Setup {
    /// Final time.
    pub t_end: f64,
}

impl Setup {
    /// T = 50.
    pub fn paper() -> Self {
        Self { t_end: 50.0 }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured.
pub struct Results {
    /// The five runs of [`dp_runs`].
    pub runs: Vec<(&'static str, DpRun)>,
    /// Z&S in `f32`, h = 0.1: max position error at t = 10.
    pub zs_f32_err_t10: f64,
}

/// Z&S in single precision on the same problem, error against the rigid reference at t = 10.
fn zs_f32_err_t10() -> f64 {
    let sys32 = DoublePendulum::<f32>::paper()
        .penalised(20.0f32)
        .expect("valid");
    let mut zs32 = ZhangSkeel::new(sys32, 0.1f32, ZsParams::with_beta(0.4f32)).expect("valid");
    let mut s32 = DoublePendulum::<f32>::paper().initial_state();
    zs32.integrate(&mut s32, 100).expect("stable");
    let r10 = dp_reference(&[10.0])[0];
    (0..4)
        .map(|i| (f64::from(s32.q[i]) - r10[i]).abs())
        .fold(0.0, f64::max)
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    Results {
        runs: dp_runs(setup.t_end),
        zs_f32_err_t10: zs_f32_err_t10(),
    }
}

/// Prints the table, the charts (`--plot`, `--csv`) and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(
        out,
        &[
            "method",
            "h",
            "err_t10",
            "err_max",
            "max_energy_err",
            "max_g",
            "ns_per_step",
        ],
    );
    for (name, r) in &r.runs {
        t.row(&[
            name.to_string(),
            sci(r.h),
            sci(r.err_t10),
            sci(r.err_max),
            sci(r.max_energy_err),
            sci(r.max_g),
            format!("{:.0}", r.ns_per_step),
        ]);
    }
    let e32 = r.zs_f32_err_t10;
    crate::say!(
        out,
        "Z&S in f32, h = 0.1: max position error at t = 10 {e32:.3e}"
    );
    dp_charts(&r.runs, out);
    figure("double-pendulum.zs_f32.err_t10", e32);
    for (name, r) in &r.runs {
        figure(&format!("double-pendulum.{name}.err_t10"), r.err_t10);
        figure(&format!("double-pendulum.{name}.err_max"), r.err_max);
        figure(
            &format!("double-pendulum.{name}.max_energy_err"),
            r.max_energy_err,
        );
        figure(&format!("double-pendulum.{name}.max_g"), r.max_g);
        figure(
            &format!("double-pendulum.{name}.ns_per_step"),
            r.ns_per_step,
        );
    }
}

/// `reproduce double-pendulum`.
pub struct DoublePendulumExperiment;

impl Experiment for DoublePendulumExperiment {
    const NAME: &'static str = "double-pendulum";
    const SEED: &'static str = "000 §4.1 Fig 1";
    const SECONDS: f64 = 0.3;
    const ABOUT: &'static str =
        "000 §4.1 Fig 1: Z&S, Z&Ss, Newmark, one-iteration Newmark, Verlet vs rigid reference";
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

/// The method's label in the charts.
fn dp_label(name: &str, h: f64) -> String {
    let method = match name {
        "zs" => "Z&S",
        "zss" => "Z&Ss (SyLiPN)",
        "newmark" => "Newmark (converged)",
        "newmark1" => "Newmark, one iteration",
        "verlet" => "velocity Verlet",
        other => other,
    };
    format!("{method}, h = {h}")
}

/// 000 Fig 1–2 as curves: energy error, constraint drift and position error over time, one
/// curve per method (`--plot`, `--csv`).
fn dp_charts(runs: &[(&'static str, DpRun)], out: &Output) {
    let what = [
        (
            1,
            "energy",
            "energy error",
            "|H(t) − H(0)| of the penalised H",
        ),
        (
            2,
            "constraint",
            "constraint drift",
            "max_i |g_i(q(t))|, g = |rod|² − L²",
        ),
        (
            3,
            "position_error",
            "error vs rigid reference",
            "max_i |q_i(t) − q_i,ref(t)|",
        ),
    ];
    for (col, stem, title, y) in what {
        let series = runs
            .iter()
            .map(|(name, r)| crate::plot::Series {
                label: dp_label(name, r.h),
                // t = 0 is exact by construction (zero or roundoff): left out of the log plot.
                points: r.series.iter().skip(1).map(|p| (p[0], p[col])).collect(),
            })
            .collect();
        crate::plot::emit(
            out,
            &crate::plot::Chart {
                stem: format!("double-pendulum.{stem}"),
                title: format!("000 §4.1 double pendulum (ω = 20, β = 0.4): {title}"),
                x_label: "time t".into(),
                y_label: format!("{y} (log scale)"),
                log_x: false,
                log_y: true,
                series,
            },
        );
    }
}
