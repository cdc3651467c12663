//! [`AutoDiff`]: the model traits from a generic [`Energy`] or [`ConstraintFn`].

use super::{derivatives as ad, ConstraintFn, Energy};
use crate::model::{Constraint, Hessian, Potential, ThirdDerivative};
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// Exact derivatives by forward-mode AD: `AutoDiff(f)` implements [`Potential`], [`Hessian`] and
/// [`ThirdDerivative`] when `f` is an [`Energy`], and [`Constraint`] when `f` is a
/// [`ConstraintFn`].
///
/// Costs (in energy evaluations, each on a dual type, see the [module docs](super)): gradient 1,
/// Hessian–vector product 1, Hessian `N`, `a·V‴·a` 1. For constraints: Jacobian 1,
/// `hessian_times` 1, weighted Hessian `N`, weighted third contraction 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AutoDiff<F>(pub F);

impl<T: Real, const N: usize, F: Energy<T, N>> Potential<T, N> for AutoDiff<F> {
    #[inline]
    fn energy(&self, q: &SVector<T, N>) -> T {
        ad::energy(&self.0, q)
    }
    #[inline]
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        ad::gradient(&self.0, q)
    }
}

impl<T: Real, const N: usize, F: Energy<T, N>> Hessian<T, N> for AutoDiff<F> {
    #[inline]
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        ad::hessian(&self.0, q)
    }
    #[inline]
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        ad::hessian_vector(&self.0, q, a)
    }
}

impl<T: Real, const N: usize, F: Energy<T, N>> ThirdDerivative<T, N> for AutoDiff<F> {
    #[inline]
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        ad::third_contraction(&self.0, q, a)
    }
}

impl<T: Real, const N: usize, const D: usize, G: ConstraintFn<T, N, D>> Constraint<T, N, D>
    for AutoDiff<G>
{
    #[inline]
    fn value(&self, q: &SVector<T, N>) -> SVector<T, D> {
        ad::constraint_value(&self.0, q)
    }
    #[inline]
    fn jacobian(&self, q: &SVector<T, N>) -> SMatrix<T, D, N> {
        ad::jacobian(&self.0, q)
    }
    #[inline]
    fn weighted_hessian(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SMatrix<T, N, N> {
        ad::weighted_hessian(&self.0, q, w)
    }
    #[inline]
    fn hessian_times(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, D, N> {
        ad::hessian_times(&self.0, q, a)
    }
    #[inline]
    fn weighted_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N> {
        ad::weighted_third_contraction(&self.0, q, w, a)
    }
}
