//! Small hand-written nonlinear potentials for verification, each with the matching right-hand
//! side for [`crate::reference::solve`] (computed in `f64`, independently of the core).
//!
//! - [`PendulumPotential`]: `V(q) = −k cos q` (1 dof).
//! - [`Morse`]: `V(q) = D (1 − e^{−a(q − r)})²` (1 dof).
//! - [`HenonHeiles`]: `V(x, y) = ½(x² + y²) + x²y − y³/3` (2 dof).
//!
//! They implement [`Potential`] generically over [`Real`], so the same model runs in `f32` and
//! `f64`. Constants are converted with `T::lit` in the constructors.

use macrostep::model::{Mass, Potential};
use macrostep::nalgebra::{vector, SVector};
use macrostep::Real;

/// The pendulum potential `V(q) = −k cos q`.
#[derive(Clone, Copy, Debug)]
pub struct PendulumPotential<T: Real> {
    k: T,
    k64: f64,
}

impl<T: Real> PendulumPotential<T> {
    /// `V = −k cos q`.
    pub fn new(k: f64) -> Self {
        Self {
            k: T::lit(k),
            k64: k,
        }
    }

    /// `ẏ = (v, −(k/m) sin q)` for `y = (q, v)` and mass `m`.
    pub fn rhs(&self, m: f64) -> impl Fn(f64, &[f64], &mut [f64]) {
        let w2 = self.k64 / m;
        move |_t, y, dy| {
            dy[0] = y[1];
            dy[1] = -w2 * y[0].sin();
        }
    }
}

impl<T: Real> Potential<T, 1> for PendulumPotential<T> {
    fn energy(&self, q: &SVector<T, 1>) -> T {
        -self.k * q[0].cos()
    }
    fn gradient(&self, q: &SVector<T, 1>) -> SVector<T, 1> {
        vector![self.k * q[0].sin()]
    }
}

/// The Morse potential `V(q) = D (1 − e^{−a(q − r)})²`.
#[derive(Clone, Copy, Debug)]
pub struct Morse<T: Real> {
    d: T,
    a: T,
    r: T,
    f: [f64; 3],
}

impl<T: Real> Morse<T> {
    /// Well depth `d`, width `a`, equilibrium `r`.
    pub fn new(d: f64, a: f64, r: f64) -> Self {
        Self {
            d: T::lit(d),
            a: T::lit(a),
            r: T::lit(r),
            f: [d, a, r],
        }
    }

    /// `ẏ = (v, −V′(q)/m)` for `y = (q, v)` and mass `m`.
    pub fn rhs(&self, m: f64) -> impl Fn(f64, &[f64], &mut [f64]) {
        let [d, a, r] = self.f;
        move |_t, y, dy| {
            let e = (-a * (y[0] - r)).exp();
            dy[0] = y[1];
            dy[1] = -2.0 * d * a * e * (1.0 - e) / m;
        }
    }
}

impl<T: Real> Potential<T, 1> for Morse<T> {
    fn energy(&self, q: &SVector<T, 1>) -> T {
        let e = (-self.a * (q[0] - self.r)).exp();
        let u = T::one() - e;
        self.d * u * u
    }
    fn gradient(&self, q: &SVector<T, 1>) -> SVector<T, 1> {
        let e = (-self.a * (q[0] - self.r)).exp();
        let two = T::one() + T::one();
        vector![two * self.d * self.a * e * (T::one() - e)]
    }
}

/// The Hénon–Heiles potential `V(x, y) = ½(x² + y²) + x²y − y³/3`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HenonHeiles;

impl HenonHeiles {
    /// `ẏ = (v, −M⁻¹∇V(q))` for `y = (x, y, vx, vy)` and diagonal masses `m`.
    pub fn rhs(m: [f64; 2]) -> impl Fn(f64, &[f64], &mut [f64]) {
        move |_t, y, dy| {
            let (x, yy) = (y[0], y[1]);
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = -(x + 2.0 * x * yy) / m[0];
            dy[3] = -(yy + x * x - yy * yy) / m[1];
        }
    }
}

impl<T: Real> Potential<T, 2> for HenonHeiles {
    fn energy(&self, q: &SVector<T, 2>) -> T {
        let (x, y) = (q[0], q[1]);
        let half = T::lit(0.5);
        let third = T::lit(1.0 / 3.0);
        half * (x * x + y * y) + x * x * y - y * y * y * third
    }
    fn gradient(&self, q: &SVector<T, 2>) -> SVector<T, 2> {
        let (x, y) = (q[0], q[1]);
        let two = T::one() + T::one();
        vector![x + two * x * y, y + x * x - y * y]
    }
}

/// The diagonal mass `diag(2, 0.5)` used with [`HenonHeiles`] to exercise a non-identity mass.
pub fn hh_mass<T: Real>() -> Mass<T, 2> {
    // Both entries positive and finite: the constructor cannot fail.
    Mass::diagonal(vector![T::lit(2.0), T::lit(0.5)]).expect("valid mass")
}
