//! Friction- and temperature-accelerated GLA: AnnealTuneGLA (004 §6.3.4, eq 6.6).
//!
//! GLA (eq 6.3) with a friction `c_n` tuned per step to the local curvature (eq 6.4) and an
//! inverse temperature `β_n` that follows a finite-horizon cooling schedule (eq 6.5 and
//! §6.4.3, see [`Schedule`]). With [`FrictionRule::Fixed`] and [`Cooling::Constant`] it is GLA;
//! `Fixed` + a schedule is the thesis's *AnnealGLA*, `Tuned` + `Constant` its *TuneGLA*.
//!
//! # Why tuning does not bias the sampled measure
//! The friction depends only on `q_n`, which the Ornstein–Uhlenbeck half-step does not change.
//! For fixed `q`, the OU flow with any symmetric positive semi-definite friction matrix `C` and
//! noise `(I − e^{−2Ch})/β` preserves the conditional momentum law `N(0, M/β)` exactly, so the
//! OU half-step still leaves Boltzmann–Gibbs invariant, and the tuned scheme has GLA's `O(h)`
//! invariant-measure error. Annealing does bias the law in the middle of the run — on purpose —
//! and ends at `T_f` after `N` steps (the run continues at `T_f` afterwards).
//!
//! # Decisions where the seed is silent or inconsistent
//! - **Which curvature.** Eq 6.4 / 6.6 set `k_n = ½ ∂²V(q_n)` and `c_n = 2√k_n`, i.e.
//!   `c_n = √(2V″)`, while §6.3.2 and the analysis of §6.4.1 (for `dp = −kq − cp`, so `k = V″`)
//!   show that critical damping is `c = 2√V″`. The fraction `κ` of the Hessian is therefore a
//!   parameter ([`FrictionRule::Tuned::hessian_fraction`]): `κ = ½` is the printed eq 6.6 (the
//!   default of [`FrictionRule::tuned`], used for the reproduction), `κ = 1` critical damping of the
//!   local quadratic model. Both are measured by `reproduce accelerated-sampling`.
//! - **Several degrees of freedom and a mass matrix.** `c_n = 2√k_n` is a matrix square root
//!   (§6.4.1: "diagonalize `k` and choose `c` diagonal-wisely"). With `M = LLᵀ` the step works in
//!   mass-weighted velocities `u = Lᵀv`, where the local model is `u̇ = −K y − C u`,
//!   `K = κ L⁻¹ (Hess V) L⁻ᵀ = U Λ Uᵀ` (cyclic Jacobi, bounded cost), `C = U diag(2√λᵢ) Uᵀ`, and
//!   the exact OU flow is applied per eigen-direction. "`Hess V ≻ 0`" is tested on `K`'s
//!   eigenvalues (all `> 0`); otherwise `k = α²/4·I`, i.e. `c = α` in every direction.
//! - **Indexing of the schedule.** The `k`-th step taken (`k = 0, 1, …`) uses `β(k + 1)`, so the
//!   `N`-th step is at `T_f` (see [`Schedule`]).

#[cfg(doc)]
use super::StochasticIntegrator;
use super::{Cooling, Normal, Schedule};
use crate::driver::{Guarded, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::linalg::symmetric_eigen;
use crate::model::{Hessian, System};
use crate::validate::{check_nonnegative, check_positive, check_step};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};
use rand_core::Rng;

/// How AnnealTuneGLA chooses the friction of each step (004 eqs 6.3, 6.4).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum FrictionRule<T> {
    /// A constant friction `c ≥ 0` (eq 6.3 with `c_n = c`): GLA or AnnealGLA.
    Fixed(T),
    /// The local critical-damping rule of eq 6.4: `k_n = κ Hess V(q_n)` if positive definite,
    /// else `α²/4`; `c_n = 2√k_n`.
    Tuned {
        /// `α ≥ 0`, the friction where the curvature is not positive definite.
        alpha: T,
        /// `κ > 0`, the fraction of the Hessian taken as `k_n` (`½` in eq 6.6; `1` for exact
        /// critical damping of the local quadratic model, §6.4.1).
        hessian_fraction: T,
    },
}

impl<T: Real> FrictionRule<T> {
    /// Eq 6.6 as printed: `k_n = ½ Hess V(q_n)`, `α` where the curvature is not positive.
    ///
    /// ```
    /// use macrostep::langevin::FrictionRule;
    /// let rule = FrictionRule::tuned(0.3_f64);
    /// assert_eq!(rule, FrictionRule::Tuned { alpha: 0.3, hessian_fraction: 0.5 });
    /// ```
    pub fn tuned(alpha: T) -> Self {
        Self::Tuned {
            alpha,
            hessian_fraction: T::lit(0.5),
        }
    }
}

