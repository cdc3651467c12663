//! Exact Ornstein–Uhlenbeck flows: scalar and diagonal.

use crate::validate::{check_nonnegative, check_positive};
use crate::{ConfigError, Real};
use nalgebra::SVector;
use rand_core::Rng;

use super::Normal;

/// The exact flow over a step `h` of the scalar Ornstein–Uhlenbeck process
/// `dp = −c p dt + σ dW`:
///
/// `p ← a p + s ξ`, `a = e^{−ch}`, `s = σ √((1 − e^{−2ch}) / (2c))` (`s = σ√h` when `c = 0`),
/// `ξ ~ N(0, 1)`.
///
/// With the fluctuation–dissipation relation `σ² = 2c·m/β` (mass `m`, inverse temperature `β`),
/// `s = √(m(1 − e^{−2ch})/β)`: this is the momentum half of GLA (004 eq 6.3) and of the Langevin
/// FLAVORs. Coefficients are computed once, at construction (`1 − e^{−2ch}` via `expm1`, accurate
/// for small `ch`).
///
/// ```
/// use macrostep::langevin::Ou;
/// let ou = Ou::<f64>::thermal(0.5, 10.0, 1.0, 0.01).unwrap(); // c, β, m, h
/// let p = ou.apply(1.0, 0.0); // noise-free part: e^{−ch}
/// assert!((p - (-0.005f64).exp()).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ou<T: Real> {
    a: T,
    s: T,
}

impl<T: Real> Ou<T> {
    /// The flow of `dp = −c p dt + σ dW` over a step `h`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h ≤ 0` or non-finite; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] (negative) for `"friction"` and `"noise"`.
    pub fn new(friction: T, noise: T, h: T) -> Result<Self, ConfigError> {
        let h = crate::validate::check_step(h)?;
        check_nonnegative(friction, "friction")?;
        check_nonnegative(noise, "noise")?;
        let a = (-friction * h).exp();
        let s = if friction == T::zero() {
            noise * h.sqrt()
        } else {
            let two_c = friction + friction;
            noise * (-(-two_c * h).exp_m1() / two_c).sqrt()
        };
        Ok(Self { a, s })
    }

    /// The flow for friction `c` at inverse temperature `β` for a mass `m`:
    /// `σ² = 2cm/β`, `s = √(m(1 − e^{−2ch})/β)` (004 eq 6.3 with `m = 1`).
    ///
    /// # Errors
    /// As [`Ou::new`], plus [`ConfigError::OutOfRange`] for `"inverse_temperature"` or `"mass"`
    /// not positive.
    pub fn thermal(
        friction: T,
        inverse_temperature: T,
        mass: T,
        h: T,
    ) -> Result<Self, ConfigError> {
        let beta = check_positive(inverse_temperature, "inverse_temperature")?;
        check_positive(mass, "mass")?;
        let h = crate::validate::check_step(h)?;
        check_nonnegative(friction, "friction")?;
        let a = (-friction * h).exp();
        let s = (-(-(friction + friction) * h).exp_m1() * mass / beta).sqrt();
        Ok(Self { a, s })
    }

    /// The contraction factor `a = e^{−ch}`.
    pub fn decay(&self) -> T {
        self.a
    }

    /// The standard deviation `s` of the increment.
    pub fn std_dev(&self) -> T {
        self.s
    }

    /// `a p + s ξ` for a given standard normal `ξ` (lets callers reuse a Brownian path).
    #[inline]
    pub fn apply(&self, p: T, xi: T) -> T {
        self.a * p + self.s * xi
    }

    /// `a p + s ξ` with `ξ` drawn from `rng` (one [`Normal::sample`]).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, p: T, rng: &mut R) -> T {
        self.apply(p, Normal::sample(rng))
    }
}

/// The exact flow over a step `h` of `N` independent Ornstein–Uhlenbeck processes
/// `dpᵢ = −cᵢ pᵢ dt + σᵢ dWᵢ`: `pᵢ ← aᵢ pᵢ + sᵢ ξᵢ` with the coefficients of [`Ou`] per
/// component.
///
/// ```
/// use macrostep::langevin::DiagonalOu;
/// use nalgebra::vector;
/// let ou = DiagonalOu::<f64, 2>::thermal(vector![1.0, 2.0], 4.0, vector![1.0, 3.0], 0.1).unwrap();
/// let p = ou.apply(&vector![1.0, 1.0], &vector![0.0, 0.0]);
/// assert!((p[1] - (-0.2f64).exp()).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiagonalOu<T: Real, const N: usize> {
    a: SVector<T, N>,
    s: SVector<T, N>,
}

impl<T: Real, const N: usize> DiagonalOu<T, N> {
    /// Per-component friction `cᵢ` and noise `σᵢ` over a step `h`.
    ///
    /// # Errors
    /// As [`Ou::new`] for any component.
    pub fn new(friction: SVector<T, N>, noise: SVector<T, N>, h: T) -> Result<Self, ConfigError> {
        let mut a = SVector::zeros();
        let mut s = SVector::zeros();
        for i in 0..N {
            let ou = Ou::new(friction[i], noise[i], h)?;
            a[i] = ou.a;
            s[i] = ou.s;
        }
        Ok(Self { a, s })
    }

    /// Per-component friction `cᵢ` at inverse temperature `β` for diagonal masses `mᵢ`
    /// (`σᵢ² = 2cᵢmᵢ/β`).
    ///
    /// # Errors
    /// As [`Ou::thermal`] for any component.
    pub fn thermal(
        friction: SVector<T, N>,
        inverse_temperature: T,
        mass: SVector<T, N>,
        h: T,
    ) -> Result<Self, ConfigError> {
        let mut a = SVector::zeros();
        let mut s = SVector::zeros();
        for i in 0..N {
            let ou = Ou::thermal(friction[i], inverse_temperature, mass[i], h)?;
            a[i] = ou.a;
            s[i] = ou.s;
        }
        Ok(Self { a, s })
    }

    /// The contraction factors `aᵢ`.
    pub fn decay(&self) -> &SVector<T, N> {
        &self.a
    }

    /// The increment standard deviations `sᵢ`.
    pub fn std_dev(&self) -> &SVector<T, N> {
        &self.s
    }

    /// `aᵢ pᵢ + sᵢ ξᵢ` for given standard normals `ξ`.
    #[inline]
    pub fn apply(&self, p: &SVector<T, N>, xi: &SVector<T, N>) -> SVector<T, N> {
        self.a.component_mul(p) + self.s.component_mul(xi)
    }

    /// `aᵢ pᵢ + sᵢ ξᵢ` with `ξ` drawn from `rng` ([`Normal::vector`]).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, p: &SVector<T, N>, rng: &mut R) -> SVector<T, N> {
        let xi = Normal::vector::<T, R, N>(rng);
        self.apply(p, &xi)
    }
}
