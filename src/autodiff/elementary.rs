//! The elementary functions of [`AdScalar`](super::AdScalar), written once for every dual type.
//!
//! Each dual type has a private `chain(self, f, df)` that returns the value `f = φ(x)` with the
//! infinitesimal part multiplied by `df = φ'(x)`; the macro below supplies `(φ(x), φ'(x))` for
//! each function, evaluated on the real part `x = self.re` (itself a plain `T` or a dual).

/// Expands to the `AdScalar` elementary functions for a type with a field `re` and a method
/// `chain`. `T` is the base scalar in scope at the expansion site.
macro_rules! elementary_functions {
    () => {
        #[inline]
        fn sin(self) -> Self {
            let x = self.re;
            self.chain(x.sin(), x.cos())
        }
        #[inline]
        fn cos(self) -> Self {
            let x = self.re;
            self.chain(x.cos(), -x.sin())
        }
        #[inline]
        fn tan(self) -> Self {
            // tan' = 1 + tan².
            let t = self.re.tan();
            self.chain(t, t * t + T::one())
        }
        #[inline]
        fn asin(self) -> Self {
            // asin' = 1/√(1 − x²).
            let x = self.re;
            self.chain(x.asin(), (-(x * x) + T::one()).sqrt().recip())
        }
        #[inline]
        fn acos(self) -> Self {
            let x = self.re;
            self.chain(x.acos(), -(-(x * x) + T::one()).sqrt().recip())
        }
        #[inline]
        fn atan(self) -> Self {
            // atan' = 1/(1 + x²).
            let x = self.re;
            self.chain(x.atan(), (x * x + T::one()).recip())
        }
        #[inline]
        fn sinh(self) -> Self {
            let x = self.re;
            self.chain(x.sinh(), x.cosh())
        }
        #[inline]
        fn cosh(self) -> Self {
            let x = self.re;
            self.chain(x.cosh(), x.sinh())
        }
        #[inline]
        fn tanh(self) -> Self {
            // tanh' = 1 − tanh².
            let t = self.re.tanh();
            self.chain(t, -(t * t) + T::one())
        }
        #[inline]
        fn exp(self) -> Self {
            let e = self.re.exp();
            self.chain(e, e)
        }
        #[inline]
        fn ln(self) -> Self {
            let x = self.re;
            self.chain(x.ln(), x.recip())
        }
        #[inline]
        fn sqrt(self) -> Self {
            // √' = 1/(2√x).
            let s = self.re.sqrt();
            self.chain(s, (s + s).recip())
        }
        #[inline]
        fn cbrt(self) -> Self {
            // ∛' = 1/(3 ∛x²).
            let c = self.re.cbrt();
            self.chain(c, (c * c * T::lit(3.0)).recip())
        }
        #[inline]
        fn powi(self, n: i32) -> Self {
            let x = self.re;
            if n == 0 {
                // x⁰ = 1 has derivative 0 everywhere, including at x = 0.
                let one = x.powi(0);
                return self.chain(one, one * T::zero());
            }
            // (xⁿ)' = n xⁿ⁻¹ (n = i32::MIN saturates; such exponents overflow anyway).
            self.chain(
                x.powi(n),
                x.powi(n.saturating_sub(1)) * T::lit(f64::from(n)),
            )
        }
        #[inline]
        fn powf(self, c: T) -> Self {
            // (xᶜ)' = c xᶜ⁻¹ for a constant exponent c.
            let x = self.re;
            self.chain(x.powf(c), x.powf(c - T::one()) * c)
        }
        #[inline]
        fn recip(self) -> Self {
            // (1/x)' = −1/x².
            let r = self.re.recip();
            self.chain(r, -(r * r))
        }
    };
}

pub(crate) use elementary_functions;
