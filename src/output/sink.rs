//! Where a run records states.

use crate::{Real, State};

/// The sink's capacity is exhausted (see [`Sink`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

/// Where a run records states: a fixed-capacity `heapless::Vec` (or `&mut` one), a closure.
///
/// ```
/// use macrostep::output::{Full, Sink};
/// use macrostep::State;
/// use nalgebra::vector;
///
/// let mut buf = heapless::Vec::<State<f32, 1>, 1>::new();
/// let s = State::at_rest(vector![1.0_f32]);
/// assert_eq!(buf.record(&s), Ok(()));
/// assert_eq!(buf.record(&s), Err(Full));
/// let mut n = 0;
/// let mut count = |_: &State<f32, 1>| n += 1;
/// assert_eq!(count.record(&s), Ok(()));
/// ```
pub trait Sink<T: Real, const N: usize> {
    /// Records `state`.
    ///
    /// # Errors
    /// [`Full`] when the sink cannot take it; the run then stops with [`Stop::SinkFull`](super::Stop::SinkFull).
    fn record(&mut self, state: &State<T, N>) -> Result<(), Full>;
}

impl<T: Real, const N: usize, const CAP: usize> Sink<T, N> for heapless::Vec<State<T, N>, CAP> {
    fn record(&mut self, state: &State<T, N>) -> Result<(), Full> {
        self.push(*state).map_err(|_| Full)
    }
}

impl<T: Real, const N: usize, const CAP: usize> Sink<T, N>
    for &mut heapless::Vec<State<T, N>, CAP>
{
    fn record(&mut self, state: &State<T, N>) -> Result<(), Full> {
        self.push(*state).map_err(|_| Full)
    }
}

impl<T: Real, const N: usize, F: FnMut(&State<T, N>)> Sink<T, N> for F {
    fn record(&mut self, state: &State<T, N>) -> Result<(), Full> {
        self(state);
        Ok(())
    }
}

/// No sink: what a [`Run`](super::Run) records into until it is given one.
///
/// ```
/// use macrostep::output::{NoSink, Sink};
/// use macrostep::State;
/// use nalgebra::vector;
///
/// assert_eq!(NoSink.record(&State::at_rest(vector![1.0_f64])), Ok(()));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSink;

impl<T: Real, const N: usize> Sink<T, N> for NoSink {
    fn record(&mut self, _: &State<T, N>) -> Result<(), Full> {
        Ok(())
    }
}
