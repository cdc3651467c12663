//! The planar double pendulum in generalised coordinates (seed 000 §4.1); conventions in the
//! [parent module](super).

use super::Sample;

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

    /// The right-hand side `ẏ = f(y)` for [`reference::solve`](crate::reference::solve).
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
        super::sample_reference(self.rhs(), &y0, times, rtol, atol, |t, y| {
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
    }
}
