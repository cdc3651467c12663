//! `VDual<T, N>`: a value with its full gradient, `re + Σⱼ grad[j] εⱼ` (εᵢεⱼ = 0).

use super::elementary::elementary_functions;
use super::AdScalar;
use crate::Real;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
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

impl<T: Real, const N: usize> Add for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self {
            re: self.re + o.re,
            grad: self.grad + o.grad,
        }
    }
}
impl<T: Real, const N: usize> Sub for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self {
            re: self.re - o.re,
            grad: self.grad - o.grad,
        }
    }
}
impl<T: Real, const N: usize> Mul for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Self {
            re: self.re * o.re,
            grad: self.grad * o.re + o.grad * self.re,
        }
    }
}
impl<T: Real, const N: usize> Div for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn div(self, o: Self) -> Self {
        // ∇(a/b) = (∇a − (a/b) ∇b) / b.
        let q = self.re / o.re;
        Self {
            re: q,
            grad: (self.grad - o.grad * q) / o.re,
        }
    }
}
impl<T: Real, const N: usize> Neg for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            re: -self.re,
            grad: -self.grad,
        }
    }
}

impl<T: Real, const N: usize> Add<T> for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn add(self, c: T) -> Self {
        Self {
            re: self.re + c,
            grad: self.grad,
        }
    }
}
impl<T: Real, const N: usize> Sub<T> for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn sub(self, c: T) -> Self {
        Self {
            re: self.re - c,
            grad: self.grad,
        }
    }
}
impl<T: Real, const N: usize> Mul<T> for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn mul(self, c: T) -> Self {
        Self {
            re: self.re * c,
            grad: self.grad * c,
        }
    }
}
impl<T: Real, const N: usize> Div<T> for VDual<T, N> {
    type Output = Self;
    #[inline]
    fn div(self, c: T) -> Self {
        Self {
            re: self.re / c,
            grad: self.grad / c,
        }
    }
}

impl<T: Real, const N: usize> AddAssign for VDual<T, N> {
    #[inline]
    fn add_assign(&mut self, o: Self) {
        self.re += o.re;
        self.grad += o.grad;
    }
}
impl<T: Real, const N: usize> SubAssign for VDual<T, N> {
    #[inline]
    fn sub_assign(&mut self, o: Self) {
        self.re -= o.re;
        self.grad -= o.grad;
    }
}
impl<T: Real, const N: usize> MulAssign for VDual<T, N> {
    #[inline]
    fn mul_assign(&mut self, o: Self) {
        *self = *self * o;
    }
}
impl<T: Real, const N: usize> DivAssign for VDual<T, N> {
    #[inline]
    fn div_assign(&mut self, o: Self) {
        *self = *self / o;
    }
}
