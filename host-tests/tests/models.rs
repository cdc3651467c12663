//! The built-in models (`macrostep::models`): exact derivatives against central differences,
//! Hessian symmetry, initial states on the constraint manifold, parameter validation, and the
//! seeds' published constants.
//!
//! Derivative checks run in `f64` at seeded random points: the gradient against central
//! differences of the energy, the Hessian against central differences of the gradient, and
//! `a·V‴·a` against central differences of `Hess V · a` along `a`.

use macrostep::model::{Constraint, Hessian, Potential, ThirdDerivative};
use macrostep::models::*;
use macrostep::{ConfigError, Real};
use nalgebra::{vector, SMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

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

// ---------------------------------------------------------------------------------------------
// Distance constraints

#[test]
fn distances_derivatives_match_central_differences() {
    // Three nodes in the plane: an anchored rod, a rod between nodes, and a rod to a second anchor.
    let g = PlanarDistances::<f64, 6, 3>::new([
        Link::anchored(0, vector![0.3, -0.2], 1.0),
        Link::between(1, 0, 1.5),
        Link::between(1, 2, 0.7),
    ])
    .unwrap();
    let mut r = rng(1);
    for _ in 0..5 {
        let q = random_vector::<6>(&mut r, 2.0);
        let w = random_vector::<3>(&mut r, 3.0);
        let a = random_vector::<6>(&mut r, 1.0);
        check_constraint(&g, &q, &w, &a);
    }
    // Three dimensions, and a node linked to a later node.
    let g3 = Distances::<f64, 3, 6, 2>::new([
        Link::between(0, 1, 2.0),
        Link::anchored(1, vector![1.0, 2.0, 3.0], 0.5),
    ])
    .unwrap();
    for _ in 0..5 {
        let q = random_vector::<6>(&mut r, 2.0);
        let w = random_vector::<2>(&mut r, 3.0);
        let a = random_vector::<6>(&mut r, 1.0);
        check_constraint(&g3, &q, &w, &a);
    }
}

#[test]
fn distances_value_is_squared_distance_minus_length_squared() {
    let g = PlanarDistances::<f64, 4, 2>::new([
        Link::anchored(0, vector![1.0, 1.0], 2.0),
        Link::between(1, 0, 3.0),
    ])
    .unwrap();
    let q = vector![4.0, 5.0, 4.0, 1.0];
    // |(4,5) − (1,1)|² − 4 = 25 − 4; |(4,1) − (4,5)|² − 9 = 16 − 9.
    assert_eq!(g.value(&q), vector![21.0, 7.0]);
}

#[test]
fn distances_reject_bad_links() {
    type G = PlanarDistances<f64, 4, 1>;
    let origin = vector![0.0, 0.0];
    assert_eq!(
        G::new([Link::between(0, 2, 1.0)]).unwrap_err(),
        ConfigError::OutOfRange { name: "node" }
    );
    assert_eq!(
        G::new([Link::anchored(2, origin, 1.0)]).unwrap_err(),
        ConfigError::OutOfRange { name: "node" }
    );
    assert_eq!(
        G::new([Link::between(1, 1, 1.0)]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "link ends distinct"
        }
    );
    assert_eq!(
        G::new([Link::between(0, 1, 0.0)]).unwrap_err(),
        ConfigError::OutOfRange { name: "length" }
    );
    assert_eq!(
        G::new([Link::between(0, 1, f64::NAN)]).unwrap_err(),
        ConfigError::NonFinite { name: "length" }
    );
    assert_eq!(
        G::new([Link::anchored(0, vector![f64::INFINITY, 0.0], 1.0)]).unwrap_err(),
        ConfigError::NonFinite { name: "anchor" }
    );
    assert_eq!(
        PlanarDistances::<f64, 5, 1>::new([Link::between(0, 1, 1.0)]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "N divisible by DIM"
        }
    );
    assert_eq!(
        Distances::<f64, 0, 4, 1>::new([Link::anchored(0, vector![], 1.0)]).unwrap_err(),
        ConfigError::OutOfRange { name: "DIM" }
    );
    assert_eq!(
        PlanarDistances::<f64, 6, 2>::chain(origin, vector![1.0, 1.0]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "N = DIM * D"
        }
    );
}

#[test]
fn linear_potential_rejects_non_finite() {
    assert_eq!(
        LinearPotential::<f64, 2>::new(vector![1.0, f64::NAN]).unwrap_err(),
        ConfigError::NonFinite { name: "linear" }
    );
    let v = LinearPotential::<f64, 2>::new(vector![1.0, -2.0]).unwrap();
    assert_eq!(v.energy(&vector![3.0, 1.0]), 1.0);
    check_potential(&v, &vector![0.3, 0.4], &vector![1.0, -1.0]);
}

// ---------------------------------------------------------------------------------------------
// Pendulum (002 §5)

fn pendulum_starts_on_constraint<T: Real + host_tests::Tolerance>() {
    let p = Pendulum::<T>::paper();
    let s = p.initial_state();
    assert_eq!(p.constraint().value(&s.q)[0], T::zero());
    assert_eq!(s.v, SVector::<T, 2>::zeros());
    assert_eq!(s.q, vector![T::one(), T::zero()]);
}
host_tests::for_scalars!(pendulum_starts_on_constraint);

#[test]
fn pendulum_derivatives_match_central_differences() {
    let p = Pendulum::<f64>::new(1.3, 0.9, 1.7).unwrap();
    let start = p.initial_state().q;
    check_potential_around(&p.system().potential, &start, 0.5, 2);
    check_potential_around(&p.penalised(3.0).unwrap().potential, &start, 0.5, 3);
    let mut r = rng(4);
    for _ in 0..3 {
        let q = start + random_vector::<2>(&mut r, 0.5);
        check_constraint(
            &p.constraint(),
            &q,
            &vector![r.random_range(-2.0..2.0)],
            &random_vector::<2>(&mut r, 1.0),
        );
    }
    // V = m g y.
    assert_eq!(
        p.system().potential.energy(&vector![5.0, 2.0]),
        1.3 * 0.9 * 2.0
    );
}

#[test]
fn pendulum_period_matches_reich() {
    // 002 §5: T ≈ 7.416298709 for φ₀ = π/2, m = g = L = 1.
    let p = Pendulum::<f64>::paper();
    assert!((p.period(core::f64::consts::FRAC_PI_2) - 7.416298709).abs() < 1e-9);
    // Small-amplitude limit 2π √(L/g).
    let q = Pendulum::<f64>::new(1.0, 4.0, 9.0).unwrap();
    assert!((q.period(0.0) - 2.0 * core::f64::consts::PI * 1.5).abs() < 1e-12);
}

#[test]
fn pendulum_rejects_bad_parameters() {
    type P = Pendulum<f64>;
    assert_eq!(
        P::new(0.0, 1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange { name: "m" }
    );
    assert_eq!(
        P::new(1.0, -1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange { name: "g" }
    );
    assert_eq!(
        P::new(1.0, 1.0, -1.0).unwrap_err(),
        ConfigError::OutOfRange { name: "length" }
    );
    assert_eq!(
        P::new(f64::NAN, 1.0, 1.0).unwrap_err(),
        ConfigError::NonFinite { name: "m" }
    );
    assert_eq!(
        P::paper().penalised(0.0).unwrap_err(),
        ConfigError::OutOfRange { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Double pendulum (000 §4.1)

fn double_pendulum_starts_on_constraints<T: Real + host_tests::Tolerance>() {
    let dp = DoublePendulum::<T>::paper();
    let s = dp.initial_state();
    let two = T::lit(2.0);
    assert_eq!(s.q, vector![T::zero(), -T::one(), T::one(), -two]);
    // L₂² = (√2)² rounds, so g₂ is a few roundoffs.
    assert!(dp.constraint().value(&s.q).amax().to_f64() <= 4.0 * T::EPS);
}
host_tests::for_scalars!(double_pendulum_starts_on_constraints);

#[test]
fn double_pendulum_derivatives_match_central_differences() {
    let dp = DoublePendulum::<f64>::new([1.2, 0.7], 1.1, [0.9, 1.3]).unwrap();
    let start = dp.initial_state().q;
    check_potential_around(&dp.system().potential, &start, 0.4, 5);
    check_potential_around(&dp.penalised(2.0).unwrap().potential, &start, 0.4, 6);
    check_potential_around(
        &dp.penalised_per_constraint(vector![1.5, 2.5])
            .unwrap()
            .potential,
        &start,
        0.4,
        7,
    );
    let mut r = rng(8);
    for _ in 0..3 {
        let q = start + random_vector::<4>(&mut r, 0.4);
        let w = random_vector::<2>(&mut r, 2.0);
        check_constraint(&dp.constraint(), &q, &w, &random_vector::<4>(&mut r, 1.0));
    }
    // V = −g (m₁ y₁ + m₂ y₂), M = diag(m₁, m₁, m₂, m₂).
    let v = dp.system().potential.energy(&vector![0.0, 2.0, 0.0, 3.0]);
    assert!((v + 1.1 * (1.2 * 2.0 + 0.7 * 3.0)).abs() < 1e-15);
    assert_eq!(
        dp.system().mass.as_diagonal(),
        Some(vector![1.2, 1.2, 0.7, 0.7])
    );
}

#[test]
fn double_pendulum_rejects_bad_parameters() {
    type P = DoublePendulum<f64>;
    assert_eq!(
        P::new([1.0, -1.0], 1.0, [1.0, 1.0]).unwrap_err(),
        ConfigError::OutOfRange { name: "m" }
    );
    assert_eq!(
        P::new([1.0, 1.0], f64::INFINITY, [1.0, 1.0]).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        P::new([1.0, 1.0], 1.0, [1.0, 0.0]).unwrap_err(),
        ConfigError::OutOfRange { name: "length" }
    );
    assert_eq!(
        P::paper()
            .penalised_per_constraint(vector![1.0, f64::NAN])
            .unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Chain of pendula (000 §4.2, 004 §5.4.3)

fn chains_start_on_constraints<T: Real + host_tests::Tolerance>() {
    let c = Chain::<T, 40, 20>::horizontal();
    let s = c.initial_state();
    for i in 0..20 {
        assert_eq!(s.q[2 * i], T::lit((i + 1) as f64));
        assert_eq!(s.q[2 * i + 1], T::zero());
    }
    assert_eq!(c.constraint().value(&s.q).amax(), T::zero());
    let c = Chain::<T, 20, 10>::slanted();
    let s = c.initial_state();
    assert_eq!(s.q[18], T::lit(10.0));
    assert_eq!(s.q[19], T::lit(-20.0));
    // Lᵢ² = (√5)² rounds, so gᵢ is a few roundoffs of 5.
    assert!(c.constraint().value(&s.q).amax().to_f64() <= 20.0 * T::EPS);
    let c = Chain::<T, 6, 3>::new(vector![T::one(), T::lit(2.0), T::lit(0.5)], T::one()).unwrap();
    let s = c.initial_state();
    assert_eq!(s.q[4], T::lit(3.5));
    assert_eq!(c.constraint().value(&s.q).amax(), T::zero());
}
host_tests::for_scalars!(chains_start_on_constraints);

#[test]
fn chain_derivatives_match_central_differences() {
    let c = Chain::<f64, 10, 5>::new(vector![1.0, 0.8, 1.2, 0.9, 1.1], 1.3).unwrap();
    let start = c.initial_state().q;
    check_potential_around(&c.penalised(2.0).unwrap().potential, &start, 0.3, 9);
    check_potential_around(
        &c.penalised_per_constraint(vector![1.0, 2.0, 3.0, 1.5, 2.5])
            .unwrap()
            .potential,
        &start,
        0.3,
        10,
    );
    let mut r = rng(11);
    let q = start + random_vector::<10>(&mut r, 0.3);
    check_constraint(
        &c.constraint(),
        &q,
        &random_vector::<5>(&mut r, 2.0),
        &random_vector::<10>(&mut r, 1.0),
    );
}

#[test]
fn chain_hessian_is_banded() {
    let c = Chain::<f64, 40, 20>::horizontal();
    let sys = c.penalised(100.0).unwrap();
    let mut r = rng(12);
    let q = c.initial_state().q + random_vector::<40>(&mut r, 0.3);
    let h = sys.potential.hessian(&q);
    let band = Chain::<f64, 40, 20>::HALF_BANDWIDTH;
    let mut edge = 0.0f64;
    for row in 0..40usize {
        for col in 0..40 {
            if row.abs_diff(col) > band {
                assert_eq!(h[(row, col)], 0.0, "entry ({row}, {col}) outside the band");
            } else if row.abs_diff(col) == band {
                edge = edge.max(h[(row, col)].abs());
            }
        }
    }
    // The bandwidth is tight: the outermost diagonal is populated.
    assert!(edge > 0.0);
}

#[test]
fn chain_rejects_bad_parameters() {
    assert_eq!(
        Chain::<f64, 6, 2>::new(vector![1.0, 1.0], 1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "N = 2D" }
    );
    assert_eq!(
        Chain::<f64, 0, 0>::new(vector![], 1.0).unwrap_err(),
        ConfigError::OutOfRange { name: "D" }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, -1.0], 1.0).unwrap_err(),
        ConfigError::OutOfRange { name: "length" }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, 1.0], f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::horizontal()
            .penalised(-1.0)
            .unwrap_err(),
        ConfigError::OutOfRange { name: "omega" }
    );
}
