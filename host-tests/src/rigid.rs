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
        let t_end = times.iter().copied().fold(0.0, f64::max);
        let t_end = if t_end > 0.0 { t_end } else { 1.0 };
        let ys = reference::solve(self.rhs(), 0.0, &y0, t_end, rtol, atol, times);
        times
            .iter()
            .zip(ys)
            .map(|(&t, y)| {
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
            .collect()
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

/// The planar double pendulum in generalised coordinates `y = (θ, φ, θ̇, φ̇)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoublePendulum {
    /// Mass of the first bob.
    pub m1: f64,
    /// Mass of the second bob.
    pub m2: f64,
    /// Gravity, pulling in `−y` when positive (`V = g(m₁y₁ + m₂y₂)`); negative pulls toward `+y`.
    pub g: f64,
    /// Length of the first rod.
    pub l1: f64,
    /// Length of the second rod.
    pub l2: f64,
}

impl DoublePendulum {
    /// Seed 000 §4.1 as `macrostep::systems::DoublePendulum::paper()`: `m₁ = m₂ = g = 1`,
    /// `L₁ = 1`, `L₂ = √2`, downward gravity `V = y₁ + y₂`.
    pub fn seed() -> Self {
        Self {
            m1: 1.0,
            m2: 1.0,
            g: 1.0,
            l1: 1.0,
            l2: 2.0_f64.sqrt(),
        }
    }

    /// The seed's masses and lengths with gravity as printed in 000 §4.1, `V = −y₁ − y₂`
    /// (`g = −1`, pulling toward `+y`; chaotic from the seed start).
    pub fn seed_printed_sign() -> Self {
        Self {
            g: -1.0,
            ..Self::seed()
        }
    }

    /// The seed's initial condition: `q = (x₁, y₁, x₂, y₂) = (0, −1, 1, −2)`, at rest.
    pub fn seed_initial() -> ([f64; 4], [f64; 4]) {
        ([0.0, -1.0, 1.0, -2.0], [0.0; 4])
    }

    /// The diagonal Cartesian mass `(m₁, m₁, m₂, m₂)`.
    pub fn cartesian_mass(&self) -> [f64; 4] {
        [self.m1, self.m1, self.m2, self.m2]
    }

    /// `(θ, φ, θ̇, φ̇)` from Cartesian positions and velocities (angles by `atan2`; velocities by
    /// projecting on the rods' tangents, so a radial velocity component is dropped).
    pub fn from_cartesian(&self, q: &[f64; 4], v: &[f64; 4]) -> [f64; 4] {
        let th = q[0].atan2(-q[1]);
        let ph = (q[2] - q[0]).atan2(-(q[3] - q[1]));
        let (s1, c1) = th.sin_cos();
        let (s2, c2) = ph.sin_cos();
        let wth = (v[0] * c1 + v[1] * s1) / self.l1;
        let wph = ((v[2] - v[0]) * c2 + (v[3] - v[1]) * s2) / self.l2;
        [th, ph, wth, wph]
    }

    /// The generalised accelerations `(θ̈, φ̈)` at `y` (solving the 2×2 Lagrange system).
    pub fn accelerations(&self, y: &[f64]) -> [f64; 2] {
        let (th, ph, wth, wph) = (y[0], y[1], y[2], y[3]);
        let Self { m1, m2, g, l1, l2 } = *self;
        let (sd, cd) = (th - ph).sin_cos();
        let a11 = (m1 + m2) * l1 * l1;
        let a12 = m2 * l1 * l2 * cd;
        let a22 = m2 * l2 * l2;
        let b1 = -m2 * l1 * l2 * sd * wph * wph - (m1 + m2) * g * l1 * th.sin();
        let b2 = m2 * l1 * l2 * sd * wth * wth - m2 * g * l2 * ph.sin();
        let det = a11 * a22 - a12 * a12;
        [(b1 * a22 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det]
    }

    /// The right-hand side `ẏ = f(y)` for [`reference::solve`].
    pub fn rhs(&self) -> impl Fn(f64, &[f64], &mut [f64]) {
        let dp = *self;
        move |_t, y, dy| {
            let [a1, a2] = dp.accelerations(y);
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = a1;
            dy[3] = a2;
        }
    }

    /// Cartesian positions, velocities and accelerations of `y = (θ, φ, θ̇, φ̇)`.
    pub fn cartesian(&self, y: &[f64]) -> ([f64; 4], [f64; 4], [f64; 4]) {
        let (th, ph, wth, wph) = (y[0], y[1], y[2], y[3]);
        let [ath, aph] = self.accelerations(y);
        let (s1, c1) = th.sin_cos();
        let (s2, c2) = ph.sin_cos();
        let (l1, l2) = (self.l1, self.l2);
        let (x1, y1) = (l1 * s1, -l1 * c1);
        let (vx1, vy1) = (l1 * c1 * wth, l1 * s1 * wth);
        let (ax1, ay1) = (
            l1 * (c1 * ath - s1 * wth * wth),
            l1 * (s1 * ath + c1 * wth * wth),
        );
        let q = [x1, y1, x1 + l2 * s2, y1 - l2 * c2];
        let v = [vx1, vy1, vx1 + l2 * c2 * wph, vy1 + l2 * s2 * wph];
        let a = [
            ax1,
            ay1,
            ax1 + l2 * (c2 * aph - s2 * wph * wph),
            ay1 + l2 * (s2 * aph + c2 * wph * wph),
        ];
        (q, v, a)
    }

    /// Total energy `T + V` in generalised coordinates.
    pub fn energy(&self, y: &[f64]) -> f64 {
        let (th, ph, wth, wph) = (y[0], y[1], y[2], y[3]);
        let Self { m1, m2, g, l1, l2 } = *self;
        let kin = 0.5 * (m1 + m2) * l1 * l1 * wth * wth
            + 0.5 * m2 * l2 * l2 * wph * wph
            + m2 * l1 * l2 * (th - ph).cos() * wth * wph;
        let pot = -(m1 + m2) * g * l1 * th.cos() - m2 * g * l2 * ph.cos();
        kin + pot
    }

    /// Cartesian energy `½ Σ mᵢ|vᵢ|² + g Σ mᵢ yᵢ` (equal to [`DoublePendulum::energy`] on the
    /// constraint manifold; for comparing with Cartesian integrators).
    pub fn cartesian_energy(&self, q: &[f64; 4], v: &[f64; 4]) -> f64 {
        let m = self.cartesian_mass();
        let kin: f64 = (0..4).map(|i| 0.5 * m[i] * v[i] * v[i]).sum();
        kin + self.g * (self.m1 * q[1] + self.m2 * q[3])
    }

    /// The constraint Jacobian `J = ∂c/∂q` (2×4, rows) at Cartesian `q`.
    pub fn constraint_jacobian(q: &[f64; 4]) -> [[f64; 4]; 2] {
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        [
            [2.0 * q[0], 2.0 * q[1], 0.0, 0.0],
            [-2.0 * dx, -2.0 * dy, 2.0 * dx, 2.0 * dy],
        ]
    }

    /// `M q̈ + ∇V` at `y` (the constraint force `Jᵀλ` the rigid solution requires).
    fn required_force(&self, y: &[f64]) -> ([f64; 4], [f64; 4]) {
        let (q, _, a) = self.cartesian(y);
        let m = self.cartesian_mass();
        let grad_v = [0.0, self.m1 * self.g, 0.0, self.m2 * self.g];
        let f = [
            m[0] * a[0] + grad_v[0],
            m[1] * a[1] + grad_v[1],
            m[2] * a[2] + grad_v[2],
            m[3] * a[3] + grad_v[3],
        ];
        (q, f)
    }

    /// The multipliers `λ = (JJᵀ)⁻¹ J (M q̈ + ∇V)` of `M q̈ = −∇V + Jᵀλ` at `y`.
    pub fn multipliers(&self, y: &[f64]) -> [f64; 2] {
        let (q, f) = self.required_force(y);
        let j = Self::constraint_jacobian(&q);
        let dot = |a: &[f64; 4], b: &[f64; 4]| -> f64 { (0..4).map(|i| a[i] * b[i]).sum() };
        let (g11, g12, g22) = (dot(&j[0], &j[0]), dot(&j[0], &j[1]), dot(&j[1], &j[1]));
        let (r1, r2) = (dot(&j[0], &f), dot(&j[1], &f));
        let det = g11 * g22 - g12 * g12;
        [(g22 * r1 - g12 * r2) / det, (g11 * r2 - g12 * r1) / det]
    }

    /// `max |M q̈ + ∇V − Jᵀλ|`: zero iff the generalised equations of motion are those of the
    /// Cartesian DAE (an independent check of the derivation).
    pub fn multiplier_residual(&self, y: &[f64]) -> f64 {
        let (q, f) = self.required_force(y);
        let j = Self::constraint_jacobian(&q);
        let l = self.multipliers(y);
        (0..4)
            .map(|i| (f[i] - j[0][i] * l[0] - j[1][i] * l[1]).abs())
            .fold(0.0, f64::max)
    }

    /// The reference solution from Cartesian `(q0, v0)` at `t = 0`, sampled at the non-negative,
    /// non-decreasing `times`.
    pub fn solve(
        &self,
        q0: &[f64; 4],
        v0: &[f64; 4],
        times: &[f64],
        rtol: f64,
        atol: f64,
    ) -> Vec<Sample<4, 2>> {
        let y0 = self.from_cartesian(q0, v0);
        let t_end = times.iter().copied().fold(0.0, f64::max);
        let t_end = if t_end > 0.0 { t_end } else { 1.0 };
        let ys = reference::solve(self.rhs(), 0.0, &y0, t_end, rtol, atol, times);
        times
            .iter()
            .zip(ys)
            .map(|(&t, y)| {
                let (q, v, a) = self.cartesian(&y);
                Sample {
                    t,
                    q,
                    v,
                    a,
                    lambda: self.multipliers(&y),
                    energy: self.energy(&y),
                    y,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 002 §5: m = g = L = 1 from q = (1, 0) at rest (θ₀ = π/2), T ≈ 7.416298709.
    #[test]
    fn pendulum_period_matches_seed() {
        let p = Pendulum::default();
        let th0 = p.from_cartesian(&[1.0, 0.0], &[0.0, 0.0])[0];
        assert!((th0 - PI / 2.0).abs() < 1e-15);
        // Closed form (AGM) against the seed's printed digits.
        assert!((p.period(th0) - 7.416298709).abs() < 1e-9);
        // The reference solver's period against the closed form.
        let measured = p.measured_period(th0, 1e-13, 1e-13);
        assert!(
            (measured - p.period(th0)).abs() < 1e-10,
            "{measured} vs {}",
            p.period(th0)
        );
    }

    #[test]
    fn elliptic_k_small_modulus() {
        // K(0) = π/2; K(k) = π/2 (1 + k²/4 + 9k⁴/64 + …).
        assert!((complete_elliptic_k(0.0) - PI / 2.0).abs() < 1e-15);
        let k: f64 = 1e-3;
        let series = PI / 2.0 * (1.0 + k * k / 4.0 + 9.0 * k.powi(4) / 64.0);
        assert!((complete_elliptic_k(k) - series).abs() < 1e-15);
    }

    #[test]
    fn pendulum_energy_and_constraint_force() {
        let p = Pendulum {
            m: 2.0,
            g: 9.81,
            l: 0.5,
        };
        let times = reference::linspace(0.0, 5.0, 20);
        let out = p.solve(&[0.3, -0.4], &[0.0, 0.0], &times, 1e-13, 1e-13);
        for s in &out {
            assert!((s.energy - out[0].energy).abs() < 1e-10 * out[0].energy.abs());
            let r2 = s.q[0] * s.q[0] + s.q[1] * s.q[1];
            assert!((r2 - 0.25).abs() < 1e-12);
            // m a = −∇V + λ ∇c with ∇V = (0, m g), ∇c = 2q.
            let fx = p.m * s.a[0] - s.lambda[0] * 2.0 * s.q[0];
            let fy = p.m * s.a[1] + p.m * p.g - s.lambda[0] * 2.0 * s.q[1];
            assert!(fx.abs() < 1e-12 && fy.abs() < 1e-12, "{fx} {fy}");
        }
    }

    #[test]
    fn seed_initial_state_in_generalised_coordinates() {
        let dp = DoublePendulum::seed();
        let (q0, v0) = DoublePendulum::seed_initial();
        let y = dp.from_cartesian(&q0, &v0);
        assert!(y[0].abs() < 1e-15);
        assert!((y[1] - PI / 4.0).abs() < 1e-15);
        assert_eq!([y[2], y[3]], [0.0, 0.0]);
        let (q, v, _) = dp.cartesian(&y);
        for i in 0..4 {
            assert!((q[i] - q0[i]).abs() < 1e-15 && v[i] == 0.0);
        }
    }

    #[test]
    fn cartesian_velocities_round_trip() {
        let dp = DoublePendulum {
            m1: 1.5,
            m2: 0.7,
            g: 2.0,
            l1: 1.2,
            l2: 0.8,
        };
        let y = [0.4, -1.1, 0.9, -2.3];
        let (q, v, _) = dp.cartesian(&y);
        let back = dp.from_cartesian(&q, &v);
        for i in 0..4 {
            assert!((back[i] - y[i]).abs() < 1e-14);
        }
        assert!((dp.cartesian_energy(&q, &v) - dp.energy(&y)).abs() < 1e-13);
    }

    /// The generalised equations agree with the Cartesian DAE (consistent 4×2 multiplier system)
    /// for general masses, and the Cartesian acceleration matches a finite difference of the
    /// Cartesian velocity along the reference solution.
    #[test]
    fn double_pendulum_equations_match_cartesian_dae() {
        let dp = DoublePendulum {
            m1: 1.5,
            m2: 0.7,
            g: 2.0,
            l1: 1.2,
            l2: 0.8,
        };
        for y in [
            [0.4, -1.1, 0.9, -2.3],
            [2.0, 0.5, -0.3, 1.7],
            [0.0, 0.0, 0.0, 0.0],
        ] {
            assert!(dp.multiplier_residual(&y) < 1e-12, "{y:?}");
        }
        // A wrong equation (drop the velocity coupling) must be caught by the residual.
        let wrong = |y: &[f64]| {
            let mut z = y.to_vec();
            z[3] = 0.0;
            dp.multipliers(&z)
        };
        let y = [0.4, -1.1, 0.9, -2.3];
        assert!((wrong(&y)[0] - dp.multipliers(&y)[0]).abs() > 1e-3);
        let h = 1e-5;
        let out = dp.solve(
            &dp.cartesian(&y).0,
            &dp.cartesian(&y).1,
            &[1.0 - h, 1.0, 1.0 + h],
            1e-13,
            1e-13,
        );
        for i in 0..4 {
            let fd = (out[2].v[i] - out[0].v[i]) / (2.0 * h);
            assert!((fd - out[1].a[i]).abs() < 1e-6, "{i}: {fd} {}", out[1].a[i]);
        }
    }

    /// Seed start, energy conserved by the reference to ~1e-10 over t ∈ [0, 20], for the printed
    /// (upward) and the physical (downward) gravity.
    #[test]
    fn double_pendulum_energy_conserved() {
        for dp in [DoublePendulum::seed(), DoublePendulum::seed_printed_sign()] {
            let (q0, v0) = DoublePendulum::seed_initial();
            let times = reference::linspace(0.0, 20.0, 40);
            let out = dp.solve(&q0, &v0, &times, 1e-13, 1e-13);
            let e0 = dp.cartesian_energy(&q0, &v0);
            assert!((out[0].energy - e0).abs() < 1e-14);
            let drift = out
                .iter()
                .map(|s| (s.energy - e0).abs())
                .fold(0.0, f64::max);
            assert!(drift < 1e-10, "g = {}: energy drift {drift:e}", dp.g);
            // The constraints hold exactly in the Cartesian image (to roundoff).
            for s in &out {
                let c1 = s.q[0] * s.q[0] + s.q[1] * s.q[1] - 1.0;
                let c2 = (s.q[2] - s.q[0]).powi(2) + (s.q[3] - s.q[1]).powi(2) - 2.0;
                assert!(c1.abs() < 1e-13 && c2.abs() < 1e-13);
            }
            // At rest at t = 0: hanging, both rods in tension (λ < 0 pulls each bob toward its
            // anchor); with gravity toward +y, both rods are compressed (λ > 0).
            let l = out[0].lambda;
            if dp.g > 0.0 {
                assert!(l[0] < 0.0 && l[1] < 0.0, "{l:?}");
            } else {
                assert!(l[0] > 0.0 && l[1] > 0.0, "{l:?}");
            }
        }
    }

    /// Same conventions as the core models: energies and constraint values agree with
    /// `macrostep::systems::{Pendulum, DoublePendulum}` on arbitrary states.
    #[test]
    fn conventions_match_core_models() {
        use macrostep::model::Constraint;
        use macrostep::nalgebra::vector;
        use macrostep::State;
        let core = macrostep::systems::DoublePendulum::<f64>::paper();
        let dp = DoublePendulum::seed();
        let (q0, _) = DoublePendulum::seed_initial();
        assert_eq!(core.initial_state().q.as_slice(), &q0);
        for y in [[0.4, -1.1, 0.9, -2.3], [2.0, 0.5, -0.3, 1.7]] {
            let (q, v, _) = dp.cartesian(&y);
            let s = State::new(
                0.0,
                vector![q[0], q[1], q[2], q[3]],
                vector![v[0], v[1], v[2], v[3]],
            );
            let e_core = core.system().energy(&s);
            assert!(
                (e_core - dp.energy(&y)).abs() < 1e-13,
                "{e_core} vs {}",
                dp.energy(&y)
            );
            assert!(core.constraint().value(&s.q).amax() < 1e-14);
            // Jacobian rows agree (same constraint functions, same sign).
            let jc = core.constraint().jacobian(&s.q);
            let j = DoublePendulum::constraint_jacobian(&q);
            for r in 0..2 {
                for c in 0..4 {
                    assert!((jc[(r, c)] - j[r][c]).abs() < 1e-14);
                }
            }
        }
        let core_p = macrostep::systems::Pendulum::<f64>::paper();
        let p = Pendulum::default();
        let y = [0.7, -0.4];
        let (q, v, _) = p.cartesian(&y);
        let s = State::new(0.0, vector![q[0], q[1]], vector![v[0], v[1]]);
        assert!((core_p.system().energy(&s) - p.energy(&y)).abs() < 1e-14);
        assert!((core_p.period(PI / 2.0) - p.period(PI / 2.0)).abs() < 1e-12);
    }
}
