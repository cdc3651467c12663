//! Output control for every integrator: integrate until a time, record at given times or every
//! `k` steps into a caller-provided sink, observe with the choice to stop, and locate events.
//!
//! A [`Run`] says how far to go ([`Run::until`] a time, or [`Run::steps`]), what to record
//! ([`Run::save_at`], [`Run::save_every`] into a [`Sink`]: a `heapless::Vec` or a closure), an
//! [`Event`] to locate and what to do there, and an observer called after every step that may
//! stop the run ([`core::ops::ControlFlow`]). [`Integrator::run`](crate::Integrator::run) and
//! [`StochasticIntegrator::run_noisy`](crate::StochasticIntegrator::run_noisy) carry it out,
//! once, for every method, through the step driver: each step keeps the step contract (checks,
//! guards, compensated clock, state bit-identical on a failed step). No allocation; the work per
//! step is bounded: one step, one or two event-function values, and on a crossing at most
//! [`MAX_ROOT_ITERATIONS`] interpolations for the root and one shortened step; each recorded time
//! costs one interpolation.
//!
//! **Until.** A deterministic run takes steps of the configured size `h` while more than `h`
//! remains, then one step of the remaining `t_end − t ∈ (0, h]` (remainders within a few
//! rounding errors of `h` count as `h`, so a horizon that is a multiple of `h` never ends in a
//! sliver step, and its states are those of plain stepping). It lands bit-exactly:
//! `state.t == t_end` (the last step's clock, within a few ulps of `t_end`, is set to it, and
//! the guard run continues from there). The shortened last step is a step of
//! the same method with a different size: a symplectic (symmetric) method's last map is
//! still symplectic (symmetric), so the composite map from the start is symplectic, but it is no
//! longer the `n`-fold power of one map — backward error analysis (the modified Hamiltonian
//! conserved to `O(h^p)` over exponentially long times) applies to the constant-step part only,
//! and the last step adds its own `O(h^{p+1})` local error; running backward from `t_end` with
//! `−h` does not retrace the forward grid unless `t_end − t₀` is a multiple of `h`. A FLAVOR's
//! last step scales its micro-step with it (`τ·h_last/δ`). A **stochastic** method only steps
//! its configured size (its Ornstein–Uhlenbeck coefficients are computed for `h` at
//! construction): its run stops at the last grid time `t ≤ t_end` and says so with
//! [`Stop::GridEnd`] when that is short of `t_end` by more than rounding, [`Stop::End`] when
//! `t_end` is on the grid (then `t` equals `t_end` to the clock's rounding, not bit-exactly).
//!
//! **Recording.** [`Run::save_every`] records the state after every `k`-th step (the start is
//! not recorded; a shortened last step counts as a step). [`Run::save_at`] records the state
//! at each of the given times (finite, non-decreasing, none before the start): a time on a step
//! end records that state, a time inside a step the cubic Hermite [`interpolate`] of the
//! step's ends — `O(h⁴)` in `q`, `O(h³)` in `v` (the derivative of the cubic, a finite
//! difference of `q` in the middle of the step, whose rounding adds about `ε|q|/h` to `v`),
//! plus the method's own error; a time at the
//! start records the start. A full sink stops the run with [`Stop::SinkFull`], the state at
//! the end of the step that filled it.
//!
//! **Observer.** Called with the state after every step (after an event's action, the state
//! the run continues from); `ControlFlow::Break(())` stops the run with [`Stop::Observer`].
//!
//! **Events.** [`Event`] holds a function `g(state)`, a [`Direction`] and a time tolerance.
//! After each step the signs of `g` at its ends are compared (zero counts as no sign: a run
//! that starts on `g = 0` does not fire there); on a crossing in the event's direction the
//! crossing time is located on the Hermite interpolant to within the tolerance by Illinois
//! (regula falsi, a bisection every third iteration, at most [`MAX_ROOT_ITERATIONS`]
//! interpolations), and the state is moved to the event: a deterministic method takes one step
//! of `τ − t_prev` from the step's start (the method's own accuracy at the event, not the
//! interpolant's; the guards judge that step as the start of a new run), a stochastic method
//! takes the interpolated state (it cannot take a shortened step). Recorded times up to `τ`
//! come from the interpolant of the full step. Then the event's action runs with `&mut state`:
//! `ControlFlow::Break(())` stops the run with [`Stop::Event`], the state at the event;
//! `ControlFlow::Continue(())` continues from the state as the action left it (a velocity reset
//! for an impact: the next step starts a new guard run, since the state is not the one the
//! driver committed last). The crossing that fired is not reported again: the next step's
//! start counts as `g = 0`. One crossing per step is seen (an even number of crossings inside
//! one step changes no sign); `g` returning a non-finite value is [`RunError::EventValue`].
//!
//! **Errors.** A bad run configuration is refused before the first step with
//! [`RunError::Config`] (the state untouched); a step error ends the run with
//! [`RunError::Step`], the state at the last successful step (recorded and observed).
//!
//! ```
//! use core::ops::ControlFlow;
//! use macrostep::output::{Direction, Event, Run, Stop};
//! use macrostep::prelude::*;
//! use macrostep::systems::Pendulum;
//!
//! let p = Pendulum::<f64>::paper();
//! let mut rattle = Rattle::new(p.system(), p.constraint(), 0.01, Default::default())?;
//! let mut s = p.initial_state(); // horizontal, at rest
//! // Record x at t = 0.25, 0.5, …, and stop where the bob passes under the pivot (x = 0).
//! let times = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0];
//! let mut saved = heapless::Vec::<State<f64, 2>, 8>::new();
//! let bottom = Event::new(|s: &State<f64, 2>| s.q[0], |_: &mut State<f64, 2>| ControlFlow::Break(()),
//!                         Direction::Falling, 1e-12);
//! let out = rattle.run(&mut s, Run::until(10.0).save_at(&times, &mut saved).event(bottom))?;
//! assert_eq!(out.stop, Stop::Event);
//! // A quarter of the exact period 4 K(1/√2) = 7.4163 (L = g = 1, released at 90°).
//! assert!((s.t - 1.854_074_677_301_372).abs() < 1e-4);
//! assert_eq!(saved.len(), 7); // 0.25 … 1.75: the run stopped before 2.0
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```

mod event;
mod hermite;
mod run;
mod sink;

pub use event::{Direction, Event, Events, NoEvent};
pub use hermite::interpolate;
pub use sink::{Full, NoSink, Sink};

use crate::{ConfigError, Real, State, StepError};
use core::fmt;
use core::ops::ControlFlow;

/// The iteration cap of the event root solve (interpolations per located crossing).
///
/// ```
/// assert_eq!(macrostep::output::MAX_ROOT_ITERATIONS, 128);
/// ```
pub const MAX_ROOT_ITERATIONS: u32 = hermite::MAX_ITERATIONS;

