//! The one-step method vocabulary shared by every family.
//!
//! - [`Stepper`]: what every one-step method has — a configured step size and its step
//!   [`Guards`] — and the contract every step keeps (state bit-identical on error, clock advanced
//!   with the state, no panic).
//! - [`Integrator`]: deterministic methods, `step` / `step_by(h)` / `integrate(n)` /
//!   `run(Run)` ([`crate::output`]: until, saveat, events, observers).
//! - [`StochasticIntegrator`]: stochastic methods, `step_noisy(rng)` / `integrate_noisy(n, rng)` /
//!   `run_noisy(Run, rng)`, or `step_with_noise(noise)` with pre-drawn noise.
//!
//! The three traits are implemented once, by the step driver ([`crate::driver`]), for every
//! method; a method supplies only its proposal.

use crate::guard::Guards;
use crate::output::{Events, Observer, Outcome, Run, RunError, Sink};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use rand_core::Rng;

/// What every one-step method has: a configured step size, its step guards, and one contract.
///
/// # Contract (deterministic and stochastic steps alike)
/// - On `Ok(())` the state is advanced by the step, **including its time** `state.t` (advanced
///   by the compensated clock of [`crate::guard`]), it is finite, and it satisfies every step
///   guard that is on.
/// - On `Err(_)` the state is bit-identical to what it was before the call (a stochastic step
///   has still consumed its draws from the RNG).
/// - A step never panics.
///
/// The supertrait of [`Integrator`] and [`StochasticIntegrator`], so that code that only needs
/// the step size (a time grid, a step count for a horizon) or the guards accepts both.
///
/// ```
/// use macrostep::prelude::*;
/// use macrostep::systems::Pendulum;
///
/// fn steps_to<T: Real, S: Stepper<T, 2>>(s: &S, horizon: T) -> T {
///     horizon / s.step_size()
/// }
/// let p = Pendulum::<f64>::paper();
/// let rattle = Rattle::new(p.system(), p.constraint(), 0.05, Default::default())?;
/// assert!((steps_to(&rattle, 1.0) - 20.0).abs() < 1e-12);
/// assert_eq!(rattle.guards(), Guards::default());
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub trait Stepper<T: Real, const N: usize> {
    /// The configured step size `h` (the meso-step `δ` for a FLAVOR).
    fn step_size(&self) -> T;

    /// The step guards in force.
    fn guards(&self) -> Guards<T>;

    /// Replaces the step guards (validated) and starts a new run.
    ///
    /// # Errors
    /// As [`Guards::validate`]; the guards are unchanged on error.
    fn set_guards(&mut self, guards: Guards<T>) -> Result<(), ConfigError>;

    /// The integrator with the given step guards (see [`Stepper::set_guards`]).
    ///
    /// # Errors
    /// As [`Stepper::set_guards`].
    fn with_guards(mut self, guards: Guards<T>) -> Result<Self, ConfigError>
    where
        Self: Sized,
    {
        self.set_guards(guards)?;
        Ok(self)
    }
}

/// A deterministic one-step method for a system with `N` degrees of freedom.
///
/// The caller owns the [`State`]; the integrator owns its model, its validated parameters and its
/// scratch. `step` advances by the configured step size; `step_by` advances by any signed step
/// (compositions use fractional steps, reversibility tests use `−h`).
///
/// # Contract
/// The [`Stepper`] contract: on `Ok(())` the state is advanced by `h` (time included), finite
/// and within the guards; on `Err(_)` it is bit-identical to what it was; a step never panics.
///
/// Every integrator carries [`Guards`] (on by default, see [`crate::guard`]): read them with
/// [`Stepper::guards`], replace them with [`Stepper::set_guards`].
///
/// The associated constants are claims that host tests measure: `ORDER` by the log–log slope of
/// the global error, `SYMPLECTIC` by the defect `‖DΦᵀ J DΦ − J‖`, `SYMMETRIC` by `Φ₋ₕ∘Φₕ = id`.
pub trait Integrator<T: Real, const N: usize>: Stepper<T, N> + sealed::Stepped<T, N> {
    /// Order of global convergence.
    const ORDER: u32;
    /// Whether the map is symplectic (for the canonical form in `(q, M v)`).
    const SYMPLECTIC: bool;
    /// Whether the method is symmetric (time-reversible): `Φ₋ₕ ∘ Φₕ = id`.
    const SYMMETRIC: bool;

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

