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
//! | [`Guards::energy_run`] | `|E − E_ref| ≤ r·S`: the energy drift since the start of the run, relative to the run's energy scale `S` | `0.2` |
//! | [`Guards::energy_step`] | `|E_{k+1} − E_k| ≤ r·S`: the energy change of one step | off |
//! | [`Guards::velocity_step`] | `‖v_{k+1} − v_k‖∞`, in the state's velocity units | off |
//! | [`Guards::energy_scale`] | not a bound: a floor on the energy scale `S` of the run, in energy units | off |
//!
//! **The run.** A run starts at the first step after construction, after the model was changed
//! (`system_mut`), after [`Guards`] were replaced, and whenever the state handed to `step` is not
//! bit-identical to the state the integrator returned last (the caller edited it, or started
//! over). At the start, `E_ref = E(state)` and `S₀ = K + |V|` (kinetic plus absolute potential
//! energy); thereafter `S = max(S₀, K_max, S_floor)` with `K_max` the largest kinetic energy the
//! run has reached and `S_floor` the optional [`Guards::energy_scale`], so a start at rest at
//! `V = 0` still has a scale once it moves. The energy guards
//! apply to conservative systems (Hamiltonian `½vᵀMv + V`); integrators of non-conservative or
//! stochastic dynamics do not evaluate them.
//!
//! **Starting at rest: give the guard the plant's energy scale.** A run that starts at rest at
//! `V = 0` has `S₀ = 0`, and its scale is then only what the transient itself has reached. Under
//! a held force `u` that is too little for a first-order method: symplectic Euler's first step
//! from rest has the energy error `½h²uᵀM⁻¹u`, *equal* to the kinetic energy it just gave the
//! mass, and its error after `n` steps is `n/2 · h²uᵀM⁻¹u` against `K = n²/2 · h²uᵀM⁻¹u`: the
//! ratio `1/n` stays above the default `0.2` for the first four steps, whatever the scale is built
//! from inside the run (the work `uᵀΔq` of the force is of the same size, `n(n+1)/2 ·
//! h²uᵀM⁻¹u`). Only a scale from outside the run can judge those steps, and a controls engineer
//! has one: the energy the plant operates at (`m g L` of a pendulum, `½ k x²` at full actuator
//! stroke, the largest `½ m v²` the controller commands). [`Guards::energy_scale`] is that floor
//! on `S`: with it the start-up transient is measured against the plant's energy (a relative
//! error of `h²uᵀM⁻¹u / S_floor`), while a real divergence from rest — growth by a factor per
//! step — passes the floor within a few steps and is refused as before (`host-tests`
//! `flavor_forcing.rs`). It is off by default because no unit-free default exists; without it a
//! first-order method from rest under a force is refused at its first step (`Diverged
//! EnergyRun`), a second-order one is not (its error is `O(h²)` relative). The floor is applied
//! once, when a run starts: no cost per step.
//!
//! **What the run guard costs in reach.** A linearly implicit method stepping over a stiff mode
//! it cannot resolve (`hω ≫ 1`, what Z&S is for) keeps that mode's amplitude but slows it to
//! `ω/√(1 + βh²ω²)`, so when a stiff mode carries much of the energy (a spring started
//! stretched, the DNA model of 000 §4.4 at `h = 2`) the *true* energy swings far below its start
//! between turning points, and the default guard refuses those steps. Mechanisms whose stiff
//! modes start quiet (penalised rods started on the constraint) are not affected. Runs that
//! want the raw method there switch the guard off or loosen it. The bound is two-sided: it also
//! refuses a run that loses much of its energy without ever diverging.
//!
//! **Why these defaults.** A diverging run of a symplectic method on a penalised mechanism grows
//! its energy and stretches its rods long before any value overflows. A drift of a fifth of the
//! run's energy scale (`0.2`), or a rod stretched by 10 % of its squared length (`0.1`), is far
//! outside any accurate run and is reached early in a divergence; the energy bound is the one
//! that separates diverging from clean runs on random starts of the penalised double pendulum
//! (`reproduce guards`). The measurements behind these defaults: `docs/guards.md` in the
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
    /// Bound on the energy drift since the start of the run, `|E − E_ref| / S`. Default `0.2`.
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
            energy_run: Some(T::lit(0.2)),
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
    scale: T,
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
            scale: T::zero(),
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
    /// of `next` and the velocity jump from `state` (a NaN fails both).
    #[inline(always)]
    fn check_residual_and_velocity<P: Probe<T, N>>(
        &self,
        state: &State<T, N>,
        next: &State<T, N>,
        probe: &P,
    ) -> Result<(), StepError> {
        if let Some(bound) = self.guards.residual {
            if let Some(r) = probe.residual(&next.q) {
                // A NaN residual is refused too.
                if r > bound || !r.finite() {
                    return Err(StepError::Diverged {
                        guard: Guard::Residual,
                    });
                }
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
        if self.guards.energy_on() {
            if let Some((k1, v1)) = probe.energy(next) {
                let e0 = if cont {
                    e_ref += exchanged;
                    self.e_last + exchanged
                } else if let Some((k0, v0)) = probe.energy(state) {
                    e_ref = k0 + v0;
                    scale = k0 + v0.abs();
                    if let Some(floor) = self.guards.energy_scale {
                        if scale < floor {
                            scale = floor;
                        }
                    }
                    // A start whose energy overflowed cannot be bounded: refused here rather
                    // than passed by comparisons with infinity or NaN (a running run's
                    // reference and scale stay finite: every committed energy is).
                    if !(e_ref.finite() && scale.finite()) {
                        return Err(StepError::Diverged {
                            guard: Guard::EnergyRun,
                        });
                    }
                    e_ref += exchanged;
                    e_ref
                } else {
                    return Err(StepError::NonFiniteResult);
                };
                e1 = k1 + v1;
                if k1 > scale {
                    scale = k1;
                }
                if !e1.finite() {
                    return Err(StepError::NonFiniteResult);
                }
                if let Some(r) = self.guards.energy_run {
                    if (e1 - e_ref).abs() > r * scale {
                        return Err(StepError::Diverged {
                            guard: Guard::EnergyRun,
                        });
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
        self.check_residual_and_velocity(state, next, probe)?;
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
        self.scale = scale;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
