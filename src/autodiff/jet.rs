//! `Jet2<S>`: a second-order Taylor jet `c₀ + c₁t + c₂t²` (mod t³) over any [`AdScalar`].

use super::AdScalar;
use crate::Real;
use core::ops::{Add, Mul};

/// A truncated Taylor series `c₀ + c₁ t + c₂ t²` in one direction, over any [`AdScalar`] `S`.
///
/// Evaluating `f(x + t a)` gives `f(x) + (∇f·a) t + ½ (aᵀ Hess f a) t²`. Over
/// [`VDual<T, N>`](super::VDual) the `t²` coefficient carries `½ ∇(aᵀ Hess f a) = ½ a·f‴·a`: this
/// is how [`third_contraction`](super::third_contraction) works. It does the work of
/// `Dual<Dual<S>>` seeded twice with the same direction with 3 instead of 4 components and
/// 6 instead of 9 products per multiplication.
///
/// ```
/// use macrostep::autodiff::{AdScalar, Jet2};
/// // x³ at x = 2 along t: 8 + 12t + 6t².
/// let x = Jet2::new(2.0_f64, 1.0, 0.0);
/// let y = x * x * x;
/// assert_eq!((y.c0, y.c1, y.c2), (8.0, 12.0, 6.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jet2<S> {
    /// The value.
    pub c0: S,
    /// The first Taylor coefficient (the directional derivative).
    pub c1: S,
    /// The second Taylor coefficient (half the second directional derivative).
    pub c2: S,
}

impl<S> Jet2<S> {
    /// `c₀ + c₁ t + c₂ t²`.
    #[inline]
    pub const fn new(c0: S, c1: S, c2: S) -> Self {
        Self { c0, c1, c2 }
    }
}

impl<S: Copy + Add<Output = S> + Mul<Output = S>> Jet2<S> {
    /// `φ(self)` from `φ(c₀)`, `φ′(c₀)` and `½ φ″(c₀)`:
    /// `φ(c₀ + u) = φ₀ + φ₁ u + ½φ₂ u²` with `u = c₁t + c₂t²`.
    #[inline]
    fn chain(self, f0: S, f1: S, half_f2: S) -> Self {
        Self {
            c0: f0,
            c1: f1 * self.c1,
            c2: f1 * self.c2 + half_f2 * self.c1 * self.c1,
        }
    }

    /// The jet times a scalar of the coefficient type.
    #[inline]
    fn scale(self, s: S) -> Self {
        Self {
            c0: self.c0 * s,
            c1: self.c1 * s,
            c2: self.c2 * s,
        }
    }
}

