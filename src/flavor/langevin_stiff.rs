//! Langevin FLAVOR with stiff friction and noise, 004 eqs 2.89 (and symmetric 2.91).

use super::{symmetric_core, velocity_ou, LegacyMap, Params, NEEDS_ADJOINT};
use crate::guard::{NoProbe, Watch};
use crate::langevin::{DiagonalOu, StochasticIntegrator};
use crate::model::Mass;
use crate::validate::check_step_input;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;
use rand_core::Rng;

/// Langevin FLAVOR for stiff friction and noise (004 eq 2.82: `dp = −∇V dt − ε⁻¹∇U dt −
/// (c/ε) p dt + √(1/ε) σ dW`), with `Ψ^α_h` the exact Ornstein–Uhlenbeck flow of
/// `dpᵢ = −α cᵢ pᵢ dt + √α σᵢ dWᵢ` (diagonal mass; `α` the friction's stiffness, e.g. `1/ε`):
///
/// ```text
/// plain (2.89):      Θ_δ = Φ⁰_{δ−τ} ∘ Φ^{1/ε}_τ ∘ Ψ^α_τ
/// symmetric (2.91):  Θ_δ = Ψ^α_{τ/2} ∘ Φ^{1/ε,*}_{τ/2} ∘ Φ^{0,*}_{(δ−τ)/2} ∘ Φ⁰_{(δ−τ)/2} ∘ Φ^{1/ε}_{τ/2} ∘ Ψ^α_{τ/2}
/// ```
///
/// The stiff friction and noise act only during the micro-step, on the fast clock, like the stiff
/// force. Properties (Theorem 2.4.1): quasi-symplectic; with a symplectic legacy map the Jacobian
/// determinant of a step (noise fixed) is `Πᵢ e^{−α cᵢ τ}`. Draws `N` (plain) or `2N` (symmetric)
/// normals per step.
///
/// # Errors
/// As [`LangevinSoft`](super::LangevinSoft), plus `"alpha"` (the friction stiffness) negative or
/// non-finite as [`ConfigError::OutOfRange`] / [`ConfigError::NonFinite`].
///
/// ```
/// use macrostep::{baselines::{Ordering, SymplecticEuler}, flavor::{LangevinStiff, Params, Switched},
///                 langevin::StochasticIntegrator, systems::TwoSpring};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-4, Ordering::KickDrift).unwrap();
/// // Friction 1e4·0.1 and noise 100·1 on the first mass only (degenerate noise, §2.6.9).
/// let mut f = LangevinStiff::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-4).unwrap(),
///                                &model.system().mass, vector![0.1, 0.0], vector![1.0, 0.0], 1e4).unwrap();
/// let mut s = model.initial_state();
/// f.integrate_with(&mut s, 100, &mut Pcg32::seed_from_u64(3)).unwrap();
/// assert!(s.is_finite());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LangevinStiff<T: Real, L, const N: usize> {
    legacy: L,
    params: Params<T>,
    symmetric: bool,
    ou: DiagonalOu<T, N>,
    watch: Watch<T, N>,
}

impl<T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize> LangevinStiff<T, L, N> {
    /// The plain form (eq 2.89).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(
        legacy: L,
        params: Params<T>,
        mass: &Mass<T, N>,
        friction: SVector<T, N>,
        noise: SVector<T, N>,
        alpha: T,
    ) -> Result<Self, ConfigError> {
        params.validate()?;
        Ok(Self {
            watch: Watch::default(),
            legacy,
            params,
            symmetric: false,
            ou: velocity_ou(mass, &friction, &noise, alpha, params.tau)?,
        })
    }

    /// The symmetric form (eq 2.91).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn symmetric(
        legacy: L,
        params: Params<T>,
        mass: &Mass<T, N>,
        friction: SVector<T, N>,
        noise: SVector<T, N>,
        alpha: T,
    ) -> Result<Self, ConfigError> {
        params.validate()?;
        if !legacy.has_adjoint() {
            return Err(ConfigError::Inconsistent {
                name: NEEDS_ADJOINT,
            });
        }
        Ok(Self {
            watch: Watch::default(),
            legacy,
            params,
            symmetric: true,
            ou: velocity_ou(mass, &friction, &noise, alpha, params.tau * T::lit(0.5))?,
        })
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize]
    LangevinStiff<T, L, N> => params.delta
);

impl<T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize> StochasticIntegrator<T, N>
    for LangevinStiff<T, L, N>
{
    const DETERMINISTIC_ORDER: u32 = 1;

    fn step<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        rng: &mut R,
    ) -> Result<(), StepError> {
        check_step_input(state, self.params.delta)?;
        let (delta, tau) = (self.params.delta, self.params.tau);
        let clock = self.params.clock(state.t);
        let mut x = *state;
        x.v = self.ou.sample(&x.v, rng);
        if self.symmetric {
            symmetric_core(&mut self.legacy, &mut x, delta, tau, clock)?;
            x.v = self.ou.sample(&x.v, rng);
        } else {
            self.legacy.flavor_step(&mut x, delta, tau, clock)?;
        }
        self.watch.commit(state, &x, delta, &NoProbe)
    }
}
