//! `reproduce work-precision`: which method wins where, **at equal accuracy**.
//!
//! For each problem and method the harness ([`search`]) sweeps the step (a peer's tolerance)
//! over a log grid, finds the coarsest setting that reaches each target error (every finer grid
//! step must reach it too; bisection inside the bracket), and times every method at its found
//! setting in interleaved rotated rounds (median, samples of ≥ 2 ms: [`crate::timing`]). Costs are
//! thread CPU seconds per unit of simulated time; the ratios
//! `a_over_b.speedup_at_equal_error_<e>` are `cost_a / cost_b` at the same target error, so a
//! ratio > 1 means b is cheaper. Step guards are on (the defaults users run with): a guard
//! error at a large step is a failed sweep point, and the search moves to smaller steps.
//!
//! Problems: [`dp`] (double pendulum, ω = 100, vs the rigid solution; with the Z&S stability
//! cap), [`chain`] (chain of 20 at ω = 100 and 300, of 5, 10, 40 at ω = 100, vs a rigid angle-coordinate
//! reference), [`omega`] (the double pendulum over ω = 20 … 2000: stability caps and costs,
//! `reproduce work-precision-omega`), [`remedies`] (remedies for the Z&S cap:
//! β, distance form, Gauss–Newton matrix; `reproduce work-precision-remedies`), [`slow`] (FPU SIM vs Verlet in the slow energies; the FLAVOR trimer).

pub mod bench_steps;
pub mod chain;
pub mod dp;
pub mod omega;
pub mod remedies;
pub mod search;
pub mod slow;

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use crate::say;
use macrostep::{ConfigError, Integrator, State};
use search::{Outcome, Search, Study};

