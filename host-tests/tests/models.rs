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
        ConfigError::OutOfRange {
            name: "node",
            bound: "< N / DIM"
        }
    );
    assert_eq!(
        G::new([Link::anchored(2, origin, 1.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "node",
            bound: "< N / DIM"
        }
    );
    assert_eq!(
        G::new([Link::between(1, 1, 1.0)]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "link ends distinct"
        }
    );
    assert_eq!(
        G::new([Link::between(0, 1, 0.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
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
        ConfigError::OutOfRange {
            name: "DIM",
            bound: ">= 1"
        }
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
        ConfigError::OutOfRange {
            name: "m",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new(1.0, -1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "g",
            bound: ">= 0"
        }
    );
    assert_eq!(
        P::new(1.0, 1.0, -1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new(f64::NAN, 1.0, 1.0).unwrap_err(),
        ConfigError::NonFinite { name: "m" }
    );
    assert_eq!(
        P::paper().penalised(0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
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
    // V = g (m₁ y₁ + m₂ y₂) (physical sign, gravity towards −y), M = diag(m₁, m₁, m₂, m₂).
    let v = dp.system().potential.energy(&vector![0.0, 2.0, 0.0, 3.0]);
    assert!((v - 1.1 * (1.2 * 2.0 + 0.7 * 3.0)).abs() < 1e-15);
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
        ConfigError::OutOfRange {
            name: "m",
            bound: "> 0"
        }
    );
    assert_eq!(
        P::new([1.0, 1.0], f64::INFINITY, [1.0, 1.0]).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        P::new([1.0, 1.0], 1.0, [1.0, 0.0]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
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
        ConfigError::OutOfRange {
            name: "D",
            bound: ">= 1"
        }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, -1.0], 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::new(vector![1.0, 1.0], f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "g" }
    );
    assert_eq!(
        Chain::<f64, 4, 2>::horizontal()
            .penalised(-1.0)
            .unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Quartic bond (soft springs of 004 eq 2.100 and §4.2.5)

#[test]
fn quartic_bond_derivatives_match_central_differences() {
    let tied = QuarticBond::<f64, 3>::new(2, Some(0), 0.7).unwrap();
    let well = QuarticBond::<f64, 3>::new(1, None, 1.3).unwrap();
    check_potential_around(&tied, &SVector::zeros(), 1.5, 13);
    check_potential_around(&well, &SVector::zeros(), 1.5, 14);
    assert_eq!(tied.energy(&vector![1.0, 5.0, 3.0]), 0.7 * 16.0);
    assert_eq!(well.energy(&vector![1.0, -2.0, 3.0]), 1.3 * 16.0);
}

#[test]
fn quartic_bond_rejects_bad_parameters() {
    type B = QuarticBond<f64, 2>;
    assert_eq!(
        B::new(2, None, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "index",
            bound: "< N"
        }
    );
    assert_eq!(
        B::new(0, Some(2), 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "index",
            bound: "< N"
        }
    );
    assert_eq!(
        B::new(1, Some(1), 1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "i != j" }
    );
    assert_eq!(
        B::new(0, None, f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "kappa" }
    );
}

// ---------------------------------------------------------------------------------------------
// FPU (004 §2.6.3, §4.2.6)

/// The FPU Hamiltonian's potential written in the chain positions `q` (004 eq 4.18), with walls
/// `q₀ = q_{2m+1} = 0`: independent of the rotated-coordinate implementation.
fn fpu_potential_in_chain_coordinates(q: &[f64], omega: f64) -> f64 {
    let m = q.len() / 2;
    let at = |k: usize| {
        if k == 0 || k == 2 * m + 1 {
            0.0
        } else {
            q[k - 1]
        }
    };
    let stiff: f64 = (1..=m).map(|i| (at(2 * i) - at(2 * i - 1)).powi(2)).sum();
    let soft: f64 = (0..=m).map(|i| (at(2 * i + 1) - at(2 * i)).powi(4)).sum();
    omega * omega / 4.0 * stiff + soft
}

#[test]
fn fpu_potential_is_eq_4_18_in_rotated_coordinates() {
    let fpu = Fpu::<f64, 8>::new(7.0).unwrap();
    let sys = fpu.system();
    let mut r = rng(15);
    for _ in 0..5 {
        let x = random_vector::<8>(&mut r, 1.0);
        let q = fpu.to_chain(&x);
        let expected = fpu_potential_in_chain_coordinates(q.as_slice(), 7.0);
        let got = sys.potential.energy(&x);
        assert!(
            (got - expected).abs() < 1e-12 * expected.abs().max(1.0),
            "{got} vs {expected}"
        );
        // eq 4.19 is orthogonal: the round trip is the identity and norms are kept.
        assert!((fpu.from_chain(&q) - x).amax() < 1e-15);
        assert!((q.norm() - x.norm()).abs() < 1e-14);
    }
}

#[test]
fn fpu_derivatives_match_central_differences() {
    let fpu = Fpu::<f64, 6>::new(5.0).unwrap();
    check_potential_around(
        &FpuSoft::<f64, 6>::new().unwrap(),
        &SVector::zeros(),
        1.0,
        16,
    );
    check_potential_around(
        &FpuSoft::<f64, 8>::new().unwrap(),
        &SVector::zeros(),
        1.0,
        17,
    );
    check_potential_around(&fpu.split(), &SVector::zeros(), 1.0, 18);
    // The stiff part is exactly ω²/2 Σ x²_{m+i}.
    let k = fpu.split().stiff.k;
    assert_eq!(
        k,
        SMatrix::<f64, 6, 6>::from_diagonal(&vector![0.0, 0.0, 0.0, 25.0, 25.0, 25.0])
    );
}

fn fpu_paper_start<T: Real + host_tests::Tolerance>() {
    let fpu = Fpu::<T, 6>::paper();
    assert_eq!(fpu.omega(), T::lit(200.0));
    let s = fpu.initial_state();
    let expected = [1.0, 0.0, 0.0, 1.0 / 200.0, 0.0, 0.0];
    for (k, e) in expected.iter().enumerate() {
        assert_eq!(s.q[k], T::lit(*e));
    }
    assert_eq!(s.v, SVector::<T, 6>::zeros());
    // All the stiff energy is in spring 1: ω²/2 (1/ω)² = ½.
    let e0 = fpu.stiff_spring_energy(&s, 0).unwrap().to_f64();
    assert!((e0 - 0.5).abs() < 10.0 * T::EPS);
    assert_eq!(fpu.stiff_spring_energy(&s, 1), Some(T::zero()));
    assert_eq!(fpu.stiff_spring_energy(&s, 3), None);
}
host_tests::for_scalars!(fpu_paper_start);

#[test]
fn fpu_rejects_bad_parameters() {
    assert_eq!(
        Fpu::<f64, 5>::new(1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "N even" }
    );
    assert_eq!(
        Fpu::<f64, 0>::new(1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "N",
            bound: ">= 1"
        }
    );
    assert_eq!(
        Fpu::<f64, 6>::new(0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
    assert_eq!(
        Fpu::<f64, 6>::new(f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// DNA (000 §4.4)

/// 000's Morse potential written out independently: `U(θ) = (exp(−a[1 − cos θ − x₀]) − 1)²`.
fn morse(theta: f64, a: f64, x0: f64) -> f64 {
    ((-a * (1.0 - theta.cos() - x0)).exp() - 1.0).powi(2)
}

#[test]
fn dna_force_is_eq_4_9() {
    let (a, x0, eps) = (7.0, 0.3, 1.0 / 1400.0);
    let dna = Dna::<f64, 12>::new(a, x0, eps).unwrap();
    let sys = dna.system();
    let mut r = rng(19);
    let theta = SVector::<f64, 12>::repeat(0.8) + random_vector::<12>(&mut r, 0.5);
    let acc = sys.acceleration(&theta);
    for k in 0..12 {
        let next = theta[(k + 1) % 12];
        let prev = theta[(k + 11) % 12];
        let h = 1e-5;
        let du = (morse(theta[k] + h, a, x0) - morse(theta[k] - h, a, x0)) / (2.0 * h);
        let rhs = next - 2.0 * theta[k] + prev - eps * du;
        assert!((acc[k] - rhs).abs() < 1e-8, "k = {k}: {} vs {rhs}", acc[k]);
    }
    let energy: f64 = (0..12)
        .map(|k| 0.5 * (theta[(k + 1) % 12] - theta[k]).powi(2) + eps * morse(theta[k], a, x0))
        .sum();
    assert!((sys.potential.energy(&theta) - energy).abs() < 1e-13);
}

#[test]
fn dna_derivatives_match_central_differences() {
    let p = Dna::<f64, 8>::paper().potential();
    check_potential_around(&p, &SVector::repeat(0.8), 1.0, 20);
    check_potential_around(&p, &SVector::repeat(3.0), 3.0, 21);
    // A large ε makes the on-site part dominate the check.
    let p = Dna::<f64, 5>::new(7.0, 0.3, 5.0).unwrap().potential();
    check_potential_around(&p, &SVector::repeat(0.8), 1.0, 22);
}

#[test]
fn dna_hessian_is_tridiagonal_with_periodic_corners() {
    let p = Dna::<f64, 10>::paper().potential();
    let mut r = rng(23);
    let theta = SVector::<f64, 10>::repeat(0.8) + random_vector::<10>(&mut r, 1.0);
    let h = p.hessian(&theta);
    let d = p.hessian_diagonal(&theta);
    for i in 0..10usize {
        for j in 0..10usize {
            let gap = i.abs_diff(j);
            let expected = if i == j {
                d[i]
            } else if gap == 1 || gap == 9 {
                -1.0
            } else {
                0.0
            };
            assert_eq!(h[(i, j)], expected, "({i}, {j})");
        }
    }
}

#[test]
fn dna_initial_state_is_the_seeds() {
    const N: usize = 200;
    let dna = Dna::<f64, N>::paper();
    // Standard normals by Box–Muller from a seeded PCG (the model itself holds no RNG).
    let mut r = rng(24);
    let xi = SVector::<f64, N>::from_fn(|_, _| {
        let u1: f64 = r.random_range(f64::EPSILON..1.0);
        let u2: f64 = r.random_range(0.0..1.0);
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    });
    let s = dna.initial_state(&xi);
    let mut calls = 0;
    let s2 = dna.initial_state_from_fn(|k| {
        assert_eq!(k, calls, "ξ drawn in order");
        calls += 1;
        xi[k]
    });
    assert_eq!(calls, N);
    assert_eq!(s, s2);
    for k in 0..N {
        assert!((s.q[k] - (0.8 + 0.1 * xi[k])).abs() < 1e-15);
        let v = (4.0 * std::f64::consts::PI * (k + 1) as f64 / N as f64).cos() / (N as f64).sqrt();
        assert!((s.v[k] - v).abs() < 1e-14, "k = {k}");
    }
    assert_eq!(s.t, 0.0);
    // θ̄ starts near 0.8 (0.1/√200 standard deviation).
    assert!((dna.mean_angle(&s.q) - 0.8).abs() < 0.05);
    // The velocity profile has zero mean (two full cosine periods).
    assert!(s.v.sum().abs() < 1e-12);
}

#[test]
fn dna_rejects_bad_parameters() {
    assert_eq!(
        Dna::<f64, 2>::new(7.0, 0.3, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "N",
            bound: ">= 3"
        }
    );
    assert_eq!(
        Dna::<f64, 4>::new(0.0, 0.3, 0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "a",
            bound: "> 0"
        }
    );
    assert_eq!(
        Dna::<f64, 4>::new(7.0, f64::NAN, 0.1).unwrap_err(),
        ConfigError::NonFinite { name: "x0" }
    );
    assert_eq!(
        Dna::<f64, 4>::new(7.0, 0.3, -0.1).unwrap_err(),
        ConfigError::OutOfRange {
            name: "eps",
            bound: ">= 0"
        }
    );
}

// ---------------------------------------------------------------------------------------------
// The 3-DOF system of 004 eq 2.100

#[test]
fn trimer_is_eq_2_100() {
    let m = SpringTrimer::<f64>::new(1e-3, [1.1, 0.97]).unwrap();
    let sys = m.system();
    let mut r = rng(25);
    for _ in 0..3 {
        let q = vector![0.8, 0.81, 0.72] + random_vector::<3>(&mut r, 0.3);
        let (x, y, z) = (q[0], q[1], q[2]);
        let v = x.powi(4) + 1e3 * (1.1 / 2.0 * (y - x).powi(2) + 0.97 / 2.0 * (z - y).powi(2));
        assert!((sys.potential.energy(&q) - v).abs() < 1e-12 * v.abs().max(1.0));
    }
    check_potential_around(&m.split(), &vector![0.8, 0.81, 0.72], 0.3, 26);
    let mut off = m.split();
    off.set_alpha(0.0);
    check_potential_around(&off, &vector![0.8, 0.81, 0.72], 0.3, 27);
}

fn trimer_paper_start<T: Real + host_tests::Tolerance>() {
    let m = SpringTrimer::<T>::paper();
    let s = m.initial_state();
    assert_eq!(s.q, vector![T::lit(0.8), T::lit(0.811), T::lit(0.721)]);
    assert_eq!(s.v, SVector::<T, 3>::zeros());
    assert_eq!(m.split().alpha, T::one() / T::lit(1e-6));
    assert_eq!(m.omega(), [T::lit(1.1), T::lit(0.97)]);
}
host_tests::for_scalars!(trimer_paper_start);

#[test]
fn trimer_rejects_bad_parameters() {
    assert_eq!(
        SpringTrimer::<f64>::new(0.0, [1.0, 1.0]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "eps",
            bound: "> 0"
        }
    );
    assert_eq!(
        SpringTrimer::<f64>::new(1e-6, [1.0, f64::INFINITY]).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Two-spring Langevin system (004 §4.2.5)

#[test]
fn two_spring_is_the_seeds_hamiltonian() {
    let m = TwoSpring::<f64>::new(3.0, 0.5, 2.0).unwrap();
    let sys = m.system();
    let mut r = rng(28);
    for _ in 0..3 {
        let q = random_vector::<2>(&mut r, 1.5);
        let (x, y) = (q[0], q[1]);
        let v = 0.5 * 9.0 * x * x + 0.25 * (y - x).powi(4);
        assert!((sys.potential.energy(&q) - v).abs() < 1e-13);
        let f = sys.acceleration(&q);
        assert!((f[0] + 9.0 * x + (x - y).powi(3)).abs() < 1e-12);
        assert!((f[1] + (y - x).powi(3)).abs() < 1e-12);
    }
    check_potential_around(&m.split(), &SVector::zeros(), 1.5, 29);
    // σ = √(2c/β) = √0.5.
    assert!((m.langevin().sigma - 0.5f64.sqrt()).abs() < 1e-15);
    assert!((m.langevin().beta() - 2.0).abs() < 1e-14);
}

fn two_spring_paper_start<T: Real + host_tests::Tolerance>() {
    let m = TwoSpring::<T>::paper();
    assert_eq!(m.omega(), T::lit(100.0));
    assert_eq!(m.langevin().c, T::lit(0.1));
    assert!((m.langevin().beta().to_f64() - 10.0).abs() < 100.0 * T::EPS);
    let s = m.initial_state();
    let x = 0.8 / 100.0;
    assert!((s.q[0].to_f64() - x).abs() < 4.0 * T::EPS * x);
    assert!((s.q[1].to_f64() - (1.1 + x)).abs() < 4.0 * T::EPS);
    assert_eq!(s.v, SVector::<T, 2>::zeros());
}
host_tests::for_scalars!(two_spring_paper_start);

#[test]
fn two_spring_rejects_bad_parameters() {
    assert_eq!(
        TwoSpring::<f64>::new(-1.0, 0.1, 10.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
    assert_eq!(
        TwoSpring::<f64>::new(1.0, -0.1, 10.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "c",
            bound: ">= 0"
        }
    );
    assert_eq!(
        TwoSpring::<f64>::new(1.0, 0.1, 0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "beta",
            bound: "> 0"
        }
    );
    assert_eq!(
        LangevinParams::<f64>::from_beta(f64::NAN, 1.0).unwrap_err(),
        ConfigError::NonFinite { name: "c" }
    );
}

// ---------------------------------------------------------------------------------------------
// Kapitza's pendulum (004 §2.6.6)

#[test]
fn kapitza_force_is_eq_2_113() {
    let k = Kapitza::<f64>::new(9.8, 9.0, 3.0).unwrap();
    let mut r = rng(30);
    for _ in 0..5 {
        let theta: f64 = r.random_range(-3.0..3.0);
        let t: f64 = r.random_range(0.0..2.0);
        let forcing = 9.8 + 9.0 * (2.0 * std::f64::consts::PI * 3.0 * t).sin();
        assert!((k.force(theta, t) - forcing * theta.sin()).abs() < 1e-12);
        // l θ̈ = force, with M = (l).
        let acc = k.system_at(t).acceleration(&vector![theta])[0];
        assert!((9.0 * acc - forcing * theta.sin()).abs() < 1e-12);
        check_potential(
            &k.potential_at(t),
            &vector![theta],
            &vector![r.random_range(-1.0..1.0)],
        );
        // The split: stiff on reproduces the full force, stiff off leaves gravity (eq 2.115).
        let mut split = k.split_at(t);
        let g_on = split.gradient(&vector![theta])[0];
        assert!((g_on + forcing * theta.sin()).abs() < 1e-12);
        split.set_alpha(0.0);
        assert!((split.gradient(&vector![theta])[0] + 9.8 * theta.sin()).abs() < 1e-12);
        let s = macrostep::State::new(t, vector![theta], vector![0.5]);
        let e = 0.5 * 9.0 * 0.25 + forcing * theta.cos();
        assert!((k.energy_at(&s, t) - e).abs() < 1e-12);
    }
    assert_eq!(k.flavor_clock(7, 0.25), 1.75);
}

fn kapitza_paper_start<T: Real + host_tests::Tolerance>() {
    let k = Kapitza::<T>::paper();
    assert_eq!(k.g(), T::lit(9.8));
    assert_eq!(k.l(), T::lit(9.0));
    assert_eq!(k.omega(), T::lit(1000.0));
    assert_eq!(k.mass().as_diagonal(), Some(vector![T::lit(9.0)]));
    let s = k.initial_state();
    assert_eq!(s.q[0], T::lit(0.2));
    assert_eq!(s.v[0], T::zero());
}
host_tests::for_scalars!(kapitza_paper_start);

#[test]
fn kapitza_rejects_bad_parameters() {
    assert_eq!(
        Kapitza::<f64>::new(-1.0, 1.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "g",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Kapitza::<f64>::new(1.0, 0.0, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "l",
            bound: "> 0"
        }
    );
    assert_eq!(
        Kapitza::<f64>::new(1.0, 1.0, f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}

// ---------------------------------------------------------------------------------------------
// Named constructors use parameters their validating constructors accept.

#[test]
fn named_constructors_match_validated_ones() {
    let q4 = vector![0.3, -0.9, 1.2, -1.7];
    assert_eq!(
        Pendulum::<f64>::paper()
            .penalised(5.0)
            .unwrap()
            .potential
            .gradient(&vector![0.4, 0.7]),
        Pendulum::new(1.0, 1.0, 1.0)
            .unwrap()
            .penalised(5.0)
            .unwrap()
            .potential
            .gradient(&vector![0.4, 0.7])
    );
    assert_eq!(
        DoublePendulum::<f64>::paper()
            .penalised(5.0)
            .unwrap()
            .potential
            .hessian(&q4),
        DoublePendulum::new([1.0, 1.0], 1.0, [1.0, 2f64.sqrt()])
            .unwrap()
            .penalised(5.0)
            .unwrap()
            .potential
            .hessian(&q4)
    );
    let c = Chain::<f64, 4, 2>::horizontal();
    let c2 = Chain::<f64, 4, 2>::new(vector![1.0, 1.0], 1.0).unwrap();
    assert_eq!(c.initial_state(), c2.initial_state());
    assert_eq!(c.constraint(), c2.constraint());
    let x = vector![0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    assert_eq!(
        Fpu::<f64, 6>::paper().split().gradient(&x),
        Fpu::<f64, 6>::new(200.0).unwrap().split().gradient(&x)
    );
    let th = SVector::<f64, 5>::repeat(0.9);
    assert_eq!(
        Dna::<f64, 5>::paper().potential().gradient(&th),
        Dna::<f64, 5>::new(7.0, 0.3, 1.0 / 1400.0)
            .unwrap()
            .potential()
            .gradient(&th)
    );
    assert_eq!(
        SpringTrimer::<f64>::paper()
            .split()
            .gradient(&vector![0.1, 0.2, 0.3]),
        SpringTrimer::<f64>::new(1e-6, [1.1, 0.97])
            .unwrap()
            .split()
            .gradient(&vector![0.1, 0.2, 0.3])
    );
    let tp = TwoSpring::<f64>::paper();
    let tn = TwoSpring::<f64>::new(100.0, 0.1, 10.0).unwrap();
    assert_eq!(tp.langevin(), tn.langevin());
    assert_eq!(
        tp.split().gradient(&vector![0.1, 0.2]),
        tn.split().gradient(&vector![0.1, 0.2])
    );
    let kp = Kapitza::<f64>::paper();
    let kn = Kapitza::<f64>::new(9.8, 9.0, 1000.0).unwrap();
    assert_eq!(kp.force(0.3, 0.123), kn.force(0.3, 0.123));
}

// ---------------------------------------------------------------------------------------------
// End-to-end checks of the models' dynamics

#[test]
fn penalised_pendulum_swings_with_reichs_period() {
    use macrostep::baselines::VelocityVerlet;
    use macrostep::Integrator;
    // A stiff penalty approximates the rod (model error O(ω⁻²), 000 Remark A.3); Verlet with
    // h = 2e-4 resolves the penalty frequency 2ωL = 400 (hω_eff = 0.08).
    let p = Pendulum::<f64>::paper();
    let h = 2e-4;
    let mut verlet = VelocityVerlet::new(p.penalised(200.0).unwrap(), h).unwrap();
    let mut s = p.initial_state();
    // Released horizontally at x = L, the mass reaches the vertical x = 0 after a quarter period.
    let mut prev = s;
    while s.q[0] > 0.0 {
        prev = s;
        verlet.step(&mut s).unwrap();
        assert!(s.t < 3.0, "never reached the vertical");
    }
    let crossing = prev.t + h * prev.q[0] / (prev.q[0] - s.q[0]);
    let quarter = 7.416298709 / 4.0;
    host_tests::report::figure("pendulum_quarter_period_error", (crossing - quarter).abs());
    // Tolerance 1e-4: the penalty model error is O(ω⁻²) = O(2.5e-5) (measured 2.0e-5); Verlet's
    // O(h²) error and the linear interpolation of the crossing are ~1e-7.
    assert!(
        (crossing - quarter).abs() < 1e-4,
        "quarter period {crossing} vs {quarter}"
    );
    // And the mass is at the bottom of the swing, y ≈ −L.
    assert!((s.q[1] + 1.0).abs() < 1e-3);
}

#[test]
fn dna_morse_minimum_is_the_closed_state() {
    // U vanishes with zero slope where 1 − cos θ = x₀, i.e. θ = arccos(0.7) ≈ 0.795 (000 §4.4).
    let p = Dna::<f64, 4>::paper().potential();
    let theta = 0.7f64.acos();
    assert!((theta - 0.795).abs() < 1e-3);
    assert!(p.morse(theta).abs() < 1e-30);
    assert!(p.morse_d1(theta).abs() < 1e-14);
    assert!(p.morse_d2(theta) > 0.0);
    assert!(p.morse_d1(2.0 * std::f64::consts::PI - theta).abs() < 1e-13);
}

#[test]
fn double_pendulum_angles_round_trip() {
    let dp = DoublePendulum::<f64>::new([1.0, 2.0], 1.0, [0.7, 1.3]).unwrap();
    let mut r = rng(31);
    for _ in 0..5 {
        let (theta, phi) = (r.random_range(-3.0..3.0), r.random_range(-3.0..3.0));
        let q = dp.from_angles(theta, phi);
        assert!(dp.constraint().value(&q).amax() < 1e-14);
        let (t2, p2) = dp.angles(&q);
        assert!((t2 - theta).abs() < 1e-14 && (p2 - phi).abs() < 1e-14);
    }
    // The seed's start: mass 1 straight below the pivot, rod 2 at 45°.
    let (theta, phi) =
        DoublePendulum::<f64>::paper().angles(&DoublePendulum::<f64>::paper().initial_state().q);
    assert_eq!(theta, 0.0);
    assert!((phi - std::f64::consts::FRAC_PI_4).abs() < 1e-15);
}

/// `macrostep::models` is the deprecated name of `macrostep::systems`: the old path still names the
/// same types for one release.
#[test]
#[allow(deprecated)]
fn deprecated_models_path_names_the_same_types() {
    let old: macrostep::models::DoublePendulum<f64> = macrostep::systems::DoublePendulum::paper();
    let new = macrostep::systems::DoublePendulum::<f64>::paper();
    assert_eq!(old.masses(), new.masses());
}
