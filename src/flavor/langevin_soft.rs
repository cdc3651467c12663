//! Langevin FLAVOR with soft friction and noise, 004 eqs 2.88 (and symmetric 2.90).

use super::{symmetric_core, velocity_ou, LegacyMap, Params, Stiffness, NEEDS_ADJOINT};
use crate::guard::{NoProbe, Watch};
use crate::langevin::{DiagonalOu, StochasticIntegrator};
use crate::model::Mass;
use crate::validate::check_step_input;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;
use rand_core::Rng;

/// Langevin FLAVOR for soft friction and noise (004 eq 2.81: `dp = −∇V dt − ε⁻¹∇U dt − c p dt
/// + σ dW`), with `Ψ_h` the exact Ornstein–Uhlenbeck flow of `dpᵢ = −cᵢ pᵢ dt + σᵢ dWᵢ` (diagonal
/// mass, per-component `c`, `σ`):
///
/// ```text
/// plain (2.88):      Θ_δ = Φ⁰_{δ−τ} ∘ Ψ_{δ−τ} ∘ Φ^{1/ε}_τ ∘ Ψ_τ
/// symmetric (2.90):  Θ_δ = Ψ_{δ/2} ∘ Φ^{1/ε,*}_{τ/2} ∘ Φ^{0,*}_{(δ−τ)/2} ∘ Φ⁰_{(δ−τ)/2} ∘ Φ^{1/ε}_{τ/2} ∘ Ψ_{δ/2}
/// ```
///
/// (the thesis prints the stiff steps of 2.90 with `ε/2`; they last `τ/2`, as in 2.47). The
/// friction acts over the whole step `δ`: soft friction does not need the micro-step.
///
/// Properties (Theorem 2.4.1): quasi-symplectic; conformally symplectic when the legacy map is
/// symplectic — the Jacobian determinant of a step (noise fixed) is `Πᵢ e^{−cᵢδ}`; the slow
/// variables' moments converge weakly (§2.6.8). Draws `2N` normals per step (`N` per OU flow).
///
/// # Errors
/// Construction: as [`Params::new`]; [`ConfigError::Inconsistent`]
/// `{ name: "Langevin FLAVOR needs a diagonal mass" }` for a full mass matrix; `"friction"`,
/// `"noise"` negative or non-finite; for the symmetric form, `{ name: NEEDS_ADJOINT }`. Step:
/// [`StepError::NonFiniteState`], [`StepError::NonFiniteResult`] and the legacy map's errors; the
/// state is unchanged on error (the RNG has advanced).
///
/// ```
/// use macrostep::{baselines::{Ordering, SymplecticEuler}, flavor::{LangevinSoft, Params, Switched},
///                 langevin::StochasticIntegrator, systems::TwoSpring};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-3, Ordering::KickDrift).unwrap();
/// let mut f = LangevinSoft::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-3).unwrap(),
///                               &model.system().mass, vector![0.1, 0.1], vector![0.5, 0.5]).unwrap();
/// let mut s = model.initial_state();
/// let mut rng = Pcg32::seed_from_u64(1);
/// f.integrate(&mut s, 100, &mut rng).unwrap();
/// assert!((s.t - 1.0).abs() < 1e-12 && s.is_finite());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LangevinSoft<T: Real, L, const N: usize> {
    legacy: L,
    params: Params<T>,
    symmetric: bool,
    first: DiagonalOu<T, N>,
    second: DiagonalOu<T, N>,
    watch: Watch<T, N>,
}

impl<T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize> LangevinSoft<T, L, N> {
    /// The plain form (eq 2.88).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(
        legacy: L,
        params: Params<T>,
        mass: &Mass<T, N>,
        friction: SVector<T, N>,
        noise: SVector<T, N>,
    ) -> Result<Self, ConfigError> {
        params.validate()?;
        Ok(Self {
            watch: Watch::default(),
            legacy,
            params,
            symmetric: false,
            first: velocity_ou(mass, &friction, &noise, T::one(), params.tau)?,
            second: velocity_ou(mass, &friction, &noise, T::one(), params.delta - params.tau)?,
        })
    }

    /// The symmetric form (eq 2.90).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn symmetric(
        legacy: L,
        params: Params<T>,
        mass: &Mass<T, N>,
        friction: SVector<T, N>,
        noise: SVector<T, N>,
    ) -> Result<Self, ConfigError> {
        params.validate()?;
        if !legacy.has_adjoint() {
            return Err(ConfigError::Inconsistent {
                name: NEEDS_ADJOINT,
            });
        }
        let half = velocity_ou(
            mass,
            &friction,
            &noise,
            T::one(),
            params.delta * T::lit(0.5),
        )?;
        Ok(Self {
            watch: Watch::default(),
            legacy,
            params,
            symmetric: true,
            first: half,
            second: half,
        })
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize]
    LangevinSoft<T, L, N> => params.delta
);

impl<T: Real, L: LegacyMap<T, State = State<T, N>>, const N: usize> StochasticIntegrator<T, N>
    for LangevinSoft<T, L, N>
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
        x.v = self.first.sample(&x.v, rng);
        if self.symmetric {
            symmetric_core(&mut self.legacy, &mut x, delta, tau, clock)?;
            x.v = self.second.sample(&x.v, rng);
        } else {
            self.legacy.step(&mut x, tau, Stiffness::On { clock })?;
            x.v = self.second.sample(&x.v, rng);
            self.legacy.step(&mut x, delta - tau, Stiffness::Off)?;
        }
        self.watch.commit(state, &x, delta, &NoProbe)
    }
}
