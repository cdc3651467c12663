//! The elementary functions of [`AdScalar`](super::AdScalar), written once for every dual type.
//!
//! Each dual type has a private `chain(self, f, df)` that returns the value `f = φ(x)` with the
//! infinitesimal part multiplied by `df = φ'(x)`; the macro below supplies `(φ(x), φ'(x))` for
//! each function, evaluated on the real part `x = self.re` (itself a plain `T` or a dual).

/// Expands to the `AdScalar` elementary functions for a type with a field `re` and a method
/// `chain`. `T` is the base scalar in scope at the expansion site.
///
/// The one-argument functions are a table of chain rules `φ(x) => (φ(x), φ'(x))`; the `@chain`
/// arm turns each row into `fn φ(self) -> Self`.
macro_rules! elementary_functions {
    () => {
        $crate::autodiff::elementary::elementary_functions!(@chain
            sin(x) => (x.sin(), x.cos()),
            cos(x) => (x.cos(), -x.sin()),
            // tan' = 1 + tan².
            tan(x) => {
                let t = x.tan();
                (t, t * t + T::one())
            },
            // asin' = 1/√(1 − x²).
            asin(x) => (x.asin(), (-(x * x) + T::one()).sqrt().recip()),
            acos(x) => (x.acos(), -(-(x * x) + T::one()).sqrt().recip()),
            // atan' = 1/(1 + x²).
            atan(x) => (x.atan(), (x * x + T::one()).recip()),
            sinh(x) => (x.sinh(), x.cosh()),
            cosh(x) => (x.cosh(), x.sinh()),
            // tanh' = 1 − tanh².
            tanh(x) => {
                let t = x.tanh();
                (t, -(t * t) + T::one())
            },
            exp(x) => {
                let e = x.exp();
                (e, e)
            },
            ln(x) => (x.ln(), x.recip()),
            // √' = 1/(2√x).
            sqrt(x) => {
                let s = x.sqrt();
                (s, (s + s).recip())
            },
            // ∛' = 1/(3 ∛x²).
            cbrt(x) => {
                let c = x.cbrt();
                (c, (c * c * T::lit(3.0)).recip())
            },
            // (1/x)' = −1/x².
            recip(x) => {
                let r = x.recip();
                (r, -(r * r))
            },
        );
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
    };

    (@chain $($f:ident($x:ident) => $rule:expr),* $(,)?) => {
        $(
            #[inline]
            fn $f(self) -> Self {
                let $x = self.re;
                let (f, df) = $rule;
                self.chain(f, df)
            }
        )*
    };
}

pub(crate) use elementary_functions;