/// A run that could not be completed.
///
/// ```
/// use macrostep::output::{Run, RunError};
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
/// let mut s = p.initial_state();
/// let err = rattle.run(&mut s, Run::until(f64::NAN)).unwrap_err();
/// assert_eq!(err, RunError::Config(ConfigError::NonFinite { name: "t_end" }));
/// assert_eq!(s, p.initial_state()); // refused before the first step
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RunError {
    /// The run's configuration is invalid (`name`: `"t_end"`, `"times"`, `"every"`,
    /// `"tolerance"`); refused before the first step.
    Config(ConfigError),
    /// A step failed; the state holds the last successful step.
    Step(StepError),
    /// The event function returned a non-finite value; the state holds the step it was
    /// evaluated at.
    EventValue,
}

impl From<StepError> for RunError {
    fn from(e: StepError) -> Self {
        Self::Step(e)
    }
}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        Self::Config(e)
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(e) => write!(f, "invalid run: {e}"),
            Self::Step(e) => write!(f, "step failed: {e}"),
            Self::EventValue => f.write_str("the event function returned a non-finite value"),
        }
    }
}

impl core::error::Error for RunError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Config(e) => Some(e),
            Self::Step(e) => Some(e),
            Self::EventValue => None,
        }
    }
}

/// Why a run stopped (in [`Outcome::stop`]).
///
/// ```
/// use macrostep::output::{Run, Stop};
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
/// let mut s = p.initial_state();
/// assert_eq!(rattle.run(&mut s, Run::steps(3))?.stop, Stop::End);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stop {
    /// The run reached its end: `t_end` (bit-exactly for a deterministic method) or its step
    /// count.
    End,
    /// A stochastic run stopped at its last grid time before `t_end` (one more step of the
    /// configured size would pass it).
    GridEnd,
    /// The observer returned `ControlFlow::Break`.
    Observer,
    /// An event's action returned `ControlFlow::Break`; the state is at the event.
    Event,
    /// The sink refused a record (its capacity is exhausted).
    SinkFull,
}

