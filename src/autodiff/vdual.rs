//! `VDual<T, N>`: a value with its full gradient, `re + Σⱼ grad[j] εⱼ` (εᵢεⱼ = 0).

use super::elementary::elementary_functions;
use super::AdScalar;
use crate::Real;
use nalgebra::SVector;

/// A vector dual number: a value and its gradient with respect to `N` inputs.
///
/// One evaluation of `f` on `VDual` inputs seeded with the unit vectors (`xᵢ = qᵢ + εᵢ`) gives
/// `f(q)` and `∇f(q)`. It costs `N + 1` scalars per intermediate value.
///
/// ```
/// use macrostep::autodiff::{AdScalar, VDual};
/// // f(x, y) = x² y at (3, 2): ∇f = (2xy, x²) = (12, 9).
/// let x = VDual::<f64, 2>::variable(3.0, 0);
/// let y = VDual::<f64, 2>::variable(2.0, 1);
/// let f = x * x * y;
/// assert_eq!(f.value(), 18.0);
/// assert_eq!(f.grad.as_slice(), &[12.0, 9.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VDual<T: Real, const N: usize> {
    /// The value.
    pub re: T,
    /// The gradient with respect to the `N` seeded inputs.
    pub grad: SVector<T, N>,
}

impl<T: Real, const N: usize> VDual<T, N> {
    /// `re + Σ grad[j] εⱼ`.
    #[inline]
    pub fn new(re: T, grad: SVector<T, N>) -> Self {
        Self { re, grad }
    }

    /// The independent variable number `i` with value `re`: gradient `eᵢ` (zero if `i ≥ N`).
    #[inline]
    pub fn variable(re: T, i: usize) -> Self {
        Self {
            re,
            grad: SVector::from_fn(|j, _| if j == i { T::one() } else { T::zero() }),
        }
    }

    /// The value `f` with the gradient multiplied by `df` (the chain rule).
    #[inline]
    fn chain(self, f: T, df: T) -> Self {
        Self {
            re: f,
            grad: self.grad * df,
        }
    }
}

impl<T: Real, const N: usize> AdScalar<T> for VDual<T, N> {
    #[inline]
    fn cst(x: T) -> Self {
        Self {
            re: x,
            grad: SVector::zeros(),
        }
    }
    #[inline]
    fn value(&self) -> T {
        self.re
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        // ∇atan2(y, x) = (x ∇y − y ∇x) / (x² + y²).
        let (y, x) = (self.re, other.re);
        let r2 = x * x + y * y;
        Self {
            re: y.atan2(x),
            grad: (self.grad * x - other.grad * y) / r2,
        }
    }
    elementary_functions!();
}

super::number_ops! {
    impl[T: Real, const N: usize] VDual<T, N>, each T;
    mixed[T: Real, const N: usize] T;
    { re, grad }
    fn mul(a, b) {
        VDual {
            re: a.re * b.re,
            grad: a.grad * b.re + b.grad * a.re,
        }
    }
    fn div(a, b) {
        // ∇(a/b) = (∇a − (a/b) ∇b) / b.
        let q = a.re / b.re;
        VDual {
            re: q,
            grad: (a.grad - b.grad * q) / b.re,
        }
    }
}
