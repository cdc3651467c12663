//! The work–precision harness: sweep a method's step (or a peer solver's tolerance) over a
//! log grid, find the coarsest setting that reaches each target error, and time the methods at
//! those settings by interleaved repeats.
//!
//! A method is a closure `run(p) -> Outcome` for a *cost parameter* `p`: the step `h` for a
//! fixed-step method, `rtol = atol` for an adaptive peer. Larger `p` is always cheaper and (in
//! the asymptotic regime) less accurate. `run` returns the problem's observables at its output
//! times, flattened, or why the run failed (a step error: the guards' `Diverged`, a singular
//! solve, a Newton failure …). The error functional of the problem maps observables to one
//! number; the timing covers `run` only (the integration and the few output samples), never the
//! error evaluation or the reference.
//!
//! # The rule for "reaches a target"
//! A grid point counts for target `e` only if its error is ≤ `e` **and every finer grid point of
//! the method also meets `e`** (so a lucky cancellation at one coarse step does not count). The
//! coarsest counting grid point and its coarser neighbour (which misses or fails) bracket the
//! answer; bisection in `log p` inside the bracket then finds the largest `p` that still meets
//! `e` to within the bracket ratio `(p_hi/p_lo)^(2^-k)`. The found `p` *meets* the target
//! (checked again by the tests); its cost is the method's cost at that target.

use crate::timing::{self, Timing};

/// What one run returns: observables at the output times (flattened), or the failure.
pub type Outcome = Result<Vec<f64>, String>;

/// A method run: cost parameter to outcome.
pub type RunFn<'a> = Box<dyn Fn(f64) -> Outcome + 'a>;

/// An error functional: observables to one error.
pub type ErrorFn<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;

/// One method of a study.
pub struct Method<'a> {
    /// Key in figure names (`zs`, `rattle`, `dop853_angles` …).
    pub key: &'static str,
    /// Legend label.
    pub label: &'static str,
    /// What the cost parameter is (`h`, `tol`, `delta`), for tables and CSV headers.
    pub param_name: &'static str,
    /// Coarsest (cheapest) parameter of the sweep.
    pub p_max: f64,
    /// Finest parameter the sweep may reach.
    pub p_min: f64,
    /// Output spacing a fixed step must divide: the parameter is snapped down to
    /// `spacing / ceil(spacing / p)` so every output time is a step end (`None`: no snapping,
    /// e.g. a tolerance).
    pub snap: Option<f64>,
    /// Runs the method at parameter `p`.
    pub run: RunFn<'a>,
}

impl Method<'_> {
    /// The parameter actually used for a requested `p` (see [`Method::snap`]).
    pub fn snapped(&self, p: f64) -> f64 {
        match self.snap {
            Some(dt) => dt / (dt / p - 1e-9).ceil().max(1.0),
            None => p,
        }
    }
}

/// A problem: simulated time span, error functional, methods, targets and ratios to report.
pub struct Problem<'a> {
    /// Key in figure names (`dp_w100`, `chain20_w100` …).
    pub key: &'static str,
    /// Human title (plot title).
    pub title: String,
    /// What the error measures (plot axis label).
    pub error_label: &'static str,
    /// Simulated time of one run (cost is reported per unit of it).
    pub span: f64,
    /// Error of one run's observables.
    pub error: ErrorFn<'a>,
    /// The methods.
    pub methods: Vec<Method<'a>>,
    /// Target errors, loosest first.
    pub targets: Vec<f64>,
    /// `(a, b)`: report `cost_a / cost_b` at each target.
    pub ratios: Vec<(&'static str, &'static str)>,
}

/// How hard to search and time.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// Grid ratio between consecutive sweep points (e.g. √2).
    pub grid_ratio: f64,
    /// Bisection steps inside a bracket.
    pub bisect: usize,
    /// Repeats (median) per sweep point of the curves.
    pub curve_reps: usize,
    /// Interleaved repeats (median) at the found settings.
    pub reps: usize,
}

/// One sweep point.
#[derive(Clone, Debug)]
pub struct Point {
    /// The cost parameter.
    pub p: f64,
    /// Error (`+∞` when the run failed).
    pub err: f64,
    /// The failure, if any.
    pub failure: Option<String>,
    /// Median seconds per unit simulated time (of the attempt, also when it failed).
    pub cost: f64,
}

