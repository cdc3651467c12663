//! Events: a function of the state whose sign change a run locates.

use crate::{Real, State};
use core::ops::ControlFlow;

/// Which sign changes of an event function fire.
///
/// ```
/// use core::ops::ControlFlow;
/// use macrostep::output::{Direction, Event, Run};
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// // The bob passes under the pivot (x = 0) going left, then going right: Rising fires on the
/// // second pass only.
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.01, Default::default())?;
/// let mut s = p.initial_state();
/// let right = Event::new(|s: &State<f64, 2>| s.q[0], |_: &mut State<f64, 2>| ControlFlow::Break(()),
///                        Direction::Rising, 1e-10);
/// let out = rattle.run(&mut s, Run::until(10.0).event(right))?;
/// assert!((s.t - 3.0 * 1.854_074_677_301_372).abs() < 1e-3); // three quarter periods
/// assert_eq!(out.events, 1);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Direction {
    /// From `g > 0` to `g ≤ 0`.
    Falling,
    /// From `g < 0` to `g ≥ 0`.
    Rising,
    /// Either.
    Either,
}

/// An event: a function `g` of the state whose sign change is located, a direction, a time
/// tolerance, and an action at the event (see the [module docs](super)).
///
/// ```
/// use core::ops::ControlFlow;
/// use macrostep::output::{Direction, Event, Run};
/// use macrostep::prelude::*;
/// use macrostep::systems::LinearPotential;
/// use nalgebra::vector;
///
/// // A ball dropped from 1 m onto a floor at y = 0, bouncing back with its speed (g = 9.81).
/// let gravity = System::new(Mass::identity(), LinearPotential::new(vector![9.81])?);
/// let mut zs = ZhangSkeel::new(gravity, 0.01, ZsParams::default())?;
/// let mut s = State::at_rest(vector![1.0]);
/// let floor = Event::new(|s: &State<f64, 1>| s.q[0],
///                        |s: &mut State<f64, 1>| { s.v[0] = -s.v[0]; ControlFlow::Continue(()) },
///                        Direction::Falling, 1e-12);
/// let out = zs.run(&mut s, Run::until(1.0).event(floor))?;
/// // Z&S is exact on a constant force: the impact is at √(2/9.81) = 0.4515 s.
/// assert_eq!(out.events, 1);
/// assert!((out.last_event.unwrap() - (2.0_f64 / 9.81).sqrt()).abs() < 1e-11);
/// assert_eq!(s.t, 1.0);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Event<T, G, A> {
    g: G,
    action: A,
    direction: Direction,
    tolerance: T,
}

impl<T: Real, G, A> Event<T, G, A> {
    /// An event on the sign changes of `g` in `direction`, located to within `tolerance` in
    /// time (checked when the run starts: finite and `> 0`), with `action` at the event.
    pub fn new<const N: usize>(g: G, action: A, direction: Direction, tolerance: T) -> Self
    where
        G: FnMut(&State<T, N>) -> T,
        A: FnMut(&mut State<T, N>) -> ControlFlow<()>,
    {
        Self {
            g,
            action,
            direction,
            tolerance,
        }
    }
}

/// What a run needs of an event: implemented by [`Event`] and by [`NoEvent`].
///
/// ```
/// use core::ops::ControlFlow;
/// use macrostep::output::{Direction, Event, Events, NoEvent};
/// use macrostep::State;
/// use nalgebra::vector;
///
/// let mut e = Event::new(|s: &State<f64, 1>| s.q[0] - 2.0, |_: &mut State<f64, 1>| ControlFlow::Continue(()),
///                        Direction::Either, 1e-9);
/// assert_eq!(e.value(&State::at_rest(vector![3.0])), 1.0);
/// assert_eq!((e.direction(), e.tolerance()), (Direction::Either, 1e-9));
/// fn on<E: Events<f64, 1>>(_: &E) -> bool {
///     E::ON
/// }
/// assert!(on(&e) && !on(&NoEvent));
/// ```
pub trait Events<T: Real, const N: usize> {
    /// Whether there is an event to watch.
    const ON: bool;
    /// `g(state)`.
    fn value(&mut self, state: &State<T, N>) -> T;
    /// The crossing direction that fires.
    fn direction(&self) -> Direction;
    /// The time tolerance of the located crossing.
    fn tolerance(&self) -> T;
    /// The action at the event.
    fn act(&mut self, state: &mut State<T, N>) -> ControlFlow<()>;
}

impl<T: Real, const N: usize, G, A> Events<T, N> for Event<T, G, A>
where
    G: FnMut(&State<T, N>) -> T,
    A: FnMut(&mut State<T, N>) -> ControlFlow<()>,
{
    const ON: bool = true;
    fn value(&mut self, state: &State<T, N>) -> T {
        (self.g)(state)
    }
    fn direction(&self) -> Direction {
        self.direction
    }
    fn tolerance(&self) -> T {
        self.tolerance
    }
    fn act(&mut self, state: &mut State<T, N>) -> ControlFlow<()> {
        (self.action)(state)
    }
}

/// No event: what a [`Run`](super::Run) watches until [`Run::event`](super::Run::event).
///
/// ```
/// use macrostep::output::{Events, NoEvent};
/// assert!(!<NoEvent as Events<f32, 3>>::ON);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvent;

impl<T: Real, const N: usize> Events<T, N> for NoEvent {
    const ON: bool = false;
    fn value(&mut self, _: &State<T, N>) -> T {
        T::zero()
    }
    fn direction(&self) -> Direction {
        Direction::Either
    }
    fn tolerance(&self) -> T {
        T::one()
    }
    fn act(&mut self, _: &mut State<T, N>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}
