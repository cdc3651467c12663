//! Step guards and the step clock: what every `Ok` from a step promises beyond finiteness.
//!
//! A step that returns `Ok` with finite nonsense is worse, inside a control loop, than one that
//! returns an error: the controller acts on it. Each integrator therefore checks its result
//! against a small, `Copy` set of bounds, [`Guards`], before it commits it, and refuses the step
//! with [`StepError::Diverged`](crate::StepError::Diverged) (naming the [`Guard`]) when one is violated; the state is then
//! bit-identical to what it was before the call.
//!
//! | guard | what is bounded | default |
//! |---|---|---|
//! | [`Guards::residual`] | the constraint violation after the step, as measured by [`Constraint::residual`](crate::model::Constraint::residual) (dimensionless for distance constraints: `max |‖d‖² − L²| / L²`); penalty potentials and exact-constraint methods | `0.1` |
//! | [`Guards::energy_run`] | `|E − E_ref| ≤ r·S`: the energy drift since the start of the run, relative to the run's energy scale `S`; `0.3·r` of the scale before the step while the mechanism is stretched (from the third step of a run, its residual above `0.31` of [`Guards::residual`] and above the run's start); a deficit up to `S` in a quiet run | `0.25` |
//! | [`Guards::energy_step`] | `|E_{k+1} − E_k| ≤ r·S`: the energy change of one step | off |
//! | [`Guards::velocity_step`] | `‖v_{k+1} − v_k‖∞`, in the state's velocity units | off |
//! | [`Guards::energy_scale`] | not a bound: a floor on the energy scale `S` of the run, in energy units | off |
//!
//! **The run.** A run starts at the first step after construction, after the model was changed
//! (`system_mut`), after [`Guards`] were replaced, and whenever the state handed to `step` is not
//! bit-identical to the state the integrator returned last (the caller edited it, or started
//! over). At the start, `E_ref = E(state)`; the guards bound the energy *difference* `E − E_ref`
//! against the run's energy scale
//!
//! `S = max(K_max, V_max − V_min, S_floor, 256 ε (K₀ + |V₀|))`
//!
//! with `K_max` the largest kinetic energy the run has reached, `V_max − V_min` the range of the
//! potential energy it has seen (both including the step being judged), `S_floor` the optional
//! [`Guards::energy_scale`] and the last term the round-off floor (`ε` the scalar's epsilon: the
//! resolution at which two energies of the run can be told apart at all). Every term but the
//! last is a difference of energies or a kinetic energy, so the guards decide the same whatever
//! constant is added to `V` and wherever the origin of `q` is (gravity's zero level, the pivot of
//! a pendulum at `[0, 1000]`), and under a held force `u` (potential `V − uᵀq`, which moves with
//! the origin of `q`) the work `uᵀΔq` enters `E − E_ref` and the range, not a level: a change of
//! `u` ([`Watch::account`]) moves the reference and the range together. The energy guards
//! apply to conservative systems (Hamiltonian `½vᵀMv + V`); integrators of non-conservative or
//! stochastic dynamics do not evaluate them.
//!
//! **The start of a run: the start-up allowance.** A run has no scale for what it has not yet
//! moved: potential energy stored in a spring, a penalty or a capacitor is seen only as it is
//! released, since no level of `V` can be trusted. Against that, a start-up transient is large.
//! Symplectic Euler's first step from rest under a held force `u` has the energy error
//! `½h²uᵀM⁻¹u`, as large as the kinetic energy it just gave the mass, and the variant that moves
//! `q` with the old velocity drifts by exactly `S/n` after `n` steps (`S` its potential's range).
//! A penalised mechanism started at rest on its rods rings its stiff modes, whose energy an
//! integrator stepping over them misstates by a fraction of itself, against a slow motion that
//! grows like `n²`: at `hω = 0.4` the double pendulum's first steps drift by up to `0.65·S`
//! under a held force of five times its weight; a body started off its manifold (a stretched
//! penalty) releases its stored energy over the first steps. So the run guard bounds the drift
//! of the `n`-th step of a run by `max(r·S, min(S − K₀/2, 2S/n))`: a step from rest may make
//! as much energy as the run has seen and no more (the first step of the Euler variant that
//! moves `q` with the old velocity makes exactly that), a run started moving has half its
//! starting kinetic energy less allowed (a single huge step from a moving start that turns
//! potential energy into nothing, `K` unchanged, is refused), a divergence — growth by a factor
//! per step — is refused within a few steps, and from the `2/r`-th step (the eighth, by default)
//! the bound is `r·S`. The allowance applies at every start of a run, so a caller that edits the
//! state before every step has its energy judged against `S − K₀/2` only. Every bound is widened
//! by the round-off of the energies compared, `4ε(|E| + |E_ref|)`. A run whose energies cannot
//! be told apart within its scale at all (that round-off, `8ε|E_ref|`, above `S`: a held force
//! whose potential `uᵀq` is `1/(8ε)` times the run's energy, `5.6·10¹⁴` in `f64`, `10⁶` in
//! `f32`) has its steps refused: the guard cannot see what they do (a force of `10³⁰⁰` whose
//! displacement is below the rounding of `q` creates kinetic energy without work).
//!
//! **The plant's energy scale.** A controls engineer knows the energy the plant operates at
//! (`m g L` of a pendulum, `½ k x²` at full actuator stroke, the largest `½ m v²` the controller
//! commands). [`Guards::energy_scale`] is that floor on `S`: with it the start-up transient is
//! measured against the plant's energy (a relative error of `h²uᵀM⁻¹u / S_floor`), and a run
//! whose motion is only the ringing of a stiff mode (a mechanism started at rest near
//! equilibrium, its slow motion small) is judged against the plant rather than against the
//! ringing, which a method stepping over the stiff mode misstates by a large fraction; a real
//! divergence passes the floor within a few steps and is refused as before (`host-tests`
//! `flavor_forcing.rs`). It is off by default because no unit-free default exists. The floor is
//! applied once, when a run starts: no cost per step.
//!
//! **What the run guard costs in reach.** A linearly implicit method stepping over a stiff mode
//! it cannot resolve (`hω ≫ 1`, what Z&S is for) keeps that mode's amplitude but slows it to
//! `ω/√(1 + βh²ω²)`, so when a stiff mode carries much of the energy (a spring started
//! stretched, the DNA model of 000 §4.4 at `h = 2`) the *true* energy swings far below its start
//! between turning points, and the default guard refuses those steps. Mechanisms whose stiff
//! modes start quiet (penalised rods started on the constraint) are affected only while that
//! ringing is not small against the slow motion (see the plant's energy scale above, and a
//! quiet run below). Runs that want the raw method there switch the guard off or loosen it. The
//! bound is two-sided: it also refuses a run that loses much of its energy without ever
//! diverging.
//!
//! **A quiet run.** A plant held at rest from the start (an arm held in its pose by gravity
//! compensation) moves only by the ringing of its stiff modes under the load; that ringing is
//! its whole scale, and a method stepping over it shows the slowed mode's missing kinetic
//! energy as a deficit `E < E_ref` of up to the mode's energy between turning points. A run whose
//! kinetic energy never exceeded a quarter of its scale (`K_max ≤ S/4`: its motion is mostly
//! potential, which a swinging or diverging run's is not) may therefore show a deficit up to
//! `S − K₀/2` at any step; a surplus, or a deficit in a run that moved, is bounded as above. The
//! URDF arm of the `arm3_pd` firmware scenario held at rest (Z&S, `hω = 10`): `K_max = 0.17·S`,
//! deficits up to `0.83·S`, held for 10 s under the default guards.
//!
//! **A stretched mechanism.** A diverging penalised mechanism stretches its rods while its energy
//! grows; a clean run that drifts slowly (a method misstating a stiff mode, a dissipative
//! method losing energy) does not. So while the constraint residual after the step is above
//! `0.31` of the residual bound (a rod stretched by more than 3.1 % of its squared length, by
//! default) and above the residual the run started with (a start off its constraint releases
//! what it stores), from the third step of a run on (a start whose velocity is not tangent to
//! its constraint stretches it over its first steps), the run bound is `0.3·r·S_u = 0.075·S_u`,
//! without the start-up allowance. `S_u` is the scale before the step, and while the mechanism
//! stays stretched it grows by at most 10 % a step: a diverging step grows its kinetic energy,
//! and with it the scale, by tens of percent, and would otherwise vouch for itself with the
//! energy it made. The two tiers together refuse
//! the last steps before a divergence that a single bound lets through (under a held force of
//! several times the weight, the onset of a divergence at `hω = 2` returned one step with a
//! drift of `0.054–0.074` of the grown scale in 11 of 2,000 runs; judged against `S_u`, none
//! does), and refuse fewer clean runs than a single bound tight enough to catch them. With the
//! residual guard off, or on a model without a constraint, the bound is `r·S`.
//!
//! **Why these defaults.** A diverging run of a symplectic method on a penalised mechanism grows
//! its energy and stretches its rods long before any value overflows. A drift of a quarter of the
//! run's energy scale (`0.25`, `0.075` while stretched), or a rod stretched by 10 % of its
//! squared length (`0.1`), is far outside any accurate run and is reached early in a divergence;
//! the bounds are the ones that separate diverging from clean runs on random starts of the
//! penalised double pendulum wherever its pivot is (`reproduce guards`). The measurements behind these defaults: `docs/guards.md` in the
//! repository. Measurements that need a method's raw behaviour past these bounds (stability
//! limits) switch guards off with [`Guards::off`]. Cost: one potential-energy evaluation per
//! step (and one more at the start of a run) plus one residual evaluation; nothing when a guard
//! is off.
//!
//! **The clock.** `t` is advanced by compensated (Kahan) summation carried across the steps of a
//! run, so after `n` steps of `h` the clock is `t₀ + n·h` to within one rounding of `t`, in `f32`
//! as in `f64` (plain `t += h` in `f32` reaches 1,087,937 instead of 1,000,000 after 10⁷ steps of
//! 0.1). A step whose time increment cannot be represented within half of `h` (for `f32` with
//! `h = 0.1`, from `t ≈ 2²⁰`) fails with [`StepError::ClockStalled`](crate::StepError::ClockStalled) instead of returning `Ok`
//! with `t` unchanged.

