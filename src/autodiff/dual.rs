//! `Dual<S>`: a first-order dual number `re + eps·ε` (ε² = 0) over any [`AdScalar`].

use super::elementary::elementary_functions;
use super::AdScalar;
use crate::Real;
use core::ops::Mul;

/// A first-order dual number `re + eps·ε` with `ε² = 0`, over any [`AdScalar`] `S`.
///
/// Evaluating `f(x + ε)` gives `f(x) + f'(x) ε`. Because `Dual<S>` is itself an [`AdScalar`],
/// duals nest: `Dual<VDual<T, N>>` carries a directional derivative of the gradient (a
/// Hessian–vector product), `Dual<Dual<VDual<T, N>>>` a second directional derivative of the
/// gradient (the contraction `a·V‴·a`). See the [module docs](super) for the seeding.
///
/// ```
/// use macrostep::autodiff::{AdScalar, Dual};
/// // d/dx (x sin x) at x = 2: sin 2 + 2 cos 2.
/// let x = Dual::new(2.0_f64, 1.0);
/// let y = x * x.sin();
/// assert!((y.eps - (2.0_f64.sin() + 2.0 * 2.0_f64.cos())).abs() < 1e-15);
/// assert_eq!(y.value(), 2.0 * 2.0_f64.sin());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual<S> {
    /// The real part.
    pub re: S,
    /// The infinitesimal part (coefficient of ε).
    pub eps: S,
}

impl<S> Dual<S> {
    /// `re + eps·ε`.
    #[inline]
    pub const fn new(re: S, eps: S) -> Self {
        Self { re, eps }
    }
}

impl<S: Copy + Mul<Output = S>> Dual<S> {
    /// The value `f` with the infinitesimal part multiplied by `df` (the chain rule).
    #[inline]
    fn chain(self, f: S, df: S) -> Self {
        Self {
            re: f,
            eps: self.eps * df,
        }
    }
}

impl<T: Real, S: AdScalar<T>> AdScalar<T> for Dual<S> {
    #[inline]
    fn cst(x: T) -> Self {
        Self {
            re: S::cst(x),
            eps: S::cst(T::zero()),
        }
    }
    #[inline]
    fn value(&self) -> T {
        self.re.value()
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        // ∂atan2(y, x) = (x dy − y dx) / (x² + y²).
        let (y, x) = (self.re, other.re);
        Self {
            re: y.atan2(x),
            eps: (x * self.eps - y * other.eps) / (x * x + y * y),
        }
    }
    elementary_functions!();
}

super::number_ops! {
    impl[S] Dual<S>, each S;
    mixed[T: Real, S: AdScalar<T>] T;
    { re, eps }
    fn mul(a, b) {
        Dual {
            re: a.re * b.re,
            eps: a.eps * b.re + a.re * b.eps,
        }
    }
    fn div(a, b) {
        // (a/b)' = (a' − (a/b) b') / b.
        let q = a.re / b.re;
        Dual {
            re: q,
            eps: (a.eps - q * b.eps) / b.re,
        }
    }
}
