//! Rigid-constraint references in generalised coordinates: the planar pendulum (θ) and the
//! planar double pendulum (θ, φ), integrated with [`crate::reference`] and mapped back to
//! Cartesian positions, velocities and constraint multipliers.
//!
//! These are the "exact" answers the penalty (Zhang–Skeel), SHAKE/RATTLE and FLAVOR runs on the
//! Cartesian models are compared with.
//!
//! # Conventions (seed 000 §4.1)
//! Cartesian coordinates `q = (x₁, y₁, x₂, y₂)` (pendulum: `q = (x, y)`), pivot at the origin,
//! `y` up and gravity `g` pulling in `−y`, so `V = g Σ mᵢ yᵢ` and a pendulum hangs at `y < 0`:
//!
//! ```text
//! x₁ = L₁ sin θ,  y₁ = −L₁ cos θ,  x₂ = x₁ + L₂ sin φ,  y₂ = y₁ − L₂ cos φ.
//! ```
//!
//! **Sign of gravity for the double pendulum.** The seed prints `V = −g y₁ − g y₂` next to these
//! coordinates, i.e. gravity pulling toward `+y`, which puts its initial condition
//! (`x₁=0, y₁=−1, x₂=1, y₂=−2` at rest) *above* the stable equilibrium, in a chaotic regime. The
//! core model `macrostep::systems::DoublePendulum` reads that sign as a typo and uses ordinary
//! downward gravity (`V = g Σ mᵢ yᵢ`, `g = 1`), and so does [`DoublePendulum::seed`]. Energies
//! agree with the core model's `system().energy(..)` (checked by a test).
//! [`DoublePendulum::seed_printed_sign`] keeps the printed sign (`g = −1` here) for comparison.
//!
//! **Chaos.** Under the printed (upward) gravity the motion from the seed start is chaotic:
//! solves at `rtol = atol = 1e-11` and `1e-13` differ by ~2e-9 at `t = 10`, ~1e-7 at `t = 20`,
//! ~7e-2 at `t = 50`. Under physical gravity the swing is regular and the reference is good to
//! the solver tolerance over `[0, 50]` (`reproduce reference` prints both).
//!
//! Constraints, as in the seed (squared form, so multipliers are scaled accordingly):
//! `c₁ = x₁² + y₁² − L₁²`, `c₂ = (x₂−x₁)² + (y₂−y₁)² − L₂²` (pendulum: `c = x² + y² − L²`).
//! The rigid DAE is `M q̈ = −∇V + Jᵀλ` with `J = ∂c/∂q`, so `Jᵀλ` is the constraint force; for a
//! penalty `½ω²Σcᵢ²` the corresponding force is `−ω² cᵢ ∇cᵢ`, i.e. `λᵢ ≈ −ω² cᵢ`.
//!
//! # Double pendulum equations (general m₁, m₂; derived from the Lagrangian)
//! With `δ = θ − φ`,
//! `T = ½(m₁+m₂)L₁²θ̇² + ½m₂L₂²φ̇² + m₂L₁L₂ cos δ θ̇φ̇`,
//! `V = −(m₁+m₂) g L₁ cos θ − m₂ g L₂ cos φ`, and the Euler–Lagrange equations are
//!
//! ```text
//! (m₁+m₂)L₁² θ̈ + m₂L₁L₂ cos δ φ̈ = −m₂L₁L₂ sin δ φ̇² − (m₁+m₂) g L₁ sin θ
//! m₂L₁L₂ cos δ θ̈ + m₂L₂² φ̈      =  m₂L₁L₂ sin δ θ̇² − m₂ g L₂ sin φ
//! ```
//!
//! (mass matrix = seed eq 4.1 with `m₁ = m₂ = 1`, where `(m₁+m₂)L₁² = 2L₁²`).
//!
//! The multipliers are recovered from the Cartesian accelerations of the generalised solution as
//! the least-squares solution of `Jᵀλ = M q̈ + ∇V`; that 4×2 system is consistent exactly when
//! the equations above are right, and [`DoublePendulum::multiplier_residual`] measures it.
//!
//! ```
//! use host_tests::rigid::DoublePendulum;
//! let dp = DoublePendulum::seed();
//! let (q0, v0) = DoublePendulum::seed_initial();
//! let out = dp.solve(&q0, &v0, &[0.0, 1.0], 1e-12, 1e-12);
//! assert!((out[1].energy - out[0].energy).abs() < 1e-10);
//! assert!((out[0].q[3] + 2.0).abs() < 1e-15);
//! ```

mod double_pendulum;
mod multiplier;
pub mod so3;
#[cfg(test)]
mod tests;

pub use double_pendulum::DoublePendulum;
pub use multiplier::{multiplier_curves, multiplier_errors, MultiplierCurves, MultiplierSample};

use crate::reference;
use std::f64::consts::PI;

/// A sample of a rigid reference solution in Cartesian form.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<const N: usize, const D: usize> {
    /// Time.
    pub t: f64,
    /// Generalised coordinates and velocities: pendulum `(θ, θ̇)`, double pendulum
    /// `(θ, φ, θ̇, φ̇)`.
    pub y: Vec<f64>,
    /// Cartesian positions (`(x, y)` or `(x₁, y₁, x₂, y₂)`).
    pub q: [f64; N],
    /// Cartesian velocities.
    pub v: [f64; N],
    /// Cartesian accelerations.
    pub a: [f64; N],
    /// Constraint multipliers `λ` of `M q̈ = −∇V + Jᵀλ` (squared-length constraints).
    pub lambda: [f64; D],
    /// Total energy `T + V`.
    pub energy: f64,
}

