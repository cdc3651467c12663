//! `reproduce multiplier`: the multiplier recovered from a penalty run (000 Thm 1.3, Fig 2b /
//! Fig 5) on the double pendulum.

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use crate::rigid::{multiplier_curves, MultiplierCurves};
use macrostep::model::System;
use macrostep::{Integrator, State};

/// What to run.
pub struct Setup {
    /// The penalty stiffnesses ω.
    pub omegas: Vec<f64>,
    /// The penalty runs as `(h, figure prefix)`; the one at [`PENALTY_H`] also gives the curves.
    pub runs: Vec<(f64, &'static str)>,
    /// The averaging window `T_w`.
    pub t_w: f64,
    /// Final time.
    pub t_end: f64,
}

impl Setup {
    /// 000 Fig 2b: ω = 20, 50, 100 at h = 0.001 and h = 0.01, window 0.2, t ∈ [0, 5].
    pub fn paper() -> Self {
        Self {
            omegas: vec![20.0, 50.0, 100.0],
            runs: vec![(PENALTY_H, "multiplier"), (0.01, "multiplier.h0.01")],
            t_w: 0.2,
            t_end: 5.0,
        }
    }

    /// The paper setup: it runs in a fraction of a second, nothing to reduce.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// One penalty run: a step size against all ω.
pub struct Run {
    /// The step size.
    pub h: f64,
    /// The figure prefix.
    pub prefix: &'static str,
    /// The window in samples.
    pub w: usize,
    /// Per ω: `(ω, window error, pointwise error, error against the exact window λ)`.
    pub rows: Vec<(f64, f64, f64, f64)>,
}

/// What the experiment measured.
pub struct Results {
    /// The averaging window `T_w`.
    pub t_w: f64,
    /// Final time.
    pub t_end: f64,
    /// One per [`Setup::runs`].
    pub runs: Vec<Run>,
    /// The curves of the run at [`PENALTY_H`], per ω.
    pub curves: Vec<(f64, MultiplierCurves)>,
}

/// Runs Z&S on the penalised double pendulum and RATTLE for every step size and ω.
pub fn compute(setup: &Setup) -> Results {
    use macrostep::systems::DoublePendulum;
    let dp = DoublePendulum::<f64>::paper();
    let (t_w, t_end) = (setup.t_w, setup.t_end);
    let mut curves = Vec::new();
    let mut runs = Vec::new();
    for &(h, prefix) in &setup.runs {
        let w = (t_w / h).round() as usize;
        // About 1000 samples per curve for the charts (of the main step only).
        let every = if h == PENALTY_H {
            ((t_end / h) as usize / 1000).max(1)
        } else {
            usize::MAX
        };
        let mut rows = Vec::new();
        for &omega in &setup.omegas {
            let sys = dp.penalised(omega).expect("penalty");
            let mut step = penalty_integrator(sys, h);
            let run = multiplier_curves(omega, h, w, t_end, every, |s| step(s));
            let (we, pe, re) = run.errors;
            rows.push((omega, we, pe, re));
            if h == PENALTY_H {
                curves.push((omega, run));
            }
        }
        runs.push(Run { h, prefix, w, rows });
    }
    Results {
        t_w,
        t_end,
        runs,
        curves,
    }
}

/// Prints the tables, the `figure` lines and the charts (`--plot`, `--csv`).
pub fn report(r: &Results, out: &Output) {
    let (t_w, t_end) = (r.t_w, r.t_end);
    crate::say!(
        out,
        "000 Thm 1.3 / Fig 2b: double pendulum (L₁ = 1, L₂ = √2, start (0,−1,1,−2) at rest),"
    );
    crate::say!(
        out,
        "λ ≈ −⟨ω² g⟩ (same sign as RATTLE's λ: force +g'ᵀλ; g = squared distances in both)"
    );
    for run in &r.runs {
        let (h, prefix, w) = (run.h, run.prefix, run.w);
        crate::say!(out);
        crate::say!(out, "penalty run by {PENALTY_METHOD} with h = {h}, RATTLE with h = {h}; window T_w = {t_w} ({w} samples), t ∈ [0, {t_end}]");
        let table = Table::new(
            out,
            &["ω", "hω", "window err", "pointwise err", "vs exact λ"],
        );
        for &(omega, we, pe, re) in &run.rows {
            table.row(&[
                format!("{omega}"),
                format!("{:.2}", h * omega),
                sci(we),
                sci(pe),
                sci(re),
            ]);
            figure(&format!("{prefix}.omega{omega}.window_err"), we);
            figure(&format!("{prefix}.omega{omega}.pointwise_err"), pe);
            figure(&format!("{prefix}.omega{omega}.exact_window_err"), re);
        }
    }
    multiplier_charts(&r.curves, PENALTY_H, t_w, out);
}

/// `reproduce multiplier`: 000 Fig 2b / Theorem 1.3 on the double pendulum.
///
/// Two penalty runs by Z&S: h = 0.001 (resolving the fast oscillation, hω ≤ 0.1; the main
/// figures `multiplier.omega<ω>.*`) and 000 Fig 2's h = 0.01 (`multiplier.h0.01.omega<ω>.*`),
/// where hω reaches 1 at ω = 100 and the recovered average degrades instead of converging.
pub struct MultiplierExperiment;

impl Experiment for MultiplierExperiment {
    const NAME: &'static str = "multiplier";
    const SEED: &'static str = "000 Thm 1.3, Fig 2b";
    const SECONDS: f64 = 0.2;
    const ABOUT: &'static str =
        "000 Thm 1.3 / Fig 2b: Lagrange multiplier recovered from a penalty run vs RATTLE's";
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

/// 000 Fig 2b as curves (`--plot`, `--csv`): per component, RATTLE's λ and the window
/// estimate of the first ω; and the window error against time for every ω.
fn multiplier_charts(curves: &[(f64, MultiplierCurves)], h: f64, t_w: f64, out: &Output) {
    use crate::plot::{emit, Chart, Series};
    let Some((omega, first)) = curves.first() else {
        return;
    };
    let pts = |f: &dyn Fn(&crate::rigid::MultiplierSample) -> f64| -> Vec<(f64, f64)> {
        first.samples.iter().map(|s| (s.t, f(s))).collect()
    };
    for i in 0..2 {
        let n = i + 1;
        emit(
            out,
            &Chart {
                stem: format!("multiplier.lambda{n}"),
                title: format!("000 Fig 2b: multiplier λ{n} of the double pendulum, ω = {omega}"),
                x_label: "time t".into(),
                y_label: format!("λ{n} (force on rod {n} = λ{n} ∇g{n}; g = |rod|² − L²)"),
                log_x: false,
                log_y: false,
                series: vec![
                    Series {
                        label: format!("penalty −ω²g{n}(q(t)) pointwise (Z&S, h = {h})"),
                        points: pts(&|s| s.pointwise[i]),
                    },
                    Series {
                        label: format!("penalty ⟨−ω²g{n}⟩ over the window [t − {t_w}, t] (eq 1.8)"),
                        points: pts(&|s| s.window[i]),
                    },
                    Series {
                        label: format!("RATTLE λ{n}(t), h = {h}"),
                        points: pts(&|s| s.rattle[i]),
                    },
                    Series {
                        label: format!("RATTLE λ{n} averaged over the same window"),
                        points: pts(&|s| s.rattle_window[i]),
                    },
                ],
            },
        );
    }
    let series = curves
        .iter()
        .map(|(omega, run)| Series {
            label: format!("ω = {omega}, h = {h}"),
            points: run
                .samples
                .iter()
                .map(|s| (s.t, s.window_err_so_far))
                .collect(),
        })
        .collect();
    emit(
        out,
        &Chart {
            stem: "multiplier.window_error".into(),
            title: format!(
                "000 Thm 1.3: the window multiplier error shrinks as ω grows (window {t_w})"
            ),
            x_label: "time t".into(),
            y_label: "max over [0, t], i = 1, 2 of |⟨−ω²g_i⟩ − ⟨λ_i RATTLE⟩| (log)".into(),
            log_x: false,
            log_y: true,
            series,
        },
    );
}

/// The penalty integrator of `reproduce multiplier`: Z&S (000 eq 1.3, β = 0.4).
const PENALTY_METHOD: &str = "Z&S (β = 0.4)";
/// Its main step (hω ≤ 0.1 for ω ≤ 100).
pub const PENALTY_H: f64 = 0.001;

type PenaltySystem = System<f64, macrostep::systems::GravityPenalty<f64, 4, 2>, 4>;

type StepFn = Box<dyn FnMut(&mut State<f64, 4>)>;

fn penalty_integrator(sys: PenaltySystem, h: f64) -> StepFn {
    use macrostep::zs::{ZhangSkeel, ZsParams};
    let mut zs = ZhangSkeel::new(sys, h, ZsParams::with_beta(0.4)).expect("Z&S");
    Box::new(move |s| zs.step(s).expect("penalty step"))
}
