//! The step driver: the one place the step contract lives.
//!
//! Every integrator of the crate steps through the blanket implementations of this module. The
//! driver owns what every step shares — the input checks, the step guards and their memory
//! ([`Watch`]), the compensated clock, the commit (the state is bit-identical on `Err`) — and a
//! method supplies only what is its own:
//!
//! - [`Guarded`]: its step size, where its guard memory lives, what the guards measure on its
//!   model (a [`Probe`]) and what it keeps from a committed step ([`Guarded::accept`]: a cache);
//! - [`Method`]: a deterministic proposal `(q, v) ↦ (q⁺, v⁺)` for a signed step `h` and its
//!   claims `ORDER`, `SYMPLECTIC`, `SYMMETRIC` (each measured by a host test);
//! - [`NoisyMethod`]: a stochastic proposal from a pre-drawn noise input, and how that input is
//!   drawn from an RNG.
//!
//! From these, [`Stepper`], [`Integrator`] and [`StochasticIntegrator`] are implemented once, here,
//! for every method; they are sealed, so no step can skip the checks, the guards or the clock.
//!
//! One deterministic step of the driver:
//!
//! 1. the input checks: `h` finite and non-zero, the state finite;
//! 2. `next ← state`, then [`Method::propose`] writes `next.q`, `next.v` (its `next.t` is
//!    ignored) and returns the energy the step exchanged with the outside (work of a force,
//!    heat taken by a damping split; zero for a conservative map);
//! 3. the commit of the [`Watch`]: finiteness, the compensated clock and every guard that is on; only then
//!    is `state` overwritten;
//! 4. [`Guarded::accept`] with the committed state.
//!
//! A method that needs a value at commit time only (a cache keyed on the new position) keeps it
//! from [`Method::propose`] and stores it in [`Guarded::accept`].
//!
//! ```
//! use macrostep::driver::{Guarded, Method};
//! use macrostep::guard::{NoProbe, Watch};
//! use macrostep::{Integrator, State, StepError};
//! use nalgebra::{vector, SVector};
//!
//! /// Symplectic Euler for `q̈ = −q`, written as a proposal.
//! struct Oscillator {
//!     h: f64,
//!     watch: Watch<f64, 1>,
//! }
//!
//! impl Guarded<f64, 1> for Oscillator {
//!     type Probe<'a> = NoProbe;
//!     fn step_size(&self) -> f64 {
//!         self.h
//!     }
//!     fn watch(&self) -> &Watch<f64, 1> {
//!         &self.watch
//!     }
//!     fn watch_and_probe(&mut self) -> (&mut Watch<f64, 1>, NoProbe) {
//!         (&mut self.watch, NoProbe)
//!     }
//! }
//!
//! impl Method<f64, 1> for Oscillator {
//!     const ORDER: u32 = 1;
//!     const SYMPLECTIC: bool = true;
//!     const SYMMETRIC: bool = false;
//!     fn propose(
//!         &mut self,
//!         s: &State<f64, 1>,
//!         h: f64,
//!         next: &mut State<f64, 1>,
//!     ) -> Result<f64, StepError> {
//!         next.v = s.v - s.q * h;
//!         next.q = s.q + next.v * h;
//!         Ok(0.0)
//!     }
//! }
//!
//! let mut m = Oscillator { h: 0.01, watch: Watch::default() };
//! let mut s = State::at_rest(vector![1.0]);
//! m.integrate(&mut s, 100)?; // checks, guards and the clock come from the driver
//! assert!((s.t - 1.0).abs() < 1e-12);
//! assert_eq!(m.step_by(&mut s, f64::NAN), Err(StepError::StepSize));
//! # let _: SVector<f64, 1> = s.q;
//! # Ok::<(), StepError>(())
//! ```

use crate::guard::{Guards, Probe, Watch};
use crate::sealed::Stepped;
use crate::validate::check_step_input;
use crate::{ConfigError, Integrator, Real, State, StepError, Stepper, StochasticIntegrator};
use nalgebra::{SMatrix, SVector};
use rand_core::Rng;