/// The reference solution of `rhs` from `y0` at `t = 0`, sampled at the non-negative,
/// non-decreasing `times`, each state turned into a [`Sample`] by `sample(t, y)`.
fn sample_reference<const N: usize, const D: usize>(
    rhs: impl Fn(f64, &[f64], &mut [f64]),
    y0: &[f64],
    times: &[f64],
    rtol: f64,
    atol: f64,
    sample: impl Fn(f64, Vec<f64>) -> Sample<N, D>,
) -> Vec<Sample<N, D>> {
    let t_end = times.iter().copied().fold(0.0, f64::max);
    let t_end = if t_end > 0.0 { t_end } else { 1.0 };
    let ys = reference::solve(rhs, 0.0, y0, t_end, rtol, atol, times);
    times.iter().zip(ys).map(|(&t, y)| sample(t, y)).collect()
}

/// The planar pendulum `θ̈ = −(g/L) sin θ` of mass `m` on a rod of length `l`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum {
    /// Mass.
    pub m: f64,
    /// Gravity (pulling in `−y`).
    pub g: f64,
    /// Rod length.
    pub l: f64,
}

impl Default for Pendulum {
    /// `m = g = L = 1` (seed 002 §5).
    fn default() -> Self {
        Self {
            m: 1.0,
            g: 1.0,
            l: 1.0,
        }
    }
}

impl Pendulum {
    /// The right-hand side `ẏ = f(y)` for `y = (θ, θ̇)`, for [`reference::solve`].
    pub fn rhs(&self) -> impl Fn(f64, &[f64], &mut [f64]) {
        let w2 = self.g / self.l;
        move |_t, y, dy| {
            dy[0] = y[1];
            dy[1] = -w2 * y[0].sin();
        }
    }

    /// `(θ, θ̇)` from Cartesian `q = (x, y)`, `v` (the velocity's tangential part; a radial part
    /// is dropped).
    pub fn from_cartesian(&self, q: &[f64; 2], v: &[f64; 2]) -> [f64; 2] {
        let th = q[0].atan2(-q[1]);
        let (s, c) = th.sin_cos();
        [th, (v[0] * c + v[1] * s) / self.l]
    }

    /// Cartesian positions, velocities and accelerations of `y = (θ, θ̇)`.
    pub fn cartesian(&self, y: &[f64]) -> ([f64; 2], [f64; 2], [f64; 2]) {
        let (th, w) = (y[0], y[1]);
        let (s, c) = th.sin_cos();
        let l = self.l;
        let acc = -self.g / l * s;
        (
            [l * s, -l * c],
            [l * c * w, l * s * w],
            [l * (c * acc - s * w * w), l * (s * acc + c * w * w)],
        )
    }

    /// Energy `½ m L² θ̇² − m g L cos θ`.
    pub fn energy(&self, y: &[f64]) -> f64 {
        0.5 * self.m * self.l * self.l * y[1] * y[1] - self.m * self.g * self.l * y[0].cos()
    }

    /// The multiplier of `m q̈ = −∇V + λ ∇c`, `c = x² + y² − L²`: `λ = −m (L θ̇² + g cos θ) / (2L)`
    /// (the rod tension `m(Lθ̇² + g cos θ)` pulls toward the pivot; `∇c = 2q`).
    pub fn multiplier(&self, y: &[f64]) -> f64 {
        -self.m * (self.l * y[1] * y[1] + self.g * y[0].cos()) / (2.0 * self.l)
    }

    /// The closed-form period from rest at amplitude `theta0` (|θ₀| < π):
    /// `T = 4 √(L/g) K(sin(θ₀/2))`, with `K` by the arithmetic–geometric mean.
    pub fn period(&self, theta0: f64) -> f64 {
        let k = (0.5 * theta0).sin();
        4.0 * (self.l / self.g).sqrt() * complete_elliptic_k(k)
    }

    /// The reference solution from Cartesian `(q0, v0)` at `t = 0`, sampled at `times`.
    pub fn solve(
        &self,
        q0: &[f64; 2],
        v0: &[f64; 2],
        times: &[f64],
        rtol: f64,
        atol: f64,
    ) -> Vec<Sample<2, 1>> {
        let y0 = self.from_cartesian(q0, v0);
        sample_reference(self.rhs(), &y0, times, rtol, atol, |t, y| {
            let (q, v, a) = self.cartesian(&y);
            Sample {
                t,
                q,
                v,
                a,
                lambda: [self.multiplier(&y)],
                energy: self.energy(&y),
                y,
            }
        })
    }

    /// The period measured on the reference solution: the first time `θ̇` returns to zero after
    /// leaving rest at `theta0 > 0` is half a period; located by Newton on `θ̇(t)` (`θ̈` known).
    pub fn measured_period(&self, theta0: f64, rtol: f64, atol: f64) -> f64 {
        let f = self.rhs();
        let guess = self.period(theta0.abs()) * 0.5;
        // Start Newton 1 % away from the closed-form half period, so the measurement does not
        // simply return the closed form it is compared with.
        let mut t = guess * 1.01;
        for _ in 0..20 {
            let y = reference::solve_to(&f, 0.0, &[theta0, 0.0], t, rtol, atol);
            let acc = -self.g / self.l * y[0].sin();
            let dt = y[1] / acc;
            t -= dt;
            if dt.abs() < 1e-15 * t {
                break;
            }
        }
        2.0 * t
    }
}

/// The complete elliptic integral of the first kind `K(k) = ∫₀^{π/2} du / √(1 − k² sin² u)`,
/// by the arithmetic–geometric mean: `K = π / (2 AGM(1, √(1 − k²)))`.
pub fn complete_elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - k * k).sqrt());
    for _ in 0..64 {
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
    }
    PI / (2.0 * a)
}
