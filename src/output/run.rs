//! The run loop behind [`Integrator::run`] and [`StochasticIntegrator::run_noisy`]: one loop for
//! both, over what a step of each can do ([`Advance`]).

use super::hermite::{interpolate, locate};
use super::{Direction, End, Events, Observer, Outcome, Run, RunError, SaveAt, Sink, Stop};
use crate::{ConfigError, Integrator, Real, State, StepError, StochasticIntegrator};
use rand_core::Rng;

/// What the run loop needs of a stepper.
pub(crate) trait Advance<T: Real, const N: usize> {
    /// Whether a step of any size exists (deterministic methods).
    const SHORTENS: bool;
    /// The configured step size.
    fn size(&self) -> T;
    /// One step of the configured size.
    fn full(&mut self, s: &mut State<T, N>) -> Result<(), StepError>;
    /// One step of size `h` (only called when `SHORTENS`).
    fn by(&mut self, s: &mut State<T, N>, h: T) -> Result<(), StepError>;
    /// Sets the clock of the state the driver just committed to `t` (within an ulp of it).
    fn land(&mut self, s: &mut State<T, N>, t: T);
}

/// A deterministic integrator as an [`Advance`].
pub(crate) struct Det<'a, I>(pub(crate) &'a mut I);

impl<T: Real, const N: usize, I: Integrator<T, N>> Advance<T, N> for Det<'_, I> {
    const SHORTENS: bool = true;
    fn size(&self) -> T {
        self.0.step_size()
    }
    fn full(&mut self, s: &mut State<T, N>) -> Result<(), StepError> {
        self.0.step(s)
    }
    fn by(&mut self, s: &mut State<T, N>, h: T) -> Result<(), StepError> {
        self.0.step_by(s, h)
    }
    fn land(&mut self, s: &mut State<T, N>, t: T) {
        self.0.settle_clock(s, t);
    }
}

/// A stochastic integrator and its RNG as an [`Advance`].
pub(crate) struct Noisy<'a, I, R: ?Sized>(pub(crate) &'a mut I, pub(crate) &'a mut R);

impl<T: Real, const N: usize, I: StochasticIntegrator<T, N>, R: Rng + ?Sized> Advance<T, N>
    for Noisy<'_, I, R>
{
    const SHORTENS: bool = false;
    fn size(&self) -> T {
        self.0.step_size()
    }
    fn full(&mut self, s: &mut State<T, N>) -> Result<(), StepError> {
        self.0.step_noisy(s, self.1)
    }
    fn by(&mut self, _: &mut State<T, N>, _: T) -> Result<(), StepError> {
        Err(StepError::StepSize)
    }
    fn land(&mut self, _: &mut State<T, N>, _: T) {}
}

/// Refuses a run that cannot start from `state`.
fn validate<T: Real, const N: usize, S, E: Events<T, N>, O>(
    run: &Run<'_, T, S, E, O>,
    state: &State<T, N>,
) -> Result<(), ConfigError> {
    if let End::Time(t_end) = run.end {
        if !t_end.finite() {
            return Err(ConfigError::NonFinite { name: "t_end" });
        }
        if t_end < state.t {
            return Err(ConfigError::OutOfRange {
                name: "t_end",
                bound: ">= state.t",
            });
        }
    }
    match run.save {
        SaveAt::Every(0) => {
            return Err(ConfigError::OutOfRange {
                name: "every",
                bound: ">= 1",
            })
        }
        SaveAt::Times(times) => {
            let mut prev = state.t;
            for &t in times {
                if !t.finite() {
                    return Err(ConfigError::NonFinite { name: "times" });
                }
                if t < prev {
                    let bound = "non-decreasing, none before state.t";
                    return Err(ConfigError::OutOfRange {
                        name: "times",
                        bound,
                    });
                }
                prev = t;
            }
        }
        _ => {}
    }
    let tol = run.event.tolerance();
    if E::ON && !(tol.finite() && tol > T::zero()) {
        return Err(ConfigError::OutOfRange {
            name: "tolerance",
            bound: "> 0 and finite",
        });
    }
    Ok(())
}