use crate::model::{Potential, System};
use crate::{ConfigError, Real, State};
use nalgebra::SVector;

/// A guard a step can violate (carried by [`StepError::Diverged`](crate::StepError::Diverged)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Guard {
    /// The constraint residual exceeds [`Guards::residual`].
    Residual,
    /// The energy drift since the start of the run exceeds [`Guards::energy_run`].
    EnergyRun,
    /// The energy change of the step exceeds [`Guards::energy_step`].
    EnergyStep,
    /// The velocity change of the step exceeds [`Guards::velocity_step`].
    VelocityStep,
}

impl Guard {
    /// The guard's name, as the field of [`Guards`].
    pub fn name(self) -> &'static str {
        match self {
            Self::Residual => "residual",
            Self::EnergyRun => "energy_run",
            Self::EnergyStep => "energy_step",
            Self::VelocityStep => "velocity_step",
        }
    }
}

/// Bounds every result of a step must satisfy (see the [module docs](self)); `None` switches a
/// guard off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guards<T> {
    /// Bound on the constraint residual after the step ([`Constraint::residual`](crate::model::Constraint::residual)).
    /// Default `0.1`.
    pub residual: Option<T>,
    /// Bound on the energy drift since the start of the run, `|E − E_ref| / S` (`0.3` of it while
    /// the mechanism is stretched, see the [module docs](self)). Default `0.25`.
    pub energy_run: Option<T>,
    /// Bound on `|E_{k+1} − E_k| / S` over one step. Default off.
    pub energy_step: Option<T>,
    /// Bound on `‖v_{k+1} − v_k‖∞` over one step. Default off.
    pub velocity_step: Option<T>,
    /// A floor on the run's energy scale `S`, in energy units: the energy the plant operates at
    /// (see the [module docs](self): what a run started at rest under a force needs). Default
    /// off.
    pub energy_scale: Option<T>,
}