/// What every method has and the driver needs: its step size, its guard memory and what the
/// guards measure on its model.
pub trait Guarded<T: Real, const N: usize> {
    /// What the guards measure: the energy and constraint residual of the model
    /// (`&System`), or [`NoProbe`](crate::guard::NoProbe) for dynamics without a conserved
    /// energy.
    type Probe<'a>: Probe<T, N>
    where
        Self: 'a;

    /// The configured step size `h` (the meso-step `δ` for a FLAVOR).
    fn step_size(&self) -> T;

    /// The guard memory.
    fn watch(&self) -> &Watch<T, N>;

    /// The guard memory and the probe, borrowed together for the commit.
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>);

    /// Called with the committed state after a successful step (store a cache keyed on it).
    #[inline]
    fn accept(&mut self, state: &State<T, N>) {
        let _ = state;
    }

    /// The `M`-orthogonal projector onto the velocities the method admits at `q` (the tangent
    /// space of an exact velocity constraint `g'(q)v = 0`), or `None` (the default) when its
    /// velocities are unconstrained. A wrapper that changes the velocity between steps (the
    /// damping kick of [`Damped`](crate::forcing::Damped)) keeps it in this space.
    ///
    /// # Errors
    /// The method's own failures forming it ([`StepError::Singular`] for a rank-deficient
    /// constraint Jacobian).
    #[inline]
    fn velocity_projector(&self, q: &SVector<T, N>) -> Result<Option<SMatrix<T, N, N>>, StepError> {
        let _ = q;
        Ok(None)
    }
}

/// A method built around another one (a damping split, a driving force, a composition, a retry
/// policy, a controller): it steps with the inner method's step size and guard memory, so
/// [`Guarded`] comes from the inner method through a blanket implementation.
///
/// The wrapper implements [`Method`] (or [`NoisyMethod`]) itself, calling the inner method's
/// `propose` and `accept` where its own step needs them.
pub trait Wrapper {
    /// The wrapped method.
    type Inner;

    /// The wrapped method.
    fn inner(&self) -> &Self::Inner;

    /// Mutable access to the wrapped method.
    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// Called after the inner method's [`Guarded::accept`] when a step is committed (what the
    /// wrapper itself records of the step).
    #[inline]
    fn accepted(&mut self) {}
}

impl<T: Real, const N: usize, W: Wrapper> Guarded<T, N> for W
where
    W::Inner: Guarded<T, N>,
{
    type Probe<'a>
        = <W::Inner as Guarded<T, N>>::Probe<'a>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        Guarded::step_size(self.inner())
    }

    #[inline]
    fn watch(&self) -> &Watch<T, N> {
        self.inner().watch()
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>) {
        self.inner_mut().watch_and_probe()
    }

    #[inline]
    fn accept(&mut self, state: &State<T, N>) {
        self.inner_mut().accept(state);
        self.accepted();
    }

    #[inline]
    fn velocity_projector(&self, q: &SVector<T, N>) -> Result<Option<SMatrix<T, N, N>>, StepError> {
        self.inner().velocity_projector(q)
    }
}

/// A deterministic one-step method: its proposal and its claims.
pub trait Method<T: Real, const N: usize>: Guarded<T, N> {
    /// Order of global convergence.
    const ORDER: u32;
    /// Whether the map is symplectic (for the canonical form in `(q, M v)`).
    const SYMPLECTIC: bool;
    /// Whether the method is symmetric (time-reversible): `Φ₋ₕ ∘ Φₕ = id`.
    const SYMMETRIC: bool;

    /// Writes the method's result of one step of signed size `h` from `state` into `next.q` and
    /// `next.v` (`next` holds a copy of `state` on entry; `next.t` is set by the driver's clock)
    /// and returns the energy the step exchanged with the outside (zero for a conservative map).
    ///
    /// The driver has checked `h` and `state`; the proposal is committed only if it passes the
    /// guards. A method must leave itself in a state where a later step is correct whether or
    /// not this proposal is committed (state it keeps for the next step goes in
    /// [`Guarded::accept`], or is keyed on the position it belongs to).
    ///
    /// # Errors
    /// The method's own failures (singular solve, Newton not converged, non-finite
    /// intermediate values).
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError>;
}

