//! The run guard's memory, [`Watch`]: the last committed state, the compensated clock, the
//! run's reference energy, its energy scale and its stretched tier (see the [guard
//! docs](super)).

use super::allowance::round_off;
use super::bounds::{Bounds, RESIDUAL, VELOCITY_STEP};
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
}

mod energy;