/// The setting found for one target.
#[derive(Clone, Debug)]
pub struct Found {
    /// The target error.
    pub target: f64,
    /// The largest parameter found that meets the target.
    pub p: f64,
    /// Its error (≤ target).
    pub err: f64,
    /// The smallest parameter known to miss the target or fail, above `p` (`None`: `p` is the
    /// sweep's coarsest point and meets the target, the grid edge).
    pub p_miss: Option<f64>,
    /// Whether the miss above `p` was a failure (a stability cap, not accuracy).
    pub capped: bool,
    /// Median seconds per unit simulated time at `p`, from the interleaved repeats.
    pub cost: f64,
}

/// A method's sweep and its found settings (one per target, `None` when not reached).
#[derive(Clone, Debug)]
pub struct Curve {
    /// Method key.
    pub key: &'static str,
    /// Legend label.
    pub label: &'static str,
    /// Parameter name.
    pub param_name: &'static str,
    /// Sweep points, coarsest first.
    pub points: Vec<Point>,
    /// Per target.
    pub found: Vec<Option<Found>>,
}

/// A problem's results.
#[derive(Clone, Debug)]
pub struct Study {
    /// Problem key.
    pub key: &'static str,
    /// Title.
    pub title: String,
    /// Error label.
    pub error_label: &'static str,
    /// Targets.
    pub targets: Vec<f64>,
    /// Per method.
    pub curves: Vec<Curve>,
    /// `(a, b, per-target cost_a / cost_b)` (NaN where either is missing).
    pub ratios: Vec<(&'static str, &'static str, Vec<f64>)>,
}

pub use crate::timing::median;

/// Error of one run (`+∞` and the reason on failure).
fn evaluate(problem: &Problem<'_>, m: &Method<'_>, p: f64) -> (f64, Option<String>) {
    match (m.run)(p) {
        Ok(obs) => {
            let e = (problem.error)(&obs);
            if e.is_finite() {
                (e, None)
            } else {
                (f64::INFINITY, Some("non-finite error".into()))
            }
        }
        Err(why) => (f64::INFINITY, Some(why)),
    }
}