impl<T: Real> Default for Guards<T> {
    fn default() -> Self {
        Self {
            residual: Some(T::lit(0.1)),
            energy_run: Some(T::lit(0.25)),
            energy_step: None,
            velocity_step: None,
            energy_scale: None,
        }
    }
}

impl<T: Real> Guards<T> {
    /// Every guard off: only finiteness and the clock are checked (what a stability-limit
    /// measurement needs).
    pub fn off() -> Self {
        Self {
            residual: None,
            energy_run: None,
            energy_step: None,
            velocity_step: None,
            energy_scale: None,
        }
    }

    /// Checks every bound that is on: finite and `> 0`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] naming the guard
    /// (`"guards.residual"`, …).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        let check = |b: Option<T>, name: &'static str| match b {
            Some(x) if !x.finite() => Err(ConfigError::NonFinite { name }),
            Some(x) if x <= T::zero() => Err(ConfigError::OutOfRange { name, bound: "> 0" }),
            _ => Ok(()),
        };
        check(self.residual, "guards.residual")?;
        check(self.energy_run, "guards.energy_run")?;
        check(self.energy_step, "guards.energy_step")?;
        check(self.velocity_step, "guards.velocity_step")?;
        check(self.energy_scale, "guards.energy_scale")?;
        Ok(*self)
    }
}