/// Whether `g0 → g1` is a crossing in `dir` (zero counts as no sign at the start).
fn crosses<T: Real>(dir: Direction, g0: T, g1: T) -> bool {
    let zero = T::zero();
    let falling = g0 > zero && g1 <= zero;
    let rising = g0 < zero && g1 >= zero;
    match dir {
        Direction::Falling => falling,
        Direction::Rising => rising,
        Direction::Either => falling || rising,
    }
}

/// The size of the next step towards `end` after `steps` steps, or `None` at the end; `Err`
/// for a stochastic run whose next full step would pass `t_end`.
fn next_step<T: Real, const N: usize, A: Advance<T, N>>(
    adv: &A,
    end: End<T>,
    state: &State<T, N>,
    steps: usize,
) -> Result<Option<(T, bool)>, Stop> {
    let h = adv.size();
    match end {
        End::Steps(n) => Ok((steps < n).then_some((h, false))),
        End::Time(t_end) => {
            let rest = t_end - state.t;
            // Rounding of the clock: a few ulps of the larger of the times and of h (at most
            // a quarter step).
            let scale = if t_end.abs() > h { t_end.abs() } else { h };
            let mut slack = T::default_epsilon() * T::lit(8.0) * scale;
            if slack > h * T::lit(0.25) {
                slack = h * T::lit(0.25);
            }
            if rest <= T::zero() || (!A::SHORTENS && rest.abs() <= slack) {
                Ok(None)
            } else if A::SHORTENS && rest <= slack {
                // Within rounding of t_end already (a start or an event there): no step, the
                // clock only.
                Ok(Some((T::zero(), true)))
            } else if rest > h + slack {
                Ok(Some((h, false)))
            } else if rest >= h - slack {
                // The last step, on the grid to the clock's rounding: a step of the configured
                // size (the states are those of plain stepping), then the clock set to t_end.
                Ok(Some((h, A::SHORTENS)))
            } else if A::SHORTENS {
                Ok(Some((rest, true)))
            } else {
                Err(Stop::GridEnd)
            }
        }
    }
}

/// Carries out `run` from `state` with `adv`.
pub(crate) fn drive<T, const N: usize, A, S, E, O>(
    adv: &mut A,
    state: &mut State<T, N>,
    run: Run<'_, T, S, E, O>,
) -> Result<Outcome<T>, RunError>
where
    T: Real,
    A: Advance<T, N>,
    S: Sink<T, N>,
    E: Events<T, N>,
    O: Observer<T, N>,
{
    validate(&run, state)?;
    let Run {
        end,
        save,
        sink,
        mut event,
        observer,
    } = run;
    let g0 = if E::ON {
        event_value(&mut event, state)?
    } else {
        T::zero()
    };
    let mut books = Books {
        times: if let SaveAt::Times(t) = save { t } else { &[] },
        next_time: 0,
        every: if let SaveAt::Every(k) = save { k } else { 0 },
        out: Outcome {
            stop: Stop::End,
            steps: 0,
            saved: 0,
            events: 0,
            last_event: None,
        },
        sink,
        event,
        observer,
        g0,
    };
    let start = *state;
    if !books.save_until(&start, &start, start.t) {
        books.out.stop = Stop::SinkFull;
        return Ok(books.out);
    }
    loop {
        let (h, last) = match next_step(adv, end, state, books.out.steps) {
            Ok(Some(step)) => step,
            Ok(None) => break,
            Err(stop) => {
                books.out.stop = stop;
                break;
            }
        };
        if h == T::zero() {
            if let End::Time(t_end) = end {
                adv.land(state, t_end);
            }
            continue;
        }
        let prev = *state;
        if last && h != adv.size() {
            adv.by(state, h)?;
        } else {
            adv.full(state)?;
        }
        if let (true, End::Time(t_end)) = (last, end) {
            adv.land(state, t_end);
        }
        books.out.steps += 1;
        if let Some(stop) = books.after_step(adv, &prev, state)? {
            books.out.stop = stop;
            break;
        }
    }
    Ok(books.out)
}