/// A `'static` copy of a figure key built at run time (a handful per run).
pub(crate) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Runs a fixed-step integrator from `s0` for `n_out` output intervals of length `dt` (the
/// step must divide `dt`: see [`search::Method::snap`]) and records `obs` at each output.
pub fn run_fixed<I: Integrator<f64, N>, const N: usize>(
    integ: Result<I, ConfigError>,
    s0: State<f64, N>,
    dt: f64,
    n_out: usize,
    obs: impl Fn(&State<f64, N>, &mut Vec<f64>),
) -> Outcome {
    let mut integ = integ.map_err(|e| format!("config: {e}"))?;
    let per = (dt / integ.step_size()).round() as usize;
    let mut s = s0;
    let mut out = Vec::new();
    for _ in 0..n_out {
        if let Err(e) = integ.integrate(&mut s, per) {
            return Err(format!("{e:?} at t = {:.4}", s.t));
        }
        obs(&s, &mut out);
    }
    Ok(out)
}

/// What to run.
pub struct Setup {
    /// Double pendulum span (outputs at t = 1, 2, …).
    pub dp_span: f64,
    /// Chain span and number of outputs.
    pub chain_span: f64,
    /// Outputs of the chain runs over the span.
    pub chain_outputs: usize,
    /// Chain penalty frequencies (chain of 20).
    pub chain_omegas: Vec<f64>,
    /// Other chain sizes, at ω = 100 (each of 5, 10, 40).
    pub chain_sizes: Vec<usize>,
    /// Span of the other chain sizes (two outputs). At T = 3 the 40-chain's free end whips and
    /// the DOP853 peer's sweep in angle coordinates had not finished after 5 minutes.
    pub chain_sizes_span: f64,
    /// FPU span (outputs every 1).
    pub fpu_span: f64,
    /// Trimer span (outputs every 1).
    pub trimer_span: f64,
    /// Z&S cap study: span and the β values.
    pub cap_span: f64,
    /// β values of the cap study.
    pub cap_betas: Vec<f64>,
    /// Search and timing effort.
    pub search: Search,
}

impl Setup {
    /// The full setting: dp T = 10, chain T = 3, FPU T = 100, trimer T = 10.
    pub fn paper() -> Self {
        Self {
            dp_span: 10.0,
            chain_span: 3.0,
            chain_outputs: 6,
            chain_omegas: vec![100.0, 300.0],
            chain_sizes: vec![5, 10, 40],
            chain_sizes_span: 1.0,
            fpu_span: 100.0,
            trimer_span: 10.0,
            cap_span: 10.0,
            cap_betas: vec![0.25, 0.3, 0.4, 0.5],
            search: Search {
                grid_ratio: 2f64.sqrt(),
                bisect: 4,
                curve_reps: 3,
                reps: 11,
            },
        }
    }
    /// CI-sized: the same problems and figure names over shorter spans, coarser grid, fewer
    /// repeats.
    pub fn quick() -> Self {
        Self {
            dp_span: 10.0,
            chain_span: 1.0,
            chain_outputs: 2,
            chain_omegas: vec![100.0, 300.0],
            chain_sizes: vec![5, 10, 40],
            chain_sizes_span: 1.0,
            fpu_span: 20.0,
            trimer_span: 2.0,
            cap_span: 10.0,
            cap_betas: vec![0.25, 0.3, 0.4, 0.5],
            search: Search {
                grid_ratio: 2.0,
                bisect: 2,
                curve_reps: 1,
                reps: 3,
            },
        }
    }
}

/// What the study measured.
pub struct Results {
    /// One per problem, in report order.
    pub studies: Vec<Study>,
    /// The penalty model error of the double pendulum at ω = 100 (exact penalised vs rigid).
    pub dp_model_err: f64,
    /// The caps per β: Z&S with guards on, off; stiff Z&Ss with guards on.
    pub caps: Vec<dp::Cap>,
    /// The FPU reference's own error estimate: DOP853 at 1e-12 vs 1e-13, max over `I_j`.
    pub fpu_reference_err: f64,
    /// Span of the double-pendulum study.
    pub dp_span: f64,
    /// The rigid reference of the double-pendulum study ([`dp::rigid_reference`]).
    pub dp_rigid: Vec<f64>,
}

impl Results {
    /// Runs method `key` of the double-pendulum study (`dp_w100`) again at parameter `p`: its
    /// error against the rigid reference, or why it failed (to check the study's found
    /// settings).
    pub fn dp_rerun(&self, key: &str, p: f64) -> Result<f64, String> {
        let problem = dp::problem(100.0, self.dp_span, &self.dp_rigid);
        let method = problem
            .methods
            .iter()
            .find(|m| m.key == key)
            .ok_or_else(|| format!("no method {key} in the double-pendulum study"))?;
        (method.run)(p).map(|obs| (problem.error)(&obs))
    }
}

/// Runs every problem.
pub fn compute(setup: &Setup) -> Results {
    let search = &setup.search;
    let mut studies = Vec::new();
    let rigid = dp::rigid_reference(setup.dp_span);
    studies.push(search::study(
        &dp::problem(100.0, setup.dp_span, &rigid),
        search,
    ));
    let dp_model_err = dp::model_error(100.0, setup.dp_span, &rigid);
    let (span, n_out) = (setup.chain_span, setup.chain_outputs);
    let chain_ref = chain::reference(chain::NODES, span, n_out);
    for &w in &setup.chain_omegas {
        let p = chain::problem::<40, 20>(w, span, n_out, &chain_ref);
        studies.push(search::study(&p, search));
    }
    // The other chain sizes at ω = 100.
    let (span, n_out) = (setup.chain_sizes_span, 2);
    for &n in &setup.chain_sizes {
        let refq = chain::reference(n, span, n_out);
        let p = match n {
            5 => chain::problem::<10, 5>(100.0, span, n_out, &refq),
            10 => chain::problem::<20, 10>(100.0, span, n_out, &refq),
            40 => chain::problem::<80, 40>(100.0, span, n_out, &refq),
            _ => panic!("chain size {n}: add its const-generic instance here"),
        };
        studies.push(search::study(&p, search));
    }
    let fpu_ref = slow::fpu_reference(setup.fpu_span, 1e-12);
    let fpu_ref2 = slow::fpu_reference(setup.fpu_span, 1e-13);
    let fpu_reference_err = fpu_ref
        .iter()
        .zip(&fpu_ref2)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    for which in [slow::FpuError::Sum, slow::FpuError::Each] {
        let p = slow::fpu_problem(which, setup.fpu_span, &fpu_ref);
        studies.push(search::study(&p, search));
    }
    let trimer_ref = slow::trimer_reference(setup.trimer_span);
    let p = slow::trimer_problem(setup.trimer_span, &trimer_ref);
    studies.push(search::study(&p, search));
    let mut caps = Vec::new();
    for &beta in &setup.cap_betas {
        caps.push(dp::cap(100.0, beta, true, false, setup.cap_span));
        caps.push(dp::cap(100.0, beta, false, false, setup.cap_span));
        caps.push(dp::cap(100.0, beta, true, true, setup.cap_span));
    }
    Results {
        studies,
        dp_model_err,
        caps,
        fpu_reference_err,
        dp_span: setup.dp_span,
        dp_rigid: rigid,
    }
}

/// A target error as a figure-name tag: `1e-2`.
pub fn tag(e: f64) -> String {
    format!("{e:e}")
}

/// The table of one study: per method and target, the found parameter, its error, the bracket
/// above it and the cost.
fn table(s: &Study, out: &Output) {
    let t = Table::new(
        out,
        &[
            "method",
            "target",
            "param",
            "error",
            "miss above",
            "s per unit t",
        ],
    );
    for c in &s.curves {
        for (k, f) in c.found.iter().enumerate() {
            let row = match f {
                Some(f) => [
                    sci(f.p),
                    sci(f.err),
                    match f.p_miss {
                        Some(p) if f.capped => format!("{} (fails)", sci(p)),
                        Some(p) => sci(p),
                        None => "grid edge".into(),
                    },
                    sci(f.cost),
                ],
                None => ["not reached".into(), "-".into(), "-".into(), "-".into()],
            };
            let [a, b, c2, d] = row;
            t.row(&[c.key.into(), sci(s.targets[k]), a, b, c2, d]);
        }
    }
}

/// The table, the plot and the figures of one study.
fn report_study(s: &Study, out: &Output) {
    say!(out, "\n== {} ==", s.title);
    table(s, out);
    for c in &s.curves {
        for (k, f) in c.found.iter().enumerate() {
            let e = tag(s.targets[k]);
            let (p, cost) = f.as_ref().map_or((f64::NAN, f64::NAN), |f| (f.p, f.cost));
            figure(
                &format!("work_precision.{}.{}.{}_at_{e}", s.key, c.key, c.param_name),
                p,
            );
            figure(
                &format!("work_precision.{}.{}.cpu_at_{e}", s.key, c.key),
                cost,
            );
        }
    }
    for (a, b, r) in &s.ratios {
        for (k, v) in r.iter().enumerate() {
            let e = tag(s.targets[k]);
            say!(out, "{a} / {b} cost at error {e}: {v:.3}");
            figure(
                &format!(
                    "work_precision.{}.{a}_over_{b}.speedup_at_equal_error_{e}",
                    s.key
                ),
                *v,
            );
        }
    }
    charts::emit(WorkPrecisionExperiment::NAME, s, out);
}

/// Prints the tables and the figures; writes CSV and PNG when asked.
pub fn report(r: &Results, out: &Output) {
    say!(out, "work–precision at equal accuracy; cost = median thread CPU seconds per unit simulated time");
    for s in &r.studies {
        report_study(s, out);
        if s.key == "dp_w100" {
            say!(
                out,
                "penalty model error at ω = 100 (exact penalised vs rigid): {}",
                sci(r.dp_model_err)
            );
            figure("work_precision.dp_w100.model_err", r.dp_model_err);
        }
        if s.key == "fpu_sum" {
            say!(
                out,
                "FPU reference check: DOP853 1e-12 vs 1e-13, max |ΔI_j| = {}",
                sci(r.fpu_reference_err)
            );
            figure("work_precision.fpu.reference_err", r.fpu_reference_err);
        }
        if s.key == "trimer" {
            trimer_per_delta_over_tau(s, out);
        }
    }
    report_caps(&r.caps, out);
}

/// The trimer's equal-accuracy speed-up in units of the fused FLAVOR's δ/τ (against the legacy
/// map *at τ* the speed-up is 1.05–1.10·δ/τ; here the legacy map runs at its own
/// equal-accuracy step).
fn trimer_per_delta_over_tau(s: &Study, out: &Output) {
    let fused = s.curves.iter().find(|c| c.key == "fused");
    let ratio = s.ratios.iter().find(|r| r.0 == "legacy" && r.1 == "fused");
    for (k, &e) in s.targets.iter().enumerate() {
        let d = fused
            .and_then(|c| c.found[k].as_ref())
            .map_or(f64::NAN, |f| f.p / slow::TAU);
        let r = ratio.map_or(f64::NAN, |r| r.2[k]);
        say!(
            out,
            "trimer at {e:e}: fused δ/τ = {d:.0}; legacy / fused = {:.3}·δ/τ",
            r / d
        );
        figure(
            &format!("work_precision.trimer.fused.delta_over_tau_at_{}", tag(e)),
            d,
        );
        figure(
            &format!(
                "work_precision.trimer.legacy_over_fused.speedup_at_equal_error_per_delta_over_tau_{}",
                tag(e)
            ),
            r / d,
        );
    }
}

/// The Z&S ω = 100 stability cap.
fn report_caps(caps: &[dp::Cap], out: &Output) {
    say!(
        out,
        "\n== stability cap, double pendulum ω = 100, T = 10 (grid ratio 2^(1/8) from h = 0.01) =="
    );
    let t = Table::new(
        out,
        &[
            "beta",
            "guards",
            "h_max",
            "h_fail",
            "omega*h_fail",
            "min eig M+bh²H",
            "failure",
        ],
    );
    for c in caps {
        t.row(&[
            c.method.into(),
            format!("{}", c.beta),
            if c.guards { "on" } else { "off" }.into(),
            sci(c.h_max),
            sci(c.h_fail),
            format!("{:.2}", 100.0 * c.h_fail),
            sci(c.min_eig),
            c.failure.clone(),
        ]);
    }
    for c in caps {
        let g = if c.guards { "" } else { "_unguarded" };
        figure(
            &format!("work_precision.{}_cap.beta{}.h_max{g}", c.method, c.beta),
            c.h_max,
        );
        figure(
            &format!("work_precision.{}_cap.beta{}.min_eig{g}", c.method, c.beta),
            c.min_eig,
        );
    }
}

mod charts;

/// `reproduce work-precision` (`--quick`: the reduced setup).
pub struct WorkPrecisionExperiment;

impl Experiment for WorkPrecisionExperiment {
    const NAME: &'static str = "work-precision";
    const SEED: &'static str = "000 §4.1, 004 §5.4.3, §4.2.6, eq 2.100";
    const SECONDS: f64 = 35.0;
    const ABOUT: &'static str = "work–precision at equal accuracy: dp ω = 100 (10 methods + DOP853 peer), chains of 5–40, FPU SIM1/2/4 vs Verlet, FLAVOR trimer; Z&S cap";
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
