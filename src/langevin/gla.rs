//! The Geometric Langevin Algorithm (GLA), 004 eq 6.3.

use super::Normal;
#[cfg(doc)]
use super::StochasticIntegrator;
use crate::driver::{Guarded, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::model::{Potential, System};
use crate::validate::{check_nonnegative, check_positive};
use crate::{validate::check_step, ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};
use rand_core::Rng;

/// The friction `c` and inverse temperature `β` of [`Gla`] (004 eq 6.3: `dp = −∇V dt − c p dt +
/// σ dW`, `σ² = 2c/β`). The default is `c = 1`, `β = 1` (unit friction at unit temperature, in
/// reduced units).
///
/// ```
/// use macrostep::langevin::GlaParams;
/// // σ = 1 with c = 2: β = 2c/σ² = 4.
/// let p = GlaParams::<f64>::from_noise(2.0, 1.0).unwrap();
/// assert_eq!(p, GlaParams { friction: 2.0, inverse_temperature: 4.0 });
/// assert!(GlaParams { friction: -1.0, ..GlaParams::<f64>::default() }.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GlaParams<T: Real> {
    /// The friction `c ≥ 0`.
    pub friction: T,
    /// The inverse temperature `β > 0`.
    pub inverse_temperature: T,
}

impl<T: Real> Default for GlaParams<T> {
    fn default() -> Self {
        Self {
            friction: T::one(),
            inverse_temperature: T::one(),
        }
    }
}

impl<T: Real> GlaParams<T> {
    /// The parameters for friction `c > 0` and noise amplitude `σ > 0`: `β = 2c/σ²`
    /// (fluctuation–dissipation, 004 eq 6.3).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"noise"` (`σ ≤ 0`), then
    /// `"friction"` (`c ≤ 0`).
    pub fn from_noise(friction: T, noise: T) -> Result<Self, ConfigError> {
        check_positive(noise, "noise")?;
        check_positive(friction, "friction")?;
        Ok(Self {
            friction,
            inverse_temperature: (friction + friction) / (noise * noise),
        })
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"friction"` (negative) and
    /// `"inverse_temperature"` (not positive).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        check_nonnegative(self.friction, "friction")?;
        check_positive(self.inverse_temperature, "inverse_temperature")?;
        Ok(*self)
    }
}

/// GLA (Bou-Rabee & Owhadi; 004 eq 6.3): an exact Ornstein–Uhlenbeck flow of the momenta composed
/// with symplectic Euler, for `M dq = p dt`, `dp = −∇V(q) dt − c p dt + σ dW`, `σ² = 2c/β`:
///
/// ```text
/// p̂ = e^{−ch} p + √((1 − e^{−2ch})/β) M^{1/2} ξ      (v̂ = e^{−ch} v + √((1 − e^{−2ch})/β) L⁻ᵀ ξ)
/// q' = q + h M⁻¹ p̂
/// p' = p̂ − h ∇V(q')
/// ```
///
/// with `M = L Lᵀ`, `ξ ~ N(0, I)`. First order (strong and weak), conformally symplectic
/// (the Jacobian determinant of a step is `e^{−c·N·h}`), `O(h)`-accurate invariant measure. The
/// small-step baseline of the SIM experiments: its step must resolve the stiffest frequency and,
/// for stiff friction, nothing is gained from the exact OU part (004 Remark 4.2.5).
///
/// # Errors
/// Construction: [`ConfigError::StepSize`], and as [`GlaParams::validate`]. Steps: as
/// [`StochasticIntegrator::step_noisy`].
///
/// Each step draws `N` standard normals `ξ` ([`Normal::vector`], `2⌈N/2⌉` calls of `next_u64`);
/// [`StochasticIntegrator::step_with_noise`] takes them pre-drawn, so a caller can reuse a
/// Brownian path across step sizes: the OU increments of `k` sub-steps of size `h/k` aggregate
/// exactly into one increment of size `h` (see the `sim-langevin` reproduction). The guards
/// measure no energy ([`NoProbe`]: the dynamics are stochastic); finiteness, the velocity guard
/// and the clock apply.
///
/// ```
/// use macrostep::langevin::{Gla, GlaParams, StochasticIntegrator};
/// use macrostep::systems::HarmonicOscillator;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0).unwrap();
/// let params = GlaParams { friction: 0.5, inverse_temperature: 10.0 };
/// let mut gla = Gla::new(osc.system(), 0.01, params).unwrap();
/// let mut rng = Pcg32::seed_from_u64(1);
/// let mut s = osc.initial_state();
/// gla.integrate_noisy(&mut s, 100, &mut rng).unwrap();
/// assert!((s.t - 1.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Gla<T: Real, P, const N: usize> {
    system: System<T, P, N>,
    h: T,
    decay: T,
    sd: T,
    /// `L⁻ᵀ` with `M = L Lᵀ` (velocity noise factor).
    lt_inv: SMatrix<T, N, N>,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> Gla<T, P, N> {
    /// GLA (eq 6.3) for `system` with step `h`, friction `c ≥ 0` and inverse temperature
    /// `β > 0` (`params`).
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(system: System<T, P, N>, h: T, params: GlaParams<T>) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let GlaParams {
            friction,
            inverse_temperature: beta,
        } = params.validate()?;
        let decay = (-friction * h).exp();
        let sd = (-(-(friction + friction) * h).exp_m1() / beta).sqrt();
        let lt = system.mass.cholesky_factor().transpose();
        let lt_inv = lt
            .solve_upper_triangular(&SMatrix::identity())
            .ok_or(ConfigError::NotPositiveDefinite { name: "mass" })?;
        Ok(Self {
            watch: Watch::default(),
            system,
            h,
            decay,
            sd,
            lt_inv,
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> Guarded<T, N> for Gla<T, P, N> {
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> NoisyMethod<T, N> for Gla<T, P, N> {
    const DETERMINISTIC_ORDER: u32 = 1;

    /// The standard normals `ξ`, one per degree of freedom.
    type Noise = SVector<T, N>;

    /// Draws `N` standard normals ([`Normal::vector`], `2⌈N/2⌉` calls of `next_u64`).
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> SVector<T, N> {
        Normal::vector::<T, R, N>(rng)
    }

    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        xi: &SVector<T, N>,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let h = self.h;
        let vh = state.v * self.decay + self.lt_inv * xi * self.sd;
        next.q = state.q + vh * h;
        next.v = vh + self.system.acceleration(&next.q) * h;
        Ok(T::zero())
    }
}