/// The bookkeeping of one run: what it records where, its event and observer, its outcome.
struct Books<'a, T, S, E, O> {
    times: &'a [T],
    next_time: usize,
    every: usize,
    out: Outcome<T>,
    sink: S,
    event: E,
    observer: O,
    /// `g` at the start of the next step (zero after an event: the crossing that fired).
    g0: T,
}

impl<T: Real, S, E, O> Books<'_, T, S, E, O> {
    /// Records every remaining time `≤ upto` on the interpolant from `a` to `b`; `false` when
    /// the sink is full.
    fn save_until<const N: usize>(&mut self, a: &State<T, N>, b: &State<T, N>, upto: T) -> bool
    where
        S: Sink<T, N>,
    {
        while let Some(&t) = self.times.get(self.next_time) {
            if t > upto {
                break;
            }
            let s = if t <= a.t { *a } else { interpolate(a, b, t) };
            if self.sink.record(&s).is_err() {
                return false;
            }
            self.next_time += 1;
            self.out.saved += 1;
        }
        true
    }

    /// What follows the committed step `prev → state`: the event (moving `state` to it), the
    /// records, the event's action, the observer; `Some` when the run stops.
    fn after_step<const N: usize, A: Advance<T, N>>(
        &mut self,
        adv: &mut A,
        prev: &State<T, N>,
        state: &mut State<T, N>,
    ) -> Result<Option<Stop>, RunError>
    where
        S: Sink<T, N>,
        E: Events<T, N>,
        O: Observer<T, N>,
    {
        let step_end = *state;
        let mut fired = None;
        if E::ON {
            let g1 = event_value(&mut self.event, state)?;
            if crosses(self.event.direction(), self.g0, g1) {
                let g0 = self.g0;
                fired = Some(locate_event(adv, &mut self.event, prev, state, g0, g1)?);
                self.g0 = T::zero();
            } else {
                self.g0 = g1;
            }
        }
        if !self.save_until(prev, &step_end, fired.unwrap_or(step_end.t)) {
            return Ok(Some(Stop::SinkFull));
        }
        if self.every > 0 && self.out.steps.is_multiple_of(self.every) {
            if self.sink.record(state).is_err() {
                return Ok(Some(Stop::SinkFull));
            }
            self.out.saved += 1;
        }
        if let Some(tau) = fired {
            self.out.events += 1;
            self.out.last_event = Some(tau);
            if self.event.act(state).is_break() {
                return Ok(Some(Stop::Event));
            }
        }
        Ok(self
            .observer
            .observe(state)
            .is_break()
            .then_some(Stop::Observer))
    }
}

/// `g(state)`, refused when not finite.
fn event_value<T: Real, const N: usize, E: Events<T, N>>(
    event: &mut E,
    state: &State<T, N>,
) -> Result<T, RunError> {
    let g = event.value(state);
    if g.finite() {
        Ok(g)
    } else {
        Err(RunError::EventValue)
    }
}

/// Locates the crossing of the step `prev → state` and moves `state` to it (a shortened step
/// from `prev` for a deterministic method, the interpolant for a stochastic one); returns its
/// time. On a failed shortened step `state` stays at the step's end.
fn locate_event<T: Real, const N: usize, A: Advance<T, N>, E: Events<T, N>>(
    adv: &mut A,
    event: &mut E,
    prev: &State<T, N>,
    state: &mut State<T, N>,
    g0: T,
    g1: T,
) -> Result<T, RunError> {
    let end = *state;
    let tol = event.tolerance();
    let mut bad = false;
    let (tau, _) = locate(
        |t| {
            let g = event.value(&interpolate(prev, &end, t));
            bad |= !g.finite();
            g
        },
        prev.t,
        g0,
        end.t,
        g1,
        tol,
    );
    if bad {
        return Err(RunError::EventValue);
    }
    if tau >= end.t {
        return Ok(end.t);
    }
    if A::SHORTENS {
        let dt = tau - prev.t;
        if dt <= T::default_epsilon() * T::lit(4.0) * prev.t.abs() {
            // At the step's start to the clock's resolution: no step shorter than the clock.
            *state = *prev;
            return Ok(prev.t);
        }
        let mut at = *prev;
        adv.by(&mut at, dt)?;
        *state = at;
        Ok(at.t)
    } else {
        *state = interpolate(prev, &end, tau);
        Ok(tau)
    }
}

