//! `reproduce autodiff`: forward-mode AD against hand-derived closed forms.
//!
//! For polynomial, trigonometric, exponential, `√`, `1/r` (Coulomb, and a gravitating pair written
//! with `powf`) and Morse energies, the gradient, Hessian–vector product, Hessian and `a·V‴·a` of
//! [`AutoDiff`] are compared with closed forms derived by hand (below, evaluated in `f64` at the
//! same, already rounded, point), at several points and directions. The error of a case is the
//! largest normwise relative error `‖AD − exact‖∞ / ‖exact‖∞` over its points.
//!
//! Radial energies `V = f(r)`, `r = |q|`, `u = q/r`, `s = u·a`, `A = |a|²` share the chain rule
//! (derived by hand, `∂ⱼuᵢ = (δᵢⱼ − uᵢuⱼ)/r`):
//!
//! - `∇V = f′ u`,
//! - `Hess V = f″ u uᵀ + f′ (I − u uᵀ)/r`,
//! - `a·V‴·a = f‴ s² u + f″ [2s (a − s u) + (A − s²) u]/r + f′ [3s² u − 2s a − A u]/r²`.

use crate::report::{figure, sci, Table};
use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::model::{Hessian, Potential, ThirdDerivative};
use macrostep::Real;
use nalgebra::SVector;

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

/// The largest relative errors of one case over its points.
#[derive(Clone, Copy, Debug)]
pub struct CaseError {
    /// The energy.
    pub name: &'static str,
    /// Number of (point, direction) pairs checked.
    pub points: usize,
    /// `∇V`.
    pub gradient: f64,
    /// `Hess V · a`.
    pub hessian_vector: f64,
    /// `Hess V`.
    pub hessian: f64,
    /// `a·V‴·a`.
    pub third: f64,
}

impl CaseError {
    /// The largest of the four errors.
    pub fn max(&self) -> f64 {
        nan_max(
            nan_max(self.gradient, self.hessian_vector),
            nan_max(self.hessian, self.third),
        )
    }
}

/// `max` that propagates NaN (`f64::max` drops it, which would hide a broken derivative).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Normwise relative error `‖x − y‖∞ / ‖y‖∞` (absolute where `y = 0`; no case is chosen there).
fn rel_err(x: impl Iterator<Item = f64>, exact: &[f64]) -> f64 {
    let scale = exact.iter().fold(0.0_f64, |m, v| nan_max(m, v.abs()));
    let diff = x
        .zip(exact)
        .fold(0.0_f64, |m, (x, y)| nan_max(m, (x - y).abs()));
    if scale > 0.0 {
        diff / scale
    } else {
        diff
    }
}

fn case<T: Real, E: Energy<T, N>, const N: usize>(
    name: &'static str,
    energy: E,
    points: &[[f64; N]],
    dirs: &[[f64; N]],
    exact: impl Fn(&[f64], &[f64]) -> Exact,
) -> CaseError {
    let model = AutoDiff(energy);
    let mut err = CaseError {
        name,
        points: 0,
        gradient: 0.0,
        hessian_vector: 0.0,
        hessian: 0.0,
        third: 0.0,
    };
    for p in points {
        for d in dirs {
            let q = SVector::<T, N>::from_fn(|i, _| T::lit(p[i]));
            let a = SVector::<T, N>::from_fn(|i, _| T::lit(d[i]));
            // The closed form at the point and direction as rounded to T.
            let qf: Vec<f64> = q.iter().map(|x| x.to_f64()).collect();
            let af: Vec<f64> = a.iter().map(|x| x.to_f64()).collect();
            let ex = exact(&qf, &af);
            let hv_exact: Vec<f64> = (0..N)
                .map(|i| (0..N).map(|j| ex.hessian[i * N + j] * af[j]).sum())
                .collect();
            let g = model.gradient(&q);
            let hv = model.hessian_vector(&q, &a);
            let h = model.hessian(&q);
            let t = model.third_contraction(&q, &a);
            let row_major = (0..N * N).map(|k| h[(k / N, k % N)].to_f64());
            err.gradient = nan_max(
                err.gradient,
                rel_err(g.iter().map(|x| x.to_f64()), &ex.gradient),
            );
            err.hessian_vector = nan_max(
                err.hessian_vector,
                rel_err(hv.iter().map(|x| x.to_f64()), &hv_exact),
            );
            err.hessian = nan_max(err.hessian, rel_err(row_major, &ex.hessian));
            err.third = nan_max(err.third, rel_err(t.iter().map(|x| x.to_f64()), &ex.third));
            err.points += 1;
        }
    }
    err
}