/// The friction rule and cooling schedule of [`AnnealTuneGla`] (004 eqs 6.4–6.6). The default is
/// the fixed friction `c = 1` at the constant temperature `T = 1`: [`super::Gla`] with
/// [`GlaParams::default`](super::GlaParams), draw for draw.
///
/// ```
/// use macrostep::langevin::{AnnealTuneParams, Cooling, FrictionRule, Schedule};
/// let params = AnnealTuneParams {
///     friction: FrictionRule::tuned(0.0_f64),
///     schedule: Schedule::new(Cooling::InverseLinear { initial: 1.0 }, 0.1, 500).unwrap(),
/// };
/// assert_eq!(params.validate(), Ok(params));
/// let bad = AnnealTuneParams { friction: FrictionRule::Fixed(-1.0_f64), ..Default::default() };
/// assert!(bad.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnnealTuneParams<T: Real> {
    /// How each step's friction is chosen.
    pub friction: FrictionRule<T>,
    /// The cooling schedule (validated when built, [`Schedule::new`]).
    pub schedule: Schedule<T>,
}

impl<T: Real> Default for AnnealTuneParams<T> {
    fn default() -> Self {
        Self {
            friction: FrictionRule::Fixed(T::one()),
            schedule: Schedule::default(),
        }
    }
}

impl<T: Real> AnnealTuneParams<T> {
    /// Checks the friction rule (the schedule is valid by construction).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"friction"`, `"alpha"`
    /// (negative) and `"hessian_fraction"` (not positive).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        match self.friction {
            FrictionRule::Fixed(c) => {
                check_nonnegative(c, "friction")?;
            }
            FrictionRule::Tuned {
                alpha,
                hessian_fraction,
            } => {
                check_nonnegative(alpha, "alpha")?;
                check_positive(hessian_fraction, "hessian_fraction")?;
            }
        }
        Ok(*self)
    }
}

/// AnnealTuneGLA (004 eq 6.6): GLA with per-step friction tuning (eq 6.4) and a cooling schedule
/// (eqs 6.5, 6.33–6.38), for `M dq = p dt`, `dp = −∇V dt − c_n p dt + √(2c_n/β_n) M^{1/2} dW`:
///
/// ```text
/// k_n = κ Hess V(q_n) if ≻ 0, else α²/4;   c_n = 2√k_n;   β_n = 1/T(n + 1)
/// p̂ = e^{−c_n h} p + √((1 − e^{−2c_n h})/β_n) ξ
/// q' = q + h M⁻¹ p̂
/// p' = p̂ − h ∇V(q')
/// ```
///
/// First order in the deterministic limit; with [`FrictionRule::Fixed`] and [`Cooling::Constant`] it
/// is [`super::Gla`] draw for draw. Samples Boltzmann–Gibbs at `T_f` up to GLA's `O(h)` bias once
/// the schedule has ended (see the module docs). Draws `N` standard normals per step
/// ([`Normal::vector`]), like [`super::Gla`]; [`StochasticIntegrator::step_with_noise`] takes
/// them pre-drawn. The guards measure no energy ([`NoProbe`]); finiteness, the velocity guard and
/// the clock apply.
///
/// # Errors
/// Construction: [`ConfigError::StepSize`]; as [`AnnealTuneParams::validate`];
/// [`ConfigError::NotPositiveDefinite`] for `"mass"`. Steps:
/// [`StepError::NonFiniteState`]; [`StepError::NonFiniteResult`] when the result or the Hessian
/// at `q_n` is not finite; [`StepError::NotConverged`] if the eigendecomposition reaches its
/// sweep cap. The state and the step counter are unchanged on error.
///
/// ```
/// use macrostep::langevin::{AnnealTuneGla, AnnealTuneParams, Cooling, FrictionRule, Schedule};
/// use macrostep::{langevin::StochasticIntegrator, systems::HarmonicOscillator};
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let osc = HarmonicOscillator::<f64, 2>::new(nalgebra::vector![1.0, 3.0]).unwrap();
/// // 500 steps cooling from T_i = 1 to T_f = 0.1, friction tuned to the curvature.
/// let schedule = Schedule::new(Cooling::InverseLinear { initial: 1.0 }, 0.1, 500).unwrap();
/// let params = AnnealTuneParams { friction: FrictionRule::tuned(0.0), schedule };
/// let mut m = AnnealTuneGla::new(osc.system(), 0.01, params).unwrap();
/// let mut rng = Pcg32::seed_from_u64(1);
/// let mut s = osc.initial_state();
/// m.integrate_noisy(&mut s, 500, &mut rng).unwrap();
/// assert_eq!(m.steps_taken(), 500);
/// assert!((m.temperature() - 0.1).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AnnealTuneGla<T: Real, P, const N: usize> {
    system: System<T, P, N>,
    h: T,
    friction: FrictionRule<T>,
    schedule: Schedule<T>,
    /// Fixed friction: `e^{−ch}` and `1 − e^{−2ch}` (computed once).
    fixed: (T, T),
    /// `Lᵀ` and `L⁻ᵀ` with `M = L Lᵀ`.
    lt: SMatrix<T, N, N>,
    lt_inv: SMatrix<T, N, N>,
    taken: usize,
    watch: Watch<T, N>,
}

