//! The run guard's memory, [`Watch`]: the last committed state, the compensated clock, the
//! run's reference energy, its energy scale and its stretched tier (see the [guard
//! docs](super)).

use super::allowance::{
    round_off, run_bound_holds, start_scale, STRETCHED_AT, STRETCHED_SHARE, TIER_FROM, TIER_GROWTH,
};
use super::bounds::{Bounds, ENERGY_RUN, ENERGY_STEP, RESIDUAL, VELOCITY_STEP};
use super::memory::{Fixed, Memory};
use super::{Guard, Guards, Probe};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// The guards of one integrator and what they remember of the run: the last committed state,
/// the clock's compensation, the reference energy and scale.
#[derive(Clone, Copy, Debug)]
pub struct Watch<T: Real, const N: usize> {
    bounds: Bounds<T>,
    last: State<T, N>,
    running: Running,
    clock_c: T,
    e_last: T,
    e_ref: T,
    v_lo: T,
    v_hi: T,
    k_start: T,
    /// The largest kinetic energy of the run (`K₀` at its start).
    k_max: T,
    /// The residual above which the mechanism is stretched: a share of the residual bound, or
    /// the run's start when that was more stretched.
    stretched_above: T,
    /// The round-off of the run's energies, `2·ROUNDING·ε·|E_ref|` at the start of the run and
    /// at each accounted change: a run whose scale is below it cannot be judged.
    level: T,
    scale: T,
    /// The stretched tier's scale `S_u` for the next step: the run's scale after a step at which
    /// the mechanism was not stretched (and at the start), the smaller of the scale and the
    /// previous `S_u` grown by `TIER_GROWTH` after a stretched one.
    tier_scale: T,
    /// The number of the last committed step in the run (`1` for the first).
    steps: u32,
}

/// Whether a run is going. A word, not a `bool`: its invalid values are the largest niche of an
/// integrator that holds a watch, so `Option<integrator>` keeps its tag here, and a method
/// written into an `Option` slot in place (`ZhangSkeel::new_in`) is not first assembled on
/// the stack (a `bool` here put 240 B more on the stack of the firmware's cart-pole set-up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
enum Running {
    No,
    Yes,
}

impl<T: Real, const N: usize> Default for Watch<T, N> {
    /// A watch with the default guards.
    fn default() -> Self {
        Self::of(Bounds::of(Guards::default()))
    }
}

impl<T: Real, const N: usize> Watch<T, N> {
    /// A watch with `guards`, validated.
    ///
    /// ```
    /// use macrostep::guard::{Guards, Watch};
    /// let w = Watch::<f64, 2>::new(Guards { energy_step: Some(0.5), ..Guards::default() }).unwrap();
    /// assert_eq!(w.guards().energy_step, Some(0.5));
    /// assert!(Watch::<f64, 2>::new(Guards { residual: Some(-1.0), ..Guards::default() }).is_err());
    /// ```
    ///
    /// # Errors
    /// As [`Guards::validate`].
    pub fn new(guards: Guards<T>) -> Result<Self, ConfigError> {
        Ok(Self::of(Bounds::of(guards.validate()?)))
    }

    /// A watch with the default guards but those `off` (a scheme that cannot use them): valid
    /// by construction.
    pub(crate) fn default_without(off: fn(&mut Guards<T>)) -> Self {
        let mut guards = Guards::default();
        off(&mut guards);
        Self::of(Bounds::of(guards))
    }

    /// The same guards, with no run going (a new integrator built from one that holds this
    /// watch).
    pub(crate) fn fresh(&self) -> Self {
        Self::of(self.bounds)
    }

    /// A watch with validated `bounds` and no run going.
    fn of(bounds: Bounds<T>) -> Self {
        Self {
            bounds,
            last: State::at_rest(SVector::zeros()),
            running: Running::No,
            clock_c: T::zero(),
            e_last: T::zero(),
            e_ref: T::zero(),
            v_lo: T::zero(),
            v_hi: T::zero(),
            k_start: T::zero(),
            k_max: T::zero(),
            stretched_above: T::zero(),
            level: T::zero(),
            scale: T::zero(),
            tier_scale: T::zero(),
            steps: 0,
        }
    }

