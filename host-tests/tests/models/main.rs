//! The built-in models (`macrostep::systems`): exact derivatives against central differences,
//! Hessian symmetry, initial states on the constraint manifold, parameter validation, and the
//! seeds' published constants.
//!
//! Derivative checks run in `f64` at seeded random points: the gradient against central
//! differences of the energy, the Hessian against central differences of the gradient, and
//! `a·V‴·a` against central differences of `Hess V · a` along `a`.

use macrostep::model::{Constraint, Hessian, Potential, ThirdDerivative};
use macrostep::systems::*;
use macrostep::{ConfigError, Real};
use nalgebra::{vector, SMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

mod constraints;
mod constructors;
mod dna;
mod flavor_systems;
mod pendula;
mod springs;

/// Central-difference step relative to the scale of `q`: balances the `O(h²)` truncation error
/// against the `O(ε/h)` roundoff of `f64` (optimum near `ε^{1/3} ≈ 6e-6`).
const FD_STEP: f64 = 1e-5;
/// Relative agreement required between an exact derivative and its central difference:
/// truncation `~h² |f‴| ≈ 1e-10 × (derivative scale)` plus roundoff `ε |f| / h ≈ 2e-11 × |f|/|f'|`;
/// 1e-6 leaves margin for the quartic and exponential models whose higher derivatives are large.
const FD_TOL: f64 = 1e-6;

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

fn random_vector<const N: usize>(rng: &mut Pcg64, scale: f64) -> SVector<f64, N> {
    SVector::from_fn(|_, _| rng.random_range(-scale..scale))
}

/// `|exact − approx|∞ ≤ FD_TOL · max(1, |exact|∞)`, with a readable failure.
fn assert_close<const R: usize, const C: usize>(
    what: &str,
    exact: &SMatrix<f64, R, C>,
    approx: &SMatrix<f64, R, C>,
) {
    let scale = exact.amax().max(approx.amax()).max(1.0);
    let err = (exact - approx).amax();
    assert!(
        err <= FD_TOL * scale,
        "{what}: |exact − central difference| = {err:e} (scale {scale:e})\nexact {exact}\nfd {approx}"
    );
}

/// Checks gradient, Hessian (and its symmetry and `hessian_vector`) and `a·V‴·a` of `p` at `q`
/// against central differences.
fn check_potential<P: ThirdDerivative<f64, N>, const N: usize>(
    p: &P,
    q: &SVector<f64, N>,
    a: &SVector<f64, N>,
) {
    let h = FD_STEP * q.amax().max(1.0);
    let grad = p.gradient(q);
    let fd_grad = SVector::<f64, N>::from_fn(|i, _| {
        let mut qp = *q;
        let mut qm = *q;
        qp[i] += h;
        qm[i] -= h;
        (p.energy(&qp) - p.energy(&qm)) / (2.0 * h)
    });
    assert_close("gradient", &grad, &fd_grad);

    let hess = p.hessian(q);
    let asym = (hess - hess.transpose()).amax();
    assert!(
        asym <= 1e-14 * hess.amax().max(1.0),
        "Hessian not symmetric: {asym:e}"
    );
    let mut fd_hess = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        let mut qp = *q;
        let mut qm = *q;
        qp[i] += h;
        qm[i] -= h;
        fd_hess.set_column(i, &((p.gradient(&qp) - p.gradient(&qm)) / (2.0 * h)));
    }
    assert_close("Hessian", &hess, &fd_hess);
    assert_close("hessian_vector", &(hess * a), &p.hessian_vector(q, a));

    let s = h / a.amax().max(1e-300);
    let third = p.third_contraction(q, a);
    let fd_third =
        (p.hessian_vector(&(q + a * s), a) - p.hessian_vector(&(q - a * s), a)) / (2.0 * s);
    assert_close("a·V‴·a", &third, &fd_third);
}

/// Checks the Jacobian, weighted Hessian, `hessian_times` and third contraction of a constraint
/// against central differences.
fn check_constraint<G: Constraint<f64, N, D>, const N: usize, const D: usize>(
    g: &G,
    q: &SVector<f64, N>,
    w: &SVector<f64, D>,
    a: &SVector<f64, N>,
) {
    let h = FD_STEP * q.amax().max(1.0);
    let jac = g.jacobian(q);
    let mut fd_jac = SMatrix::<f64, D, N>::zeros();
    let mut fd_wh = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        let mut qp = *q;
        let mut qm = *q;
        qp[i] += h;
        qm[i] -= h;
        fd_jac.set_column(i, &((g.value(&qp) - g.value(&qm)) / (2.0 * h)));
        let grad_w = |x: &SVector<f64, N>| g.jacobian(x).tr_mul(w);
        fd_wh.set_column(i, &((grad_w(&qp) - grad_w(&qm)) / (2.0 * h)));
    }
    assert_close("constraint Jacobian", &jac, &fd_jac);
    let wh = g.weighted_hessian(q, w);
    assert_close("weighted Hessian", &wh, &fd_wh);
    assert!((wh - wh.transpose()).amax() <= 1e-14 * wh.amax().max(1.0));
    let s = h / a.amax().max(1e-300);
    let fd_ht = (g.jacobian(&(q + a * s)) - g.jacobian(&(q - a * s))) / (2.0 * s);
    assert_close("hessian_times", &g.hessian_times(q, a), &fd_ht);
    let fd_third = (g.weighted_hessian(&(q + a * s), w) * a
        - g.weighted_hessian(&(q - a * s), w) * a)
        / (2.0 * s);
    assert_close(
        "weighted third contraction",
        &g.weighted_third_contraction(q, w, a),
        &fd_third,
    );
}

/// Runs `check_potential` at `points` seeded random points `start + U(−spread, spread)`.
fn check_potential_around<P: ThirdDerivative<f64, N>, const N: usize>(
    p: &P,
    start: &SVector<f64, N>,
    spread: f64,
    seed: u64,
) {
    let mut r = rng(seed);
    for _ in 0..5 {
        let q = start + random_vector::<N>(&mut r, spread);
        let a = random_vector::<N>(&mut r, 1.0);
        check_potential(p, &q, &a);
    }
}