impl<T: Real, P: Hessian<T, N>, const N: usize> AnnealTuneGla<T, P, N> {
    /// AnnealTuneGLA (eq 6.6) for `system` with step `h`, the friction rule and the cooling
    /// schedule of `params`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(
        system: System<T, P, N>,
        h: T,
        params: AnnealTuneParams<T>,
    ) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let AnnealTuneParams { friction, schedule } = params.validate()?;
        let c = match friction {
            FrictionRule::Fixed(c) => c,
            FrictionRule::Tuned { .. } => T::zero(),
        };
        let lt = system.mass.cholesky_factor().transpose();
        let lt_inv = lt
            .solve_upper_triangular(&SMatrix::identity())
            .ok_or(ConfigError::NotPositiveDefinite { name: "mass" })?;
        Ok(Self {
            system,
            h,
            friction,
            schedule,
            fixed: ((-c * h).exp(), -(-(c + c) * h).exp_m1()),
            lt,
            lt_inv,
            taken: 0,
            watch: Watch::default(),
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// The cooling schedule.
    pub fn schedule(&self) -> &Schedule<T> {
        &self.schedule
    }

    /// Steps taken since construction or the last [`AnnealTuneGla::reset`].
    pub fn steps_taken(&self) -> usize {
        self.taken
    }

    /// The temperature of the next step, `T(steps_taken + 1)`.
    pub fn temperature(&self) -> T {
        self.schedule.temperature(self.taken + 1)
    }

    /// Restarts the schedule (for the next trajectory of an ensemble); the guards are kept and
    /// their run starts again at the next step.
    pub fn reset(&mut self) {
        self.taken = 0;
        self.watch.restart();
    }

    /// The tuned friction rates `2√λᵢ` and their eigen-directions `U` (columns, in mass-weighted
    /// velocities) at `q`, or `None` when the curvature is not positive definite (friction `α`).
    #[allow(clippy::type_complexity)]
    fn tuned_friction(
        &self,
        q: &SVector<T, N>,
        hessian_fraction: T,
    ) -> Result<Option<(SVector<T, N>, SMatrix<T, N, N>)>, StepError> {
        let hess = self.system.potential.hessian(q);
        let k = if self.system.mass.is_identity() {
            hess
        } else {
            self.lt_inv.transpose() * hess * self.lt_inv
        } * hessian_fraction;
        if !k.iter().all(|x| x.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        let eig = symmetric_eigen(&k).ok_or(StepError::NotConverged)?;
        if eig.values.iter().all(|&l| l > T::zero()) {
            let two = T::lit(2.0);
            Ok(Some((eig.values.map(|l| two * l.sqrt()), eig.vectors)))
        } else {
            Ok(None)
        }
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> Guarded<T, N> for AnnealTuneGla<T, P, N> {
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

    /// Counts the committed step (the schedule advances only on success).
    fn accept(&mut self, _: &State<T, N>) {
        self.taken = self.taken.saturating_add(1);
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> NoisyMethod<T, N> for AnnealTuneGla<T, P, N> {
    const DETERMINISTIC_ORDER: u32 = 1;

    /// The standard normals `ξ`, one per degree of freedom.
    type Noise = SVector<T, N>;

    /// Draws `N` standard normals ([`Normal::vector`], `2⌈N/2⌉` calls of `next_u64`).
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> SVector<T, N> {
        Normal::vector::<T, R, N>(rng)
    }

    /// See the type docs for the errors.
    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        xi: &SVector<T, N>,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let h = self.h;
        let beta = self.schedule.beta(self.taken + 1);
        let uniform = |state: &State<T, N>, decay: T, one_minus: T| {
            state.v * decay + self.lt_inv * xi * (one_minus / beta).sqrt()
        };
        let vh = match self.friction {
            FrictionRule::Fixed(_) => uniform(state, self.fixed.0, self.fixed.1),
            FrictionRule::Tuned {
                alpha,
                hessian_fraction,
            } => match self.tuned_friction(&state.q, hessian_fraction)? {
                Some((c, u)) => {
                    let ue = u.transpose() * (self.lt * state.v);
                    let xe = u.transpose() * xi;
                    let mut out = SVector::<T, N>::zeros();
                    for i in 0..N {
                        let sd = (-(-(c[i] + c[i]) * h).exp_m1() / beta).sqrt();
                        out[i] = (-c[i] * h).exp() * ue[i] + sd * xe[i];
                    }
                    self.lt_inv * (u * out)
                }
                None => uniform(state, (-alpha * h).exp(), -(-(alpha + alpha) * h).exp_m1()),
            },
        };
        next.q = state.q + vh * h;
        next.v = vh + self.system.acceleration(&next.q) * h;
        Ok(T::zero())
    }
}

/// The plain-GLA schedule: constant temperature `T_f` (helper for [`Cooling::Constant`]).
///
/// # Errors
/// As [`Schedule::new`].
pub fn constant_temperature<T: Real>(t_final: T) -> Result<Schedule<T>, ConfigError> {
    Schedule::new(Cooling::Constant, t_final, 1)
}
