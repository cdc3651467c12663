//! `reproduce work-precision-omega` (the `omega` study): the penalised double pendulum
//! (000 §4.1 start, β = 0.4, error against the rigid solution at t = 1, …, T) over penalty
//! frequencies ω = 20 … 2000.
//!
//! Per ω it measures
//! - each penalty method's **largest stable step** `h_max`: the largest step of a geometric grid
//!   (from ωh = 0.05 up to h = 1; Verlet's
//!   cap is ωh ≈ 0.48 here, the squared-distance penalty's fastest mode being ≈ 4ω) such that every grid step up to it completes `[0, T]` with the
//!   default guards on (the first failing grid step and its error are printed);
//! - the equal-accuracy study of [`super::search`] (Z&S, SyLiPN, stiff Z&Ss, velocity Verlet on
//!   the penalised model, RATTLE and the DOP853 peer in angle coordinates on the rigid model) at
//!   errors 1e-2 and 1e-3, and the cost ratios Verlet ÷ Z&S, Verlet ÷ stiff Z&Ss, RATTLE ÷ Z&S;
//! - the penalty model error (exact penalised vs rigid), the floor of every penalty method: a
//!   target below it is not reached (NaN cost) at that ω, whatever the step.

use super::search::{self, Search, Study};
use super::{charts, dp, tag};
use crate::experiments::Experiment;
use crate::fixtures::penalised_dp::cap_run;
use crate::plot::{self, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::say;

/// The penalty methods whose stability cap is measured, in report order.
pub const CAP_METHODS: [&str; 4] = ["zs", "sylipn", "stiff_sylipn", "verlet"];

/// The methods of each ω's equal-accuracy study (a subset of [`dp::problem`]'s).
const STUDY_METHODS: [&str; 6] = [
    "zs",
    "sylipn",
    "stiff_sylipn",
    "verlet",
    "rattle",
    "dop853_angles",
];

/// The cost ratios reported per ω.
const RATIOS: [(&str, &str); 3] = [
    ("verlet", "zs"),
    ("verlet", "stiff_sylipn"),
    ("rattle", "zs"),
];

/// β of every linearly implicit method here (the seed's value).
pub const BETA: f64 = 0.4;

/// What to run.
pub struct Setup {
    /// The penalty frequencies.
    pub omegas: Vec<f64>,
    /// Simulated span `T` (outputs at 1, 2, …, T) of the studies and of the cap runs.
    pub span: f64,
    /// Grid ratio of the cap scan.
    pub cap_ratio: f64,
    /// Search and timing effort of the studies.
    pub search: Search,
}

impl Setup {
    /// The full ω list, T = 10, cap grid `2^(1/8)` (≈ 5 s in release).
    pub fn paper() -> Self {
        Self {
            omegas: vec![20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0],
            span: 10.0,
            cap_ratio: 2f64.powf(0.125),
            search: Search {
                grid_ratio: 2f64.sqrt(),
                bisect: 4,
                curve_reps: 3,
                reps: 11,
            },
        }
    }
    /// CI-sized: the same ω and figure names, T = 10 (the Z&S cap needs the span: its energy
    /// guard trips at t ≈ 7), a coarse grid and few repeats.
    pub fn quick() -> Self {
        Self {
            cap_ratio: 2f64.powf(0.25),
            search: Search {
                grid_ratio: 2.0,
                bisect: 1,
                curve_reps: 1,
                reps: 1,
            },
            ..Self::paper()
        }
    }
}

/// The stability cap of one method at one ω.
#[derive(Clone, Debug)]
pub struct Cap {
    /// Method key (one of [`CAP_METHODS`]).
    pub method: &'static str,
    /// Largest completing grid step (every smaller grid step from ωh = 0.05 completes too);
    /// NaN when even ωh = 0.05 fails.
    pub h_max: f64,
    /// The first failing grid step (NaN: none up to h = 1).
    pub h_fail: f64,
    /// Why it failed.
    pub failure: String,
}

/// One ω's measurements.
pub struct Row {
    /// The penalty frequency.
    pub omega: f64,
    /// The penalty model error (exact penalised vs rigid, max over outputs and coordinates).
    pub model_err: f64,
    /// Per [`CAP_METHODS`].
    pub caps: Vec<Cap>,
    /// The equal-accuracy study.
    pub study: Study,
}

/// What the study measured.
pub struct Results {
    /// One per ω.
    pub rows: Vec<Row>,
}

/// Measures [`Cap`]: scans `h = 0.05/ω · ratio^k` up to 1.
pub fn cap(method: &'static str, omega: f64, span: f64, ratio: f64) -> Cap {
    let mut out = Cap {
        method,
        h_max: f64::NAN,
        h_fail: f64::NAN,
        failure: "none up to h = 1".into(),
    };
    let mut h = 0.05 / omega;
    while h <= 1.0 {
        if let Some(why) = cap_run(method, omega, h, span) {
            out.h_fail = h;
            out.failure = why;
            return out;
        }
        out.h_max = h;
        h *= ratio;
    }
    out
}

/// Runs every ω.
pub fn compute(setup: &Setup) -> Results {
    let rigid = dp::rigid_reference(setup.span);
    let rows = setup
        .omegas
        .iter()
        .map(|&omega| {
            let mut problem = dp::problem(omega, setup.span, &rigid);
            problem.key = super::leak(format!("omega{omega}"));
            problem.methods.retain(|m| STUDY_METHODS.contains(&m.key));
            problem.ratios = RATIOS.to_vec();
            Row {
                omega,
                model_err: dp::model_error(omega, setup.span, &rigid),
                caps: CAP_METHODS
                    .iter()
                    .map(|&m| cap(m, omega, setup.span, setup.cap_ratio))
                    .collect(),
                study: search::study(&problem, &setup.search),
            }
        })
        .collect();
    Results { rows }
}

/// The found cost (or parameter) of `method` at target index `t` (NaN when not reached).
fn found(s: &Study, method: &str, t: usize) -> (f64, f64) {
    s.curves
        .iter()
        .find(|c| c.key == method)
        .and_then(|c| c.found[t].as_ref())
        .map_or((f64::NAN, f64::NAN), |f| (f.p, f.cost))
}

impl Row {
    /// The cost ratio `a` ÷ `b` of this row's study at target index `t` ([`ratio`]).
    pub fn ratio(&self, a: &str, b: &str, t: usize) -> f64 {
        ratio(self, a, b, t)
    }
}

/// The ratio `a_over_b` of a row at target index `t`.
pub fn ratio(row: &Row, a: &str, b: &str, t: usize) -> f64 {
    row.study
        .ratios
        .iter()
        .find(|r| r.0 == a && r.1 == b)
        .map_or(f64::NAN, |r| r.2[t])
}

/// The caps table and figures.
fn report_caps(r: &Results, out: &Output) {
    say!(
        out,
        "\n== largest stable step h_max (guards on, T = 10 completes), β = {BETA} =="
    );
    let t = Table::new(
        out,
        &["omega", "method", "h_max", "omega*h_max", "first failure"],
    );
    for row in &r.rows {
        for c in &row.caps {
            t.row(&[
                format!("{}", row.omega),
                c.method.into(),
                sci(c.h_max),
                format!("{:.2}", row.omega * c.h_max),
                if c.h_fail.is_nan() {
                    c.failure.clone()
                } else {
                    format!("h = {}: {}", sci(c.h_fail), c.failure)
                },
            ]);
        }
    }
    for row in &r.rows {
        for c in &row.caps {
            figure(
                &format!("work-precision-omega.{}.h_max.omega{}", c.method, row.omega),
                c.h_max,
            );
        }
    }
}

/// The per-ω cost table and figures.
fn report_costs(r: &Results, out: &Output) {
    for row in &r.rows {
        let s = &row.study;
        say!(
            out,
            "\n== ω = {}: penalty model error {} ==",
            row.omega,
            sci(row.model_err)
        );
        super::table(s, out);
        charts::emit(WorkPrecisionOmegaExperiment::NAME, s, out);
        let w = row.omega;
        figure(
            &format!("work-precision-omega.model_err.omega{w}"),
            row.model_err,
        );
        for m in STUDY_METHODS {
            for (t, &e) in s.targets.iter().enumerate() {
                let (p, cost) = found(s, m, t);
                let e = tag(e);
                let param = if m == "dop853_angles" { "tol" } else { "h" };
                figure(
                    &format!("work-precision-omega.{m}.{param}_at_{e}.omega{w}"),
                    p,
                );
                figure(
                    &format!("work-precision-omega.{m}.cpu_at_{e}.omega{w}"),
                    cost,
                );
            }
        }
        for (a, b) in RATIOS {
            for (t, &e) in s.targets.iter().enumerate() {
                let v = ratio(row, a, b, t);
                say!(out, "ω = {w}: {a} / {b} at {e:e}: {v:.3}");
                figure(
                    &format!(
                        "work-precision-omega.{a}_over_{b}.speedup_at_equal_error_{}.omega{w}",
                        tag(e)
                    ),
                    v,
                );
            }
        }
    }
}

/// The two charts: cost ratios against ω, and `ωh_max` against ω.
fn charts(r: &Results, out: &Output) {
    let targets = r
        .rows
        .first()
        .map_or(vec![], |row| row.study.targets.clone());
    let mut series = Vec::new();
    for (a, b) in RATIOS {
        for (t, &e) in targets.iter().enumerate() {
            series.push(Series {
                label: format!("{} ÷ {} at error {e:e}", charts::human(a), charts::human(b)),
                points: r
                    .rows
                    .iter()
                    .map(|row| (row.omega, ratio(row, a, b, t)))
                    .filter(|p| p.1.is_finite())
                    .collect(),
            });
        }
    }
    plot::emit(
        out,
        &Chart {
            stem: format!("{}.ratios", WorkPrecisionOmegaExperiment::NAME),
            title: "double pendulum: CPU ratio at equal error vs penalty ω (> 1: b cheaper)".into(),
            x_label: "penalty frequency ω [rad/s]".into(),
            y_label: "CPU(a) / CPU(b) at equal error [1]".into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
    let series = CAP_METHODS
        .iter()
        .enumerate()
        .map(|(k, &m)| Series {
            // SyLiPN and stiff Z&Ss coincide here (gravity is linear): one line hides the other.
            label: match m {
                "sylipn" | "stiff_sylipn" => {
                    format!("{} (Z&Ss = stiff Z&Ss here)", charts::human(m))
                }
                _ => charts::human(m).to_string(),
            },
            points: r
                .rows
                .iter()
                .map(|row| (row.omega, row.omega * row.caps[k].h_max))
                .filter(|p| p.1.is_finite())
                .collect(),
        })
        .collect();
    plot::emit(
        out,
        &Chart {
            stem: format!("{}.h_max", WorkPrecisionOmegaExperiment::NAME),
            title: "double pendulum: largest stable step, ω·h_max, vs ω (T = 10, guards on)".into(),
            x_label: "penalty frequency ω [rad/s]".into(),
            y_label: "ω · h_max [rad]".into(),
            log_x: true,
            log_y: true,
            series,
        },
    );
}

/// Prints the tables and figures; draws the charts when asked.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "work–precision over the penalty frequency ω (double pendulum, error vs rigid)"
    );
    say!(
        out,
        "cost = median thread CPU seconds per unit simulated time"
    );
    report_caps(r, out);
    report_costs(r, out);
    charts(r, out);
}

/// `reproduce work-precision-omega` (`--quick`: the reduced setup).
pub struct WorkPrecisionOmegaExperiment;

impl Experiment for WorkPrecisionOmegaExperiment {
    const NAME: &'static str = "work-precision-omega";
    const SEED: &'static str = "000 §4.1, penalty ω = 20 … 2000";
    const SECONDS: f64 = 10.0;
    const ABOUT: &'static str = "double pendulum over penalty ω = 20 … 2000: largest stable steps, costs at equal error, Z&S ÷ Verlet";
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
