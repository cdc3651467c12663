//! The one-step method vocabulary shared by every family.

use crate::guard::{Guards, Watch};
use crate::{ConfigError, Real, State, StepError};

/// A deterministic one-step method for a system with `N` degrees of freedom.
///
/// The caller owns the [`State`]; the integrator owns its model, its validated parameters and its
/// scratch. `step` advances by the configured step size; `step_by` advances by any signed step
/// (compositions use fractional steps, reversibility tests use `−h`).
///
/// # Contract
/// - On `Ok(())` the state is advanced by `h`, including `state.t` (by the compensated clock of
///   [`crate::guard`]), it is finite, and it satisfies every step guard that is on.
/// - On `Err(_)` the state is bit-identical to what it was before the call.
/// - A step never panics.
///
/// Integrators of mechanical systems carry [`Guards`] (on by default, see [`crate::guard`]):
/// read them with [`Integrator::guards`], replace them with [`Integrator::set_guards`].
///
/// The associated constants are claims that host tests measure: `ORDER` by the log–log slope of
/// the global error, `SYMPLECTIC` by the defect `‖DΦᵀ J DΦ − J‖`, `SYMMETRIC` by `Φ₋ₕ∘Φₕ = id`.
pub trait Integrator<T: Real, const N: usize> {
    /// Order of global convergence.
    const ORDER: u32;
    /// Whether the map is symplectic (for the canonical form in `(q, M v)`).
    const SYMPLECTIC: bool;
    /// Whether the method is symmetric (time-reversible): `Φ₋ₕ ∘ Φₕ = id`.
    const SYMMETRIC: bool;

    /// The configured step size `h`.
    fn step_size(&self) -> T;

    /// Advances `state` by the signed step `h`.
    ///
    /// # Errors
    /// [`StepError::StepSize`] when `h` is zero or not finite, [`StepError::NonFiniteState`] when
    /// the input is not finite, [`StepError::NonFiniteResult`] when the result is not; a method
    /// adds its own (singular solve, Newton not converged, …). The state is unchanged on error.
    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError>;

    /// Advances `state` by the configured step size.
    ///
    /// # Errors
    /// As [`Integrator::step_by`].
    fn step(&mut self, state: &mut State<T, N>) -> Result<(), StepError> {
        let h = self.step_size();
        self.step_by(state, h)
    }

    /// The integrator's guard memory, when it has one (the default: none).
    fn watch(&self) -> Option<&Watch<T, N>> {
        None
    }

    /// Mutable access to the guard memory, when the integrator has one.
    fn watch_mut(&mut self) -> Option<&mut Watch<T, N>> {
        None
    }

    /// The step guards in force; `None` when the integrator has no guards.
    fn guards(&self) -> Option<Guards<T>> {
        self.watch().map(|w| *w.guards())
    }

    /// Replaces the step guards (validated) and starts a new run.
    ///
    /// # Errors
    /// As [`Guards::validate`]; [`ConfigError::Inconsistent`] `{ name: "guards" }` when the
    /// integrator has no guards and `guards` is not [`Guards::off`].
    fn set_guards(&mut self, guards: Guards<T>) -> Result<(), ConfigError> {
        match self.watch_mut() {
            Some(w) => w.set_guards(guards),
            None if guards == Guards::off() => Ok(()),
            None => Err(ConfigError::Inconsistent { name: "guards" }),
        }
    }

    /// The integrator with the given step guards (see [`Integrator::set_guards`]).
    ///
    /// # Errors
    /// As [`Integrator::set_guards`].
    fn with_guards(mut self, guards: Guards<T>) -> Result<Self, ConfigError>
    where
        Self: Sized,
    {
        self.set_guards(guards)?;
        Ok(self)
    }

    /// Takes `n` steps of the configured size like [`Integrator::integrate`], calling `observe`
    /// with the state after every successful step: a recorder without allocation, the closure
    /// decides what to keep (a `heapless` ring buffer, a `defmt` log line, a host `Vec`).
    ///
    /// # Errors
    /// The first step error; the state then holds the last successful (and observed) step.
    ///
    /// ```
    /// use macrostep::prelude::*;
    /// use macrostep::systems::Pendulum;
    ///
    /// let p = Pendulum::<f64>::paper();
    /// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
    /// let mut s = p.initial_state();
    /// // Keep every 10th height in a fixed-capacity buffer.
    /// let mut heights = heapless::Vec::<f64, 16>::new();
    /// let mut k = 0;
    /// rattle.integrate_with(&mut s, 100, |s| {
    ///     k += 1;
    ///     if k % 10 == 0 {
    ///         let _ = heights.push(s.q[1]);
    ///     }
    /// })?;
    /// assert_eq!(heights.len(), 10);
    /// assert!(heights.iter().all(|y| *y <= 1e-12)); // the bob never rises above the pivot
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    fn integrate_with<F: FnMut(&State<T, N>)>(
        &mut self,
        state: &mut State<T, N>,
        n: usize,
        mut observe: F,
    ) -> Result<(), StepError> {
        for _ in 0..n {
            self.step(state)?;
            observe(state);
        }
        Ok(())
    }

    /// Takes `n` steps of the configured size, stopping at the first error (the state then holds
    /// the last successful step).
    ///
    /// # Errors
    /// The first step error.
    fn integrate(&mut self, state: &mut State<T, N>, n: usize) -> Result<(), StepError> {
        for _ in 0..n {
            self.step(state)?;
        }
        Ok(())
    }
}

/// Checks the common preconditions of a step: a usable `h` and a finite state.
#[inline]
pub fn check_step_input<T: Real, const N: usize>(
    state: &State<T, N>,
    h: T,
) -> Result<(), StepError> {
    if !(h.finite() && h != T::zero()) {
        return Err(StepError::StepSize);
    }
    if !state.is_finite() {
        return Err(StepError::NonFiniteState);
    }
    Ok(())
}

/// Commits `next` into `state` if it is finite and its clock moved (`next.t = state.t + h`
/// with `h ≠ 0` rounds back to `state.t` once `|h|` is below half the spacing of `t`);
/// otherwise leaves `state` untouched.
///
/// # Errors
/// [`StepError::NonFiniteResult`], [`StepError::ClockStalled`].
#[inline]
pub fn commit<T: Real, const N: usize>(
    state: &mut State<T, N>,
    next: State<T, N>,
) -> Result<(), StepError> {
    if !next.is_finite() {
        Err(StepError::NonFiniteResult)
    } else if next.t == state.t {
        Err(StepError::ClockStalled)
    } else {
        *state = next;
        Ok(())
    }
}
