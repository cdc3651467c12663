//! Test problems and an independent dynamic-size reimplementation for the Zhang–Skeel family.
//!
//! - [`HenonHeiles`]: the model of [`crate::fixtures`], with the derivatives below written again
//!   for the dynamic-size reimplementation.
//! - [`FpuChain`]: `V = Σ ½dᵢ² + ¼ dᵢ⁴`, `dᵢ = qᵢ₊₁ − qᵢ` with fixed ends — a tridiagonal Hessian
//!   that implements `hessian_band`, for the banded solver.
//! - [`dyn_zs`]: Z&S / Z&Ss written again with `DVector`/`DMatrix` and closures for the
//!   derivatives, no caching, for the cross-check against the `no_std` implementation
//!   (`tests/zs/cross_checks.rs`).

use macrostep::linalg::BandMut;
use macrostep::model::{Hessian, Potential, ThirdDerivative};
use macrostep::Real;
use nalgebra::{DMatrix, DVector, SMatrix, SVector};

pub use crate::fixtures::HenonHeiles;

/// Dynamic Hénon–Heiles derivatives: (gradient, Hessian, contraction).
pub fn hh_grad(q: &DVector<f64>) -> DVector<f64> {
    DVector::from_vec(vec![
        q[0] + 2.0 * q[0] * q[1],
        q[1] + q[0] * q[0] - q[1] * q[1],
    ])
}
/// Dynamic Hénon–Heiles Hessian.
pub fn hh_hess(q: &DVector<f64>) -> DMatrix<f64> {
    DMatrix::from_row_slice(
        2,
        2,
        &[1.0 + 2.0 * q[1], 2.0 * q[0], 2.0 * q[0], 1.0 - 2.0 * q[1]],
    )
}
/// Dynamic Hénon–Heiles third-derivative contraction.
pub fn hh_third(_: &DVector<f64>, a: &DVector<f64>) -> DVector<f64> {
    DVector::from_vec(vec![4.0 * a[0] * a[1], 2.0 * (a[0] * a[0] - a[1] * a[1])])
}

/// A Fermi–Pasta–Ulam-type chain with fixed ends: `V = Σᵢ₌₀ᴺ ½ k dᵢ² + ¼ dᵢ⁴`,
/// `dᵢ = qᵢ − qᵢ₋₁` with `q₋₁ = q_N = 0`. Tridiagonal Hessian (`hessian_band` with `W ≥ 2`).
#[derive(Clone, Copy, Debug)]
pub struct FpuChain<T> {
    /// Linear spring constant.
    pub k: T,
}

impl<T: Real> FpuChain<T> {
    fn d<const N: usize>(q: &SVector<T, N>, i: usize) -> T {
        // bond i joins q_{i-1} and q_i, i = 0..=N
        let right = if i < N { q[i] } else { T::zero() };
        let left = if i > 0 { q[i - 1] } else { T::zero() };
        right - left
    }
    /// φ'(d), φ''(d), φ'''(d) for φ = ½ k d² + ¼ d⁴.
    fn phi(&self, d: T) -> (T, T, T) {
        let three = T::lit(3.0);
        (
            self.k * d + d * d * d,
            self.k + three * d * d,
            three * (d + d),
        )
    }
}

impl<T: Real, const N: usize> Potential<T, N> for FpuChain<T> {
    fn energy(&self, q: &SVector<T, N>) -> T {
        let mut e = T::zero();
        for i in 0..=N {
            let d = Self::d(q, i);
            e += T::lit(0.5) * self.k * d * d + T::lit(0.25) * d * d * d * d;
        }
        e
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let mut g = SVector::<T, N>::zeros();
        for i in 0..=N {
            let (p1, _, _) = self.phi(Self::d(q, i));
            if i < N {
                g[i] += p1;
            }
            if i > 0 {
                g[i - 1] -= p1;
            }
        }
        g
    }
}
impl<T: Real, const N: usize> Hessian<T, N> for FpuChain<T> {
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::<T, N, N>::zeros();
        for i in 0..=N {
            let (_, p2, _) = self.phi(Self::d(q, i));
            if i < N {
                h[(i, i)] += p2;
            }
            if i > 0 {
                h[(i - 1, i - 1)] += p2;
            }
            if i > 0 && i < N {
                h[(i, i - 1)] -= p2;
                h[(i - 1, i)] -= p2;
            }
        }
        h
    }
    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        for i in 0..=N {
            let (_, p2, _) = self.phi(Self::d(q, i));
            let p2 = p2 * scale;
            let ok = (i >= N || band.add(i, i, p2))
                && (i == 0 || band.add(i - 1, i - 1, p2))
                && (i == 0 || i >= N || band.add(i, i - 1, -p2));
            if !ok {
                return false;
            }
        }
        true
    }
}
impl<T: Real, const N: usize> ThirdDerivative<T, N> for FpuChain<T> {
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let mut c = SVector::<T, N>::zeros();
        for i in 0..=N {
            let (_, _, p3) = self.phi(Self::d(q, i));
            let da = Self::d(a, i);
            let t = p3 * da * da;
            if i < N {
                c[i] += t;
            }
            if i > 0 {
                c[i - 1] -= t;
            }
        }
        c
    }
}

