//! Gradient, Hessian, Hessian–vector product and `a·V‴·a` of an [`Energy`], and the derivatives
//! of a [`ConstraintFn`], each by one or `N` forward-mode evaluations (see the module docs).

use super::{AdScalar, ConstraintFn, Dual, Energy, Jet2, VDual};
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// Inputs carrying the gradient: `xᵢ = qᵢ + εᵢ`.
#[inline]
fn seed_gradient<T: Real, const N: usize>(q: &SVector<T, N>) -> [VDual<T, N>; N] {
    core::array::from_fn(|i| VDual::variable(q[i], i))
}

/// Inputs carrying the gradient and one direction: `xᵢ = qᵢ + εᵢ + aᵢ δ`.
#[inline]
fn seed_direction<T: Real, const N: usize>(
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> [Dual<VDual<T, N>>; N] {
    core::array::from_fn(|i| Dual::new(VDual::variable(q[i], i), VDual::cst(a[i])))
}

/// Inputs carrying the gradient and a second-order jet along `a`: `xᵢ = qᵢ + εᵢ + aᵢ t`.
#[inline]
fn seed_jet<T: Real, const N: usize>(
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> [Jet2<VDual<T, N>>; N] {
    core::array::from_fn(|i| {
        Jet2::new(
            VDual::variable(q[i], i),
            VDual::cst(a[i]),
            VDual::cst(T::zero()),
        )
    })
}

#[inline]
fn plain<T: Real, const N: usize>(q: &SVector<T, N>) -> [T; N] {
    core::array::from_fn(|i| q[i])
}

/// `V(q)` at plain scalars.
#[inline]
pub fn energy<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(f: &F, q: &SVector<T, N>) -> T {
    f.energy(&plain(q))
}

/// `(V(q), ∇V(q))` in one evaluation.
#[inline]
pub fn value_gradient<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
) -> (T, SVector<T, N>) {
    let v = f.energy(&seed_gradient(q));
    (v.re, v.grad)
}

/// `∇V(q)` in one evaluation.
#[inline]
pub fn gradient<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
) -> SVector<T, N> {
    f.energy(&seed_gradient(q)).grad
}

/// `Hess V(q) · a` in one evaluation: the gradient of the directional derivative `∇V·a`.
#[inline]
pub fn hessian_vector<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> SVector<T, N> {
    f.energy(&seed_direction(q, a)).eps.grad
}

/// `Hess V(q)` in `N` evaluations (column `j` is `Hess V · eⱼ`), symmetrised as `½(H + Hᵀ)`.
pub fn hessian<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
) -> SMatrix<T, N, N> {
    let mut h = SMatrix::<T, N, N>::zeros();
    for (j, mut col) in h.column_iter_mut().enumerate() {
        let e = SVector::<T, N>::from_fn(|i, _| if i == j { T::one() } else { T::zero() });
        col.copy_from(&hessian_vector(f, q, &e));
    }
    (h + h.transpose()) * T::lit(0.5)
}

/// `(a·V‴(q)·a)ᵢ = Σⱼₖ ∂³V/∂qᵢ∂qⱼ∂qₖ aⱼ aₖ` in one evaluation: the gradient of `aᵀ Hess V(q) a`,
/// which is twice the `t²` coefficient of `V(q + t a)` ([`Jet2`] over [`VDual`]).
#[inline]
pub fn third_contraction<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> SVector<T, N> {
    let c2 = f.energy(&seed_jet(q, a)).c2.grad;
    c2 + c2
}

/// The same contraction by nested duals: the `δ₁δ₂` part of `V(q + εᵢ + (δ₁ + δ₂) a)`, an
/// independent route used to cross-check the jet.
#[cfg(test)]
pub(crate) fn third_contraction_nested<T: Real, F: Energy<T, N> + ?Sized, const N: usize>(
    f: &F,
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> SVector<T, N> {
    let x: [Dual<Dual<VDual<T, N>>>; N] = core::array::from_fn(|i| {
        Dual::new(
            Dual::new(VDual::variable(q[i], i), VDual::cst(a[i])),
            Dual::new(VDual::cst(a[i]), VDual::cst(T::zero())),
        )
    });
    f.energy(&x).eps.eps.grad
}

/// `Σᵢ wᵢ gᵢ` as an [`Energy`], so that the constraint derivatives reuse the energy ones.
struct Weighted<'a, G: ?Sized, T: Real, const D: usize> {
    g: &'a G,
    w: &'a SVector<T, D>,
}

impl<T: Real, G: ConstraintFn<T, N, D> + ?Sized, const N: usize, const D: usize> Energy<T, N>
    for Weighted<'_, G, T, D>
{
    #[inline]
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        self.g
            .eval(q)
            .iter()
            .zip(self.w.iter())
            .fold(S::cst(T::zero()), |acc, (&gi, &wi)| acc + gi * wi)
    }
}

/// The matrix whose row `i` is `rows[i]ᵀ`.
#[inline]
fn stack_rows<T: Real, const N: usize, const D: usize>(
    rows: [SVector<T, N>; D],
) -> SMatrix<T, D, N> {
    let mut m = SMatrix::<T, D, N>::zeros();
    for (mut row, r) in m.row_iter_mut().zip(rows.iter()) {
        row.tr_copy_from(r);
    }
    m
}

/// `g(q)` at plain scalars.
#[inline]
pub fn constraint_value<
    T: Real,
    G: ConstraintFn<T, N, D> + ?Sized,
    const N: usize,
    const D: usize,
>(
    g: &G,
    q: &SVector<T, N>,
) -> SVector<T, D> {
    SVector::from(g.eval(&plain(q)))
}

/// The Jacobian `∂g/∂q` (row `i` is `∇gᵢᵀ`) in one evaluation.
pub fn jacobian<T: Real, G: ConstraintFn<T, N, D> + ?Sized, const N: usize, const D: usize>(
    g: &G,
    q: &SVector<T, N>,
) -> SMatrix<T, D, N> {
    stack_rows(g.eval(&seed_gradient(q)).map(|gi| gi.grad))
}

/// The matrix whose row `i` is `(Hess gᵢ(q) a)ᵀ`, in one evaluation.
pub fn hessian_times<T: Real, G: ConstraintFn<T, N, D> + ?Sized, const N: usize, const D: usize>(
    g: &G,
    q: &SVector<T, N>,
    a: &SVector<T, N>,
) -> SMatrix<T, D, N> {
    stack_rows(g.eval(&seed_direction(q, a)).map(|gi| gi.eps.grad))
}

/// `Σᵢ wᵢ Hess gᵢ(q)` in `N` evaluations.
pub fn weighted_hessian<
    T: Real,
    G: ConstraintFn<T, N, D> + ?Sized,
    const N: usize,
    const D: usize,
>(
    g: &G,
    q: &SVector<T, N>,
    w: &SVector<T, D>,
) -> SMatrix<T, N, N> {
    hessian(&Weighted { g, w }, q)
}

/// `Σᵢ wᵢ (a·gᵢ‴(q)·a)` in one evaluation.
pub fn weighted_third_contraction<
    T: Real,
    G: ConstraintFn<T, N, D> + ?Sized,
    const N: usize,
    const D: usize,
>(
    g: &G,
    q: &SVector<T, N>,
    w: &SVector<T, D>,
    a: &SVector<T, N>,
) -> SVector<T, N> {
    third_contraction(&Weighted { g, w }, q, a)
}