/// What a run did.
///
/// ```
/// use macrostep::output::{Outcome, Run, Stop};
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.1, Default::default())?;
/// let mut s = p.initial_state();
/// let out = rattle.run(&mut s, Run::until(0.25))?;
/// let expected = Outcome { stop: Stop::End, steps: 3, saved: 0, events: 0, last_event: None };
/// assert_eq!(out, expected); // two steps of 0.1, one of 0.05
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "a run can stop before its end: check `stop`"]
pub struct Outcome<T> {
    /// Why the run stopped.
    pub stop: Stop,
    /// Steps taken (a shortened step to an event or to `t_end` counts as one).
    pub steps: usize,
    /// States recorded into the sink.
    pub saved: usize,
    /// Events fired.
    pub events: usize,
    /// The time of the last event fired.
    pub last_event: Option<T>,
}

/// What is called after every step: a closure `FnMut(&State) -> ControlFlow<()>`, or `()` for
/// none.
///
/// ```
/// use core::ops::ControlFlow;
/// use macrostep::output::Observer;
/// use macrostep::State;
/// use nalgebra::vector;
///
/// let mut stop_late = |s: &State<f64, 1>| if s.t > 1.0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
/// assert!(stop_late.observe(&State::new(2.0, vector![0.0], vector![0.0])).is_break());
/// assert!(Observer::<f64, 1>::observe(&mut (), &State::at_rest(vector![0.0])).is_continue());
/// ```
pub trait Observer<T: Real, const N: usize> {
    /// Sees the state after a step; `Break` stops the run.
    fn observe(&mut self, state: &State<T, N>) -> ControlFlow<()>;
}

impl<T: Real, const N: usize> Observer<T, N> for () {
    fn observe(&mut self, _: &State<T, N>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl<T: Real, const N: usize, F: FnMut(&State<T, N>) -> ControlFlow<()>> Observer<T, N> for F {
    fn observe(&mut self, state: &State<T, N>) -> ControlFlow<()> {
        self(state)
    }
}

/// How far a run goes ([`Run::until`] and [`Run::steps`] build it).
///
/// ```
/// use macrostep::output::End;
/// assert_ne!(End::Time(1.0), End::Steps(10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum End<T> {
    /// Until this time (see the [module docs](self)).
    Time(T),
    /// This many steps of the configured size.
    Steps(usize),
}

/// When a run records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SaveAt<'a, T> {
    /// Nothing.
    Never,
    /// After every `k`-th step.
    Every(usize),
    /// At these times (finite, non-decreasing, none before the start).
    Times(&'a [T]),
}

/// A run: its end, what it records where, its event and its observer. Built from
/// [`Run::until`] or [`Run::steps`]; carried out by
/// [`Integrator::run`](crate::Integrator::run) or
/// [`StochasticIntegrator::run_noisy`](crate::StochasticIntegrator::run_noisy).
///
/// ```
/// use core::ops::ControlFlow;
/// use macrostep::output::{Run, Stop};
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
/// let mut s = p.initial_state();
/// // Every 10th state into a buffer; stop once the bob is below y = −0.9.
/// let mut every = heapless::Vec::<State<f64, 2>, 16>::new();
/// let run = Run::until(3.0)
///     .save_every(10, &mut every)
///     .observe(|s: &State<f64, 2>| if s.q[1] < -0.9 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) });
/// let out = rattle.run(&mut s, run)?;
/// assert_eq!(out.stop, Stop::Observer);
/// assert!(s.q[1] < -0.9 && out.saved == out.steps / 10);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Run<'a, T, S, E, O> {
    end: End<T>,
    save: SaveAt<'a, T>,
    sink: S,
    event: E,
    observer: O,
}

