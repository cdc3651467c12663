//! Euler–Maruyama for stiff SDEs as a (random) legacy map, 004 eqs 2.64, 2.76, 2.77.

use super::explicit_euler::{OdeEuler, OdeIncrement};
use super::Stiffness;
use crate::langevin::Normal;
use crate::sealed::Sealed;
use crate::validate::check_nonnegative;
#[cfg(doc)]
use crate::StepError;
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};
use rand_core::Rng;

/// A stiff SDE `du = [G(t, u) + α F(c, u)] dt + [H(t, u) + √α K(c, u)] dW` on `ℝᴰ` with a
/// `D`-dimensional Brownian motion (004 eqs 2.59, 2.73): soft drift and diffusion at real time
/// `t`, stiff ones at the fast clock `c`.
pub trait StiffSde<T: Real, const D: usize> {
    /// Soft drift `G(t, u)`.
    fn soft_drift(&self, t: T, u: &SVector<T, D>) -> SVector<T, D>;
    /// Stiff drift `F(c, u)` (without `α`).
    fn stiff_drift(&self, clock: T, u: &SVector<T, D>) -> SVector<T, D>;
    /// Soft diffusion `H(t, u)` (`D × D`).
    fn soft_diffusion(&self, t: T, u: &SVector<T, D>) -> SMatrix<T, D, D>;
    /// Stiff diffusion `K(c, u)` (without `√α`).
    fn stiff_diffusion(&self, clock: T, u: &SVector<T, D>) -> SMatrix<T, D, D>;
}

/// Euler–Maruyama with a stiffness switch (004 eq 2.64):
/// `Φ_h^α(u, ω) = u + h[G + αF] + √h [H + √α K] ξ(ω)`, `ξ ~ N(0, I)`, with `α = 0` when off.
/// The map owns its RNG, so each call draws fresh, independent normals (`ω_k`, `ω'_k` of
/// eq 2.77): the nonintrusive FLAVOR over this map *is* the SDE FLAVOR (2.77).
///
/// Strong order ½, weak order 1. Only forward steps (`h > 0`); no adjoint. The SDE's state `u`
/// is the position `q` of a [`State`] (`v` is not used: keep it zero), as for
/// [`ExplicitEuler`](super::ExplicitEuler). Because the map owns its RNG, the FLAVOR over it is
/// an [`Integrator`](crate::Integrator) (its noise is internal), not a
/// [`StochasticIntegrator`](crate::StochasticIntegrator).
///
/// # Errors
/// Construction: [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] `{ name: "alpha" }`.
/// Step: [`StepError::StepSize`] for `h < 0`; nothing else is checked (the FLAVOR over it is).
/// The RNG advances on every step, also one whose FLAVOR step then fails.
///
/// ```
/// use macrostep::flavor::{EulerMaruyama, Nonintrusive, Params, StiffSde};
/// use macrostep::{Integrator, State};
/// use nalgebra::{vector, SMatrix, SVector};
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// struct Ou; // du = −α u dt + √(2α) dW
/// impl StiffSde<f64, 1> for Ou {
///     fn soft_drift(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> { vector![0.0] }
///     fn stiff_drift(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> { -u }
///     fn soft_diffusion(&self, _: f64, _: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> { SMatrix::zeros() }
///     fn stiff_diffusion(&self, _: f64, _: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
///         SMatrix::from_element(2f64.sqrt())
///     }
/// }
/// let em = EulerMaruyama::new(Ou, 100.0, Pcg32::seed_from_u64(9))?;
/// // The SDE FLAVOR (eq 2.77): the map's RNG draws fresh noise for every stiff sub-step.
/// let mut flavor = Nonintrusive::new(em, Params::new(0.01, 1e-3)?)?;
/// let mut s = State::at_rest(vector![1.0]); // u = q
/// flavor.integrate(&mut s, 100)?;
/// assert!((s.t - 1.0).abs() < 1e-12 && s.q[0].is_finite() && s.q[0] != 1.0);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub type EulerMaruyama<T, F, R, const D: usize> = OdeEuler<MaruyamaScheme<T, F, R>, D>;

/// The increment of [`EulerMaruyama`]: the SDE, its "on" stiffness and the RNG.
#[derive(Clone, Debug)]
pub struct MaruyamaScheme<T, F, R> {
    sde: F,
    on: T,
    root_on: T,
    rng: R,
}

impl<T: Real, F: StiffSde<T, D>, R: Rng, const D: usize> EulerMaruyama<T, F, R, D> {
    /// Euler–Maruyama for `sde` with "on" stiffness `alpha` (`1/ε`), drawing from `rng`.
    ///
    /// # Errors
    /// `"alpha"` non-finite or negative.
    pub fn new(sde: F, alpha: T, rng: R) -> Result<Self, ConfigError> {
        check_nonnegative(alpha, "alpha")?;
        Ok(OdeEuler::from_scheme(MaruyamaScheme {
            sde,
            on: alpha,
            root_on: alpha.sqrt(),
            rng,
        }))
    }

    /// The RNG (e.g. to reseed it).
    pub fn rng_mut(&mut self) -> &mut R {
        &mut self.scheme_mut().rng
    }
}

impl<T, F, R> Sealed for MaruyamaScheme<T, F, R> {}

impl<T: Real, F: StiffSde<T, D>, R: Rng, const D: usize> OdeIncrement<T, D>
    for MaruyamaScheme<T, F, R>
{
    const FORWARD_ONLY: bool = true;

    /// Draws the `D` normals `ξ` (also on a step that then fails: the RNG advances).
    #[inline]
    fn next(&mut self, x: &State<T, D>, h: T, stiffness: Stiffness<T>) -> SVector<T, D> {
        let xi = Normal::vector::<T, R, D>(&mut self.rng);
        let (t, u) = (x.t, &x.q);
        let mut drift = self.sde.soft_drift(t, u);
        let mut diff = self.sde.soft_diffusion(t, u);
        if let Stiffness::On { clock } = stiffness {
            drift += self.sde.stiff_drift(clock, u) * self.on;
            diff += self.sde.stiff_diffusion(clock, u) * self.root_on;
        }
        u + drift * h + diff * xi * h.sqrt()
    }
}
