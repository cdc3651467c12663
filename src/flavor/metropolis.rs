//! The Metropolis-adjusted FLAVOR, 004 §2.4.6.

use super::{velocity_ou, LegacyMap, Symmetric};
use crate::driver::{Guarded, Method, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::langevin::{DiagonalOu, Normal};
use crate::model::{Potential, Split, System};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;
use rand_core::Rng;

/// Metropolis-adjusted FLAVOR (004 §2.4.6): the symmetric FLAVOR (eq 2.47) as a proposal,
/// accepted or rejected with a momentum flip on rejection, between two exact Ornstein–Uhlenbeck
/// half-steps at inverse temperature `β` (the Metropolis-adjusted GLA of Bou-Rabee &
/// Vanden-Eijnden, FLAVORized):
///
/// ```text
/// v ← Ψ_{δ/2}(v)                                  (exact OU, friction c, σ² = 2cm/β)
/// x* = Θ_δ(x);  accept with probability min(1, exp(−β[H̄(x*) − H̄(x)]));  else v ← −v
/// v ← Ψ_{δ/2}(v)
/// ```
///
/// **Which Boltzmann–Gibbs.** The symmetric FLAVOR applies the stiff force only for `τ` per step
/// `δ`: it is a consistent, symplectic, time-reversible integrator of the *effective*
/// Hamiltonian `H̄ = ½vᵀMv + V + (τ/δ)·α U` (Remark 2.4.4: FLAVOR's invariant measure is that of
/// an effective Hamiltonian), whose energy it nearly conserves; against the stiff `H` itself the
/// energy error of a FLAVOR step is `O(α U)` and nearly every proposal would be rejected. This
/// method therefore samples `exp(−βH̄)` *exactly* (detailed balance holds for any δ, τ): the
/// proposal `F∘Θ_δ` (`F` the momentum flip) is a volume-preserving involution when the legacy map
/// is symplectic and `F Φ_h F = Φ_{−h}` (symplectic Euler, Verlet). Marginals of `exp(−βH̄)` and
/// `exp(−βH)` agree on slow variables that decouple from the stiff coordinates, and to
/// `O(δ/(τα))` otherwise.
///
/// Properties: unbiased for `exp(−βH̄)`, stochastically stable (a rejected proposal cannot blow
/// up), ergodic with non-degenerate noise; [`Metropolis::acceptance_rate`] reports the fraction of
/// accepted proposals over the committed steps. Draws `2N + 1` random numbers per step: the noise
/// of a step ([`MetropolisNoise`]) is the normals of the first OU half-step, the uniform of the
/// acceptance test and the normals of the second half-step, drawn in that order.
///
/// It steps through [`StochasticIntegrator`](crate::StochasticIntegrator) (`step_noisy`,
/// `integrate_noisy`, `step_with_noise`); the symmetric FLAVOR inside is used as a proposal
/// only (its own guards are not consulted). The guards check finiteness, the clock and the
/// velocity guard (when on): a sampler at a temperature conserves no energy.
///
/// # Errors
/// Construction: [`ConfigError::OutOfRange`] `{ name: "inverse_temperature" }` (not positive), `"friction"`
/// negative or non-finite, and [`ConfigError::Inconsistent`] for a full mass matrix. Step: as
/// [`StochasticIntegrator::step_with_noise`](crate::StochasticIntegrator::step_with_noise); a
/// proposal that fails (a legacy map's error, a non-finite result) is rejected, not reported. The
/// state is unchanged on error.
///
/// ```
/// use macrostep::{baselines::{EulerOrdering, SymplecticEuler}, flavor::{Metropolis, Params, Switched, Symmetric},
///                 systems::TwoSpring, StochasticIntegrator};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-3, EulerOrdering::KickDrift).unwrap();
/// let flavor = Symmetric::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-3).unwrap()).unwrap();
/// let mut mh = Metropolis::new(flavor, model.system(), vector![1.0, 1.0], 1.0).unwrap();
/// let mut s = model.initial_state();
/// mh.integrate_noisy(&mut s, 200, &mut Pcg32::seed_from_u64(5)).unwrap();
/// assert!(mh.acceptance_rate() > 0.5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Metropolis<T: Real, L, V, U, const N: usize> {
    flavor: Symmetric<T, L, N>,
    effective: System<T, Split<T, V, U>, N>,
    inverse_temperature: T,
    ou: DiagonalOu<T, N>,
    proposed: u64,
    accepted: u64,
    /// Whether the last proposal was accepted (counted when its step is committed).
    last_accepted: bool,
    watch: Watch<T, N>,
}