impl<T: Real, S: AdScalar<T>> AdScalar<T> for Jet2<S> {
    #[inline]
    fn cst(x: T) -> Self {
        let z = S::cst(T::zero());
        Self {
            c0: S::cst(x),
            c1: z,
            c2: z,
        }
    }
    #[inline]
    fn value(&self) -> T {
        self.c0.value()
    }
    #[inline]
    fn sin(self) -> Self {
        let (s, c) = (self.c0.sin(), self.c0.cos());
        self.chain(s, c, -s * T::lit(0.5))
    }
    #[inline]
    fn cos(self) -> Self {
        let (s, c) = (self.c0.sin(), self.c0.cos());
        self.chain(c, -s, -c * T::lit(0.5))
    }
    #[inline]
    fn tan(self) -> Self {
        // tan′ = 1 + t², tan″ = 2t(1 + t²).
        let t = self.c0.tan();
        let d = t * t + T::one();
        self.chain(t, d, t * d)
    }
    #[inline]
    fn asin(self) -> Self {
        // asin′ = r = (1 − x²)^{-½}, asin″ = x r³.
        let x = self.c0;
        let r = (-(x * x) + T::one()).sqrt().recip();
        self.chain(x.asin(), r, x * r * r * r * T::lit(0.5))
    }
    #[inline]
    fn acos(self) -> Self {
        let x = self.c0;
        let r = (-(x * x) + T::one()).sqrt().recip();
        self.chain(x.acos(), -r, -(x * r * r * r * T::lit(0.5)))
    }
    #[inline]
    fn atan(self) -> Self {
        // atan′ = p = 1/(1 + x²), atan″ = −2x p².
        let x = self.c0;
        let p = (x * x + T::one()).recip();
        self.chain(x.atan(), p, -(x * p * p))
    }
    #[inline]
    fn atan2(self, x: Self) -> Self {
        // Rotate (x, y) by −θ₀: X = x x₀ + y y₀, Y = y x₀ − x y₀ has Y₀ = 0 < X₀, so
        // atan2(y, x) = θ₀ + atan(Y/X) is smooth along the jet for any (x₀, y₀) ≠ 0.
        let (x0, y0) = (x.c0, self.c0);
        let big_x = x.scale(x0) + self.scale(y0);
        let big_y = self.scale(x0) - x.scale(y0);
        let mut theta = (big_y / big_x).atan();
        theta.c0 += y0.atan2(x0);
        theta
    }
    #[inline]
    fn sinh(self) -> Self {
        let (s, c) = (self.c0.sinh(), self.c0.cosh());
        self.chain(s, c, s * T::lit(0.5))
    }
    #[inline]
    fn cosh(self) -> Self {
        let (s, c) = (self.c0.sinh(), self.c0.cosh());
        self.chain(c, s, c * T::lit(0.5))
    }
    #[inline]
    fn tanh(self) -> Self {
        // tanh′ = 1 − th², tanh″ = −2 th (1 − th²).
        let th = self.c0.tanh();
        let d = -(th * th) + T::one();
        self.chain(th, d, -(th * d))
    }
    #[inline]
    fn exp(self) -> Self {
        let e = self.c0.exp();
        self.chain(e, e, e * T::lit(0.5))
    }
    #[inline]
    fn ln(self) -> Self {
        // ln′ = 1/x, ln″ = −1/x².
        let r = self.c0.recip();
        self.chain(self.c0.ln(), r, -(r * r) * T::lit(0.5))
    }
    #[inline]
    fn sqrt(self) -> Self {
        // √′ = d = 1/(2√x), √″ = −2d³.
        let s = self.c0.sqrt();
        let d = (s + s).recip();
        self.chain(s, d, -(d * d * d))
    }
    #[inline]
    fn cbrt(self) -> Self {
        // ∛′ = d = 1/(3∛x²), ∛″ = −(2/3) d / x.
        let c = self.c0.cbrt();
        let d = (c * c * T::lit(3.0)).recip();
        self.chain(c, d, -(d / self.c0) * T::lit(1.0 / 3.0))
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        let x = self.c0;
        let one = x.powi(0);
        let zero = one * T::zero();
        match n {
            0 => self.chain(one, zero, zero),
            1 => self,
            _ => {
                // (xⁿ)′ = n xⁿ⁻¹, (xⁿ)″ = n(n − 1) xⁿ⁻² (n = i32::MIN saturates).
                let nf = T::lit(f64::from(n));
                let xn2 = x.powi(n.saturating_sub(2));
                let xn1 = xn2 * x;
                self.chain(
                    xn1 * x,
                    xn1 * nf,
                    xn2 * (nf * (nf - T::one()) * T::lit(0.5)),
                )
            }
        }
    }
    #[inline]
    fn powf(self, c: T) -> Self {
        // (xᶜ)′ = c xᶜ⁻¹, (xᶜ)″ = c(c − 1) xᶜ⁻².
        let x = self.c0;
        let xc2 = x.powf(c - T::lit(2.0));
        let xc1 = xc2 * x;
        self.chain(xc1 * x, xc1 * c, xc2 * (c * (c - T::one()) * T::lit(0.5)))
    }
    #[inline]
    fn recip(self) -> Self {
        // (1/x)′ = −r², (1/x)″ = 2r³.
        let r = self.c0.recip();
        let r2 = r * r;
        self.chain(r, -r2, r2 * r)
    }
}

super::number_ops! {
    impl[S] Jet2<S>, each S;
    mixed[T: Real, S: AdScalar<T>] T;
    { c0, c1, c2 }
    fn mul(a, b) {
        Jet2 {
            c0: a.c0 * b.c0,
            c1: a.c0 * b.c1 + a.c1 * b.c0,
            c2: a.c0 * b.c2 + a.c1 * b.c1 + a.c2 * b.c0,
        }
    }
    fn div(a, b) {
        // q = a/b solves q b = a coefficient by coefficient.
        let q0 = a.c0 / b.c0;
        let q1 = (a.c1 - q0 * b.c1) / b.c0;
        let q2 = (a.c2 - q0 * b.c2 - q1 * b.c1) / b.c0;
        Jet2 {
            c0: q0,
            c1: q1,
            c2: q2,
        }
    }
}