/// [`Integrator::run`]'s body.
pub(crate) fn run_det<T: Real, const N: usize, I, S, E, O>(
    integrator: &mut I,
    state: &mut State<T, N>,
    run: Run<'_, T, S, E, O>,
) -> Result<Outcome<T>, RunError>
where
    I: Integrator<T, N>,
    S: Sink<T, N>,
    E: Events<T, N>,
    O: Observer<T, N>,
{
    drive(&mut Det(integrator), state, run)
}

/// [`StochasticIntegrator::run_noisy`]'s body.
pub(crate) fn run_noisy<T: Real, const N: usize, I, R, S, E, O>(
    integrator: &mut I,
    state: &mut State<T, N>,
    run: Run<'_, T, S, E, O>,
    rng: &mut R,
) -> Result<Outcome<T>, RunError>
where
    I: StochasticIntegrator<T, N>,
    R: Rng + ?Sized,
    S: Sink<T, N>,
    E: Events<T, N>,
    O: Observer<T, N>,
{
    drive(&mut Noisy(integrator, rng), state, run)
}

#[cfg(test)]
mod tests {
    use super::super::{Full, Sink};
    use crate::output::{Run, RunError, Stop};
    use crate::systems::Pendulum;
    use crate::{constrained::Rattle, Integrator, State};

    #[test]
    fn a_full_sink_stops_the_run_at_the_step_that_filled_it() {
        let p = Pendulum::<f64>::paper();
        let mut rattle = Rattle::new(p.system(), p.constraint(), 0.1, Default::default()).unwrap();
        let mut s = p.initial_state();
        let mut buf = heapless::Vec::<State<f64, 2>, 3>::new();
        let out = rattle
            .run(&mut s, Run::until(5.0).save_every(2, &mut buf))
            .unwrap();
        assert_eq!((out.stop, out.saved, out.steps), (Stop::SinkFull, 3, 8));
        assert_eq!(buf.len(), 3);
        assert!((s.t - 0.8).abs() < 1e-12 && (buf[2].t - 0.6).abs() < 1e-12);
        assert_eq!(buf.record(&s), Err(Full));
    }

    #[test]
    fn a_start_within_rounding_of_t_end_lands_without_a_step() {
        let p = Pendulum::<f64>::paper();
        let mut rattle = Rattle::new(p.system(), p.constraint(), 0.1, Default::default()).unwrap();
        let mut s = p.initial_state();
        s.t = 1.0 - f64::EPSILON / 2.0; // one ulp below 1
        let out = rattle.run(&mut s, Run::until(1.0)).unwrap();
        assert_eq!((out.stop, out.steps, s.t), (Stop::End, 0, 1.0));
        assert_eq!((s.q, s.v), (p.initial_state().q, p.initial_state().v));
    }

    #[test]
    fn a_start_on_a_saved_time_is_recorded_and_a_full_sink_there_stops_at_once() {
        let p = Pendulum::<f32>::paper();
        let mut rattle = Rattle::new(p.system(), p.constraint(), 0.1, Default::default()).unwrap();
        let start = p.initial_state();
        let mut s = start;
        let mut buf = heapless::Vec::<State<f32, 2>, 1>::new();
        let times = [0.0, 0.0];
        let out = rattle
            .run(&mut s, Run::until(1.0).save_at(&times, &mut buf))
            .unwrap();
        assert_eq!((out.stop, out.saved, out.steps), (Stop::SinkFull, 1, 0));
        assert_eq!((buf[0], s), (start, start));
        let err = rattle.run(&mut s, Run::until(f32::INFINITY)).unwrap_err();
        assert!(matches!(err, RunError::Config(_)));
    }
}
