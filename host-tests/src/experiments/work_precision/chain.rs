//! The chain of n pendula (004 §5.4.3: unit masses and rods, g = 1, horizontal at rest; n = 20
//! at ω = 100 and 300, and n = 5, 10, 40 at ω = 100) at penalty ω: SyLiPN and Z&S (banded),
//! RATTLE, SHAKE, and the peer DOP853 in angle coordinates, all against an independent rigid
//! reference (the same angle-coordinate equations at 1e-12).
//!
//! # Angle coordinates
//! `θᵢ` is rod i's angle from the downward vertical, node `k = Σ_{i≤k} (sin θᵢ, −cos θᵢ)`. With
//! `μᵢⱼ = n − max(i, j)` (0-based: the number of nodes hanging below both rods),
//! `T = ½ Σᵢⱼ μᵢⱼ cos(θᵢ − θⱼ) θ̇ᵢθ̇ⱼ`, `V = −g Σᵢ (n − i) cos θᵢ`, and Euler–Lagrange gives
//!
//! ```text
//! Σⱼ μᵢⱼ [cos(θᵢ − θⱼ) θ̈ⱼ + sin(θᵢ − θⱼ) θ̇ⱼ²] = −g (n − i) sin θᵢ.
//! ```
//!
//! The horizontal start is `θᵢ = π/2`. A test checks this model against RATTLE on the Cartesian
//! model at a small step.

use super::run_fixed;
use super::search::{Method, Outcome, Problem};
use crate::reference;
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Shake};
use macrostep::linalg::Banded;
use macrostep::systems::Chain;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::State;
use nalgebra::{DMatrix, DVector};

/// Nodes of the chain of the original study (`chain20_w<ω>`).
pub const NODES: usize = 20;

/// The chain's right-hand side in angle coordinates, `y = (θ, θ̇)`, `n` nodes, `g = 1`.
pub fn angles_rhs(n: usize) -> impl Fn(f64, &[f64], &mut [f64]) {
    move |_t, y, dy| {
        let (th, w) = (&y[..n], &y[n..]);
        let mut m = DMatrix::<f64>::zeros(n, n);
        let mut b = DVector::<f64>::zeros(n);
        for i in 0..n {
            b[i] = -((n - i) as f64) * th[i].sin();
            for j in 0..n {
                let mu = (n - i.max(j)) as f64;
                let (s, c) = (th[i] - th[j]).sin_cos();
                m[(i, j)] = mu * c;
                b[i] -= mu * s * w[j] * w[j];
            }
        }
        let a = m
            .lu()
            .solve(&b)
            .unwrap_or_else(|| DVector::from_element(n, f64::NAN));
        dy[..n].copy_from_slice(w);
        dy[n..].copy_from_slice(a.as_slice());
    }
}

/// Cartesian node positions `(x₁, y₁, …)` of the angles `θ`.
pub fn positions(th: &[f64]) -> Vec<f64> {
    let (mut x, mut y) = (0.0, 0.0);
    let mut out = Vec::with_capacity(2 * th.len());
    for t in th {
        x += t.sin();
        y -= t.cos();
        out.push(x);
        out.push(y);
    }
    out
}

/// Output times `k·span/outputs`, `k = 1..=outputs`.
fn outputs(span: f64, n_out: usize) -> Vec<f64> {
    (1..=n_out)
        .map(|k| span * k as f64 / n_out as f64)
        .collect()
}

/// The horizontal start at rest in angle coordinates, `n` nodes.
fn angles_start(n: usize) -> Vec<f64> {
    [vec![std::f64::consts::FRAC_PI_2; n], vec![0.0; n]].concat()
}

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

/// The reference of the chain of `n`: the angle equations by [`reference::solve`] at 1e-12
/// (outputs at step ends, not the dense output the peer uses).
pub fn reference(n: usize, span: f64, n_out: usize) -> Vec<f64> {
    let y0 = angles_start(n);
    let ys = reference::solve(
        angles_rhs(n),
        0.0,
        &y0,
        span,
        1e-12,
        1e-12,
        &outputs(span, n_out),
    );
    ys.iter().flat_map(|y| positions(&y[..n])).collect()
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
            "SyLiPN / Z&Ss, banded (β = 0.4)",
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
            "Z&S, banded (β = 0.4)",
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
            "RATTLE",
            0.5,
            Box::new(move |h| run_fixed(Rattle::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        fixed(
            "shake",
            "SHAKE",
            0.5,
            Box::new(move |h| run_fixed(Shake::new(sys, g, h, newton()), s0, dt, n_out, obs)),
        ),
        Method {
            key: "dop853_angles",
            label: "DOP853 in angles (peer)",
            param_name: "tol",
            p_max: 1.0,
            p_min: 1e-12,
            snap: None,
            run: Box::new(move |tol| dop853_angles(D, tol, span, n_out)),
        },
    ]
}

/// The `chain<n>_w<ω>` problem (`n = D` nodes, `C = 2D` coordinates) over `[0, span]` with
/// `n_out` outputs, error against `refq` (from [`reference`] with the same `n`).
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
        ],
    }
}
