//! The Metropolis-adjusted FLAVOR, 004 §2.4.6.

use super::{velocity_ou, LegacyMap, Symmetric};
use crate::guard::{NoProbe, Watch};
use crate::langevin::{DiagonalOu, Normal, StochasticIntegrator};
use crate::model::{Potential, Split, System};
use crate::validate::check_step_input;
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
/// accepted proposals. Draws `2N + 1` random numbers per step.
///
/// # Errors
/// Construction: [`ConfigError::OutOfRange`] `{ name: "beta" }` (not positive), `"friction"`
/// negative or non-finite, and [`ConfigError::Inconsistent`] for a full mass matrix. Step:
/// [`StepError::NonFiniteState`] for a non-finite input; a proposal that fails (a non-finite
/// result) is rejected, not reported. The state is unchanged on error.
///
/// ```
/// use macrostep::{baselines::{Ordering, SymplecticEuler}, flavor::{Metropolis, Params, Switched, Symmetric},
///                 langevin::StochasticIntegrator, systems::TwoSpring};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-3, Ordering::KickDrift).unwrap();
/// let flavor = Symmetric::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-3).unwrap()).unwrap();
/// let mut mh = Metropolis::new(flavor, model.system(), vector![1.0, 1.0], 1.0).unwrap();
/// let mut s = model.initial_state();
/// mh.integrate(&mut s, 200, &mut Pcg32::seed_from_u64(5)).unwrap();
/// assert!(mh.acceptance_rate() > 0.5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Metropolis<T: Real, L, V, U, const N: usize> {
    flavor: Symmetric<T, L>,
    effective: System<T, Split<T, V, U>, N>,
    beta: T,
    ou: DiagonalOu<T, N>,
    proposed: u64,
    accepted: u64,
    watch: Watch<T, N>,
}

impl<T: Real, L, V, U, const N: usize> Metropolis<T, L, V, U, N>
where
    L: LegacyMap<T, State = State<T, N>>,
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    /// The Metropolis-adjusted `flavor` for `system` (whose split's `alpha` is the stiffness the
    /// FLAVOR turns on), per-component friction `friction` at inverse temperature `beta`.
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(
        flavor: Symmetric<T, L>,
        system: System<T, Split<T, V, U>, N>,
        friction: SVector<T, N>,
        beta: T,
    ) -> Result<Self, ConfigError> {
        crate::validate::check_in_positive_range(beta, "beta")?;
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
            noise[i] = (T::lit(2.0) * friction[i] * m[i] / beta).sqrt();
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
            beta,
            ou,
            proposed: 0,
            accepted: 0,
        })
    }

    /// The effective Hamiltonian `H̄ = ½vᵀMv + V + (τ/δ)αU` whose Boltzmann–Gibbs is sampled.
    pub fn effective_energy(&self, s: &State<T, N>) -> T {
        self.effective.energy(s)
    }

    /// Accepted / proposed moves so far (zero before the first step).
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

crate::integrator::impl_stepper!(
    impl[T: Real, L, V, U, const N: usize]
    Metropolis<T, L, V, U, N>
    where [L: LegacyMap<T, State = State<T, N>>, V: Potential<T, N>, U: Potential<T, N>]
    => flavor.step_size()
);

impl<T: Real, L, V, U, const N: usize> StochasticIntegrator<T, N> for Metropolis<T, L, V, U, N>
where
    L: LegacyMap<T, State = State<T, N>>,
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    const DETERMINISTIC_ORDER: u32 = 1;

    fn step<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        rng: &mut R,
    ) -> Result<(), StepError> {
        let delta = self.flavor.params().delta;
        check_step_input(state, delta)?;
        let mut x = *state;
        x.v = self.ou.sample(&x.v, rng);
        let h0 = self.effective.energy(&x);
        let mut y = x;
        let ok = self.flavor.step(&mut y).is_ok();
        let u = T::lit(Normal::uniform_open0(rng));
        self.proposed += 1;
        let accept = ok && {
            let dh = self.effective.energy(&y) - h0;
            dh.finite() && (dh <= T::zero() || u.ln() < -self.beta * dh)
        };
        if accept {
            self.accepted += 1;
            x = y;
        } else {
            x.v = -x.v;
            x.t = state.t + delta;
        }
        x.v = self.ou.sample(&x.v, rng);
        self.watch.commit(state, &x, delta, &NoProbe)
    }
}
