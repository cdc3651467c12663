//! A quartic bond `κ (qᵢ − qⱼ)⁴` (or `κ qᵢ⁴` when tied to the origin): the soft springs of the
//! nonlinear multiscale test problems of 004 (eq 2.100, §4.2.5).

use crate::model::{Hessian, Potential, ThirdDerivative};
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// The quartic bond `V(q) = κ d⁴` with `d = qᵢ − qⱼ` (or `d = qᵢ` without a second end).
///
/// `∇V = 4κd³ (eᵢ − eⱼ)`, `Hess V = 12κd² (eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ`,
/// `a·V‴·a = 24κ d (aᵢ − aⱼ)² (eᵢ − eⱼ)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuarticBond<T: Real, const N: usize> {
    i: usize,
    j: Option<usize>,
    kappa: T,
    four: T,
    twelve: T,
    twenty_four: T,
}

impl<T: Real, const N: usize> QuarticBond<T, N> {
    /// `κ (qᵢ − qⱼ)⁴`, or `κ qᵢ⁴` for `j = None`.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"index"` when `i` or `j` is `≥ N`,
    /// [`ConfigError::Inconsistent`] `"i != j"` when `i = j`, [`ConfigError::NonFinite`]
    /// `"kappa"`.
    pub fn new(i: usize, j: Option<usize>, kappa: T) -> Result<Self, ConfigError> {
        if i >= N || j.is_some_and(|j| j >= N) {
            return Err(ConfigError::OutOfRange {
                name: "index",
                bound: "< N",
            });
        }
        if j == Some(i) {
            return Err(ConfigError::Inconsistent { name: "i != j" });
        }
        crate::validate::check_finite(kappa, "kappa")?;
        Ok(Self::from_valid(i, j, kappa))
    }

    pub(crate) fn from_valid(i: usize, j: Option<usize>, kappa: T) -> Self {
        Self {
            i,
            j,
            kappa,
            four: T::lit(4.0),
            twelve: T::lit(12.0),
            twenty_four: T::lit(24.0),
        }
    }

    /// The coefficient `κ`.
    pub fn kappa(&self) -> T {
        self.kappa
    }
    /// The bond's ends `(i, j)`.
    pub fn ends(&self) -> (usize, Option<usize>) {
        (self.i, self.j)
    }

    /// `qᵢ − qⱼ` (`qᵢ` alone for a bond to the origin). The ends were validated (`< N`); they
    /// are read with `get` (zero out of range) so the step holds no panic branch.
    #[inline]
    fn diff(&self, q: &SVector<T, N>) -> T {
        let at = |k: usize| q.get(k).copied().unwrap_or(T::zero());
        match self.j {
            Some(j) => at(self.i) - at(j),
            None => at(self.i),
        }
    }

    /// `s` at `i` and `−s` at `j` (written with `get_mut`, as [`Self::diff`] reads).
    #[inline]
    fn spread(&self, s: T) -> SVector<T, N> {
        let mut out = SVector::<T, N>::zeros();
        if let Some(e) = out.get_mut(self.i) {
            *e = s;
        }
        if let Some(e) = self.j.and_then(|j| out.get_mut(j)) {
            *e = -s;
        }
        out
    }
}

impl<T: Real, const N: usize> Potential<T, N> for QuarticBond<T, N> {
    /// `V(q) = κ (qᵢ − qⱼ)⁴`.
    fn energy(&self, q: &SVector<T, N>) -> T {
        let d2 = self.diff(q) * self.diff(q);
        self.kappa * d2 * d2
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let d = self.diff(q);
        self.spread(self.four * self.kappa * d * d * d)
    }
}

impl<T: Real, const N: usize> Hessian<T, N> for QuarticBond<T, N> {
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        let d = self.diff(q);
        let w = self.twelve * self.kappa * d * d;
        let mut h = SMatrix::<T, N, N>::zeros();
        // The ends are below `N` (validated); `get_mut` keeps the panic branch out.
        let mut set = |r: usize, c: usize, x: T| {
            if let Some(e) = h.get_mut((r, c)) {
                *e = x;
            }
        };
        set(self.i, self.i, w);
        if let Some(j) = self.j {
            set(j, j, w);
            set(self.i, j, -w);
            set(j, self.i, -w);
        }
        h
    }
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let d = self.diff(q);
        self.spread(self.twelve * self.kappa * d * d * self.diff(a))
    }
}

impl<T: Real, const N: usize> ThirdDerivative<T, N> for QuarticBond<T, N> {
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let da = self.diff(a);
        self.spread(self.twenty_four * self.kappa * self.diff(q) * da * da)
    }
}
