//! The test energies and their closed-form derivatives, derived by hand (the chain rule of
//! the radial energies is in the [parent module](super)).

use macrostep::autodiff::{AdScalar, Energy};
use macrostep::Real;

/// `V = x³y + 2y⁴ − xy`.
pub struct Polynomial;
impl<T: Real> Energy<T, 2> for Polynomial {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
        let (x, y) = (q[0], q[1]);
        x * x * x * y + y.powi(4) * T::lit(2.0) - x * y
    }
}

/// `V = sin x cos y + tan y`.
pub struct Trigonometric;
impl<T: Real> Energy<T, 2> for Trigonometric {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
        q[0].sin() * q[1].cos() + q[1].tan()
    }
}

/// `V = exp(xy)`.
pub struct Exponential;
impl<T: Real> Energy<T, 2> for Exponential {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
        (q[0] * q[1]).exp()
    }
}

/// `V = |q| = √(x² + y² + z²)`.
pub struct Norm;
impl<T: Real> Energy<T, 3> for Norm {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 3]) -> S {
        (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt()
    }
}

/// Coulomb `V = k/|q|`, written with `recip`.
pub struct Coulomb<T>(pub T);
impl<T: Real> Energy<T, 3> for Coulomb<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 3]) -> S {
        (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt().recip() * self.0
    }
}

/// Two gravitating bodies `V = −k/|q₁ − q₂|` in 3-D (`N = 6`), written with `powf(−½)`.
pub struct GravityPair<T>(pub T);
impl<T: Real> Energy<T, 6> for GravityPair<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 6]) -> S {
        let (dx, dy, dz) = (q[0] - q[3], q[1] - q[4], q[2] - q[5]);
        -((dx * dx + dy * dy + dz * dz).powf(T::lit(-0.5)) * self.0)
    }
}

/// Morse `V = D (1 − e^{−α(r − r₀)})²` with `r = |q|`.
pub struct Morse<T> {
    /// Well depth `D`.
    pub depth: T,
    /// Width parameter `α`.
    pub alpha: T,
    /// Rest length `r₀`.
    pub r0: T,
}
impl<T: Real> Energy<T, 3> for Morse<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 3]) -> S {
        let r = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
        let w = -((r - self.r0) * -self.alpha).exp() + T::one();
        w * w * self.depth
    }
}

/// Closed-form gradient, Hessian (row-major) and `a·V‴·a` at `q` with direction `a`.
pub struct Exact {
    /// `∇V`.
    pub gradient: Vec<f64>,
    /// `Hess V`, row-major.
    pub hessian: Vec<f64>,
    /// `a·V‴·a`.
    pub third: Vec<f64>,
}

/// Builds the exact derivatives of a 2-D energy from its partial derivatives.
/// `d2 = [Vxx, Vxy, Vyy]`, `d3 = [Vxxx, Vxxy, Vxyy, Vyyy]`.
fn exact2(d1: [f64; 2], d2: [f64; 3], d3: [f64; 4], a: &[f64]) -> Exact {
    let (a0, a1) = (a[0], a[1]);
    Exact {
        gradient: d1.to_vec(),
        hessian: vec![d2[0], d2[1], d2[1], d2[2]],
        third: vec![
            d3[0] * a0 * a0 + 2.0 * d3[1] * a0 * a1 + d3[2] * a1 * a1,
            d3[1] * a0 * a0 + 2.0 * d3[2] * a0 * a1 + d3[3] * a1 * a1,
        ],
    }
}

/// The closed form of the polynomial.
pub fn polynomial_exact(q: &[f64], a: &[f64]) -> Exact {
    let (x, y) = (q[0], q[1]);
    exact2(
        [3.0 * x * x * y - y, x * x * x + 8.0 * y * y * y - x],
        [6.0 * x * y, 3.0 * x * x - 1.0, 24.0 * y * y],
        [6.0 * y, 6.0 * x, 0.0, 48.0 * y],
        a,
    )
}

/// The closed form of `sin x cos y + tan y` (`tan′ = 1 + t²`, `tan″ = 2t(1 + t²)`,
/// `tan‴ = (1 + t²)(2 + 6t²)`).
pub fn trigonometric_exact(q: &[f64], a: &[f64]) -> Exact {
    let (sx, cx, sy, cy, t) = (q[0].sin(), q[0].cos(), q[1].sin(), q[1].cos(), q[1].tan());
    let sec2 = 1.0 + t * t;
    exact2(
        [cx * cy, -sx * sy + sec2],
        [-sx * cy, -cx * sy, -sx * cy + 2.0 * t * sec2],
        [
            -cx * cy,
            sx * sy,
            -cx * cy,
            sx * sy + sec2 * (2.0 + 6.0 * t * t),
        ],
        a,
    )
}