    /// The guards.
    pub fn guards(&self) -> Guards<T> {
        self.bounds.guards()
    }

    /// Replaces the guards (validated) and starts a new run.
    ///
    /// # Errors
    /// As [`Guards::validate`]; the guards are unchanged on error.
    pub fn set_guards(&mut self, guards: Guards<T>) -> Result<(), ConfigError> {
        self.bounds = Bounds::of(guards.validate()?);
        self.restart();
        Ok(())
    }

    /// Starts a new run at the next step (the model changed).
    #[inline]
    pub fn restart(&mut self) {
        self.running = Running::No;
    }

    /// Continues the run across a change the integrator accounts for (see [`crate::forcing`]):
    /// when a run is going, `change` may move the last committed state (a damping kick) and
    /// returns the energy `ΔE` the change added at that state (`−Δuᵀq` for a new held force
    /// `u`, `ΔK` for a kick); the reference and last energies move by `ΔE`, so the run guard
    /// bounds `E − E_ref − W + D` (work `W` done by the forces, energy `D` taken by damping). A
    /// non-finite `ΔE` starts a new run instead. Nothing happens when no run is going.
    #[inline]
    pub fn account(&mut self, change: impl FnOnce(&mut State<T, N>) -> T) {
        if self.running == Running::Yes {
            let de = change(&mut self.last);
            if de.finite() {
                self.e_ref += de;
                self.e_last += de;
                self.v_lo += de;
                self.v_hi += de;
                self.level = round_off(self.e_ref);
            } else {
                self.running = Running::No;
            }
        }
    }

