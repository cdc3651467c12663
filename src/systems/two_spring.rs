//! The "wall – stiff linear spring – mass – soft quartic spring – mass" Langevin system of
//! 004 §4.2.5.

use super::{check_nonnegative, check_positive, QuarticBond};
use crate::model::{Mass, Quadratic, Split, System};
use crate::{ConfigError, Real, State};
use nalgebra::{Matrix2, SVector};

/// Friction and noise of a Langevin system `dp = −∇V dt − c p dt + σ dW` (isotropic: the same
/// `c` and `σ` on every degree of freedom), as plain data for the stochastic integrators.
///
/// The Boltzmann–Gibbs inverse temperature is `β = 2c/σ²` (004 §4.2.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LangevinParams<T> {
    /// The friction coefficient `c ≥ 0`.
    pub c: T,
    /// The noise amplitude `σ ≥ 0`.
    pub sigma: T,
}

impl<T: Real> LangevinParams<T> {
    /// Friction `c` and inverse temperature `β`: `σ = √(2c/β)`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"c"` (`c < 0`) and
    /// `"inverse_temperature"` (`β ≤ 0`).
    pub fn from_inverse_temperature(c: T, inverse_temperature: T) -> Result<Self, ConfigError> {
        check_nonnegative(c, "c")?;
        check_positive(inverse_temperature, "inverse_temperature")?;
        Self {
            c,
            sigma: (T::lit(2.0) * c / inverse_temperature).sqrt(),
        }
        .validate()
    }

    /// The parameters, checked: `c ≥ 0` and `σ ≥ 0`, both finite.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"c"` and `"sigma"`.
    pub fn validate(&self) -> Result<Self, ConfigError> {
        check_nonnegative(self.c, "c")?;
        check_nonnegative(self.sigma, "sigma")?;
        Ok(*self)
    }

    /// The inverse temperature `β = 2c/σ²` (`+∞` without noise).
    pub fn inverse_temperature(&self) -> T {
        T::lit(2.0) * self.c / (self.sigma * self.sigma)
    }
}

/// Two unit masses `q = (x, y)`: a stiff linear spring ties `x` to a wall, a soft quartic spring
/// ties `y` to `x`, both masses under friction `c` and noise `σ` (004 §4.2.5, Fig. 4.1):
///
/// ```text
/// H = ½ p_x² + ½ p_y² + ½ ω² x² + ¼ (y − x)⁴,
/// dp_x = −(ω² x + (x − y)³) dt − c p_x dt + σ dW¹,   dp_y = −(y − x)³ dt − c p_y dt + σ dW².
/// ```
///
/// The deterministic part is a [`Split`] ([`TwoSpring::split`]): soft `¼ (y − x)⁴` (a
/// [`QuarticBond`]), stiff `½ ω² x²` (a [`Quadratic`] with `K = diag(ω², 0)`), `α = 1`. The
/// friction and noise are [`TwoSpring::langevin`] (SIM builds the Ornstein–Uhlenbeck part).
///
/// [`TwoSpring::paper`] (004 Fig. 4.2): `ω = 100`, `c = 0.1`, `β = 2c/σ² = 10`, start
/// `x(0) = 0.8/ω`, `y(0) = 1.1 + x(0)`, zero momenta.
///
/// ```
/// use macrostep::systems::TwoSpring;
///
/// let m = TwoSpring::<f64>::paper();
/// assert!((m.langevin().inverse_temperature() - 10.0).abs() < 1e-12);
/// let s = m.initial_state();
/// assert!((s.q[0] - 0.008).abs() < 1e-17);
/// let f = m.system().acceleration(&s.q);
/// // −(ω² x + (x − y)³) and −(y − x)³ with y − x = 1.1
/// assert!((f[0] - (-0.8 * 100.0 + 1.331)).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TwoSpring<T: Real> {
    omega: T,
    langevin: LangevinParams<T>,
}

impl<T: Real> TwoSpring<T> {
    /// Stiff frequency `ω`, friction `c`, inverse temperature `β`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ω ≤ 0`), and as
    /// [`LangevinParams::from_inverse_temperature`]; [`ConfigError::Overflow`] for `"omega^2"`,
    /// `"0.8/omega"`.
    pub fn new(omega: T, c: T, inverse_temperature: T) -> Result<Self, ConfigError> {
        check_positive(omega, "omega")?;
        // `ω²` (the stiff spring) and `0.8/ω` (the initial state) must be representable.
        crate::validate::check_derived(omega * omega, "omega^2")?;
        crate::validate::check_derived(T::lit(0.8) / omega, "0.8/omega")?;
        Ok(Self {
            omega,
            langevin: LangevinParams::from_inverse_temperature(c, inverse_temperature)?,
        })
    }

    /// 004 Fig. 4.2: `ω = 100`, `c = 0.1`, `β = 10` (`σ = √0.02`).
    pub fn paper() -> Self {
        let c = T::lit(0.1);
        Self {
            omega: T::lit(100.0),
            langevin: LangevinParams {
                c,
                sigma: T::lit(0.02).sqrt(),
            },
        }
    }

    /// The stiff frequency `ω`.
    pub fn omega(&self) -> T {
        self.omega
    }

    /// Friction and noise.
    pub fn langevin(&self) -> LangevinParams<T> {
        self.langevin
    }

    /// Soft `¼ (y − x)⁴`, stiff `½ ω² x²`, `α = 1`.
    pub fn split(&self) -> Split<T, QuarticBond<T, 2>, Quadratic<T, 2>> {
        let z = T::zero();
        let k = Matrix2::new(self.omega * self.omega, z, z, z);
        Split::new(
            QuarticBond::from_valid(1, Some(0), T::lit(0.25)),
            Quadratic::new(k),
            T::one(),
        )
    }

    /// The deterministic system `M = I`, `V = ½ ω² x² + ¼ (y − x)⁴`.
    pub fn system(&self) -> System<T, Split<T, QuarticBond<T, 2>, Quadratic<T, 2>>, 2> {
        System::new(Mass::identity(), self.split())
    }

    /// `x(0) = 0.8/ω`, `y(0) = 1.1 + x(0)`, zero momenta (004 Fig. 4.2).
    pub fn initial_state(&self) -> State<T, 2> {
        let x = T::lit(0.8) / self.omega;
        State::at_rest(SVector::from([x, T::lit(1.1) + x]))
    }
}
