//! Langevin FLAVORs, 004 eqs 2.88–2.91: soft friction and noise ([`LangevinSoft`], eqs 2.88 and
//! symmetric 2.90) or stiff friction and noise ([`LangevinStiff`], eqs 2.89 and symmetric 2.91).
//!
//! Both are the same method: a FLAVOR step of the legacy map between exact Ornstein–Uhlenbeck
//! flows `Ψ` of the velocities. They differ only in where the friction acts — over the whole
//! meso-step `δ` (soft) or only during the micro-step `τ`, on the fast clock (stiff) — so they are
//! one struct, [`LangevinFlavor`], with the placement as its strategy parameter
//! ([`SoftFriction`], [`StiffFriction`]) and the two names as aliases (the `VecInner`/alias
//! pattern of heapless).

use super::{symmetric_core, velocity_ou, LegacyMap, Params, Stiffness, NEEDS_ADJOINT};
use crate::driver::{Guarded, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::langevin::{DiagonalOu, Normal};
use crate::model::Mass;
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use core::marker::PhantomData;
use nalgebra::SVector;
use rand_core::Rng;

#[doc(hidden)]
/// Where the friction and noise of a [`LangevinFlavor`] act; implemented by [`SoftFriction`]
/// and [`StiffFriction`] (sealed).
pub trait FrictionPlacement: sealed::Sealed {
    /// Whether the friction acts only during the micro-step (stiff) rather than over the whole
    /// step (soft).
    const STIFF: bool;

    /// The durations of the first OU flow and, when it differs from the first, of the second.
    #[doc(hidden)]
    fn ou_durations<T: Real>(params: &Params<T>, symmetric: bool) -> (T, Option<T>);
}

/// Soft friction and noise: the OU flows last `τ` and `δ − τ` (plain) or `δ/2` (symmetric).
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftFriction;

/// Stiff friction and noise: one OU flow of `τ` (plain) or `τ/2` on each side (symmetric).
#[derive(Clone, Copy, Debug, Default)]
pub struct StiffFriction;

impl sealed::Sealed for SoftFriction {}
impl sealed::Sealed for StiffFriction {}

impl FrictionPlacement for SoftFriction {
    const STIFF: bool = false;

    fn ou_durations<T: Real>(p: &Params<T>, symmetric: bool) -> (T, Option<T>) {
        if symmetric {
            (p.delta * T::lit(0.5), None)
        } else {
            (p.tau, Some(p.delta - p.tau))
        }
    }
}

impl FrictionPlacement for StiffFriction {
    const STIFF: bool = true;

    fn ou_durations<T: Real>(p: &Params<T>, symmetric: bool) -> (T, Option<T>) {
        if symmetric {
            (p.tau * T::lit(0.5), None)
        } else {
            (p.tau, None)
        }
    }
}

/// A Langevin FLAVOR with friction placement `K`: the common body of [`LangevinSoft`] and
/// [`LangevinStiff`] (see those for the equations, properties and errors).
#[derive(Clone, Copy, Debug)]
pub struct LangevinFlavor<T: Real, L, K, const N: usize> {
    legacy: L,
    params: Params<T>,
    symmetric: bool,
    first: DiagonalOu<T, N>,
    second: DiagonalOu<T, N>,
    watch: Watch<T, N>,
    placement: PhantomData<K>,
}

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
/// variables' moments converge weakly (§2.6.8). Draws `2N` normals per step (`N` per OU flow):
/// the noise of a step ([`StochasticIntegrator::Noise`](crate::StochasticIntegrator::Noise)) is
/// `[ξ₁, ξ₂]`, the standard normals of the first and the second OU flow.
///
/// It steps through [`StochasticIntegrator`](crate::StochasticIntegrator) (`step_noisy`,
/// `integrate_noisy`, `step_with_noise`). Stochastic dynamics conserve no energy: the guards
/// check finiteness, the clock and the velocity guard (when on) only.
///
/// # Errors
/// Construction: as [`Params::validate`]; [`ConfigError::Inconsistent`]
/// `{ name: "Langevin FLAVOR needs a diagonal mass" }` for a full mass matrix; `"friction"`,
/// `"noise"` negative or non-finite; for the symmetric form, `{ name: NEEDS_ADJOINT }`. Step: as
/// [`StochasticIntegrator::step_with_noise`](crate::StochasticIntegrator::step_with_noise) and
/// the legacy map's errors; the state is unchanged on error (the RNG has advanced).
///
/// ```
/// use macrostep::{baselines::{EulerOrdering, SymplecticEuler}, flavor::{LangevinSoft, Params, Switched},
///                 systems::TwoSpring, StochasticIntegrator};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-3, EulerOrdering::KickDrift).unwrap();
/// let mut f = LangevinSoft::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-3).unwrap(),
///                               &model.system().mass, vector![0.1, 0.1], vector![0.5, 0.5]).unwrap();
/// let mut s = model.initial_state();
/// let mut rng = Pcg32::seed_from_u64(1);
/// f.integrate_noisy(&mut s, 100, &mut rng).unwrap();
/// assert!((s.t - 1.0).abs() < 1e-12 && s.is_finite());
/// ```
pub type LangevinSoft<T, L, const N: usize> = LangevinFlavor<T, L, SoftFriction, N>;

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
/// normals per step: the noise of a step is `[ξ₁, ξ₂]` as for [`LangevinSoft`], with `ξ₂` zero
/// (not drawn) in the plain form.
///
/// # Errors
/// As [`LangevinSoft`], plus `"alpha"` (the friction stiffness) negative or non-finite as
/// [`ConfigError::OutOfRange`] / [`ConfigError::NonFinite`].
///
/// ```
/// use macrostep::{baselines::{EulerOrdering, SymplecticEuler}, flavor::{LangevinStiff, Params, Switched},
///                 systems::TwoSpring, StochasticIntegrator};
/// use nalgebra::vector;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let model = TwoSpring::<f64>::paper();
/// let se = SymplecticEuler::new(model.system(), 1e-4, EulerOrdering::KickDrift).unwrap();
/// // Friction 1e4·0.1 and noise 100·1 on the first mass only (degenerate noise, §2.6.9).
/// let mut f = LangevinStiff::new(Switched::symplectic_euler(se).unwrap(), Params::new(0.01, 1e-4).unwrap(),
///                                &model.system().mass, vector![0.1, 0.0], vector![1.0, 0.0], 1e4).unwrap();
/// let mut s = model.initial_state();
/// f.integrate_noisy(&mut s, 100, &mut Pcg32::seed_from_u64(3)).unwrap();
/// assert!(s.is_finite());
/// ```
pub type LangevinStiff<T, L, const N: usize> = LangevinFlavor<T, L, StiffFriction, N>;

impl<T: Real, L: LegacyMap<T, N>, const N: usize> LangevinSoft<T, L, N> {
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
        Self::build(legacy, params, false, |h| {
            velocity_ou(mass, &friction, &noise, T::one(), h)
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
        Self::build(legacy, params, true, |h| {
            velocity_ou(mass, &friction, &noise, T::one(), h)
        })
    }
}

impl<T: Real, L: LegacyMap<T, N>, const N: usize> LangevinStiff<T, L, N> {
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
        Self::build(legacy, params, false, |h| {
            velocity_ou(mass, &friction, &noise, alpha, h)
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
        Self::build(legacy, params, true, |h| {
            velocity_ou(mass, &friction, &noise, alpha, h)
        })
    }
}

impl<T, L, K, const N: usize> LangevinFlavor<T, L, K, N>
where
    T: Real,
    L: LegacyMap<T, N>,
    K: FrictionPlacement,
{
    /// Checks the step sizes, then (symmetric form) the adjoint, then builds the OU flows over
    /// the durations `K` asks for with `ou(h)`.
    fn build(
        legacy: L,
        params: Params<T>,
        symmetric: bool,
        ou: impl Fn(T) -> Result<DiagonalOu<T, N>, ConfigError>,
    ) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        if symmetric && !legacy.has_adjoint() {
            return Err(ConfigError::Inconsistent {
                name: NEEDS_ADJOINT,
            });
        }
        let (first, second) = K::ou_durations(&params, symmetric);
        let first = ou(first)?;
        let second = match second {
            Some(h) => ou(h)?,
            None => first,
        };
        Ok(Self {
            watch: Watch::default(),
            legacy,
            params,
            symmetric,
            first,
            second,
            placement: PhantomData,
        })
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }
}

impl<T, L, K, const N: usize> LangevinFlavor<T, L, K, N>
where
    T: Real,
    K: FrictionPlacement,
{
    /// Whether a step applies a second OU flow (and draws its normals).
    #[inline]
    fn second_flow(&self) -> bool {
        self.symmetric || !K::STIFF
    }
}

impl<T, L, K, const N: usize> Guarded<T, N> for LangevinFlavor<T, L, K, N>
where
    T: Real,
    L: LegacyMap<T, N>,
    K: FrictionPlacement,
{
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    /// The meso-step `δ`.
    fn step_size(&self) -> T {
        self.params.delta
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T, L, K, const N: usize> NoisyMethod<T, N> for LangevinFlavor<T, L, K, N>
where
    T: Real,
    L: LegacyMap<T, N>,
    K: FrictionPlacement,
{
    const DETERMINISTIC_ORDER: u32 = 1;

    /// `[ξ₁, ξ₂]`: the standard normals of the first and the second OU flow (`ξ₂` zero, not
    /// drawn, when the step has one flow).
    type Noise = [SVector<T, N>; 2];

    /// `N` normals ([`Normal::vector`]) for the first flow, then `N` for the second when the
    /// step has one.
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> [SVector<T, N>; 2] {
        let first = Normal::vector::<T, R, N>(rng);
        let second = if self.second_flow() {
            Normal::vector::<T, R, N>(rng)
        } else {
            SVector::zeros()
        };
        [first, second]
    }

    #[inline]
    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        noise: &[SVector<T, N>; 2],
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let (delta, tau) = (self.params.delta, self.params.tau);
        let clock = self.params.clock(state.t);
        next.v = self.first.apply(&state.v, &noise[0]);
        if self.symmetric {
            symmetric_core(&mut self.legacy, next, delta, tau, clock)?;
            next.v = self.second.apply(&next.v, &noise[1]);
        } else if K::STIFF {
            self.legacy.flavor_step(next, delta, tau, clock)?;
        } else {
            self.legacy.step(next, tau, Stiffness::On { clock })?;
            next.v = self.second.apply(&next.v, &noise[1]);
            self.legacy.step(next, delta - tau, Stiffness::Off)?;
        }
        Ok(T::zero())
    }
}