    /// Whether `state` continues the run: it is the state this watch committed last (all of
    /// it when the run's energy is tracked, its time otherwise — the clock's compensation is
    /// all that then carries over). Both states are finite, so the components are equal when
    /// the sum of their distances is zero (a sum of non-negative terms is zero only when each
    /// is, and the difference of two finite values only when they are equal): one pass without
    /// a branch.
    #[inline]
    fn continues(&self, state: &State<T, N>, tracked: bool) -> bool {
        if self.running != Running::Yes {
            return false;
        }
        let mut apart = (self.last.t - state.t).abs();
        if tracked {
            for i in 0..N {
                apart += (self.last.q[i] - state.q[i]).abs() + (self.last.v[i] - state.v[i]).abs();
            }
        }
        apart == T::zero()
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
        let bound = self.bounds.residual;
        if let (true, Some(r)) = (self.bounds.on & RESIDUAL != 0, residual) {
            // A NaN residual is refused too.
            if r > bound || !r.finite() {
                return Err(StepError::Diverged {
                    guard: Guard::Residual,
                });
            }
        }
        let bound = self.bounds.velocity_step;
        if self.bounds.on & VELOCITY_STEP != 0 {
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
    /// [`StepError::NonFiniteResult`], [`StepError::ClockStalled`], [`StepError::Diverged`]
    /// (the energy guards before the residual and velocity guards).
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
        let tracked = P::HAS_ENERGY && self.bounds.energy_on();
        let cont = self.continues(state, tracked);
        let (t, c) = self.advance_clock(state.t, h, cont)?;
        // The residual of `next`, evaluated once: the residual guard bounds it, and the run
        // guard's bound tightens while the mechanism is stretched.
        let residual = if self.bounds.on & RESIDUAL != 0 {
            probe.residual(&next.q)
        } else {
            None
        };
        let held = self.check_residual_and_velocity(state, next, residual);
        if self.bounds.energy_on() {
            self.judge_energy(state, next, exchanged, cont, residual, held, probe)?;
        } else {
            held?;
        }
        state.t = t;
        state.q = next.q;
        state.v = next.v;
        if tracked {
            self.last = *state;
        } else {
            self.last.t = t;
        }
        self.running = Running::Yes;
        self.clock_c = c;
        Ok(())
    }

    /// The compensated clock after a step of `h` from `t0`: the new time and its compensation
    /// (Kahan summation, the compensation carried over the run when `cont`).
    ///
    /// # Errors
    /// [`StepError::ClockStalled`] when the time does not advance by `h` to within half of it.
    #[inline(always)]
    fn advance_clock(&self, t0: T, h: T, cont: bool) -> Result<(T, T), StepError> {
        let y = h - if cont { self.clock_c } else { T::zero() };
        let t = t0 + y;
        let dt = t - t0;
        if !(t.finite() && (dt - h).abs() <= h.abs() * T::lit(0.5)) {
            return Err(StepError::ClockStalled);
        }
        Ok((t, dt - y))
    }

    /// The energy guards of [`Watch::commit`] on `next` (from `state`, continuing the run when
    /// `cont`, `residual` the residual of `next`), then `held` (the residual and velocity
    /// guards' verdict); when every guard holds, the run's memory moves to the step. Only what
    /// changed is written: a step of a continuing run writes its energy, its number and the
    /// stretched tier's scale, and its scale and ranges only when they grew.
    ///
    /// # Errors
    /// [`StepError::NonFiniteResult`], [`StepError::Diverged`], `held`'s error.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn judge_energy<P: Probe<T, N>>(
        &mut self,
        state: &State<T, N>,
        next: &State<T, N>,
        exchanged: T,
        cont: bool,
        residual: Option<T>,
        held: Result<(), StepError>,
        probe: &P,
    ) -> Result<(), StepError> {
        let Some((k1, v1)) = probe.energy(next) else {
            return held;
        };
        // Adding a zero moves nothing the guards compare (`−0 + 0` is `+0`): a conservative
        // method, whose `exchanged` is the literal zero, skips the addition.
        let moved = exchanged != T::zero();
        let (mut m, fixed) = if cont {
            let mut e_ref = self.e_ref;
            if moved {
                e_ref += exchanged;
            }
            let m = Memory {
                e_ref,
                v_lo: self.v_lo,
                v_hi: self.v_hi,
                k_max: self.k_max,
                scale: self.scale,
                tier_scale: self.tier_scale,
                n: self.steps.saturating_add(1),
            };
            let fixed = Fixed {
                k0: self.k_start,
                e0: self.e_last,
                stretched_above: self.stretched_above,
                level: self.level,
            };
            (m, fixed)
        } else {
            let Some(k0_v0) = probe.energy(state) else {
                return Err(StepError::NonFiniteResult);
            };
            let r0 = if self.bounds.on & RESIDUAL != 0 {
                probe.residual(&state.q)
            } else {
                None
            };
            self.start_run(k0_v0, r0, exchanged)?
        };
        let (e1, grew) = self.judge(&mut m, (k1, v1), exchanged, residual, fixed)?;
        held?;
        self.e_last = e1;
        self.steps = m.n;
        self.tier_scale = m.tier_scale;
        if moved || !cont {
            self.e_ref = m.e_ref;
        }
        if grew || !cont {
            self.v_lo = m.v_lo;
            self.v_hi = m.v_hi;
            self.k_max = m.k_max;
            self.scale = m.scale;
        }
        if !cont {
            self.k_start = fixed.k0;
            self.stretched_above = fixed.stretched_above;
            self.level = fixed.level;
        }
        Ok(())
    }

    /// The start of a run at a state of energies `(k0, v0)` and residual `r0`: the run's memory
    /// before its first step (its reference moved by the energy `exchanged` in that step) and
    /// what stays fixed over the run.
    ///
    /// # Errors
    /// [`StepError::Diverged`] ([`Guard::EnergyRun`]) when the start's energy overflowed.
    #[inline(always)]
    fn start_run(
        &self,
        (k0, v0): (T, T),
        r0: Option<T>,
        exchanged: T,
    ) -> Result<(Memory<T>, Fixed<T>), StepError> {
        let e0 = k0 + v0;
        let scale = start_scale(k0, v0, self.bounds.energy_scale);
        // A start whose energy overflowed cannot be bounded: refused here rather than passed by
        // comparisons with infinity or NaN (a running run's reference and scale stay finite:
        // every committed energy is).
        if !(e0.finite() && scale.finite()) {
            return Err(StepError::Diverged {
                guard: Guard::EnergyRun,
            });
        }
        // A start off its constraint releases what it stores: only a stretch beyond the
        // start's counts as one.
        let stretched_above = if self.bounds.on & RESIDUAL != 0 {
            let at = self.bounds.residual * T::lit(STRETCHED_AT);
            match r0 {
                Some(r0) if r0 > at => r0,
                _ => at,
            }
        } else {
            T::zero()
        };
        let e_ref = e0 + exchanged;
        let m = Memory {
            e_ref,
            v_lo: v0,
            v_hi: v0,
            k_max: k0,
            scale,
            tier_scale: scale,
            n: 1,
        };
        let fixed = Fixed {
            k0,
            e0,
            stretched_above,
            level: round_off(e_ref),
        };
        Ok((m, fixed))
    }

