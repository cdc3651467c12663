//! Planar compound pendulums built from rigid bodies and revolute joints, and their
//! generalised-coordinate (angle) references integrated by DOP853.
//!
//! Angles `θₖ` are absolute, from the downward vertical, counter-clockwise: link `k`'s COM is at
//! its joint plus `lₖ (sin θₖ, −cos θₖ)`. The double pendulum's Lagrangian equations are
//! `M(θ) θ̈ + c(θ, θ̇) + ∇V = 0` with `M₁₁ = I₁ + m₁l₁² + m₂L₁²`, `M₁₂ = m₂L₁l₂ cos(θ₁−θ₂)`,
//! `M₂₂ = I₂ + m₂l₂²`, `c = m₂L₁l₂ sin(θ₁−θ₂) (θ̇₂², −θ̇₁²)`, `∇V = g ((m₁l₁ + m₂L₁) sin θ₁, m₂l₂ sin θ₂)`.

use crate::reference::{self, TIGHT};
use macrostep::mechanism::{Body, Link, Mechanism, MechanismBuilder};
use macrostep::{ConfigError, Real};

/// Gravity (m/s²).
pub const G: f64 = 9.81;

/// A planar link: mass, inertia about its COM, COM distance from its joint, distance to the
/// next joint.
#[derive(Clone, Copy, Debug)]
pub struct Arm {
    /// Masses (kg).
    pub m: [f64; 2],
    /// Inertias about the COMs (kg·m²).
    pub i: [f64; 2],
    /// COM distances from the links' joints (m).
    pub l: [f64; 2],
    /// Distance from the pivot to the second joint (m).
    pub joint: f64,
    /// The pivot (m), away from the origin.
    pub pivot: [f64; 2],
    /// Start angles (rad), at rest.
    pub theta0: [f64; 2],
}

impl Arm {
    /// The experiment's arm.
    pub const fn standard() -> Self {
        Self {
            m: [1.0, 0.6],
            i: [0.02, 0.012],
            l: [0.25, 0.2],
            joint: 0.5,
            pivot: [0.3, 1.2],
            theta0: [0.9, 1.6],
        }
    }

    /// `(second joint, COM 1, COM 2)` at the angles `th`.
    pub fn points(&self, th: [f64; 2]) -> [[f64; 2]; 3] {
        let dir = |t: f64| [t.sin(), -t.cos()];
        let (d1, d2) = (dir(th[0]), dir(th[1]));
        let p = self.pivot;
        let j2 = [p[0] + self.joint * d1[0], p[1] + self.joint * d1[1]];
        [
            j2,
            [p[0] + self.l[0] * d1[0], p[1] + self.l[0] * d1[1]],
            [j2[0] + self.l[1] * d2[0], j2[1] + self.l[1] * d2[1]],
        ]
    }

    /// Link `k` as a planar body at the start angles.
    fn body<T: Real>(&self, k: usize) -> Body<T, 2> {
        let com = self.points(self.theta0)[k + 1];
        Body {
            mass: T::lit(self.m[k]),
            com: com.map(T::lit),
            inertia: [[T::lit(self.i[k]), T::zero()], [T::zero(), T::zero()]],
        }
    }

    /// The compound pendulum: link 0 alone on a revolute joint to the ground at the pivot.
    ///
    /// # Errors
    /// A builder error (a bug).
    pub fn single<T: Real>(&self) -> Result<Mechanism<T, 2, 6, 5, 0, 1, 1>, ConfigError> {
        let mut b = MechanismBuilder::<T, 2, 6, 5, 0, 1, 1>::new()?;
        let l1 = b.body(self.body(0))?;
        let zero = [T::zero(); 2];
        b.revolute(Link::Ground, Link::Body(l1), self.pivot.map(T::lit), zero)?;
        b.gravity(T::lit(G))?;
        b.build()
    }

    /// The double compound pendulum: joint 0 to the ground, joint 1 between the links.
    ///
    /// # Errors
    /// A builder error (a bug).
    pub fn double<T: Real>(&self) -> Result<Mechanism<T, 2, 12, 10, 0, 2, 2>, ConfigError> {
        let mut b = MechanismBuilder::<T, 2, 12, 10, 0, 2, 2>::new()?;
        let l1 = b.body(self.body(0))?;
        let l2 = b.body(self.body(1))?;
        let zero = [T::zero(); 2];
        let j2 = self.points(self.theta0)[0];
        b.revolute(Link::Ground, Link::Body(l1), self.pivot.map(T::lit), zero)?;
        b.revolute(Link::Body(l1), Link::Body(l2), j2.map(T::lit), zero)?;
        b.gravity(T::lit(G))?;
        b.build()
    }

    /// The compound pendulum's reference: `θ(t) − θ(0)` at `times`.
    pub fn single_reference(&self, times: &[f64]) -> Vec<f64> {
        let (m, l) = (self.m[0], self.l[0]);
        let k = m * G * l / (self.i[0] + m * l * l);
        let f = move |_t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -k * y[0].sin();
        };
        let y0 = [self.theta0[0], 0.0];
        reference::solve(
            f,
            0.0,
            &y0,
            times.last().copied().unwrap_or(0.0),
            TIGHT.0,
            TIGHT.1,
            times,
        )
        .iter()
        .map(|y| y[0] - self.theta0[0])
        .collect()
    }

    /// The double pendulum's reference: the joint angles `(θ₁ − θ₁(0), θ₂ − θ₁ − (θ₂(0) −
    /// θ₁(0)))` at `times`.
    pub fn double_reference(&self, times: &[f64]) -> Vec<[f64; 2]> {
        let a = *self;
        let f = move |_t: f64, y: &[f64], dy: &mut [f64]| {
            let (m, i, l, big) = (a.m, a.i, a.l, a.joint);
            let (s, c) = (y[0] - y[1]).sin_cos();
            let k = m[1] * big * l[1];
            let m11 = i[0] + m[0] * l[0] * l[0] + m[1] * big * big;
            let m22 = i[1] + m[1] * l[1] * l[1];
            let m12 = k * c;
            let r1 = -k * s * y[3] * y[3] - G * (m[0] * l[0] + m[1] * big) * y[0].sin();
            let r2 = k * s * y[2] * y[2] - G * m[1] * l[1] * y[1].sin();
            let det = m11 * m22 - m12 * m12;
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = (m22 * r1 - m12 * r2) / det;
            dy[3] = (m11 * r2 - m12 * r1) / det;
        };
        let y0 = [self.theta0[0], self.theta0[1], 0.0, 0.0];
        let end = times.last().copied().unwrap_or(0.0);
        let rel0 = self.theta0[1] - self.theta0[0];
        reference::solve(f, 0.0, &y0, end, TIGHT.0, TIGHT.1, times)
            .iter()
            .map(|y| [y[0] - self.theta0[0], y[1] - y[0] - rel0])
            .collect()
    }

    /// The double pendulum's energy at angles and rates (for the reference's self-check).
    pub fn double_energy(&self, y: &[f64; 4]) -> f64 {
        let (m, i, l, big) = (self.m, self.i, self.l, self.joint);
        let m11 = i[0] + m[0] * l[0] * l[0] + m[1] * big * big;
        let m22 = i[1] + m[1] * l[1] * l[1];
        let m12 = m[1] * big * l[1] * (y[0] - y[1]).cos();
        let t = 0.5 * (m11 * y[2] * y[2] + 2.0 * m12 * y[2] * y[3] + m22 * y[3] * y[3]);
        let v = -G * ((m[0] * l[0] + m[1] * big) * y[0].cos() + m[1] * l[1] * y[1].cos());
        t + v
    }
}
