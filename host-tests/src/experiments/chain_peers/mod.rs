//! `reproduce chain-peers`: the chain of n unit pendula (004 §5.4.3 model, horizontal at rest,
//! g = 1) at n = 2 (a double pendulum), 5, 10, 20, 40, every method and peer at equal error
//! against the rigid reference, by thread CPU time.
//!
//! - The crate's penalty methods (Z&Ss = SyLiPN and Z&S, banded) run on the penalised chain at
//!   the least ω of [`Effort::omegas`] whose **model error** (the exact penalised solution against
//!   the rigid one, DOP853 at [`MODEL_TOL`]) is at most [`Effort::model_margin`] × the target, one ω per
//!   target: at 1e-2 the model error is ≤ 3e-3.
//! - The rigid-model methods: RATTLE, SHAKE; the minimal-coordinate peers DOP853 on the O(n)
//!   articulated-body chain ([`crate::reference::planar`]) and on the O(n³) LU angle equations
//!   ([`crate::reference::chain`]); rapier's multibody (with the `peers` feature, [`rapier`]);
//!   MuJoCo through its Python package ([`mujoco`], when installed).
//! - The search ([`crate::experiments::work_precision::search`]) finds each method's coarsest step
//!   (tolerance) meeting each target with every finer grid step meeting it too, and times the
//!   found settings in interleaved rounds. MuJoCo's sweep and timing run inside Python
//!   (`time.thread_time()`) on a grid of ratio 2^(1/4), without bisection.

pub mod methods;
#[cfg(feature = "peers")]
pub mod rapier;
pub(crate) mod report;

use crate::experiments::peers::mujoco::{self, MjPoint, SweepEffort};
use crate::experiments::peers::{self, Comparison, Effort};
use crate::experiments::work_precision::search::Search;
use crate::experiments::Experiment;
use crate::reference;
use crate::reference::chain::{angles_rhs, outputs};
use crate::reference::planar::PlanarChain;
use crate::report::Output;
use crate::timing::{self, Timing};
use macrostep::systems::Chain;

/// What to run.
pub struct Setup {
    /// Chain sizes (each needs its const-generic instance in [`compute`]).
    pub sizes: Vec<usize>,
    /// Simulated span.
    pub span: f64,
    /// Outputs over the span (errors are the max over them).
    pub n_out: usize,
    /// Target errors, loosest first.
    pub targets: Vec<f64>,
    /// Penalty ω candidates and margin, search, MuJoCo.
    pub effort: Effort,
    /// Rounds of the right-hand-side timing (articulated body vs LU).
    pub rhs_rounds: usize,
    /// Largest chain on which the O(n³) LU peer is searched (its right-hand side costs 20× the
    /// articulated body's at n = 40: over longer spans its sweep there takes minutes).
    pub lu_max_n: usize,
}

impl Setup {
    /// n = 2, 5, 10, 20, 40 over T = 3 (outputs at t = 1, 2, 3), targets 1e-1, 1e-2, 1e-3.
    ///
    /// The span is where the adaptive solvers must work for their accuracy. DOP853 on the O(n)
    /// chain at its loosest tolerance (1e3), error against the rigid reference: over T = 1 the
    /// chain only falls and that tolerance meets 1e-3 (error 2e-6 … 5e-5 for n = 5 … 40); over
    /// T = 3 the chain whips and it misses even 1e-1 (error 4.9, 11, 21, 39 for n = 5, 10, 20,
    /// 40), DOP853 needing tol ≈ 1e-1 … 1e-2 for 1e-2 and ≈ 1e-3 … 1e-4 for 1e-3. Over T = 10
    /// the loosest tolerances fail outright (the run stops) and 1e-3 needs tol ≈ 1e-4 … 1e-5;
    /// of the spans measured (1, 3, 10), T = 3 is the shortest at which DOP853's loosest
    /// tolerance no longer suffices. The penalty model error grows with the span, so the ω list
    /// goes to 10⁴. The O(n³) LU peer is searched up to n = 20 (its right-hand side costs 20×
    /// the articulated body's at n = 40, which [`Size::rhs_ns`] still measures). MuJoCo's sweep
    /// of one integrator stops at the first run costing more than 1 s of CPU.
    pub fn paper() -> Self {
        Self {
            sizes: vec![2, 5, 10, 20, 40],
            span: 3.0,
            n_out: 3,
            targets: vec![1e-1, 1e-2, 1e-3],
            effort: Effort {
                omegas: vec![100.0, 200.0, 300.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0],
                model_margin: 0.3,
                search: Search {
                    grid_ratio: 2f64.sqrt(),
                    bisect: 3,
                    curve_reps: 1,
                    reps: 7,
                },
                mujoco: true,
                mujoco_rounds: 5,
                mujoco_max_run: 1.0,
            },
            lu_max_n: 20,
            rhs_rounds: 7,
        }
    }