/// The closed form of `exp(xy)`.
pub fn exponential_exact(q: &[f64], a: &[f64]) -> Exact {
    let (x, y) = (q[0], q[1]);
    let e = (x * y).exp();
    exact2(
        [y * e, x * e],
        [y * y * e, (1.0 + x * y) * e, x * x * e],
        [
            y * y * y * e,
            (2.0 * y + x * y * y) * e,
            (2.0 * x + x * x * y) * e,
            x * x * x * e,
        ],
        a,
    )
}

/// The radial chain rule of the module docs, for `V = f(|q|)` with `f′, f″, f‴` at `r = |q|`.
pub fn radial_exact(q: &[f64], a: &[f64], f1: f64, f2: f64, f3: f64) -> Exact {
    let n = q.len();
    let r = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let u: Vec<f64> = q.iter().map(|x| x / r).collect();
    let s: f64 = u.iter().zip(a).map(|(u, a)| u * a).sum();
    let aa: f64 = a.iter().map(|a| a * a).sum();
    let mut hessian = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let delta = if i == j { 1.0 } else { 0.0 };
            hessian[i * n + j] = f2 * u[i] * u[j] + f1 * (delta - u[i] * u[j]) / r;
        }
    }
    let third = (0..n)
        .map(|i| {
            f3 * s * s * u[i]
                + f2 * (2.0 * s * (a[i] - s * u[i]) + (aa - s * s) * u[i]) / r
                + f1 * (3.0 * s * s * u[i] - 2.0 * s * a[i] - aa * u[i]) / (r * r)
        })
        .collect();
    Exact {
        gradient: u.iter().map(|u| f1 * u).collect(),
        hessian,
        third,
    }
}

/// The closed form of `|q|`: `f′ = 1`, `f″ = f‴ = 0`.
pub fn norm_exact(q: &[f64], a: &[f64]) -> Exact {
    radial_exact(q, a, 1.0, 0.0, 0.0)
}

/// The closed form of `k/r`: `f′ = −k/r²`, `f″ = 2k/r³`, `f‴ = −6k/r⁴`.
pub fn coulomb_exact(k: f64, q: &[f64], a: &[f64]) -> Exact {
    let r = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    radial_exact(
        q,
        a,
        -k / (r * r),
        2.0 * k / (r * r * r),
        -6.0 * k / (r * r * r * r),
    )
}

/// The closed form of the pair `−k/|q₁ − q₂|`: the radial form of `−k/r` in `d = q₁ − q₂`,
/// pulled back by `d = [I, −I] q` (so `∇ = [g; −g]`, `Hess = [[H, −H], [−H, H]]`,
/// `a·V‴·a = [t; −t]` with `t` taken along `a₁ − a₂`).
pub fn gravity_pair_exact(k: f64, q: &[f64], a: &[f64]) -> Exact {
    let d: Vec<f64> = (0..3).map(|i| q[i] - q[i + 3]).collect();
    let b: Vec<f64> = (0..3).map(|i| a[i] - a[i + 3]).collect();
    let e = coulomb_exact(-k, &d, &b);
    let mut hessian = vec![0.0; 36];
    for i in 0..6 {
        for j in 0..6 {
            let sign = if (i < 3) == (j < 3) { 1.0 } else { -1.0 };
            hessian[i * 6 + j] = sign * e.hessian[(i % 3) * 3 + j % 3];
        }
    }
    let pair = |v: &[f64]| v.iter().copied().chain(v.iter().map(|x| -x)).collect();
    Exact {
        gradient: pair(&e.gradient),
        hessian,
        third: pair(&e.third),
    }
}

/// The closed form of Morse: with `E = e^{−α(r − r₀)}`, `f′ = 2Dα(E − E²)`,
/// `f″ = 2Dα²(2E² − E)`, `f‴ = 2Dα³(E − 4E²)`.
pub fn morse_exact(depth: f64, alpha: f64, r0: f64, q: &[f64], a: &[f64]) -> Exact {
    let r = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let e = (-alpha * (r - r0)).exp();
    let c = 2.0 * depth * alpha;
    radial_exact(
        q,
        a,
        c * (e - e * e),
        c * alpha * (2.0 * e * e - e),
        c * alpha * alpha * (e - 4.0 * e * e),
    )
}
