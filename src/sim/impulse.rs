//! The shared body of the stochastic impulse methods: [`Sim`] holds the validated fast system, the
//! slow force, the step and the guard memory; the composition (Lie–Trotter, Strang, triple jump)
//! is its strategy parameter `S` ([`SimScheme`]). [`super::Sim1`], [`super::Sim2`] and
//! [`super::Sim4`] are aliases of `Sim` with one scheme each (the `VecInner`/alias pattern of
//! heapless and nalgebra).

use super::{Conservative, FastFlow, FastParams, Force, Increment, SimSystem, StiffLinear};
use crate::driver::{Guarded, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::model::Potential;
use crate::{validate::check_step, ConfigError, Real, State, StepError};
#[cfg(doc)]
use crate::{Integrator, StochasticIntegrator};
use nalgebra::SVector;
use rand_core::Rng;

pub(super) use crate::sealed::Sealed;

#[doc(hidden)]
/// The composition of fast flows and slow kicks one SIM step applies: the strategy of [`Sim`]
/// (what it precomputes and keeps between steps). Each alias implements the deterministic
/// [`Method`](crate::driver::Method) itself, so that its proposal compiles exactly as a
/// hand-written struct's would (the firmware instruction counts are golden).
///
/// Implemented by [`super::LieTrotter`] (SIM1), [`super::Strang`] (SIM2) and
/// [`super::TripleJump`] (SIM4); sealed.
pub trait SimScheme<T: Real, const N: usize>: Sealed + Sized {
    /// Precomputes the flows of the step `h` (already validated) for the fast system `lin`.
    ///
    /// # Errors
    /// As [`FastFlow::new`]; a scheme may reject a fast system it cannot integrate.
    fn build(lin: &StiffLinear<T, N>, h: T) -> Result<Self, ConfigError>;

    /// Forgets what a step keeps for the next one (the force changed).
    fn forget(&mut self);
}

#[doc(hidden)]
/// A [`SimScheme`] with a single fast flow over the configured step, which can therefore carry
/// the Ornstein–Uhlenbeck increment of a noisy fast system (SIM1, SIM2).
pub trait NoisyScheme<T: Real, const N: usize>: SimScheme<T, N> {
    /// Order of the method without noise and friction
    /// ([`StochasticIntegrator::DETERMINISTIC_ORDER`]).
    const ORDER: u32;

    /// The fast flow over the configured step.
    fn flow(&self) -> &FastFlow<T, N>;

    /// Writes the step of the configured size from `s` with the fast-flow increment `r` into
    /// `next.q`, `next.v` (a scheme may keep a cache keyed on `next.q`).
    fn propose_with<F: Force<T, N>>(
        m: &mut Sim<T, F, Self, N>,
        s: &State<T, N>,
        r: &Increment<T, N>,
        next: &mut State<T, N>,
    );
}

/// A stochastic impulse method (004 §4.2) with composition `S`: the common body of
/// [`super::Sim1`], [`super::Sim2`] and [`super::Sim4`] (see those for the methods, their
/// equations, properties and errors).
///
/// Every SIM is an [`Integrator`] (the deterministic impulse method; SIM1 and SIM2 refuse a noisy
/// fast part there), and SIM1 and SIM2 are also [`StochasticIntegrator`]s whose noise is the
/// fast-flow [`Increment`] (`step_noisy(state, rng)`, or `step_with_noise(state, &r)` with an
/// increment drawn beforehand, e.g. aggregated from finer steps to reuse one Brownian path across
/// step sizes: see [`FastFlow::sample_increment`], [`FastFlow::carry`]). The guards measure no
/// energy ([`NoProbe`]): the slow force need not be conservative and the fast part may be
/// dissipative; finiteness, the velocity guard and the clock apply.
///
/// ```
/// use macrostep::{sim::{FastParams, Sim, SimSystem, Strang}, model::{Mass, Quadratic}};
/// use macrostep::{Integrator, State};
/// use nalgebra::{matrix, vector};
/// let soft = Quadratic::new(matrix![1.0]);
/// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], soft);
/// let mut sim: Sim<f64, _, Strang<f64, 1>, 1> = Sim::new(system, 1e-3, FastParams::default())?;
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 100)?;
/// assert!((s.q[0] - (0.1 * 10001f64.sqrt()).cos()).abs() < 1e-3);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sim<T: Real, F, S, const N: usize> {
    pub(super) lin: StiffLinear<T, N>,
    pub(super) scheme: S,
    pub(super) force: F,
    pub(super) h: T,
    pub(super) watch: Watch<T, N>,
}