    /// Carries out `run` from `state`: until a time (landing on it bit-exactly with a shortened
    /// last step) or for a number of steps, recording into a sink, locating an event, calling an
    /// observer that may stop the run (see [`crate::output`] for the rules and their effect on
    /// the method's properties).
    ///
    /// # Errors
    /// [`RunError::Config`] for a run that cannot start (the state untouched);
    /// [`RunError::Step`] for a failed step (the state holds the last successful step);
    /// [`RunError::EventValue`] when the event function is not finite.
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
    /// // Keep every 10th state in a fixed-capacity buffer, land on t = 5.01.
    /// let mut kept = heapless::Vec::<State<f64, 2>, 16>::new();
    /// let out = rattle.run(&mut s, Run::until(5.01).save_every(10, &mut kept))?;
    /// assert_eq!((out.stop, out.steps, kept.len(), s.t), (Stop::End, 101, 10, 5.01));
    /// assert!(kept.iter().all(|s| s.q[1] <= 1e-12)); // the bob never rises above the pivot
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    fn run<S, E, O>(
        &mut self,
        state: &mut State<T, N>,
        run: Run<'_, T, S, E, O>,
    ) -> Result<Outcome<T>, RunError>
    where
        Self: Sized,
        S: Sink<T, N>,
        E: Events<T, N>,
        O: Observer<T, N>,
    {
        crate::output::run_det(self, state, run)
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

/// A stochastic one-step method for `N` degrees of freedom: each step draws its noise from an RNG
/// or takes it pre-drawn.
///
/// Names that cannot collide with [`Integrator`]'s (a SIM is both: the deterministic impulse
/// method and its Langevin form): `step_noisy(state, rng)`, `integrate_noisy(state, n, rng)`,
/// and `step_with_noise(state, &noise)` with noise drawn beforehand (to reuse one Brownian path
/// across step sizes, or for bit parity with another implementation).
///
/// # Contract
/// The [`Stepper`] contract, and: on error the RNG has advanced (its draws for the failed step
/// are consumed); a step consumes a fixed number of RNG words (documented per method), so a run
/// is reproducible from the seed.
///
/// Only forward steps of the configured size exist (there is no `step_by`): an
/// Ornstein–Uhlenbeck increment has no meaning for a negative time step, and its coefficients are
/// computed once for `h` at construction.
pub trait StochasticIntegrator<T: Real, const N: usize>:
    Stepper<T, N> + sealed::Stepped<T, N>
{
    /// The order of the method when the noise and friction vanish (the deterministic limit).
    const DETERMINISTIC_ORDER: u32;

    /// The noise one step consumes.
    type Noise;

    /// Advances `state` by one step of the configured size with pre-drawn `noise`.
    ///
    /// # Errors
    /// [`StepError::NonFiniteState`] when the input is not finite, [`StepError::NonFiniteResult`]
    /// when the result is not, [`StepError::Diverged`] for a guard, [`StepError::ClockStalled`];
    /// a method adds its own. The state is unchanged on error.
    fn step_with_noise(
        &mut self,
        state: &mut State<T, N>,
        noise: &Self::Noise,
    ) -> Result<(), StepError>;

    /// Advances `state` by one step of the configured size, drawing the noise from `rng`.
    ///
    /// # Errors
    /// As [`StochasticIntegrator::step_with_noise`].
    fn step_noisy<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        rng: &mut R,
    ) -> Result<(), StepError>;

    /// Carries out `run` from `state` with noise from `rng`, as [`Integrator::run`] but in steps
    /// of the configured size only: a run until `t_end` stops at the last grid time `≤ t_end`
    /// ([`Stop::GridEnd`](crate::output::Stop::GridEnd) when that is short of `t_end`), and an
    /// event moves the state to the interpolated state at the crossing (see
    /// [`crate::output`]).
    ///
    /// # Errors
    /// As [`Integrator::run`].
    ///
    /// ```
    /// use macrostep::output::{Run, Stop};
    /// use macrostep::prelude::*;
    /// use macrostep::langevin::{Gla, GlaParams};
    /// use macrostep::systems::HarmonicOscillator;
    /// use nalgebra::vector;
    /// use rand_pcg::{rand_core::SeedableRng, Pcg64};
    ///
    /// let o = HarmonicOscillator::<f64, 1>::new(vector![1.0])?;
    /// let params = GlaParams { friction: 1.0, inverse_temperature: 1.0 };
    /// let mut gla = Gla::new(o.system(), 0.1, params)?;
    /// let (mut s, mut rng) = (o.initial_state(), Pcg64::seed_from_u64(7));
    /// let out = gla.run_noisy(&mut s, Run::until(1.05), &mut rng)?;
    /// assert_eq!((out.stop, out.steps), (Stop::GridEnd, 10)); // 1.05 is off the grid of h = 0.1
    /// assert!((s.t - 1.0).abs() < 1e-12);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    fn run_noisy<R, S, E, O>(
        &mut self,
        state: &mut State<T, N>,
        run: Run<'_, T, S, E, O>,
        rng: &mut R,
    ) -> Result<Outcome<T>, RunError>
    where
        Self: Sized,
        R: Rng + ?Sized,
        S: Sink<T, N>,
        E: Events<T, N>,
        O: Observer<T, N>,
    {
        crate::output::run_noisy(self, state, run, rng)
    }

    /// Takes `n` steps, stopping at the first error (the state then holds the last successful
    /// step).
    ///
    /// # Errors
    /// The first step error.
    fn integrate_noisy<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        n: usize,
        rng: &mut R,
    ) -> Result<(), StepError> {
        for _ in 0..n {
            self.step_noisy(state, rng)?;
        }
        Ok(())
    }
}