    /// CI-sized: n = 2 and 5, targets 1e-1 and 1e-2, coarse grid, no MuJoCo.
    pub fn quick() -> Self {
        Self {
            sizes: vec![2, 5],
            targets: vec![1e-1, 1e-2],
            effort: Effort {
                search: Search {
                    grid_ratio: 2.0,
                    bisect: 1,
                    curve_reps: 1,
                    reps: 3,
                },
                mujoco: false,
                ..Self::paper().effort
            },
            rhs_rounds: 3,
            ..Self::paper()
        }
    }
}

/// One chain size.
pub struct Size {
    /// Nodes.
    pub n: usize,
    /// The rigid-model methods and peers, the penalty methods, MuJoCo.
    pub comparison: Comparison,
    /// Thread CPU ns of one right-hand side: articulated body, LU.
    pub rhs_ns: [f64; 2],
    /// Max difference of the articulated-body reference (1e-13, step ends) from the LU one.
    pub reference_agreement: f64,
    /// Per target with a chosen ω: the model error there recomputed at `MODEL_TOL / 10`, as
    /// `(target, |difference| / model error)`: the model error's own accuracy.
    pub model_tol_check: Vec<(f64, f64)>,
}

/// What the experiment measured.
pub struct Results {
    /// Span.
    pub span: f64,
    /// Targets.
    pub targets: Vec<f64>,
    /// Per size.
    pub sizes: Vec<Size>,
}

/// The exact penalised chain's distance from the rigid reference `refq` at ω: DOP853 at
/// `rtol = atol = tol` (see [`MODEL_TOL`]) on the penalised chain, to each output exactly.
pub fn model_error<const C: usize, const D: usize>(
    omega: f64,
    tol: f64,
    span: f64,
    n_out: usize,
    refq: &[f64],
) -> f64 {
    let chain = Chain::<f64, C, D>::horizontal();
    let sys = chain.penalised(omega).expect("valid ω");
    let times = outputs(span, n_out);
    let out = reference::solve_system(&sys, &chain.initial_state(), &times, tol, tol);
    let flat: Vec<f64> = out.iter().flat_map(|s| s.q.iter().copied()).collect();
    methods::max_diff(&flat, refq)
}

/// DOP853's tolerance (`rtol = atol`) on the penalised chain in [`model_error`]. Over T = 3 the
/// model error at 1e-10 and at 1e-12 agree to 1e-8 of itself at every n and ω the paper setup
/// picks (measured: n = 2, ω = 100: 3.534395601e-4 against 3.534395580e-4; n = 40, ω = 1000:
/// 1.456844246e-4 against 1.456844252e-4), while 1e-12 takes up to 23× longer (n = 40,
/// ω = 1000: 1.17 s against 0.05 s of CPU). [`Size::model_tol_check`] measures it again in every
/// run.
pub const MODEL_TOL: f64 = 1e-10;

/// Thread CPU ns of one right-hand side of the articulated-body chain and of the LU equations,
/// timed against each other, at a generic moving state.
fn rhs_ns<const D: usize, const C: usize>(rounds: usize) -> [f64; 2] {
    let theta: Vec<f64> = (0..D).map(|i| 1.5 + 0.1 * i as f64).collect();
    let rate: Vec<f64> = (0..D).map(|i| 0.3 * (i as f64).sin()).collect();
    let y_abs: Vec<f64> = [theta.clone(), rate.clone()].concat();
    let y_rel: [f64; C] = reference::planar::state_from_absolute(&theta, &rate);
    let chain = PlanarChain::<D>::unit_pendula();
    let lu = angles_rhs(D);
    let (mut dy_rel, mut dy_abs) = ([0.0; C], vec![0.0; C]);
    let mut a = || chain.rhs(std::hint::black_box(&y_rel), &mut dy_rel);
    let mut b = || lu(0.0, std::hint::black_box(&y_abs), &mut dy_abs);
    let m = timing::compare(&mut [&mut a, &mut b], &Timing::rounds(rounds));
    [m[0].median * 1e9, m[1].median * 1e9]
}