    /// The energy guards on a step with energies `(k1, v1)` of a run whose memory before it is
    /// `m`: `m` moves to the step (its scale grows, the stretched tier's scale for the next
    /// step); returns the step's energy and whether the scale or a range grew.
    ///
    /// # Errors
    /// [`StepError::NonFiniteResult`], [`StepError::Diverged`] ([`Guard::EnergyRun`],
    /// [`Guard::EnergyStep`]).
    #[inline(always)]
    fn judge(
        &self,
        m: &mut Memory<T>,
        (k1, v1): (T, T),
        exchanged: T,
        residual: Option<T>,
        fixed: Fixed<T>,
    ) -> Result<(T, bool), StepError> {
        let e1 = k1 + v1;
        if !e1.finite() {
            return Err(StepError::NonFiniteResult);
        }
        let grew = m.grow_scale(k1, v1);
        let stretched =
            m.n >= TIER_FROM && matches!(residual, Some(res) if res > fixed.stretched_above);
        if self.bounds.on & ENERGY_RUN != 0 {
            self.check_run(m, e1, stretched, fixed)?;
        }
        // The next step's `S_u`: no more than the scale before it, which a diverging step
        // would grow to vouch for itself.
        m.tier_scale = if !stretched {
            m.scale
        } else {
            let grown = m.tier_scale * T::lit(TIER_GROWTH);
            if grown < m.scale {
                grown
            } else {
                m.scale
            }
        };
        if self.bounds.on & ENERGY_STEP != 0 {
            // The last step's energy, moved by what this step exchanged.
            let e0 = fixed.e0 + exchanged;
            if (e1 - e0).abs() > self.bounds.energy_step * m.scale {
                return Err(StepError::Diverged {
                    guard: Guard::EnergyStep,
                });
            }
        }
        Ok((e1, grew))
    }

    /// The run guard of [`Watch::commit`]: the drift of `e1` from the run's reference against
    /// the bound of the [guard docs](super) (the stretched tier's while `stretched`).
    ///
    /// # Errors
    /// [`StepError::Diverged`] ([`Guard::EnergyRun`]).
    #[inline(always)]
    fn check_run(
        &self,
        m: &Memory<T>,
        e1: T,
        stretched: bool,
        fixed: Fixed<T>,
    ) -> Result<(), StepError> {
        let r = self.bounds.energy_run;
        let drift = (e1 - m.e_ref).abs();
        // `S_u ≤ S`: the stretched tier's bound is the tightest.
        let tier = r * m.tier_scale;
        let bound = if stretched { tier } else { r * m.scale };
        // The common case (within the bound before the round-off allowance, within the
        // stretched tier's share of it while stretched, and energies resolvable against the
        // scale) costs a subtraction, a product and two comparisons; the rest is
        // `run_bound_holds`, which passes every step the common case passes.
        let beyond = if stretched {
            drift * T::lit(1.0 / STRETCHED_SHARE) > tier
        } else {
            drift > bound
        };
        if beyond || fixed.level > m.scale {
            let energies = (e1, m.e_ref);
            let kinetic = (fixed.k0, m.k_max);
            let (scale, level) = (m.scale, fixed.level);
            if !run_bound_holds(
                energies, drift, bound, scale, level, kinetic, m.n, stretched,
            ) {
                return Err(StepError::Diverged {
                    guard: Guard::EnergyRun,
                });
            }
        }
        Ok(())
    }
}
