//! The penalty kernels of [`Distances`]: the fused pass and the contraction, on links in chain
//! order (ends from the link index, the loop written out) and in any other order (ends as
//! stored), against the separate kernels and each other, bit for bit.

use super::{Distances, Link};
use crate::model::{Constraint, Hessian, Penalty, Potential};
use crate::systems::LinearPotential;
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// The fused gradient + Hessian + values pass equals the three separate kernels bit for bit,
/// and the residual from the values equals [`Constraint::residual`].
fn fused_equals_separate<T: Real, const DIM: usize, const N: usize, const D: usize>(
    g: &Distances<T, DIM, N, D>,
    q: &SVector<T, N>,
    w: &SVector<T, D>,
) {
    let scale = T::lit(0.37);
    let start = SMatrix::<T, N, N>::from_fn(|i, j| T::lit((i * N + j) as f64 * 0.01));
    let (mut grad, mut out, mut values) = (SVector::zeros(), start, SVector::zeros());
    g.penalty_gradient_add_hessian(q, w, scale, &mut grad, &mut out, &mut values);
    let mut sep = start;
    g.add_penalty_hessian(q, w, scale, &mut sep);
    assert_eq!(grad, g.penalty_gradient(q, w));
    assert_eq!(out, sep);
    assert_eq!(values, g.value(q));
    assert_eq!(g.residual_of_values(&values), Some(g.residual(q)));
}

/// Three bodies on a chain from the origin (links in chain order), and the same chain on nodes
/// 1, 2, 3 of four (node 0 free: links not in chain order).
fn chains<T: Real>() -> (Distances<T, 2, 6, 3>, Distances<T, 2, 8, 3>) {
    let o = SVector::<T, 2>::new(T::lit(0.25), T::lit(-0.5));
    let l = [T::lit(1.0), T::lit(1.3), T::lit(0.7)];
    let chain = Distances::new([
        Link::anchored(0, o, l[0]),
        Link::between(1, 0, l[1]),
        Link::between(2, 1, l[2]),
    ])
    .expect("valid");
    let shifted = Distances::new([
        Link::anchored(1, o, l[0]),
        Link::between(2, 1, l[1]),
        Link::between(3, 2, l[2]),
    ])
    .expect("valid");
    assert!(chain.in_chain_order && !shifted.in_chain_order);
    (chain, shifted)
}

fn chain_and_stored_ends_agree<T: Real>() {
    let (chain, shifted) = chains::<T>();
    let w = SVector::<T, 3>::new(T::lit(400.0), T::lit(90.0), T::lit(2500.0));
    for k in 0..5 {
        let t = T::lit(k as f64 * 0.7 + 0.1);
        let q6 = SVector::<T, 6>::from_fn(|i, _| (t * T::lit(i as f64 + 1.0)).sin() * T::lit(1.5));
        let a6 = SVector::<T, 6>::from_fn(|i, _| (t + T::lit(i as f64)).cos() * T::lit(0.2));
        // The same coordinates on nodes 1, 2, 3 of the shifted set; node 0 far away.
        let lift = |x: &SVector<T, 6>, far: T| {
            SVector::<T, 8>::from_fn(|i, _| if i < 2 { far } else { x[i - 2] })
        };
        let (q8, a8) = (lift(&q6, T::lit(40.0)), lift(&a6, T::lit(-3.0)));
        fused_equals_separate(&chain, &q6, &w);
        fused_equals_separate(&shifted, &q8, &w);
        let (c6, c8) = (
            chain.penalty_third_contraction(&q6, &w, &a6),
            shifted.penalty_third_contraction(&q8, &w, &a8),
        );
        let (mut g6, mut g8) = (SVector::zeros(), SVector::zeros());
        let (mut h6, mut h8) = (SMatrix::<T, 6, 6>::zeros(), SMatrix::<T, 8, 8>::zeros());
        let (mut v6, mut v8) = (SVector::zeros(), SVector::zeros());
        chain.penalty_gradient_add_hessian(&q6, &w, T::one(), &mut g6, &mut h6, &mut v6);
        shifted.penalty_gradient_add_hessian(&q8, &w, T::one(), &mut g8, &mut h8, &mut v8);
        assert_eq!(v6, v8);
        assert_eq!(c8[0], T::zero());
        assert_eq!(c8[1], T::zero());
        for i in 0..6 {
            assert_eq!(c6[i], c8[i + 2], "contraction {i}");
            assert_eq!(g6[i], g8[i + 2], "gradient {i}");
            for j in 0..6 {
                assert_eq!(h6[(i, j)], h8[(i + 2, j + 2)], "Hessian ({i}, {j})");
            }
        }
        // The contraction against its definition from the dense Jacobian and `Hess gᵢ a`.
        let jac = chain.jacobian(&q6);
        let big_a = chain.hessian_times(&q6, &a6);
        let ja = w.component_mul(&(jac * a6));
        let aa = w.component_mul(&(big_a * a6));
        let dense = big_a.tr_mul(&ja) * T::lit(2.0) + jac.tr_mul(&aa);
        let size = dense.amax().to_f64().max(1.0);
        let tol = 64.0 * T::default_epsilon().to_f64() * size;
        assert!(
            (dense - c6).amax().to_f64() <= tol,
            "contraction off its definition"
        );
    }
}

#[test]
fn chain_and_stored_ends_agree_f64() {
    chain_and_stored_ends_agree::<f64>();
}

#[test]
fn chain_and_stored_ends_agree_f32() {
    chain_and_stored_ends_agree::<f32>();
}

/// The penalty's fused pass hands over exactly `V(q)` and the residual of the potential, and
/// its gradient and Hessian are the separate ones, bit for bit.
#[test]
fn penalty_hands_over_its_energy_and_residual() {
    let (chain, _) = chains::<f64>();
    let gravity =
        LinearPotential::new(SVector::<f64, 6>::new(0.0, 1.0, 0.0, 2.0, 0.0, 0.5)).expect("finite");
    let omega = SVector::<f64, 3>::new(20.0, 7.0, 31.0);
    let p = Penalty::per_constraint(gravity, chain, omega).expect("valid");
    for k in 0..6 {
        let t = k as f64 * 0.9 - 2.0;
        let q = SVector::<f64, 6>::from_fn(|i, _| (t * (i as f64 + 0.5)).cos() * 1.7);
        let (mut grad, mut out) = (SVector::zeros(), SMatrix::<f64, 6, 6>::identity());
        let m = p.gradient_add_hessian(&q, 0.01, &mut grad, &mut out);
        let m = m.expect("a penalty of distances hands its measurements over");
        assert_eq!(m.energy, p.energy(&q));
        assert_eq!(m.residual, p.constraint_residual(&q));
        assert_eq!(grad, p.gradient(&q));
        let mut sep = SMatrix::<f64, 6, 6>::identity();
        p.add_hessian(&q, 0.01, &mut sep);
        assert_eq!(out, sep);
    }
}