impl<T: Real> Run<'static, T, NoSink, NoEvent, ()> {
    /// A run until `t_end` (finite, not before the start: checked when the run starts).
    ///
    /// ```
    /// use macrostep::output::{Run, Stop};
    /// use macrostep::prelude::*;
    /// use macrostep::systems::Pendulum;
    ///
    /// let p = Pendulum::<f32>::paper();
    /// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
    /// let mut s = p.initial_state();
    /// let out = rattle.run(&mut s, Run::until(1.234))?;
    /// assert_eq!((out.stop, out.steps, s.t), (Stop::End, 25, 1.234)); // 24 steps of h, one of 0.034
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn until(t_end: T) -> Self {
        Self::with_end(End::Time(t_end))
    }

    /// A run of `n` steps of the configured size.
    ///
    /// ```
    /// use macrostep::output::Run;
    /// use macrostep::prelude::*;
    /// use macrostep::systems::Pendulum;
    ///
    /// let p = Pendulum::<f64>::paper();
    /// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
    /// let mut s = p.initial_state();
    /// let out = rattle.run(&mut s, Run::steps(20))?;
    /// assert_eq!(out.steps, 20);
    /// assert!((s.t - 1.0).abs() < 1e-12);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn steps(n: usize) -> Self {
        Self::with_end(End::Steps(n))
    }

    fn with_end(end: End<T>) -> Self {
        Self {
            end,
            save: SaveAt::Never,
            sink: NoSink,
            event: NoEvent,
            observer: (),
        }
    }
}

impl<'a, T: Real, S, E, O> Run<'a, T, S, E, O> {
    /// Records the state after every `k`-th step (`k ≥ 1`) into `sink` (see the
    /// [`Run`] example).
    pub fn save_every<S2>(self, k: usize, sink: S2) -> Run<'a, T, S2, E, O> {
        self.saving(SaveAt::Every(k), sink)
    }

    /// Records the state at `times` into `sink` (see the [module](self) example).
    pub fn save_at<'b, S2>(self, times: &'b [T], sink: S2) -> Run<'b, T, S2, E, O> {
        self.saving(SaveAt::Times(times), sink)
    }

    /// Records by `save` into `sink`.
    ///
    /// ```
    /// use macrostep::output::{Run, SaveAt};
    /// use macrostep::prelude::*;
    /// use macrostep::systems::Pendulum;
    ///
    /// let p = Pendulum::<f64>::paper();
    /// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
    /// let (mut s, mut n) = (p.initial_state(), 0);
    /// let out = rattle.run(&mut s, Run::steps(9).saving(SaveAt::Every(3), |_: &State<f64, 2>| n += 1))?;
    /// assert_eq!((out.saved, n), (3, 3));
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn saving<'b, S2>(self, save: SaveAt<'b, T>, sink: S2) -> Run<'b, T, S2, E, O> {
        Run {
            end: self.end,
            save,
            sink,
            event: self.event,
            observer: self.observer,
        }
    }

    /// Watches `event` (see the [`Event`] example).
    pub fn event<E2>(self, event: E2) -> Run<'a, T, S, E2, O> {
        Run {
            end: self.end,
            save: self.save,
            sink: self.sink,
            event,
            observer: self.observer,
        }
    }

    /// Calls `observer` after every step (see the [`Run`] example).
    pub fn observe<O2>(self, observer: O2) -> Run<'a, T, S, E, O2> {
        Run {
            end: self.end,
            save: self.save,
            sink: self.sink,
            event: self.event,
            observer,
        }
    }
}

pub(crate) use run::{run_det, run_noisy};
