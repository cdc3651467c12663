//! A linear potential `V(q) = bᵀq`: a uniform force field such as gravity.

use crate::model::{Hessian, Potential, ThirdDerivative};
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// The linear potential `V(q) = bᵀq` (constant force `−b`), e.g. gravity `V = m g y`.
///
/// Its Hessian and third derivative vanish. Unlike [`crate::model::Quadratic`] with `K = 0` it
/// stores no `N × N` matrix and costs `O(N)` per evaluation, which matters for the chain of
/// pendula and other large constrained models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearPotential<T: Real, const N: usize> {
    b: SVector<T, N>,
}

impl<T: Real, const N: usize> LinearPotential<T, N> {
    /// `V(q) = bᵀq`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] for `"linear"` when a coefficient is not finite.
    pub fn new(b: SVector<T, N>) -> Result<Self, ConfigError> {
        if b.iter().all(|x| x.finite()) {
            Ok(Self { b })
        } else {
            Err(ConfigError::NonFinite { name: "linear" })
        }
    }

    /// From coefficients already known to be finite (built-in models).
    pub(crate) fn from_valid(b: SVector<T, N>) -> Self {
        Self { b }
    }

    /// The coefficients `b` (`∇V = b`).
    pub fn coefficients(&self) -> &SVector<T, N> {
        &self.b
    }
}

impl<T: Real, const N: usize> Potential<T, N> for LinearPotential<T, N> {
    /// `V(q) = bᵀq`.
    fn energy(&self, q: &SVector<T, N>) -> T {
        self.b.dot(q)
    }
    fn gradient(&self, _: &SVector<T, N>) -> SVector<T, N> {
        self.b
    }
}

impl<T: Real, const N: usize> Hessian<T, N> for LinearPotential<T, N> {
    fn hessian(&self, _: &SVector<T, N>) -> SMatrix<T, N, N> {
        SMatrix::zeros()
    }
    fn hessian_vector(&self, _: &SVector<T, N>, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
    /// The Hessian is zero: nothing to add.
    fn add_hessian(&self, _: &SVector<T, N>, _: T, _: &mut SMatrix<T, N, N>) {}
    /// The Hessian is zero: every band fits.
    fn hessian_band(&self, _: &SVector<T, N>, _: T, _: &mut crate::model::BandMut<'_, T>) -> bool {
        true
    }
}

impl<T: Real, const N: usize> ThirdDerivative<T, N> for LinearPotential<T, N> {
    const VANISHES: bool = true;
    fn third_contraction(&self, _: &SVector<T, N>, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
}

impl<T: crate::ConstReal, const N: usize> LinearPotential<T, N> {
    /// `V = 0` as a constant (the blanks of in-place constructors).
    pub(crate) const ZERO: Self = Self {
        b: SVector::from_array_storage(nalgebra::ArrayStorage([[T::ZERO; N]; 1])),
    };
}
