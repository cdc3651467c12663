//! Step guards and the step clock: what every `Ok` from a step promises beyond finiteness.
//!
//! A step that returns `Ok` with finite nonsense is worse, inside a control loop, than one that
//! returns an error: the controller acts on it. Each integrator therefore checks its result
//! against a small, `Copy` set of bounds, [`Guards`], before it commits it, and refuses the step
//! with [`StepError::Diverged`] (naming the [`Guard`]) when one is violated; the state is then
//! bit-identical to what it was before the call.
//!
//! | guard | what is bounded | default |
//! |---|---|---|
//! | [`Guards::residual`] | the constraint violation after the step, as measured by [`Constraint::residual`](crate::model::Constraint::residual) (dimensionless for distance constraints: `max |‖d‖² − L²| / L²`); penalty potentials and exact-constraint methods | `0.1` |
//! | [`Guards::energy_run`] | `|E − E_ref| ≤ r·S`: the energy drift since the start of the run, relative to the run's energy scale `S`; `0.4·r` while the mechanism is stretched (its residual above a third of [`Guards::residual`] and above the run's start) | `0.25` |
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
//! ringing is not small against the slow motion (see the plant's energy scale above). Runs that
//! want the raw method there switch the guard off or loosen it. The bound is two-sided: it also
//! refuses a run that loses much of its energy without ever diverging.
//!
//! **A stretched mechanism.** A diverging penalised mechanism stretches its rods while its energy
//! grows; a clean run that drifts slowly (a method misstating a stiff mode, a dissipative
//! method losing energy) does not. So while the constraint residual after the step is above a
//! third of the residual bound (a rod stretched by more than 3.3 % of its squared length, by
//! default) and above the residual the run started with (a start off its constraint releases
//! what it stores), the run bound is `0.4·r·S = 0.1·S`, without the start-up allowance. The two tiers
//! together refuse the last steps before a divergence that a single bound lets through, and
//! refuse fewer clean runs than a single bound tight enough to catch them (`docs/guards.md`).
//! With the residual guard off, or on a model without a constraint, the bound is `r·S`.
//!
//! **Why these defaults.** A diverging run of a symplectic method on a penalised mechanism grows
//! its energy and stretches its rods long before any value overflows. A drift of a quarter of the
//! run's energy scale (`0.25`, a tenth while stretched), or a rod stretched by 10 % of its
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
//! `h = 0.1`, from `t ≈ 2²⁰`) fails with [`StepError::ClockStalled`] instead of returning `Ok`
//! with `t` unchanged.

use crate::model::{Potential, System};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// A guard a step can violate (carried by [`StepError::Diverged`]).
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
    /// Bound on the energy drift since the start of the run, `|E − E_ref| / S` (`0.4` of it while
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

    fn energy_on(&self) -> bool {
        self.energy_run.is_some() || self.energy_step.is_some()
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
    /// Kinetic and potential energy `(K, V)` of `s`, when the dynamics conserve `K + V`.
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)>;
    /// The constraint residual at `q`, when the model has constraints.
    fn residual(&self, q: &SVector<T, N>) -> Option<T>;
}

