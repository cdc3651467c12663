//! What the peer comparisons `reproduce chain-peers` and `reproduce arm-peers` share: the
//! fixed-step methods and problems they search, the choice of the penalty ω by model error
//! ([`penalty_studies`]), the MuJoCo peer ([`mujoco`]) and the table, figures and chart of one
//! comparison ([`report`]).

pub mod mujoco;
pub mod report;

use crate::experiments::work_precision::leak;
use crate::experiments::work_precision::search::{ErrorFn, Method, Outcome, Problem, Study};

/// A fixed-step method whose step divides the output spacing `dt`.
pub fn fixed<'a>(
    key: &'static str,
    label: &'static str,
    dt: f64,
    p_min: f64,
    run: Box<dyn Fn(f64) -> Outcome + 'a>,
) -> Method<'a> {
    Method {
        key,
        label,
        param_name: "h",
        p_max: dt.min(0.5),
        p_min,
        snap: Some(dt),
        run,
    }
}

/// A problem over `[0, span]` whose runs' observables are scored by `error` (labelled
/// `error_label`), without published ratios (the report computes them).
pub fn problem<'a>(
    key: String,
    title: String,
    error_label: &'static str,
    error: ErrorFn<'a>,
    methods: Vec<Method<'a>>,
    targets: Vec<f64>,
    span: f64,
) -> Problem<'a> {
    Problem {
        key: leak(key),
        title,
        error_label,
        span,
        error,
        methods,
        targets,
        ratios: Vec::new(),
    }
}

/// The penalty methods' study at one target.
pub struct Penalty {
    /// The target error.
    pub target: f64,
    /// The ω chosen (the least candidate with model error ≤ margin × target), if any.
    pub omega: Option<f64>,
    /// Model error at that ω (or at the largest candidate when none qualified).
    pub model_err: f64,
    /// The study of the penalty methods at that ω (target `target` only).
    pub study: Option<Study>,
}

/// Per target, the least ω of `omegas` (ascending) whose `model_error` is at most `margin` ×
/// the target, and `study(target, ω)` there; with every model error computed, as `(ω, error)`
/// in the order computed (each ω once: the model error does not depend on the target).
pub fn penalty_studies(
    targets: &[f64],
    omegas: &[f64],
    margin: f64,
    mut model_error: impl FnMut(f64) -> f64,
    mut study: impl FnMut(f64, f64) -> Study,
) -> (Vec<Penalty>, Vec<(f64, f64)>) {
    let mut errs: Vec<(f64, f64)> = Vec::new();
    let mut penalty = Vec::new();
    for &e in targets {
        let mut chosen = None;
        for &w in omegas {
            let me = match errs.iter().find(|x| x.0 == w) {
                Some(x) => x.1,
                None => {
                    let me = model_error(w);
                    errs.push((w, me));
                    me
                }
            };
            if me <= margin * e {
                chosen = Some((w, me));
                break;
            }
        }
        penalty.push(Penalty {
            target: e,
            omega: chosen.map(|c| c.0),
            model_err: chosen.map_or_else(|| errs.last().map_or(f64::NAN, |x| x.1), |c| c.1),
            study: chosen.map(|(w, _)| study(e, w)),
        });
    }
    (penalty, errs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty(e: f64, w: f64) -> Study {
        Study {
            key: "penalty",
            title: format!("ω = {w}"),
            error_label: "",
            targets: vec![e],
            curves: Vec::new(),
            ratios: Vec::new(),
        }
    }

    #[test]
    fn penalty_picks_the_least_omega_within_the_margin_and_computes_each_model_error_once() {
        // Model error 1/ω²: 1e-4, 1e-6, 1e-8 at ω = 100, 1000, 10000.
        let mut calls = 0;
        let (pen, errs) = penalty_studies(
            &[1e-2, 1e-5, 1e-12],
            &[100.0, 1000.0, 10000.0],
            0.3,
            |w| {
                calls += 1;
                1.0 / (w * w)
            },
            empty,
        );
        // 1e-2: ω = 100 (1e-4 ≤ 3e-3); 1e-5: 100 misses 3e-6, 1000 (1e-6) meets it; 1e-12: none,
        // the largest candidate's error is reported and no study runs.
        assert_eq!(pen[0].omega, Some(100.0));
        assert_eq!(pen[1].omega, Some(1000.0));
        assert!((pen[1].model_err - 1e-6).abs() < 1e-20);
        assert_eq!(pen[2].omega, None);
        assert!((pen[2].model_err - 1e-8).abs() < 1e-22);
        assert!(pen[2].study.is_none());
        assert_eq!(pen[1].study.as_ref().unwrap().targets, vec![1e-5]);
        assert_eq!(calls, 3);
        assert_eq!(errs.len(), 3);
    }
}