/// Thread CPU seconds per unit simulated time of each `(method, p, span)` run, timed against
/// each other in `rounds` interleaved rotated rounds (`crate::timing::compare`): medians.
fn seconds(runs: &[(&Method<'_>, f64, f64)], rounds: usize) -> Vec<f64> {
    let mut closures: Vec<Box<dyn FnMut() + '_>> = runs
        .iter()
        .map(|&(m, p, _)| {
            Box::new(move || {
                std::hint::black_box((m.run)(p).is_ok());
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = closures
        .iter_mut()
        .map(|c| c.as_mut() as &mut dyn FnMut())
        .collect();
    timing::compare(&mut refs, &Timing::rounds(rounds))
        .into_iter()
        .zip(runs)
        .map(|(m, r)| m.median / r.2)
        .collect()
}

/// The sweep: from `p_max` down by `grid_ratio` until two consecutive points meet the finest
/// target with a factor 3 to spare, or `p_min` is passed.
fn sweep(problem: &Problem<'_>, m: &Method<'_>, search: &Search) -> Vec<Point> {
    let finest = problem
        .targets
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let mut points: Vec<Point> = Vec::new();
    let mut raw = m.p_max;
    let mut spare = 0;
    while raw >= m.p_min * (1.0 - 1e-9) && spare < 2 {
        let p = m.snapped(raw);
        raw /= search.grid_ratio;
        if points.last().is_some_and(|last| last.p == p) {
            continue;
        }
        let (err, failure) = evaluate(problem, m, p);
        spare = if err <= finest / 3.0 { spare + 1 } else { 0 };
        points.push(Point {
            p,
            err,
            failure,
            cost: f64::NAN,
        });
    }
    // Curve costs: the points timed against each other in `curve_reps` interleaved rounds (a
    // slow spell of the machine spreads over every point instead of hitting one).
    let runs: Vec<(&Method<'_>, f64, f64)> =
        points.iter().map(|pt| (m, pt.p, problem.span)).collect();
    for (pt, c) in points.iter_mut().zip(seconds(&runs, search.curve_reps)) {
        pt.cost = c;
    }
    points
}

/// The found setting for `target` (without its cost), by the rule of the module docs.
fn find(
    problem: &Problem<'_>,
    m: &Method<'_>,
    points: &[Point],
    target: f64,
    search: &Search,
) -> Option<Found> {
    // Coarsest index i with every point from i on (finer) meeting the target.
    let last_miss = points.iter().rposition(|pt| pt.err > target);
    let i = match last_miss {
        None => 0,
        Some(k) if k + 1 < points.len() => k + 1,
        Some(_) => return None,
    };
    let (mut lo, mut err) = (points[i].p, points[i].err);
    if i == 0 {
        return Some(Found {
            target,
            p: lo,
            err,
            p_miss: None,
            capped: false,
            cost: f64::NAN,
        });
    }
    let mut hi = points[i - 1].p;
    let mut capped = points[i - 1].failure.is_some();
    for _ in 0..search.bisect {
        let mid = m.snapped((lo * hi).sqrt());
        if mid == lo || mid == hi {
            break;
        }
        let (e, failure) = evaluate(problem, m, mid);
        if e <= target {
            lo = mid;
            err = e;
        } else {
            hi = mid;
            capped = failure.is_some();
        }
    }
    Some(Found {
        target,
        p: lo,
        err,
        p_miss: Some(hi),
        capped,
        cost: f64::NAN,
    })
}

/// The sweeps and found settings of one problem, without the headline costs (every
/// [`Found::cost`] NaN, no ratios): [`time_found`] times them, together with the found settings
/// of the problems they are compared with.
pub fn search(problem: &Problem<'_>, search: &Search) -> Study {
    let curves: Vec<Curve> = problem
        .methods
        .iter()
        .map(|m| {
            let points = sweep(problem, m, search);
            let found = problem
                .targets
                .iter()
                .map(|&e| find(problem, m, &points, e, search))
                .collect();
            Curve {
                key: m.key,
                label: m.label,
                param_name: m.param_name,
                points,
                found,
            }
        })
        .collect();
    Study {
        key: problem.key,
        title: problem.title.clone(),
        error_label: problem.error_label,
        targets: problem.targets.clone(),
        curves,
        ratios: Vec::new(),
    }
}

/// The headline costs: every found setting of each `(problem, its study, target index)`, all of
/// them timed against each other in `reps` interleaved rotated rounds, written to
/// [`Found::cost`]. A cost ratio is only as good as the interleaving of its numerator and
/// denominator: time in one call every setting whose costs are divided by each other (a slow
/// spell of the machine then hits both, instead of the one timed minutes apart).
pub fn time_found(entries: &mut [(&Problem<'_>, &mut Study, usize)], reps: usize) {
    let mut at: Vec<(usize, usize)> = Vec::new();
    let mut runs: Vec<(&Method<'_>, f64, f64)> = Vec::new();
    for (i, (problem, st, t)) in entries.iter().enumerate() {
        for (k, (c, m)) in st.curves.iter().zip(&problem.methods).enumerate() {
            if let Some(f) = c.found[*t].as_ref() {
                at.push((i, k));
                runs.push((m, f.p, problem.span));
            }
        }
    }
    let costs = seconds(&runs, reps);
    for ((i, k), cost) in at.into_iter().zip(costs) {
        let t = entries[i].2;
        if let Some(f) = entries[i].1.curves[k].found[t].as_mut() {
            f.cost = cost;
        }
    }
}

/// Runs the whole study of one problem: [`search`], then per target every method's found
/// setting timed against the others ([`time_found`]), and the problem's ratios.
pub fn study(problem: &Problem<'_>, search_effort: &Search) -> Study {
    let mut st = search(problem, search_effort);
    for t in 0..problem.targets.len() {
        time_found(&mut [(problem, &mut st, t)], search_effort.reps);
    }
    let cost = |key: &str, t: usize| -> f64 {
        st.curves
            .iter()
            .find(|c| c.key == key)
            .and_then(|c| c.found[t].as_ref())
            .map_or(f64::NAN, |f| f.cost)
    };
    let ratios = problem
        .ratios
        .iter()
        .map(|&(a, b)| {
            let r = (0..problem.targets.len())
                .map(|t| cost(a, t) / cost(b, t))
                .collect();
            (a, b, r)
        })
        .collect();
    st.ratios = ratios;
    st
}
