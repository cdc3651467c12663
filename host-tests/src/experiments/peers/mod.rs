//! What the peer comparisons `reproduce chain-peers` and `reproduce arm-peers` share: one
//! comparison of a model ([`compare`]: the rigid-model methods and peers, the penalty methods at
//! the ω chosen by model error ([`penalty_studies`]), MuJoCo), its effort ([`Effort`]) and
//! scoring ([`Scored`]), the fixed-step methods it searches, the rapier peer's multibody runner
//! (`rapier`, with the `peers` feature), the MuJoCo peer ([`mujoco`]) and the table, figures
//! and chart of one comparison ([`report`]), and the crate's penalty methods as both search them
//! ([`zs_methods`]).

pub mod mujoco;
#[cfg(feature = "peers")]
pub mod rapier;
pub mod report;
pub mod zs_methods;

use crate::experiments::work_precision::leak;
use crate::experiments::work_precision::search::{self, Method, Outcome, Problem, Search, Study};
use mujoco::{MjPoint, SweepEffort};
use report::Compared;

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

/// A distance between two flattened observables (`∞` when their lengths differ).
pub type Distance = fn(&[f64], &[f64]) -> f64;

/// What a comparison's problems are scored against: the reference observables `refq` over
/// `[0, span]` and the error, its label and its distance `error.1(observables, refq)`.
pub struct Scored<'a> {
    /// The reference observables, flattened.
    pub refq: &'a [f64],
    /// The error's label and the distance from `refq`.
    pub error: (&'static str, Distance),
    /// Simulated span.
    pub span: f64,
}

impl<'a> Scored<'a> {
    /// The problem `key` (titled `title`) of `methods` at `targets`, without published ratios
    /// (the report computes them).
    pub fn problem(
        &self,
        (key, title): (String, String),
        methods: Vec<Method<'a>>,
        targets: Vec<f64>,
    ) -> Problem<'a> {
        let (refq, diff) = (self.refq, self.error.1);
        Problem {
            key: leak(key),
            title,
            error_label: self.error.0,
            span: self.span,
            error: Box::new(move |obs| diff(obs, refq)),
            methods,
            targets,
            ratios: Vec::new(),
        }
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

/// What every peer comparison runs besides its model: the penalty ω candidates and margin, the
/// search and timing effort, and MuJoCo's.
#[derive(Clone, Debug)]
pub struct Effort {
    /// Candidate penalty frequencies, ascending.
    pub omegas: Vec<f64>,
    /// The penalty model error allowed, as a fraction of the target.
    pub model_margin: f64,
    /// Search and timing effort.
    pub search: Search,
    /// Run the MuJoCo peer (when its Python package is installed).
    pub mujoco: bool,
    /// MuJoCo: timing rounds per sweep point, and the CPU seconds one run may take before its
    /// sweep stops.
    pub mujoco_rounds: usize,
    /// See [`Effort::mujoco_rounds`].
    pub mujoco_max_run: f64,
}

/// What one comparison measured.
pub struct Comparison {
    /// The rigid-model (exact-joint) methods and peers, at every target.
    pub rigid: Study,
    /// The penalty methods, per target.
    pub penalty: Vec<Penalty>,
    /// Every candidate ω's model error computed, as `(ω, error)`.
    pub model_errors: Vec<(f64, f64)>,
    /// MuJoCo's sweep, or why it did not run.
    pub mujoco: Result<Vec<MjPoint>, String>,
}

impl Comparison {
    /// The view the report prints, at `targets`.
    pub fn compared<'a>(&'a self, targets: &'a [f64]) -> Compared<'a> {
        Compared {
            targets,
            penalty: &self.penalty,
            rigid: &self.rigid,
            mujoco: &self.mujoco,
        }
    }
}

/// One model's comparison at `targets`, scored by `scored`: the search of the `rigid` methods
/// (problem key and title, methods) at every target; per target the penalty methods
/// `penalty(target, ω)` at the ω [`penalty_studies`] picks by `model_error`; MuJoCo's `sweep`
/// down to the finest target, its found points timed (when `effort.mujoco`).
///
/// The published speed-ups divide a rigid method's cost by a penalty method's, so per target
/// the found settings of both problems are timed against each other in one set of interleaved
/// rounds ([`search::time_found`]), never in two sets minutes apart.
pub fn compare<'a>(
    effort: &Effort,
    targets: &[f64],
    scored: &Scored<'a>,
    rigid: ((String, String), Vec<Method<'a>>),
    model_error: impl FnMut(f64) -> f64,
    mut penalty: impl FnMut(f64, f64) -> ((String, String), Vec<Method<'a>>),
    sweep: impl FnOnce(SweepEffort) -> Result<Vec<MjPoint>, String>,
) -> Comparison {
    let rigid_problem = scored.problem(rigid.0, rigid.1, targets.to_vec());
    let mut rigid = search::search(&rigid_problem, &effort.search);
    let mut penalty_problems: Vec<Problem<'a>> = Vec::new();
    let (mut penalty, model_errors) = penalty_studies(
        targets,
        &effort.omegas,
        effort.model_margin,
        model_error,
        |e, w| {
            let (name, methods) = penalty(e, w);
            let problem = scored.problem(name, methods, vec![e]);
            let st = search::search(&problem, &effort.search);
            penalty_problems.push(problem);
            st
        },
    );
    for (t, &e) in targets.iter().enumerate() {
        let pen = penalty
            .iter_mut()
            .find(|p| p.target == e)
            .and_then(|p| p.study.as_mut())
            .zip(penalty_problems.iter().find(|p| p.targets == [e]));
        match pen {
            Some((st, problem)) => search::time_found(
                &mut [(&rigid_problem, &mut rigid, t), (problem, st, 0)],
                effort.search.reps,
            ),
            None => search::time_found(&mut [(&rigid_problem, &mut rigid, t)], effort.search.reps),
        }
    }
    let mujoco = if effort.mujoco {
        sweep(SweepEffort {
            span: scored.span,
            targets: targets.to_vec(),
            rounds: effort.mujoco_rounds,
            max_run_seconds: effort.mujoco_max_run,
        })
    } else {
        Err("MuJoCo peer not run in this setup".into())
    };
    Comparison {
        rigid,
        penalty,
        model_errors,
        mujoco,
    }
}

/// Max `d(a − b)` over two flattened observables (`∞` when their lengths differ).
pub fn max_diff_by(a: &[f64], b: &[f64], d: impl Fn(f64) -> f64) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter().zip(b).map(|(x, y)| d(x - y)).fold(0.0, f64::max)
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
