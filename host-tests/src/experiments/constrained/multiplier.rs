//! `reproduce multiplier`: the multiplier recovered from a penalty run (000 Thm 1.3, Fig 2b /
//! Fig 5) on the double pendulum.

use crate::report::{figure, sci, Table};
use crate::rigid::{multiplier_curves, MultiplierCurves};
use macrostep::model::System;
use macrostep::{Integrator, State};

/// `reproduce multiplier`: 000 Fig 2b / Theorem 1.3 on the double pendulum.
///
/// Two penalty runs by Z&S: h = 0.001 (resolving the fast oscillation, hω ≤ 0.1; the main
/// figures `multiplier.omega<ω>.*`) and 000 Fig 2's h = 0.01 (`multiplier.h0.01.omega<ω>.*`),
/// where hω reaches 1 at ω = 100 and the recovered average degrades instead of converging.
pub fn run() {
    use macrostep::systems::DoublePendulum;
    let dp = DoublePendulum::<f64>::paper();
    let (t_w, t_end) = (0.2, 5.0);
    crate::say!(
        "000 Thm 1.3 / Fig 2b: double pendulum (L₁ = 1, L₂ = √2, start (0,−1,1,−2) at rest),"
    );
    crate::say!(
        "λ ≈ −⟨ω² g⟩ (same sign as RATTLE's λ: force +g'ᵀλ; g = squared distances in both)"
    );
    let mut curves = Vec::new();
    for (h, prefix) in [(PENALTY_H, "multiplier"), (0.01, "multiplier.h0.01")] {
        let w = (t_w / h).round() as usize;
        // About 1000 samples per curve for the charts (of the main step only).
        let every = if h == PENALTY_H {
            ((t_end / h) as usize / 1000).max(1)
        } else {
            usize::MAX
        };
        crate::say!();
        crate::say!("penalty run by {PENALTY_METHOD} with h = {h}, RATTLE with h = {h}; window T_w = {t_w} ({w} samples), t ∈ [0, {t_end}]");
        let table = Table::new(&["ω", "hω", "window err", "pointwise err", "vs exact λ"]);
        for omega in [20.0, 50.0, 100.0] {
            let sys = dp.penalised(omega).expect("penalty");
            let mut step = penalty_integrator(sys, h);
            let run = multiplier_curves(omega, h, w, t_end, every, |s| step(s));
            let (we, pe, re) = run.errors;
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
            if h == PENALTY_H {
                curves.push((omega, run));
            }
        }
    }
    multiplier_charts(&curves, PENALTY_H, t_w);
}

/// 000 Fig 2b as curves (`--plot`, `--csv`): per component, RATTLE's λ and the window
/// estimate of the first ω; and the window error against time for every ω.
fn multiplier_charts(curves: &[(f64, MultiplierCurves)], h: f64, t_w: f64) {
    use crate::plot::{emit, Chart, Series};
    let Some((omega, first)) = curves.first() else {
        return;
    };
    let pts = |f: &dyn Fn(&crate::rigid::MultiplierSample) -> f64| -> Vec<(f64, f64)> {
        first.samples.iter().map(|s| (s.t, f(s))).collect()
    };
    for i in 0..2 {
        let n = i + 1;
        emit(&Chart {
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
        });
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
    emit(&Chart {
        stem: "multiplier.window_error".into(),
        title: format!(
            "000 Thm 1.3: the window multiplier error shrinks as ω grows (window {t_w})"
        ),
        x_label: "time t".into(),
        y_label: "max over [0, t], i = 1, 2 of |⟨−ω²g_i⟩ − ⟨λ_i RATTLE⟩| (log)".into(),
        log_x: false,
        log_y: true,
        series,
    });
}

/// The penalty integrator of `reproduce multiplier`: Z&S (000 eq 1.3, β = 0.4).
const PENALTY_METHOD: &str = "Z&S (β = 0.4)";
/// Its main step (hω ≤ 0.1 for ω ≤ 100).
const PENALTY_H: f64 = 0.001;

type PenaltySystem = System<f64, macrostep::systems::GravityPenalty<f64, 4, 2>, 4>;

type StepFn = Box<dyn FnMut(&mut State<f64, 4>)>;

fn penalty_integrator(sys: PenaltySystem, h: f64) -> StepFn {
    use macrostep::zs::{ZhangSkeel, ZsParams};
    let mut zs = ZhangSkeel::new(sys, h, ZsParams::with_beta(0.4)).expect("Z&S");
    Box::new(move |s| zs.step(s).expect("penalty step"))
}
