//! The chain of 20 pendula (004 §5.4.3: unit masses and rods, g = 1, horizontal at rest) at
//! penalty ω: SyLiPN and Z&S (banded), RATTLE, and the peer DOP853 in angle coordinates, all
//! against an independent rigid reference (the same angle-coordinate equations at 1e-12).
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
use macrostep::constrained::{NewtonParams, Rattle};
use macrostep::linalg::Banded;
use macrostep::models::Chain;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::State;
use nalgebra::{DMatrix, DVector};

/// Nodes of the chain.
pub const NODES: usize = 20;
/// Cartesian coordinates (`2n`).
const COORDS: usize = 2 * NODES;

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

/// The peer: DOP853 in angle coordinates at `rtol = atol = tol`, one solve with dense output
/// ([`reference::try_solve_dense`]): positions at the outputs, flattened.
pub fn dop853_angles(tol: f64, span: f64, n_out: usize) -> Outcome {
    let y0: Vec<f64> = [vec![std::f64::consts::FRAC_PI_2; NODES], vec![0.0; NODES]].concat();
    let ys =
        reference::try_solve_dense(angles_rhs(NODES), 0.0, &y0, tol, tol, &outputs(span, n_out))?;
    Ok(ys.iter().flat_map(|y| positions(&y[..NODES])).collect())
}

/// The reference: the angle equations by [`reference::solve`] at 1e-12 (outputs at step ends,
/// not the dense output the peer uses).
pub fn reference(span: f64, n_out: usize) -> Vec<f64> {
    let y0: Vec<f64> = [vec![std::f64::consts::FRAC_PI_2; NODES], vec![0.0; NODES]].concat();
    let ys = reference::solve(
        angles_rhs(NODES),
        0.0,
        &y0,
        span,
        1e-12,
        1e-12,
        &outputs(span, n_out),
    );
    ys.iter().flat_map(|y| positions(&y[..NODES])).collect()
}

/// RATTLE's Newton tolerances for |q| ~ 20 (as in `benches/constrained.rs`: the default
/// absolute 1000 ε is below the roundoff of |d|² − L² there).
fn newton() -> NewtonParams<f64> {
    NewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..NewtonParams::default()
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

/// The `chain20_w<ω>` problem over `[0, span]` with `n_out` outputs, error against `refq`.
pub fn problem<'a>(omega: f64, span: f64, n_out: usize, refq: &'a [f64]) -> Problem<'a> {
    let chain = Chain::<f64, COORDS, NODES>::horizontal();
    let pen = chain.penalised(omega).expect("valid");
    let (sys, g, s0) = (chain.system(), chain.constraint(), chain.initial_state());
    let dt = span / n_out as f64;
    let obs = |s: &State<f64, COORDS>, out: &mut Vec<f64>| out.extend(s.q.iter());
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
    let methods = vec![
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
        Method {
            key: "dop853_angles",
            label: "DOP853 in angles (peer)",
            param_name: "tol",
            p_max: 1.0,
            p_min: 1e-12,
            snap: None,
            run: Box::new(move |tol| dop853_angles(tol, span, n_out)),
        },
    ];
    Problem {
        key: super::leak(format!("chain{NODES}_w{omega}")),
        title: format!("chain of {NODES} pendula, penalty ω = {omega}, T = {span}: error vs rigid"),
        error_label: "max |q − q_rigid| over the outputs",
        span,
        error: Box::new(move |obs| max_diff(obs, refq)),
        methods,
        targets: vec![1e-1, 1e-2],
        ratios: vec![
            ("rattle", "sylipn"),
            ("dop853_angles", "sylipn"),
            ("zs", "sylipn"),
        ],
    }
}
