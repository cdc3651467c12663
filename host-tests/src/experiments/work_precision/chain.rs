//! The chain of n pendula (004 §5.4.3: unit masses and rods, g = 1, horizontal at rest; n = 20
//! at ω = 100 and 300, and n = 5, 10, 40 at ω = 100) at penalty ω: SyLiPN and Z&S (banded),
//! RATTLE, SHAKE, and two DOP853 peers in joint angles, all against an independent rigid
//! reference (the angle-coordinate equations at 1e-12): `dop853_aba` on the allocation-free O(n)
//! articulated-body chain ([`crate::reference::planar`]), the minimal-coordinate formulation a
//! fair comparison needs, and `dop853_angles` on the O(n³) LU angle equations
//! ([`crate::reference::chain`]), which allocate and factor a dense matrix per right-hand side
//! (kept for its published figures; its cost describes that code, not generalised coordinates).

use super::run_fixed;
use super::search::{Method, Outcome, Problem};
use crate::experiments::chain_peers::methods::aba_dop853;
use crate::reference;
use crate::reference::chain::{angles_rhs, angles_start, outputs, positions};
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Shake};
use macrostep::linalg::Banded;
use macrostep::systems::Chain;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::State;

pub use crate::reference::chain::{reference, NODES};

/// The peer: DOP853 in angle coordinates at `rtol = atol = tol`, one solve with dense output
/// ([`reference::try_solve_dense`]), `n` nodes: positions at the outputs, flattened.
pub fn dop853_angles(n: usize, tol: f64, span: f64, n_out: usize) -> Outcome {
    let ys = reference::try_solve_dense(
        angles_rhs(n),
        0.0,
        &angles_start(n),
        tol,
        tol,
        &outputs(span, n_out),
    )?;
    Ok(ys.iter().flat_map(|y| positions(&y[..n])).collect())
}

/// RATTLE's Newton tolerances for |q| ~ 20 (as in `benches/constrained.rs`: the default
/// absolute 1000 ε is below the roundoff of |d|² − L² there).
fn newton() -> ConstraintNewtonParams<f64> {
    ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    }
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The methods of the `chain<n>_w<ω>` problem: Z&S and SyLiPN (banded) on the penalty system,
/// RATTLE and SHAKE on the rigid one, DOP853 in angles as the peer.
fn methods<'a, const C: usize, const D: usize>(
    omega: f64,
    span: f64,
    n_out: usize,
) -> Vec<Method<'a>> {
    let chain = Chain::<f64, C, D>::horizontal();
    let pen = chain.penalised(omega).expect("valid");
    let (sys, g, s0) = (chain.system(), chain.constraint(), chain.initial_state());
    let dt = span / n_out as f64;
    let obs = |s: &State<f64, C>, out: &mut Vec<f64>| out.extend(s.q.iter());
    let p = ZsParams::with_beta(0.4);
    let fixed = |key, label, p_max, run: Box<dyn Fn(f64) -> Outcome + 'a>| Method {
        key,
        label,
        param_name: "h",
        p_max,
        p_min: 1e-4,
        snap: Some(dt),
        run,
    };
    vec![
        fixed(
            "sylipn",
            "Z&Ss = SyLiPN (000 eq 2.7), banded, β = 0.4",
            0.5,
            Box::new(move |h| {
                run_fixed(
                    Sylipn::with_solver(pen, h, p, Banded::<4>),
                    s0,
                    dt,
                    n_out,
                    obs,
                )
            }),
        ),
        fixed(
            "zs",
            "Z&S (000 eq 1.3), banded, β = 0.4",
            0.5,
            Box::new(move |h| {
                run_fixed(
                    ZhangSkeel::with_solver(pen, h, p, Banded::<4>),
                    s0,
                    dt,
                    n_out,
                    obs,
                )
            }),
        ),
        fixed(
            "rattle",
            "RATTLE (001 eqs 24–28)",
            0.5,
            Box::new(move |h| run_fixed(Rattle::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        fixed(
            "shake",
            "SHAKE (001 eqs 15–18)",
            0.5,
            Box::new(move |h| run_fixed(Shake::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        Method {
            key: "dop853_angles",
            label: "DOP853 in angle coordinates (peer)",
            param_name: "tol",
            p_max: 1.0,
            p_min: 1e-12,
            snap: None,
            run: Box::new(move |tol| dop853_angles(D, tol, span, n_out)),
        },
        Method {
            key: "dop853_aba",
            label: "DOP853 on the O(n) articulated-body chain (peer)",
            param_name: "tol",
            // At tol = 1 DOP853 on the chain is already far below 1e-2 over short spans: the
            // sweep starts looser so the found tolerance is a bracket, not the grid edge.
            p_max: 1e3,
            p_min: 1e-12,
            snap: None,
            run: Box::new(move |tol| aba_dop853::<D, C>(tol, span, n_out)),
        },
    ]
}

/// The `chain<n>_w<ω>` problem (`n = D` nodes, `C = 2D` coordinates) over `[0, span]` with
/// `n_out` outputs, error against `refq` (from [`reference()`] with the same `n`).
pub fn problem<'a, const C: usize, const D: usize>(
    omega: f64,
    span: f64,
    n_out: usize,
    refq: &'a [f64],
) -> Problem<'a> {
    let methods = methods::<C, D>(omega, span, n_out);
    Problem {
        key: super::leak(format!("chain{D}_w{omega}")),
        title: format!("chain of {D} pendula, penalty ω = {omega}, T = {span}: error vs rigid"),
        error_label: "max |q − q_rigid| over the outputs",
        span,
        error: Box::new(move |obs| max_diff(obs, refq)),
        methods,
        targets: vec![1e-1, 1e-2],
        ratios: vec![
            ("rattle", "sylipn"),
            ("dop853_angles", "sylipn"),
            ("zs", "sylipn"),
            ("shake", "sylipn"),
            ("dop853_aba", "sylipn"),
        ],
    }
}