/// MuJoCo's sweep of the chain of `n` (`mujoco_peer.py --model chain`) against `refq` (`2n`
/// positions per output, flattened).
///
/// # Errors
/// No MuJoCo, or the script's failure.
pub fn mujoco_sweep(n: usize, refq: &[f64], effort: SweepEffort) -> Result<Vec<MjPoint>, String> {
    let model = ["--model", "chain", "--n", &n.to_string()].map(String::from);
    mujoco::sweep(
        &model,
        &format!("chain-peers-ref-n{n}"),
        refq,
        2 * n,
        effort,
    )
}

/// The study of the chain of `D` nodes (`C = 2D`).
fn size<const C: usize, const D: usize>(setup: &Setup) -> Size {
    let (span, n_out) = (setup.span, setup.n_out);
    let refq = reference::chain::reference(D, span, n_out);
    let aba_ref = {
        let chain = PlanarChain::<D>::unit_pendula();
        let start = reference::chain::angles_start(D);
        let y0: [f64; C] = reference::planar::state_from_absolute(&start[..D], &start[D..]);
        let ys = reference::planar::solve_at_step_ends(&chain, y0, 1e-13, &outputs(span, n_out))
            .expect("articulated-body reference");
        let mut out = Vec::new();
        ys.iter().for_each(|y| chain.tips(&y[..D], &mut out));
        out
    };
    let reference_agreement = methods::max_diff(&aba_ref, &refq);
    let scored = peers::Scored {
        refq: &refq,
        error: methods::ERROR,
        span,
    };
    let comparison = peers::compare(
        &setup.effort,
        &setup.targets,
        &scored,
        (
            (
                format!("n{D}.rigid"),
                format!("chain of {D}, rigid-model methods and peers, T = {span}"),
            ),
            methods::rigid::<C, D>(span, n_out, D <= setup.lu_max_n),
        ),
        |w| model_error::<C, D>(w, MODEL_TOL, span, n_out, &refq),
        |e, w| {
            (
                (
                    format!("n{D}.penalty_{e:e}"),
                    format!("chain of {D}, penalty ω = {w}"),
                ),
                methods::penalty::<C, D>(w, span, n_out),
            )
        },
        |effort| mujoco_sweep(D, &refq, effort),
    );
    let model_tol_check = comparison
        .penalty
        .iter()
        .filter_map(|p| {
            let w = p.omega?;
            let tight = model_error::<C, D>(w, MODEL_TOL / 10.0, span, n_out, &refq);
            Some((p.target, (tight - p.model_err).abs() / p.model_err))
        })
        .collect();
    Size {
        n: D,
        comparison,
        rhs_ns: rhs_ns::<D, C>(setup.rhs_rounds),
        reference_agreement,
        model_tol_check,
    }
}

/// Runs every size.
pub fn compute(setup: &Setup) -> Results {
    let sizes = setup
        .sizes
        .iter()
        .map(|&n| match n {
            2 => size::<4, 2>(setup),
            5 => size::<10, 5>(setup),
            10 => size::<20, 10>(setup),
            20 => size::<40, 20>(setup),
            40 => size::<80, 40>(setup),
            _ => panic!("chain size {n}: add its const-generic instance in chain_peers::compute"),
        })
        .collect();
    Results {
        span: setup.span,
        targets: setup.targets.clone(),
        sizes,
    }
}

/// `reproduce chain-peers`.
pub struct ChainPeersExperiment;

impl Experiment for ChainPeersExperiment {
    const NAME: &'static str = "chain-peers";
    const SEED: &'static str = "004 §5.4.3";
    const SECONDS: f64 = 90.0;
    const ABOUT: &'static str = "chain of n = 2…40 pendula: Z&Ss/Z&S (penalty ω chosen by model error), RATTLE, SHAKE, O(n) and O(n³) DOP853, rapier, MuJoCo at equal error by CPU time";
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
        report::report(results, out);
    }
}

#[cfg(test)]
mod tests;