impl<T: Real, F: Force<T, N>, S: SimScheme<T, N>, const N: usize> Sim<T, F, S, N> {
    /// The method for the system `M dq = p dt`, `dp = F(q) dt − Kq dt − c p dt + σ dW` (004 eqs
    /// 4.10/4.11): the mass, stiffness and slow force of `system`, the macro step `H` and the
    /// friction `c` and noise `σ` of the fast flow in `params`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for a bad `H`; as [`StiffLinear::new`] and [`FastFlow::new`];
    /// SIM4 rejects a noisy fast part ([`ConfigError::Inconsistent`]).
    pub fn new(
        system: SimSystem<T, F, N>,
        h: T,
        params: FastParams<T, N>,
    ) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let lin = StiffLinear::new(system.mass, system.stiffness, params)?;
        let scheme = S::build(&lin, h)?;
        Ok(Self {
            watch: Watch::default(),
            lin,
            scheme,
            force: system.force,
            h,
        })
    }

    /// The validated fast system.
    pub fn stiff(&self) -> &StiffLinear<T, N> {
        &self.lin
    }

    /// The slow force `F` of the kick `p ← p + h F(q)` (eq 4.13).
    ///
    /// ```
    /// use macrostep::{sim::{FastParams, Sim2, SimSystem}, model::{Mass, Quadratic}};
    /// use nalgebra::{matrix, vector};
    /// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], Quadratic::new(matrix![2.0]));
    /// let mut sim = Sim2::new(system, 1e-3, FastParams::default()).unwrap();
    /// assert_eq!(sim.slow_force().0.k, matrix![2.0]);
    /// sim.slow_force_mut().0.k = matrix![3.0]; // the next step evaluates the new force
    /// assert_eq!(sim.slow_force().0.k, matrix![3.0]);
    /// ```
    pub fn slow_force(&self) -> &F {
        &self.force
    }

    /// Mutable access to the slow force `F` (eq 4.13); forgets any force cached from the last
    /// step.
    pub fn slow_force_mut(&mut self) -> &mut F {
        self.scheme.forget();
        &mut self.force
    }
}

impl<T: Real, F: Force<T, N>, S: NoisyScheme<T, N>, const N: usize> Sim<T, F, S, N> {
    /// The fast flow over the configured step (draws and aggregates the increments
    /// [`StochasticIntegrator::step_with_noise`] takes).
    pub fn flow(&self) -> &FastFlow<T, N> {
        self.scheme.flow()
    }
}

impl<T: Real, F, S: SimScheme<T, N>, const N: usize> Guarded<T, N> for Sim<T, F, S, N> {
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        self.h
    }

    #[inline]
    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

/// The Langevin form of SIM1 and SIM2 (Integrators 4.2.2, 4.2.3): one step of the configured size
/// with the fast-flow increment `R(H) ~ N(0, Σ(H))`.
impl<T: Real, F: Force<T, N>, S: NoisyScheme<T, N>, const N: usize> NoisyMethod<T, N>
    for Sim<T, F, S, N>
{
    const DETERMINISTIC_ORDER: u32 = S::ORDER;

    /// The fast-flow increment in modal coordinates.
    type Noise = Increment<T, N>;

    /// Draws `2N` normals (`2N` calls of `next_u64`) when the system is noisy, none otherwise
    /// ([`FastFlow::sample_increment`]).
    #[inline]
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Increment<T, N> {
        self.scheme.flow().sample_increment(rng)
    }

    #[inline]
    fn propose_noisy(
        &mut self,
        state: &State<T, N>,
        r: &Increment<T, N>,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        S::propose_with(self, state, r, next);
        Ok(T::zero())
    }
}

/// The held force `u` of an [`Actuated`](crate::forcing::Actuated) slow potential, a zero-order
/// hold entering the slow kicks (the stiff linear flow is unchanged):
/// `Sim1::new(SimSystem::new(mass, stiffness, Actuated::new(slow)), h, params)`.
impl<T: Real, P: Potential<T, N>, S: SimScheme<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for Sim<T, Conservative<crate::forcing::Actuated<T, P, N>>, S, N>
{
    fn force(&self) -> &SVector<T, N> {
        self.force.0.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        if crate::forcing::set_held(&mut self.force.0, &mut self.watch, u)? {
            self.scheme.forget();
        }
        Ok(())
    }
}
