//! The rigid chain of n pendula (004 §5.4.3: unit masses and rods, g = 1) in angle coordinates:
//! the independent reference of `reproduce work-precision`'s chain studies and of the test that
//! checks these equations against RATTLE on the Cartesian model.
//!
//! `θᵢ` is rod i's angle from the downward vertical, node `k = Σ_{i≤k} (sin θᵢ, −cos θᵢ)`. With
//! `μᵢⱼ = n − max(i, j)` (0-based: the number of nodes hanging below both rods),
//! `T = ½ Σᵢⱼ μᵢⱼ cos(θᵢ − θⱼ) θ̇ᵢθ̇ⱼ`, `V = −g Σᵢ (n − i) cos θᵢ`, and Euler–Lagrange gives
//!
//! ```text
//! Σⱼ μᵢⱼ [cos(θᵢ − θⱼ) θ̈ⱼ + sin(θᵢ − θⱼ) θ̇ⱼ²] = −g (n − i) sin θᵢ.
//! ```
//!
//! The horizontal start is `θᵢ = π/2`.

use crate::reference;
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
pub fn outputs(span: f64, n_out: usize) -> Vec<f64> {
    (1..=n_out)
        .map(|k| span * k as f64 / n_out as f64)
        .collect()
}

/// The horizontal start at rest in angle coordinates, `n` nodes.
pub fn angles_start(n: usize) -> Vec<f64> {
    [vec![std::f64::consts::FRAC_PI_2; n], vec![0.0; n]].concat()
}

/// The reference of the chain of `n`: node positions at `k·span/n_out`, `k = 1..=n_out`,
/// flattened, from the angle equations by [`reference::solve`] at 1e-12 (outputs at step ends).
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
