//! Bounded-cost recovery: retry a failed step as `2ᵏ` sub-steps, up to a fixed depth.
//!
//! A step that fails a guard or a solve at step `h` may succeed as two steps of `h/2`, four of
//! `h/4`, …: the stiff or nonlinear feature that broke it is then resolved. [`Recovering`] wraps
//! any [`Integrator`] and does exactly that, up to `max_depth` halvings, so the worst case is
//! known in advance: `1 + 2 + 4 + … + 2^max_depth = 2^(max_depth+1) − 1` inner steps. Every
//! attempt runs on a copy of the state and of the inner integrator; the caller's state changes
//! only when an attempt succeeds, and the inner integrator's guard memory (the run's reference
//! energy, the clock's compensation) is restored before each retry, so a retried run is still
//! judged against the energy it started with.

use crate::{ConfigError, Integrator, Real, State, StepError};

/// An integrator that retries a failed step as `2, 4, …, 2^max_depth` sub-steps (see the
/// [module docs](self)).
///
/// ```
/// use macrostep::{systems::DoublePendulum, recover::Recovering, zs::{ZhangSkeel, ZsParams}};
/// use macrostep::{Integrator, State};
/// let dp = DoublePendulum::<f64>::paper();
/// let zs = ZhangSkeel::new(dp.penalised(20.0).unwrap(), 0.1, ZsParams::default()).unwrap();
/// let mut r = Recovering::new(zs, 4).unwrap();
/// let mut s = dp.initial_state();
/// r.integrate(&mut s, 100).unwrap();
/// assert!(r.max_depth_used() <= 4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Recovering<I> {
    inner: I,
    max_depth: u32,
    last_depth: u32,
    max_used: u32,
}

impl<I> Recovering<I> {
    /// The largest accepted `max_depth` (`2¹⁶` sub-steps in the last attempt).
    pub const MAX_DEPTH: u32 = 16;

    /// Wraps `inner`, retrying failed steps down to `2^max_depth` sub-steps.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `{ name: "max_depth" }` above [`Recovering::MAX_DEPTH`].
    pub fn new(inner: I, max_depth: u32) -> Result<Self, ConfigError> {
        if max_depth > Self::MAX_DEPTH {
            return Err(ConfigError::OutOfRange {
                name: "max_depth",
                bound: "<= MAX_DEPTH",
            });
        }
        Ok(Self {
            inner,
            max_depth,
            last_depth: 0,
            max_used: 0,
        })
    }

    /// The inner integrator.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// Mutable access to the inner integrator.
    pub fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }

    /// The depth the last successful step needed (`0`: no retry; `k`: `2ᵏ` sub-steps).
    pub fn last_depth(&self) -> u32 {
        self.last_depth
    }

    /// The largest depth any successful step needed since construction.
    pub fn max_depth_used(&self) -> u32 {
        self.max_used
    }

    /// The configured maximum depth.
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// The worst-case number of inner steps one step can take: `2^(max_depth+1) − 1`.
    pub fn worst_case_inner_steps(&self) -> u64 {
        (1u64 << (self.max_depth + 1)) - 1
    }
}

/// Whether a retry with smaller steps can help: not for bad input or a bad step size.
fn recoverable(e: StepError) -> bool {
    !matches!(
        e,
        StepError::StepSize | StepError::NonFiniteState | StepError::ClockStalled
    )
}

crate::integrator::impl_stepper!(
    impl[T: Real, I: crate::Stepper<T>] Recovering<I> => inner.step_size()
);

impl<T: Real, I: Integrator<T, N> + Clone, const N: usize> Integrator<T, N> for Recovering<I> {
    const ORDER: u32 = I::ORDER;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn watch(&self) -> Option<&crate::guard::Watch<T, N>> {
        self.inner.watch()
    }

    fn watch_mut(&mut self) -> Option<&mut crate::guard::Watch<T, N>> {
        self.inner.watch_mut()
    }

    fn set_guards(&mut self, guards: crate::Guards<T>) -> Result<(), ConfigError> {
        self.inner.set_guards(guards)
    }

    /// # Errors
    /// The inner step's error when it is not recoverable (bad input or step size), else the
    /// error of the deepest attempt. The state is unchanged on error.
    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        let first = match self.inner.step_by(state, h) {
            Ok(()) => {
                self.last_depth = 0;
                return Ok(());
            }
            Err(e) => e,
        };
        if !recoverable(first) {
            return Err(first);
        }
        let saved = self.inner.clone();
        let mut err = first;
        let mut pieces: u32 = 1;
        for depth in 1..=self.max_depth {
            pieces *= 2;
            let sub = h / T::lit(f64::from(pieces));
            let mut s = *state;
            match (0..pieces).try_for_each(|_| self.inner.step_by(&mut s, sub)) {
                Ok(()) => {
                    *state = s;
                    self.last_depth = depth;
                    self.max_used = self.max_used.max(depth);
                    return Ok(());
                }
                Err(e) => {
                    err = e;
                    self.inner = saved.clone();
                }
            }
        }
        Err(err)
    }
}
