//! `reproduce arm-peers`: the planar 3-link arm of `tools/urdf2mech/urdf/planar_arm3.urdf`
//! swinging freely under gravity from its build pose (stretched horizontally, at rest) over
//! `T = 5 s` ([`Setup::paper`] says why not longer), every method and peer at equal joint-angle
//! error against the reference, by thread CPU time.
//!
//! - Reference: DOP853 at `1e-13` on the O(n) articulated-body chain of the same links
//!   ([`methods::chain`], [`crate::reference::planar`]), to each output exactly.
//! - The crate's penalty methods (Z&S and SyLiPN, dense solve) on the emitted mechanism's penalty
//!   form, at the least ω of [`Effort::omegas`] whose model error (the exact penalised solution,
//!   DOP853 at [`MODEL_TOL`], against the reference) is at most [`Effort::model_margin`] × the
//!   target.
//! - The exact-joint methods: RATTLE on the emitted mechanism; DOP853 on the articulated-body
//!   chain at a looser tolerance (the minimal-coordinate peer); rapier's multibody (with the
//!   `peers` feature, [`rapier`]); MuJoCo through its Python package ([`mujoco`], when installed).
//! - The search and timing are `chain-peers`' ([`crate::experiments::work_precision::search`]):
//!   each method's coarsest setting meeting each target with every finer grid setting meeting it
//!   too, timed in interleaved rounds.

pub mod methods;
#[cfg(feature = "peers")]
pub mod rapier;
mod report;

use crate::experiments::peers::mujoco::{self, MjPoint, SweepEffort};
use crate::experiments::peers::{self, Comparison, Effort};
use crate::experiments::work_precision::search::Search;
use crate::experiments::Experiment;
use crate::reference;
use crate::reference::chain::outputs;
use crate::report::Output;

/// What to run.
pub struct Setup {
    /// Simulated span (s).
    pub span: f64,
    /// Outputs over the span (errors are the max over them).
    pub n_out: usize,
    /// Target errors (rad), loosest first.
    pub targets: Vec<f64>,
    /// Penalty ω candidates (1/s) and margin, search, MuJoCo.
    pub effort: Effort,
}

impl Setup {
    /// `T = 5 s` (about two and a half swings of the arm), ten outputs, targets 1e-2 and 1e-3
    /// rad.
    ///
    /// The span is where the arm is still predictable to the targets. Past `t ≈ 7.5 s` the
    /// swing turns sensitive: a perturbation of 1e-4 rad at `t = 5` (the penalty model error
    /// at ω = 10⁵) has grown to 2 rad at `t = 10`, and at ω = 10⁴ the model error is 1.3e-2
    /// at `T = 5` and `T = 6`, 3.4e-2 at `T = 7`, 1.5 at `T = 8` and 2.8 at `T = 10` (DOP853 at
    /// 1e-10 on the penalised arm). Over `T = 10` no ω of the list meets 1e-2 and every method
    /// would have to hold ~1e-9 rad at `t = 7.5` to meet 1e-3 there. MuJoCo's sweep of one
    /// integrator stops at the first run costing more than 5 s of CPU (its first-order
    /// integrators meet 1e-3 at `dt ≈ 2.7e-6`, about 2.5 s a run, before that).
    pub fn paper() -> Self {
        Self {
            span: 5.0,
            n_out: 10,
            targets: vec![1e-2, 1e-3],
            effort: Effort {
                omegas: vec![1e4, 3e4, 1e5, 3e5, 1e6],
                model_margin: 0.3,
                search: Search {
                    grid_ratio: 2f64.sqrt(),
                    bisect: 2,
                    curve_reps: 1,
                    reps: 3,
                },
                mujoco: true,
                mujoco_rounds: 3,
                mujoco_max_run: 5.0,
            },
        }
    }

    /// CI-sized: `T = 1 s`, two outputs, target 1e-2, coarse grid, no MuJoCo.
    pub fn quick() -> Self {
        Self {
            span: 1.0,
            n_out: 2,
            targets: vec![1e-2],
            effort: Effort {
                omegas: vec![1e4, 3e4, 1e5],
                search: Search {
                    grid_ratio: 2.0,
                    bisect: 0,
                    curve_reps: 1,
                    reps: 1,
                },
                mujoco: false,
                ..Self::paper().effort
            },
        }
    }
}

