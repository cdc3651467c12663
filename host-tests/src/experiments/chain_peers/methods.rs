//! The methods of `chain-peers` on the chain of `n` unit pendula (004 §5.4.3 model): the crate's
//! penalty methods at a chosen ω, its constrained methods, the two minimal-coordinate DOP853
//! solvers (the O(n) articulated-body chain and the older O(n³) LU one) and rapier.

use crate::experiments::peers::zs_methods::{zs_and_sylipn, PenaltyRun};
use crate::experiments::peers::{self, fixed};
use crate::experiments::work_precision::chain::dop853_angles;
use crate::experiments::work_precision::run_fixed;
use crate::experiments::work_precision::search::{Method, Outcome};
use crate::reference::chain::{angles_start, outputs};
use crate::reference::planar::{solve_dense, state_from_absolute, PlanarChain};
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Shake};
use macrostep::linalg::Banded;
use macrostep::systems::Chain;
use macrostep::State;

/// Max |a − b| over two flattened observables (∞ when their lengths differ).
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    peers::max_diff_by(a, b, f64::abs)
}

/// The error of `chain-peers`' problems: its label and [`max_diff`].
pub const ERROR: (&str, peers::Distance) = ("max |q − q_rigid| over the outputs", max_diff);

/// The O(n) peer: DOP853 at `rtol = atol = tol` on the articulated-body chain of `N` joints
/// (`M = 2N`), one solve with dense output; node positions at the outputs, flattened.
pub fn aba_dop853<const N: usize, const M: usize>(tol: f64, span: f64, n_out: usize) -> Outcome {
    let chain = PlanarChain::<N>::unit_pendula();
    let start = angles_start(N);
    let y0: [f64; M] = state_from_absolute(&start[..N], &start[N..]);
    let ys = solve_dense(&chain, y0, tol, &outputs(span, n_out))?;
    let mut out = Vec::with_capacity(2 * N * n_out);
    for y in &ys {
        chain.tips(&y[..N], &mut out);
    }
    Ok(out)
}

/// RATTLE's Newton tolerances for |q| ~ n (the default absolute 1000 ε is below the roundoff of
/// |d|² − L² there).
fn newton() -> ConstraintNewtonParams<f64> {
    ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    }
}

/// The penalty methods on the chain of `D` nodes (`C = 2D`) at ω: Z&Ss = SyLiPN and Z&S, banded,
/// β = 0.4.
pub fn penalty<'a, const C: usize, const D: usize>(
    omega: f64,
    span: f64,
    n_out: usize,
) -> Vec<Method<'a>> {
    let chain = Chain::<f64, C, D>::horizontal();
    let run = PenaltyRun {
        system: chain.penalised(omega).expect("valid ω"),
        omega,
        s0: chain.initial_state(),
        dt: span / n_out as f64,
        n_out,
        obs: |s: &State<f64, C>, out: &mut Vec<f64>| out.extend(s.q.iter()),
        solver: (Banded::<4>, ", banded"),
        h_min: 1e-5,
    };
    zs_and_sylipn(run, true)
}

/// The rigid-model methods and peers on the chain of `D` nodes: RATTLE, SHAKE, DOP853 on the
/// articulated-body chain (O(n)) and on the LU angle equations (O(n³)), and rapier (with the
/// `peers` feature) at each substep count. `with_lu`: include the LU peer.
pub fn rigid<'a, const C: usize, const D: usize>(
    span: f64,
    n_out: usize,
    with_lu: bool,
) -> Vec<Method<'a>> {
    let chain = Chain::<f64, C, D>::horizontal();
    let (sys, g, s0) = (chain.system(), chain.constraint(), chain.initial_state());
    let dt = span / n_out as f64;
    let obs = |s: &State<f64, C>, out: &mut Vec<f64>| out.extend(s.q.iter());
    let tol = |key, label, run: Box<dyn Fn(f64) -> Outcome + 'a>| Method {
        key,
        label,
        param_name: "tol",
        // At tol = 1 DOP853 is already at 5e-5 on the chain over T = 1: start far looser.
        p_max: 1e3,
        p_min: 1e-13,
        snap: None,
        run,
    };
    let mut methods = vec![
        fixed(
            "rattle",
            "RATTLE (001 eqs 24–28)",
            dt,
            1e-5,
            Box::new(move |h| run_fixed(Rattle::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        fixed(
            "shake",
            "SHAKE (001 eqs 15–18)",
            dt,
            1e-5,
            Box::new(move |h| run_fixed(Shake::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        tol(
            "aba_dop853",
            "DOP853 on the O(n) articulated-body chain (joint angles)",
            Box::new(move |t| aba_dop853::<D, C>(t, span, n_out)),
        ),
    ];
    if with_lu {
        methods.push(tol(
            "lu_dop853",
            "DOP853 on the O(n³) LU angle equations",
            Box::new(move |t| dop853_angles(D, t, span, n_out)),
        ));
    }
    #[cfg(feature = "peers")]
    for (key, s) in peers::rapier::SUBSTEPS {
        methods.push(fixed(
            key,
            crate::experiments::work_precision::leak(format!("rapier multibody, {s} substep(s)")),
            dt,
            // 2·10⁴ steps per unit time at most: a run of the 40-chain then costs seconds.
            5e-5,
            Box::new(move |h| super::rapier::run(D, h, s, dt, n_out)),
        ));
    }
    methods
}