/// The noise one step of a [`Metropolis`] consumes, in the order it is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetropolisNoise<T: Real, const N: usize> {
    /// Standard normals of the first OU half-step.
    pub first: SVector<T, N>,
    /// The uniform in `(0, 1]` of the acceptance test ([`Normal::uniform_open0`]).
    pub uniform: T,
    /// Standard normals of the second OU half-step.
    pub second: SVector<T, N>,
}

impl<T: Real, L, V, U, const N: usize> Metropolis<T, L, V, U, N>
where
    L: LegacyMap<T, N>,
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    /// The Metropolis-adjusted `flavor` for `system` (whose split's `alpha` is the stiffness the
    /// FLAVOR turns on), per-component friction `friction` at inverse temperature `inverse_temperature` (β).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(
        flavor: Symmetric<T, L, N>,
        system: System<T, Split<T, V, U>, N>,
        friction: SVector<T, N>,
        inverse_temperature: T,
    ) -> Result<Self, ConfigError> {
        crate::validate::check_in_positive_range(inverse_temperature, "inverse_temperature")?;
        let p = *flavor.params();
        let m = system.mass.as_diagonal().ok_or(ConfigError::Inconsistent {
            name: "Langevin FLAVOR needs a diagonal mass",
        })?;
        // σᵢ² = 2cᵢmᵢ/β (fluctuation–dissipation).
        let mut noise = SVector::zeros();
        for i in 0..N {
            if !(friction[i].finite() && friction[i] >= T::zero()) {
                return Err(ConfigError::OutOfRange {
                    name: "friction",
                    bound: ">= 0",
                });
            }
            noise[i] = (T::lit(2.0) * friction[i] * m[i] / inverse_temperature).sqrt();
        }
        let ou = velocity_ou(
            &system.mass,
            &friction,
            &noise,
            T::one(),
            p.delta * T::lit(0.5),
        )?;
        let mut effective = system;
        effective.potential.alpha *= p.tau / p.delta;
        Ok(Self {
            watch: Watch::default(),
            flavor,
            effective,
            inverse_temperature,
            ou,
            proposed: 0,
            accepted: 0,
            last_accepted: false,
        })
    }

    /// The effective Hamiltonian `H̄ = ½vᵀMv + V + (τ/δ)αU` whose Boltzmann–Gibbs is sampled.
    pub fn effective_energy(&self, s: &State<T, N>) -> T {
        self.effective.energy(s)
    }

    /// Accepted / proposed moves over the committed steps so far (zero before the first step).
    pub fn acceptance_rate(&self) -> f64 {
        if self.proposed == 0 {
            0.0
        } else {
            self.accepted as f64 / self.proposed as f64
        }
    }

    /// Resets the acceptance counters.
    pub fn reset_counters(&mut self) {
        self.proposed = 0;
        self.accepted = 0;
    }
}

impl<T: Real, L, V, U, const N: usize> Guarded<T, N> for Metropolis<T, L, V, U, N>
where
    L: LegacyMap<T, N>,
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    /// The FLAVOR's meso-step `δ`.
    fn step_size(&self) -> T {
        self.flavor.params().delta
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }

    /// Counts the committed step's proposal.
    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.proposed += 1;
        if self.last_accepted {
            self.accepted += 1;
        }
    }
}

impl<T: Real, L, V, U, const N: usize> NoisyMethod<T, N> for Metropolis<T, L, V, U, N>
where
    L: LegacyMap<T, N>,
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    const DETERMINISTIC_ORDER: u32 = 1;

    type Noise = MetropolisNoise<T, N>;

    /// `N` normals, one uniform ([`Normal::uniform_open0`], one `next_u64`), `N` normals.
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> MetropolisNoise<T, N> {
        let first = Normal::vector::<T, R, N>(rng);
        let uniform = T::lit(Normal::uniform_open0(rng));
        let second = Normal::vector::<T, R, N>(rng);
        MetropolisNoise {
            first,
            uniform,
            second,
        }
    }

    #[inline]
    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        noise: &MetropolisNoise<T, N>,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let delta = self.flavor.params().delta;
        next.v = self.ou.apply(&state.v, &noise.first);
        let h0 = self.effective.energy(next);
        let mut y = *next;
        let ok = self.flavor.propose(next, delta, &mut y).is_ok();
        let accept = ok && {
            let dh = self.effective.energy(&y) - h0;
            dh.finite() && (dh <= T::zero() || noise.uniform.ln() < -self.inverse_temperature * dh)
        };
        self.last_accepted = accept;
        if accept {
            next.q = y.q;
            next.v = y.v;
        } else {
            next.v = -next.v;
        }
        next.v = self.ou.apply(&next.v, &noise.second);
        Ok(T::zero())
    }
}