/// What the experiment measured.
pub struct Results {
    /// Span.
    pub span: f64,
    /// Targets.
    pub targets: Vec<f64>,
    /// The exact-joint methods and peers, the penalty methods, MuJoCo.
    pub comparison: Comparison,
    /// Per target with a chosen ω: the model error there recomputed at `MODEL_TOL / 10`, as
    /// `(target, |difference| / model error)`: the model error's own accuracy.
    pub model_tol_check: Vec<(f64, f64)>,
    /// The reference against itself at `1e-12` (dense output): its accuracy.
    pub reference_check: f64,
    /// The largest joint angle reached (rad, wrapped): how far the arm swings.
    pub max_angle: f64,
}

/// DOP853's tolerance (`rtol = atol`) on the penalised arm in [`model_error`]. Over `T = 5` at
/// ω = 3·10⁴ and 10⁵ the model error at 1e-10 and at 1e-12 agree to 1e-6 of itself (measured
/// 1.46626512e-3 against 1.46626495e-3, 1.32109384e-4 against 1.32109485e-4), while 1e-12 took
/// 7× longer at ω = 10⁵ (the step is bounded by the joints' ringing at ω either way). Radau IIA
/// (order 5, [`reference::try_solve_radau5_system`]) is cheaper at large ω but wrong here: it
/// damps that ringing instead of following it, and its model error moves by 30 % between
/// tolerances 1e-11, 1e-12 and 1e-13 (ω = 10⁴, `T = 1`: 2.5e-3, 3.0e-3, 2.3e-3 against
/// DOP853's 1.85e-3 at 1e-10 and 1e-12 alike).
pub const MODEL_TOL: f64 = 1e-10;

/// The exact penalised arm's joint-angle distance from the reference `refq` at ω: DOP853 at
/// `rtol = atol = tol` (see [`MODEL_TOL`]) on the penalised arm, to each output exactly.
pub fn model_error(omega: f64, tol: f64, span: f64, n_out: usize, refq: &[f64]) -> f64 {
    let (mech, joints) = methods::mechanism();
    let sys = mech.penalised(omega).expect("valid ω");
    let out = reference::solve_system(&sys, &mech.initial_state(), &outputs(span, n_out), tol, tol);
    let obs: Vec<f64> = out
        .iter()
        .flat_map(|s| joints.map(|j| mech.joint_angle(j, &s.q).unwrap_or(f64::NAN)))
        .collect();
    methods::max_angle_diff(&obs, refq)
}

/// MuJoCo's sweep of the arm (`mujoco_peer.py --model arm`) against `refq` (three joint angles
/// per output, flattened).
///
/// # Errors
/// No MuJoCo, or the script's failure.
pub fn mujoco_sweep(refq: &[f64], effort: SweepEffort) -> Result<Vec<MjPoint>, String> {
    let model = ["--model", "arm", "--gravity", &methods::G.to_string()].map(String::from);
    mujoco::sweep(&model, "arm-peers-ref", refq, 3, effort)
}

/// Runs every method and peer.
pub fn compute(setup: &Setup) -> Results {
    let (span, n_out) = (setup.span, setup.n_out);
    let refq = methods::reference(span, n_out);
    let reference_check = methods::aba_dop853(1e-12, span, n_out)
        .map_or(f64::INFINITY, |o| methods::max_angle_diff(&o, &refq));
    let max_angle = refq
        .iter()
        .fold(0.0f64, |m, x| m.max(methods::wrap(*x).abs()));
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
                "rigid".into(),
                format!("3-link arm, exact-joint methods and peers, T = {span}"),
            ),
            methods::rigid(span, n_out),
        ),
        |w| model_error(w, MODEL_TOL, span, n_out, &refq),
        |e, w| {
            (
                (
                    format!("penalty_{e:e}"),
                    format!("3-link arm, penalty ω = {w}"),
                ),
                methods::penalty(w, span, n_out),
            )
        },
        |effort| mujoco_sweep(&refq, effort),
    );
    let model_tol_check = comparison
        .penalty
        .iter()
        .filter_map(|p| {
            let w = p.omega?;
            let tight = model_error(w, MODEL_TOL / 10.0, span, n_out, &refq);
            Some((p.target, (tight - p.model_err).abs() / p.model_err))
        })
        .collect();
    Results {
        span,
        targets: setup.targets.clone(),
        comparison,
        model_tol_check,
        reference_check,
        max_angle,
    }
}

/// `reproduce arm-peers`.
pub struct ArmPeersExperiment;

impl Experiment for ArmPeersExperiment {
    const NAME: &'static str = "arm-peers";
    const SEED: &'static str = "000 §4.5";
    const SECONDS: f64 = 120.0;
    const ABOUT: &'static str = "the URDF 3-link arm swinging freely over T = 5: Z&S/SyLiPN (ω by model error), RATTLE, O(n) DOP853, rapier, MuJoCo at equal joint-angle error by CPU time";
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