/// Runs every closed-form case in scalar `T`.
pub fn closed_form_errors<T: Real>() -> Vec<CaseError> {
    let p2 = [[0.7, -1.3], [-0.4, 0.25], [1.1, 0.6], [-1.5, -0.8]];
    let d2 = [[0.4, 2.5], [1.0, 0.0], [-0.3, 0.9]];
    // Points of the trigonometric case keep |y| < 1.2 (tan stays moderate).
    let p2t = [[0.7, -1.1], [-0.4, 0.25], [2.1, 0.6], [-2.5, -0.8]];
    let p3 = [
        [0.6, 0.8, 0.0],
        [1.2, -0.5, 0.9],
        [-0.3, 0.4, -1.7],
        [2.0, 1.0, -0.5],
    ];
    // Morse: away from the minimum r = r₀ = 1, where the gradient vanishes.
    let p3m = [
        [0.45, 0.6, 0.0],
        [1.2, -0.5, 0.9],
        [-0.3, 0.4, -1.7],
        [2.0, 1.0, -0.5],
    ];
    let d3 = [[1.0, 0.0, 0.0], [0.3, -1.1, 0.7], [-0.5, 0.25, 2.0]];
    let p6 = [
        [0.6, 0.8, 0.0, -0.5, 0.1, 0.3],
        [1.2, -0.5, 0.9, 0.0, 0.0, 0.0],
        [-0.3, 0.4, -1.7, 1.1, -0.9, 0.2],
    ];
    let d6 = [
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.3, -1.1, 0.7, 0.2, 0.5, -0.4],
        [-0.5, 0.25, 2.0, 1.5, -0.75, 0.0],
    ];
    // Parameters exactly representable in f32, so the f64 closed forms use the same values.
    let (k, depth, alpha, r0) = (1.5, 2.0, 1.25, 1.0);
    vec![
        case::<T, _, 2>("polynomial", Polynomial, &p2, &d2, polynomial_exact),
        case::<T, _, 2>(
            "trigonometric",
            Trigonometric,
            &p2t,
            &d2,
            trigonometric_exact,
        ),
        case::<T, _, 2>("exponential", Exponential, &p2, &d2, exponential_exact),
        case::<T, _, 3>("sqrt (norm)", Norm, &p3, &d3, norm_exact),
        case::<T, _, 3>("coulomb 1/r", Coulomb(T::lit(k)), &p3, &d3, |q, a| {
            coulomb_exact(k, q, a)
        }),
        case::<T, _, 6>("gravity pair", GravityPair(T::lit(k)), &p6, &d6, |q, a| {
            gravity_pair_exact(k, q, a)
        }),
        case::<T, _, 3>(
            "morse",
            Morse {
                depth: T::lit(depth),
                alpha: T::lit(alpha),
                r0: T::lit(r0),
            },
            &p3m,
            &d3,
            |q, a| morse_exact(depth, alpha, r0, q, a),
        ),
    ]
}

fn print_table(errors: &[CaseError]) {
    let table = Table::new(&[
        "energy",
        "points",
        "gradient",
        "hess·a",
        "hessian",
        "a·V'''·a",
    ]);
    for e in errors {
        table.row(&[
            e.name.to_string(),
            e.points.to_string(),
            sci(e.gradient),
            sci(e.hessian_vector),
            sci(e.hessian),
            sci(e.third),
        ]);
    }
}

/// An FPU-like chain of `N` coordinates: `Σ ½d² + ¼d⁴ + 0.1 sin d`, `d = qᵢ₊₁ − qᵢ` (cost study).
pub struct Chain<const N: usize>;
impl<T: Real, const N: usize> Energy<T, N> for Chain<N> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        let mut v = S::cst(T::zero());
        for w in q.windows(2) {
            let d = w[1] - w[0];
            let d2 = d * d;
            v += d2 * T::lit(0.5) + d2 * d2 * T::lit(0.25) + d.sin() * T::lit(0.1);
        }
        v
    }
}

/// Median wall time of `f` in nanoseconds over a few batches.
fn time_ns(mut f: impl FnMut() -> f64) -> f64 {
    use std::time::Instant;
    let mut sink = 0.0;
    let mut samples = Vec::new();
    for _ in 0..7 {
        let reps = 200;
        let t0 = Instant::now();
        for _ in 0..reps {
            sink += std::hint::black_box(f());
        }
        samples.push(t0.elapsed().as_nanos() as f64 / reps as f64);
    }
    std::hint::black_box(sink);
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Cost of each derivative relative to one plain energy evaluation, for the chain at `N`.
fn cost<const N: usize>() -> [f64; 5] {
    let model = AutoDiff(Chain::<N>);
    let q = SVector::<f64, N>::from_fn(|i, _| 0.1 * i as f64);
    let a = SVector::<f64, N>::from_fn(|i, _| (i as f64).cos());
    let e = time_ns(|| model.energy(&q));
    [
        e,
        time_ns(|| model.gradient(&q)[1]) / e,
        time_ns(|| model.hessian_vector(&q, &a)[1]) / e,
        time_ns(|| model.third_contraction(&q, &a)[1]) / e,
        time_ns(|| model.hessian(&q)[(1, 1)]) / e,
    ]
}

/// Prints the f64 and f32 tables and `figure autodiff.max_rel_err` (f64).
pub fn run() {
    crate::say!("Forward-mode AD vs hand-derived closed forms: max normwise relative error\n");
    crate::say!("f64:");
    let e64 = closed_form_errors::<f64>();
    print_table(&e64);
    crate::say!("\nf32:");
    let e32 = closed_form_errors::<f32>();
    print_table(&e32);
    crate::say!();
    figure(
        "autodiff.max_rel_err",
        e64.iter().map(CaseError::max).fold(0.0, nan_max),
    );
    figure(
        "autodiff.max_rel_err_f32",
        e32.iter().map(CaseError::max).fold(0.0, nan_max),
    );

    crate::say!(
        "\nCost relative to one plain energy evaluation (FPU-like chain, f64, this machine):"
    );
    let table = Table::new(&[
        "N",
        "energy ns",
        "gradient",
        "hess·a",
        "a·V'''·a",
        "hessian",
    ]);
    for (n, c) in [(10, cost::<10>()), (40, cost::<40>())] {
        table.row(&[
            n.to_string(),
            format!("{:.0}", c[0]),
            format!("{:.1}", c[1]),
            format!("{:.1}", c[2]),
            format!("{:.1}", c[3]),
            format!("{:.1}", c[4]),
        ]);
        if n == 40 {
            figure("autodiff.cost_ratio_gradient_n40", c[1]);
            figure("autodiff.cost_ratio_third_n40", c[3]);
            figure("autodiff.cost_ratio_hessian_n40", c[4]);
        }
    }
}
