//! Bounded-cost recovery: retry a failed step as `2ᵏ` sub-steps, up to a fixed depth.
//!
//! A step that fails a guard or a solve at step `h` may succeed as two steps of `h/2`, four of
//! `h/4`, …: the stiff or nonlinear feature that broke it is then resolved. [`Recovering`] wraps
//! any [`Method`] and does exactly that, up to `max_depth` halvings, so the worst case is known
//! in advance: `1 + 2 + 4 + … + 2^max_depth = 2^(max_depth+1) − 1` inner steps. Every attempt
//! runs on a copy of the state and is judged on a copy of the inner method's guard memory: the
//! full step, and each sub-step of a retry in sequence, must pass the guards there, and a retry
//! also needs its end state to pass them as one step of `h` (what the driver then commits). The
//! inner method is restored before each retry, so a retried run is still judged against the
//! energy it started with, and the caller's state and the guard memory change only when the
//! driver commits the step.

use crate::driver::{Guarded, Method, Wrapper};
use crate::guard::Watch;
use crate::{ConfigError, Real, State, StepError};

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
    /// The depth of the last proposal (kept when the driver commits it).
    proposed_depth: u32,
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
            proposed_depth: 0,
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

impl<I> Recovering<I> {
    /// Commits `next` (a step of `h` from `s` that exchanged `exchanged`) on `watch`, a copy of
    /// the inner method's guard memory, under its probe: whether the driver would commit it.
    #[inline]
    fn trial<T: Real, const N: usize>(
        &mut self,
        watch: &mut Watch<T, N>,
        s: &mut State<T, N>,
        next: &State<T, N>,
        h: T,
        exchanged: T,
    ) -> Result<(), StepError>
    where
        I: Method<T, N>,
    {
        crate::driver::trial_commit(&mut self.inner, watch, s, next, h, exchanged)
    }

    /// `pieces` sub-steps of `h / pieces` from `state`, each proposed by the inner method and
    /// trial-committed in sequence on a copy of its guard memory, then the end state
    /// trial-committed as one step of `h`. Writes the end into `next` and returns the energy
    /// exchanged.
    fn attempt<T: Real, const N: usize>(
        &mut self,
        state: &State<T, N>,
        h: T,
        pieces: u32,
        next: &mut State<T, N>,
    ) -> Result<T, StepError>
    where
        I: Method<T, N>,
    {
        let sub = h / T::lit(f64::from(pieces));
        let start = *Guarded::watch(&self.inner);
        let mut watch = start;
        let mut s = *state;
        let mut exchanged = T::zero();
        for k in 0..pieces {
            let mut end = s;
            let e = self.inner.propose(&s, sub, &mut end)?;
            self.trial(&mut watch, &mut s, &end, sub, e)?;
            exchanged += e;
            if k + 1 < pieces {
                self.inner.accept(&s);
            }
        }
        if pieces > 1 {
            // The driver commits the end as one step of `h`: it must pass the guards as such.
            let (mut fresh, mut whole) = (start, *state);
            self.trial(&mut fresh, &mut whole, &s, h, exchanged)?;
        }
        next.q = s.q;
        next.v = s.v;
        Ok(exchanged)
    }
}

/// The inner method's step size, guard memory and probe: the recovered step is committed under
/// the inner method's guards.
/// The inner method keeps what the committed step left, and the depth it needed is recorded.
impl<I> Wrapper for Recovering<I> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }

    #[inline]
    fn accepted(&mut self) {
        self.last_depth = self.proposed_depth;
        self.max_used = self.max_used.max(self.proposed_depth);
    }
}

impl<T: Real, I: Method<T, N> + Clone, const N: usize> Method<T, N> for Recovering<I> {
    const ORDER: u32 = I::ORDER;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    /// # Errors
    /// The inner step's error when it is not recoverable (bad input or step size, a stalled
    /// clock), else the error of the deepest attempt. The state is unchanged on error.
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let first = match self.attempt(state, h, 1, next) {
            Ok(exchanged) => {
                self.proposed_depth = 0;
                return Ok(exchanged);
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
            match self.attempt(state, h, pieces, next) {
                Ok(exchanged) => {
                    self.proposed_depth = depth;
                    return Ok(exchanged);
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