/// What the guards measure on a model: its energy split `(K, V)` and its constraint residual.
///
/// Implemented for [`System`] (energy of a conservative system, the residual of a penalty
/// potential); integrators of models without an energy use [`NoProbe`].
pub trait Probe<T: Real, const N: usize> {
    /// Whether [`Probe::energy`] can return `Some`. A model without an energy lets the watch
    /// skip remembering the run's last state (only its time, for the clock).
    const HAS_ENERGY: bool = true;
    /// Kinetic and potential energy `(K, V)` of `s`, when the dynamics conserve `K + V`. A
    /// system's `K` is `(vᵀ(Mv))·½`, infinite from half the top of the scalar's range on: the
    /// run guard refuses such a state as non-finite.
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)>;
    /// The constraint residual at `q`, when the model has constraints.
    fn residual(&self, q: &SVector<T, N>) -> Option<T>;
}

impl<T: Real, P: Potential<T, N>, const N: usize> Probe<T, N> for System<T, P, N> {
    #[inline]
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)> {
        Some((
            self.mass.kinetic_within_half_range(&s.v),
            self.potential.energy(&s.q),
        ))
    }
    #[inline]
    fn residual(&self, q: &SVector<T, N>) -> Option<T> {
        self.potential.constraint_residual(q)
    }
}

impl<T: Real, const N: usize, P: Probe<T, N> + ?Sized> Probe<T, N> for &P {
    const HAS_ENERGY: bool = P::HAS_ENERGY;
    #[inline]
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)> {
        (**self).energy(s)
    }
    #[inline]
    fn residual(&self, q: &SVector<T, N>) -> Option<T> {
        (**self).residual(q)
    }
}

/// A model the guards cannot measure: only finiteness and the clock are checked.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProbe;

impl<T: Real, const N: usize> Probe<T, N> for NoProbe {
    const HAS_ENERGY: bool = false;
    #[inline]
    fn energy(&self, _: &State<T, N>) -> Option<(T, T)> {
        None
    }
    #[inline]
    fn residual(&self, _: &SVector<T, N>) -> Option<T> {
        None
    }
}

mod allowance;
mod bounds;
mod memory;
mod run;
pub use run::Watch;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod watch_tests;
