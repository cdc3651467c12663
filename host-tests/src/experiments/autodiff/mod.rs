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

mod closed_forms;
pub use closed_forms::*;

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::model::{Hessian, Potential, ThirdDerivative};
use macrostep::Real;
use nalgebra::SVector;

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

fn print_table(errors: &[CaseError], out: &Output) {
    let table = Table::new(
        out,
        &[
            "energy",
            "points",
            "gradient",
            "hess·a",
            "hessian",
            "a·V'''·a",
        ],
    );
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

/// Cost of each derivative relative to one plain energy evaluation, for the chain at `N`:
/// `[energy ns, gradient, hess·a, a·V‴·a, hessian]`.
fn cost<const N: usize>(setup: &Setup) -> [f64; 5] {
    let model = AutoDiff(Chain::<N>);
    let q = SVector::<f64, N>::from_fn(|i, _| 0.1 * i as f64);
    let a = SVector::<f64, N>::from_fn(|i, _| (i as f64).cos());
    use std::hint::black_box as bb;
    let m = crate::timing::compare(
        &mut [
            &mut || _ = bb(model.energy(bb(&q))),
            &mut || _ = bb(model.gradient(bb(&q))),
            &mut || _ = bb(model.hessian_vector(bb(&q), &a)),
            &mut || _ = bb(model.third_contraction(bb(&q), &a)),
            &mut || _ = bb(model.hessian(bb(&q))),
        ],
        &crate::timing::Timing::rounds(setup.rounds),
    );
    let e = m[0].median;
    [
        e * 1e9,
        m[1].median / e,
        m[2].median / e,
        m[3].median / e,
        m[4].median / e,
    ]
}

/// The timing effort of `reproduce autodiff` (the closed-form checks do not depend on it).
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Interleaved rounds of the thread-CPU-time comparison (medians; samples of ≥ 2 ms).
    pub rounds: usize,
}

impl Setup {
    /// The published timing: 7 rounds.
    pub fn paper() -> Self {
        Self { rounds: 7 }
    }

    /// A cheap version for tests: 3 rounds.
    pub fn quick() -> Self {
        Self { rounds: 3 }
    }
}

/// Everything `reproduce autodiff` prints.
#[derive(Clone, Debug)]
pub struct Results {
    /// The closed-form errors in `f64`, one per energy.
    pub errors_f64: Vec<CaseError>,
    /// The same in `f32`.
    pub errors_f32: Vec<CaseError>,
    /// `(N, [energy ns, gradient, hess·a, a·V‴·a, hessian])`: cost relative to one energy
    /// evaluation on the FPU-like chain (this machine).
    pub cost: Vec<(usize, [f64; 5])>,
}

impl Results {
    /// The largest error over every case and quantity in `f64` (NaN if any is NaN).
    pub fn max_rel_err(&self) -> f64 {
        self.errors_f64
            .iter()
            .map(CaseError::max)
            .fold(0.0, nan_max)
    }

    /// The same in `f32`.
    pub fn max_rel_err_f32(&self) -> f64 {
        self.errors_f32
            .iter()
            .map(CaseError::max)
            .fold(0.0, nan_max)
    }
}

/// Runs the closed-form checks in `f64` and `f32` and the cost study.
pub fn compute(setup: &Setup) -> Results {
    Results {
        errors_f64: closed_form_errors::<f64>(),
        errors_f32: closed_form_errors::<f32>(),
        cost: vec![(10, cost::<10>(setup)), (40, cost::<40>(setup))],
    }
}

/// Prints the f64 and f32 tables, `figure autodiff.max_rel_err` (f64), `…_f32` and the cost
/// ratios at `N = 40`.
pub fn report(r: &Results, out: &Output) {
    crate::say!(
        out,
        "Forward-mode AD vs hand-derived closed forms: max normwise relative error\n"
    );
    crate::say!(out, "f64:");
    print_table(&r.errors_f64, out);
    crate::say!(out, "\nf32:");
    print_table(&r.errors_f32, out);
    crate::say!(out);
    figure("autodiff.max_rel_err", r.max_rel_err());
    figure("autodiff.max_rel_err_f32", r.max_rel_err_f32());

    crate::say!(
        out,
        "\nCost relative to one plain energy evaluation (FPU-like chain, f64, this machine):"
    );
    let table = Table::new(
        out,
        &[
            "N",
            "energy ns",
            "gradient",
            "hess·a",
            "a·V'''·a",
            "hessian",
        ],
    );
    for &(n, c) in &r.cost {
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

/// `reproduce autodiff` (`--quick`: fewer timing repeats).
pub struct AutodiffExperiment;

impl Experiment for AutodiffExperiment {
    const NAME: &'static str = "autodiff";
    const SEED: &'static str = "(self-check)";
    const SECONDS: f64 = 3.8;
    const ABOUT: &'static str =
        "forward-mode AD vs hand-derived gradient, Hessian and a·V'''·a (7 energies, f64 and f32)";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