/// A stochastic one-step method: a proposal from a noise input of the configured step size.
pub trait NoisyMethod<T: Real, const N: usize>: Guarded<T, N> {
    /// The order of the method when the noise and friction vanish (the deterministic limit).
    const DETERMINISTIC_ORDER: u32;

    /// The noise one step consumes (standard normals, an Ornstein–Uhlenbeck increment).
    type Noise;

    /// Draws the noise of one step from `rng` (a fixed number of RNG words, documented per
    /// method).
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::Noise;

    /// Writes the result of one step of the configured size from `state` with `noise` into
    /// `next.q`, `next.v`, as [`Method::propose`]; returns the energy exchanged (zero: stochastic
    /// dynamics are not checked against an energy).
    ///
    /// # Errors
    /// The method's own failures.
    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        noise: &Self::Noise,
        next: &mut State<T, N>,
    ) -> Result<T, StepError>;
}

/// Commits `next` under the guards and lets the method keep what it needs from the step.
#[inline(always)]
fn commit<T: Real, const N: usize, M: Guarded<T, N> + ?Sized>(
    m: &mut M,
    state: &mut State<T, N>,
    next: &State<T, N>,
    h: T,
    exchanged: T,
) -> Result<(), StepError> {
    {
        let (watch, probe) = m.watch_and_probe();
        watch.commit(state, next, h, exchanged, &probe)?;
    }
    m.accept(state);
    Ok(())
}

/// The commit of the driver on `watch`, a copy of `m`'s guard memory, under `m`'s probe: whether
/// the driver would commit `next` (a retry policy judges its attempts with it,
/// [`Recovering`](crate::recover::Recovering)). `m`'s own guard memory is not touched.
#[inline]
pub(crate) fn trial_commit<T: Real, const N: usize, M: Guarded<T, N> + ?Sized>(
    m: &mut M,
    watch: &mut Watch<T, N>,
    state: &mut State<T, N>,
    next: &State<T, N>,
    h: T,
    exchanged: T,
) -> Result<(), StepError> {
    let (_, probe) = m.watch_and_probe();
    watch.commit(state, next, h, exchanged, &probe)
}

impl<T: Real, const N: usize, M: Guarded<T, N>> Stepper<T, N> for M {
    #[inline]
    fn step_size(&self) -> T {
        Guarded::step_size(self)
    }

    fn guards(&self) -> Guards<T> {
        self.watch().guards()
    }

    fn set_guards(&mut self, guards: Guards<T>) -> Result<(), ConfigError> {
        self.watch_and_probe().0.set_guards(guards)
    }
}

impl<T: Real, const N: usize, M: Guarded<T, N>> Stepped<T, N> for M {
    fn settle_clock(&mut self, state: &mut State<T, N>, t: T) {
        let (watch, _) = self.watch_and_probe();
        let from = state.t;
        // The watch's last committed state moves with it (no energy changes), so the next step
        // continues the run.
        watch.account(|last| {
            if last.t == from {
                last.t = t;
            }
            T::zero()
        });
        state.t = t;
    }
}

impl<T: Real, const N: usize, M: Method<T, N>> Integrator<T, N> for M {
    const ORDER: u32 = M::ORDER;
    const SYMPLECTIC: bool = M::SYMPLECTIC;
    const SYMMETRIC: bool = M::SYMMETRIC;

    #[inline]
    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let mut next = *state;
        let exchanged = self.propose(state, h, &mut next)?;
        commit(self, state, &next, h, exchanged)
    }
}

impl<T: Real, const N: usize, M: NoisyMethod<T, N>> StochasticIntegrator<T, N> for M {
    const DETERMINISTIC_ORDER: u32 = M::DETERMINISTIC_ORDER;
    type Noise = M::Noise;

    #[inline]
    fn step_with_noise(
        &mut self,
        state: &mut State<T, N>,
        noise: &M::Noise,
    ) -> Result<(), StepError> {
        let h = Guarded::step_size(self);
        check_step_input(state, h)?;
        let mut next = *state;
        let exchanged = self.propose_noisy(state, noise, &mut next)?;
        commit(self, state, &next, h, exchanged)
    }

    #[inline]
    fn step_noisy<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        rng: &mut R,
    ) -> Result<(), StepError> {
        let noise = self.draw(rng);
        self.step_with_noise(state, &noise)
    }
}