impl<T: Real, P: Potential<T, N>, const N: usize> Probe<T, N> for System<T, P, N> {
    #[inline]
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)> {
        Some((self.mass.kinetic(&s.v), self.potential.energy(&s.q)))
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

/// The guards of one integrator and what they remember of the run: the last committed state,
/// the clock's compensation, the reference energy and scale.
#[derive(Clone, Copy, Debug)]
pub struct Watch<T: Real, const N: usize> {
    guards: Guards<T>,
    last: State<T, N>,
    running: bool,
    clock_c: T,
    e_last: T,
    e_ref: T,
    v_lo: T,
    v_hi: T,
    k_start: T,
    /// The residual above which the mechanism is stretched: a third of the residual bound, or
    /// the run's start when that was more stretched.
    stretched_above: T,
    /// The round-off of the run's energies, `2·ROUNDING·ε·|E_ref|` at the start of the run and
    /// at each accounted change: a run whose scale is below it cannot be judged.
    level: T,
    scale: T,
    /// The number of the last committed step in the run (`1` for the first).
    steps: u32,
}

impl<T: Real, const N: usize> Default for Watch<T, N> {
    fn default() -> Self {
        Self::new(Guards::default())
    }
}

impl<T: Real, const N: usize> Watch<T, N> {
    /// A watch with validated `guards` (see [`Guards::validate`]).
    pub fn new(guards: Guards<T>) -> Self {
        Self {
            guards,
            last: State::at_rest(SVector::zeros()),
            running: false,
            clock_c: T::zero(),
            e_last: T::zero(),
            e_ref: T::zero(),
            v_lo: T::zero(),
            v_hi: T::zero(),
            k_start: T::zero(),
            stretched_above: T::zero(),
            level: T::zero(),
            scale: T::zero(),
            steps: 0,
        }
    }

    /// The guards.
    pub fn guards(&self) -> &Guards<T> {
        &self.guards
    }

    /// Replaces the guards (validated) and starts a new run.
    ///
    /// # Errors
    /// As [`Guards::validate`]; the guards are unchanged on error.
    pub fn set_guards(&mut self, guards: Guards<T>) -> Result<(), ConfigError> {
        self.guards = guards.validate()?;
        self.restart();
        Ok(())
    }

    /// Starts a new run at the next step (the model changed).
    #[inline]
    pub fn restart(&mut self) {
        self.running = false;
    }

    /// Continues the run across a change the integrator accounts for (see [`crate::forcing`]):
    /// when a run is going, `change` may move the last committed state (a damping kick) and
    /// returns the energy `ΔE` the change added at that state (`−Δuᵀq` for a new held force
    /// `u`, `ΔK` for a kick); the reference and last energies move by `ΔE`, so the run guard
    /// bounds `E − E_ref − W + D` (work `W` done by the forces, energy `D` taken by damping). A
    /// non-finite `ΔE` starts a new run instead. Nothing happens when no run is going.
    #[inline]
    pub fn account(&mut self, change: impl FnOnce(&mut State<T, N>) -> T) {
        if self.running {
            let de = change(&mut self.last);
            if de.finite() {
                self.e_ref += de;
                self.e_last += de;
                self.v_lo += de;
                self.v_hi += de;
                self.level = round_off(self.e_ref);
            } else {
                self.running = false;
            }
        }
    }

    /// Whether `state` continues the run: it is the state this watch committed last (all of
    /// it when the run's energy is tracked, its time otherwise — the clock's compensation is
    /// all that then carries over).
    #[inline]
    fn continues(&self, state: &State<T, N>, tracked: bool) -> bool {
        let mut same = self.running && self.last.t == state.t;
        if tracked {
            for i in 0..N {
                same &= self.last.q[i] == state.q[i] && self.last.v[i] == state.v[i];
            }
        }
        same
    }

    /// The state guards of [`Watch::commit`] after the energy guards: the constraint residual
    /// of `next` (evaluated once by `commit`, `None` when the guard is off or the model has no
    /// constraint) and the velocity jump from `state` (a NaN fails both).
    #[inline(always)]
    fn check_residual_and_velocity(
        &self,
        state: &State<T, N>,
        next: &State<T, N>,
        residual: Option<T>,
    ) -> Result<(), StepError> {
        if let (Some(bound), Some(r)) = (self.guards.residual, residual) {
            // A NaN residual is refused too.
            if r > bound || !r.finite() {
                return Err(StepError::Diverged {
                    guard: Guard::Residual,
                });
            }
        }
        if let Some(bound) = self.guards.velocity_step {
            for i in 0..N {
                let dv = (next.v[i] - state.v[i]).abs();
                if dv > bound || !dv.finite() {
                    return Err(StepError::Diverged {
                        guard: Guard::VelocityStep,
                    });
                }
            }
        }
        Ok(())
    }

    /// Commits `next` (the step's result from `state` with signed step `h`) into `state` when it
    /// is finite, the clock advances and every guard holds; `next.t` is replaced by the
    /// compensated clock. `exchanged` is the energy the step exchanged with the outside (work of
    /// a force, minus the heat a damping split took): the run's reference energy moves by it, so
    /// the energy guards bound the energy the dynamics were not given. Otherwise `state` and the
    /// watch are unchanged. Called by the step driver ([`crate::driver`]) only.
    ///
    /// # Errors
    /// [`StepError::NonFiniteResult`], [`StepError::ClockStalled`], [`StepError::Diverged`].
    #[inline]
    pub(crate) fn commit<P: Probe<T, N>>(
        &mut self,
        state: &mut State<T, N>,
        next: &State<T, N>,
        h: T,
        exchanged: T,
        probe: &P,
    ) -> Result<(), StepError> {
        if !(next.is_finite() && exchanged.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        let tracked = P::HAS_ENERGY && self.guards.energy_on();
        let cont = self.continues(state, tracked);
        // Kahan summation of the clock, compensation carried over the run.
        let y = h - if cont { self.clock_c } else { T::zero() };
        let t = state.t + y;
        let dt = t - state.t;
        if !(t.finite() && (dt - h).abs() <= h.abs() * T::lit(0.5)) {
            return Err(StepError::ClockStalled);
        }
        let c = dt - y;
        let (mut e1, mut e_ref, mut scale) = (self.e_last, self.e_ref, self.scale);
        let (mut v_lo, mut v_hi) = (self.v_lo, self.v_hi);
        let (mut k_start, mut stretched_above, mut level) =
            (self.k_start, self.stretched_above, self.level);
        // The step's number `n` in the run (`1` for the first), for the start-up allowance.
        let mut n = self.steps.saturating_add(1);
        // The residual of `next`, evaluated once: the residual guard bounds it, and the run
        // guard's bound tightens while it is above a third of that bound.
        let residual = match self.guards.residual {
            Some(_) => probe.residual(&next.q),
            None => None,
        };
        if self.guards.energy_on() {
            if let Some((k1, v1)) = probe.energy(next) {
                let e0 = if cont {
                    e_ref += exchanged;
                    self.e_last + exchanged
                } else if let Some((k0, v0)) = probe.energy(state) {
                    e_ref = k0 + v0;
                    (v_lo, v_hi, k_start) = (v0, v0, k0);
                    // A start off its constraint releases what it stores: only a stretch
                    // beyond the start's counts as one.
                    stretched_above = match self.guards.residual {
                        Some(b) => {
                            let third = b * T::lit(1.0 / STRETCHED);
                            match probe.residual(&state.q) {
                                Some(r0) if r0 > third => r0,
                                _ => third,
                            }
                        }
                        None => T::zero(),
                    };
                    n = 1;
                    scale = start_scale(k0, v0, self.guards.energy_scale);
                    // A start whose energy overflowed cannot be bounded: refused here rather
                    // than passed by comparisons with infinity or NaN (a running run's
                    // reference and scale stay finite: every committed energy is).
                    if !(e_ref.finite() && scale.finite()) {
                        return Err(StepError::Diverged {
                            guard: Guard::EnergyRun,
                        });
                    }
                    e_ref += exchanged;
                    level = round_off(e_ref);
                    e_ref
                } else {
                    return Err(StepError::NonFiniteResult);
                };
                e1 = k1 + v1;
                if !e1.finite() {
                    return Err(StepError::NonFiniteResult);
                }
                // The scale grows with the kinetic energy reached and the range of the
                // potential seen: both differences, blind to the origin of `V` and of `q`.
                if k1 > scale {
                    scale = k1;
                }
                if v1 < v_lo {
                    v_lo = v1;
                    if v_hi - v_lo > scale {
                        scale = v_hi - v_lo;
                    }
                } else if v1 > v_hi {
                    v_hi = v1;
                    if v_hi - v_lo > scale {
                        scale = v_hi - v_lo;
                    }
                }
                if let Some(r) = self.guards.energy_run {
                    // The common case (well inside the stretched tier's bound, and energies
                    // resolvable against the scale) costs a subtraction, two products and two
                    // comparisons; the rest is `run_bound_holds`.
                    let drift = (e1 - e_ref).abs();
                    let bound = r * scale;
                    if drift * T::lit(1.0 / STRETCHED_SHARE) > bound || level > scale {
                        let stretched = matches!(residual, Some(res) if res > stretched_above);
                        let magnitude = e1.abs() + e_ref.abs();
                        let start = (k_start, n);
                        if !run_bound_holds(drift, bound, scale, level, start, stretched, magnitude)
                        {
                            return Err(StepError::Diverged {
                                guard: Guard::EnergyRun,
                            });
                        }
                    }
                }
                if let Some(r) = self.guards.energy_step {
                    if (e1 - e0).abs() > r * scale {
                        return Err(StepError::Diverged {
                            guard: Guard::EnergyStep,
                        });
                    }
                }
            }
        }
        self.check_residual_and_velocity(state, next, residual)?;
        state.t = t;
        state.q = next.q;
        state.v = next.v;
        if tracked {
            self.last = *state;
        } else {
            self.last.t = t;
        }
        self.running = true;
        self.clock_c = c;
        self.e_last = e1;
        self.e_ref = e_ref;
        self.v_lo = v_lo;
        self.v_hi = v_hi;
        self.k_start = k_start;
        self.stretched_above = stretched_above;
        self.level = level;
        self.scale = scale;
        self.steps = n;
        Ok(())
    }
}

/// The run guard beyond its common case (a drift within the stretched tier's bound): whether
/// the drift of the `n`-th step of a run (`start = (K₀, n)`) passes the bound
/// `max(r'·S, min(S − K₀/2, c·S/n))` of the module docs (`bound = r·S`, `r' = r` or
/// `STRETCHED_SHARE·r` while `stretched`, without the allowance then), beyond the round-off of
/// energies of `magnitude` `|E| + |E_ref|`. Energies whose round-off (`level`) exceeds the run's
/// scale cannot be told apart: the guard is blind there, and the step is refused.
#[cold]
#[inline(never)]
fn run_bound_holds<T: Real>(
    drift: T,
    bound: T,
    scale: T,
    level: T,
    (k_start, n): (T, u32),
    stretched: bool,
    magnitude: T,
) -> bool {
    if level > scale {
        return false;
    }
    let bound = if stretched {
        bound * T::lit(STRETCHED_SHARE)
    } else {
        bound
    };
    let drift = drift - T::lit(ROUNDING) * T::default_epsilon() * magnitude;
    if drift <= bound {
        return true;
    }
    !stretched
        && drift <= scale - T::lit(0.5) * k_start
        && drift * T::lit(f64::from(n)) <= T::lit(STARTUP) * scale
}

/// The round-off of a run's energies around `e_ref`: `2·ROUNDING·ε·|E_ref|`.
#[inline]
fn round_off<T: Real>(e_ref: T) -> T {
    T::lit(2.0 * ROUNDING) * T::default_epsilon() * e_ref.abs()
}

/// The energy scale of a run at its start, from `K₀`, `V₀` and the optional floor: `K₀`, the
/// floor, and the round-off floor `ROUNDOFF · ε · (K₀ + |V₀|)` (the resolution at which energy
/// differences of this run can be told apart at all).
#[inline]
fn start_scale<T: Real>(k0: T, v0: T, floor: Option<T>) -> T {
    let mut scale = k0;
    let roundoff = T::lit(ROUNDOFF) * T::default_epsilon() * (k0 + v0.abs());
    if roundoff > scale {
        scale = roundoff;
    }
    if let Some(floor) = floor {
        if floor > scale {
            scale = floor;
        }
    }
    scale
}

/// The start-up allowance `c`: the `n`-th step of a run may drift by `c/n` of the run's scale
/// (and by no more than `S − K₀/2`, see the module docs); a first-order method from rest, whose
/// drift after `n` steps reaches `S/n`, passes with a margin of two from the third step.
const STARTUP: f64 = 2.0;

/// The run guard's bound is `STRETCHED_SHARE · r` while the constraint residual is above
/// `1/STRETCHED` of the residual guard's bound (a rod stretched by a third of what the residual
/// guard allows): a diverging penalised mechanism stretches its rods while its energy grows, a
/// clean run's slow drift does not (`docs/guards.md`).
const STRETCHED: f64 = 3.0;

/// The share of the run bound that applies while the mechanism is stretched (see
/// [`STRETCHED`]).
const STRETCHED_SHARE: f64 = 0.4;

/// The round-off of an energy drift, in units of `ε (|E| + |E_ref|)`: what rounding the two
/// energies (sums of a few rounded terms) and their difference can reach.
const ROUNDING: f64 = 4.0;

/// The round-off floor of the energy scale in units of `ε · (K₀ + |V₀|)`: with the default bound
/// `0.25` a drift of `64 ε (K₀ + |V₀|)` is accepted, above what rounding the energies of a step
/// (sums of a few terms, each rounded) reaches.
const ROUNDOFF: f64 = 256.0;

#[cfg(test)]
mod tests;