/// `(q, a) ↦ a·V‴(q)·a` on dynamic vectors.
pub type DynContraction = dyn Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64>;

/// The derivatives of a potential as closures on dynamic vectors.
pub struct DynPotential<'a> {
    /// ∇V.
    pub grad: &'a dyn Fn(&DVector<f64>) -> DVector<f64>,
    /// Hess V.
    pub hess: &'a dyn Fn(&DVector<f64>) -> DMatrix<f64>,
    /// a·V‴·a (ignored when `third_order` is false).
    pub third: &'a DynContraction,
}

/// Z&S (`full = true`, 000 eq 1.3) or Z&Ss (`full = false`, eq 2.7), dynamic size, diagonal mass
/// `m`, no caching: `(q, v)` after `steps` steps. `grad_total` is the full gradient; the Hessian
/// in `pot` is scaled by `hess_scale` (stiff Z&Ss: `α` and the stiff Hessian only).
#[allow(clippy::too_many_arguments)]
pub fn dyn_zs(
    pot: &DynPotential<'_>,
    m: &DVector<f64>,
    mut q: DVector<f64>,
    mut v: DVector<f64>,
    h: f64,
    beta: f64,
    hess_scale: f64,
    full: bool,
    steps: usize,
) -> (DVector<f64>, DVector<f64>) {
    let f = |x: &DVector<f64>| -> DVector<f64> {
        let mut a_mat = (pot.hess)(x) * (beta * h * h * hess_scale);
        for i in 0..x.len() {
            a_mat[(i, i)] += m[i];
        }
        let rhs = -(pot.grad)(x);
        let a = a_mat.lu().solve(&rhs).expect("singular in reference");
        if full {
            let c = (pot.third)(x, &a);
            let corr = c.component_div(m) * (0.5 * beta * beta * h.powi(4));
            a - corr
        } else {
            a
        }
    };
    for _ in 0..steps {
        let f0 = f(&q);
        let q1 = &q + &v * h + &f0 * (0.5 * h * h);
        let f1 = f(&q1);
        v = &v + (f0 + f1) * (0.5 * h);
        q = q1;
    }
    (q, v)
}

fn solve_shifted(
    pot: &DynPotential<'_>,
    m: &DVector<f64>,
    x: &DVector<f64>,
    c: f64,
    rhs: &DVector<f64>,
) -> DVector<f64> {
    let mut a = (pot.hess)(x) * c;
    for i in 0..x.len() {
        a[(i, i)] += m[i];
    }
    a.lu().solve(rhs).expect("singular in reference")
}

/// Newmark (γ = ½) in dynamic size: Newton on `M(q − q̃) + βh²∇V(q) = 0` from `q̃`, stopping when
/// `‖Δq‖∞ ≤ tol(1 + ‖q‖∞)`, or after one update when `one_iteration`.
#[allow(clippy::too_many_arguments)]
pub fn dyn_newmark(
    pot: &DynPotential<'_>,
    m: &DVector<f64>,
    mut q: DVector<f64>,
    mut v: DVector<f64>,
    h: f64,
    beta: f64,
    tol: f64,
    one_iteration: bool,
    steps: usize,
) -> (DVector<f64>, DVector<f64>) {
    let c = beta * h * h;
    for _ in 0..steps {
        let a0 = -(pot.grad)(&q).component_div(m);
        let qt = &q + &v * h + &a0 * (0.5 * h * h * (1.0 - 2.0 * beta));
        let mut x = qt.clone();
        for _ in 0..100 {
            let r = (&x - &qt).component_mul(m) + (pot.grad)(&x) * c;
            let dx = solve_shifted(pot, m, &x, c, &(-r));
            x += &dx;
            if one_iteration || dx.amax() <= tol * (1.0 + x.amax()) {
                break;
            }
        }
        let a1 = -(pot.grad)(&x).component_div(m);
        v = &v + (a0 + a1) * (0.5 * h);
        q = x;
    }
    (q, v)
}

/// Push-forward Newmark (000 eq 2.3) in dynamic size: `a` from Newton on
/// `M a + ∇V(x + βh²a) = 0` starting at `a = 0`, same stopping rule as [`dyn_newmark`].
#[allow(clippy::too_many_arguments)]
pub fn dyn_push_forward(
    pot: &DynPotential<'_>,
    m: &DVector<f64>,
    mut q: DVector<f64>,
    mut v: DVector<f64>,
    h: f64,
    beta: f64,
    tol: f64,
    steps: usize,
) -> (DVector<f64>, DVector<f64>) {
    let c = beta * h * h;
    let f = |x: &DVector<f64>| {
        let mut a = DVector::zeros(x.len());
        for _ in 0..100 {
            let y = x + &a * c;
            let r = a.component_mul(m) + (pot.grad)(&y);
            let da = solve_shifted(pot, m, &y, c, &(-r));
            a += &da;
            if da.amax() <= tol * (1.0 + a.amax()) {
                break;
            }
        }
        a
    };
    for _ in 0..steps {
        let f0 = f(&q);
        let q1 = &q + &v * h + &f0 * (0.5 * h * h);
        let f1 = f(&q1);
        v = &v + (f0 + f1) * (0.5 * h);
        q = q1;
    }
    (q, v)
}
