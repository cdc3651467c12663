//! Second-order SIM (Strang), 004 Integrator 4.2.3; the impulse / r-RESPA method when c = σ = 0.

use super::{Conservative, FastFlow, FastParams, Force, Increment, StiffLinear};
use crate::guard::{NoProbe, Watch};
use crate::langevin::StochasticIntegrator;
use crate::model::{Mass, Potential};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};
use nalgebra::SVector;
use rand_core::Rng;

/// Second-order stochastic impulse method (004 Integrator 4.2.3), `φˢ(H/2)∘φᶠ(H)∘φˢ(H/2)`:
///
/// ```text
/// p' = p + (H/2) F(q)
/// (q⁺, p'') = B(H) (q, p') + R(H),     R(H) ~ N(0, Σ(H))
/// p⁺ = p'' + (H/2) F(q⁺)
/// ```
///
/// With `c = σ = 0` this is the impulse / Verlet-I / r-RESPA method (Remark 4.2.3): second
/// order, symplectic, symmetric. The force at the end of a step is cached and reused at the start
/// of the next (one force evaluation per step).
///
/// # Errors
/// As [`super::Sim1`].
///
/// ```
/// use macrostep::{sim::{FastParams, Sim2}, model::Quadratic, model::Mass, Integrator, State};
/// use nalgebra::{matrix, vector};
/// // Stiff spring ω = 100 plus a soft spring of stiffness 1: ω_eff² = 10001.
/// let fast = FastParams::hamiltonian(matrix![1.0e4_f64]);
/// let soft = Quadratic::new(matrix![1.0]);
/// let mut sim = Sim2::new(Mass::identity(), fast, soft, 1e-3).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - (0.1 * 10001f64.sqrt()).cos()).abs() < 1e-3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sim2<T: Real, F, const N: usize> {
    lin: StiffLinear<T, N>,
    flow: FastFlow<T, N>,
    force: F,
    h: T,
    cache: Option<(SVector<T, N>, SVector<T, N>)>,
    half: T,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> Sim2<T, Conservative<P>, N> {
    /// Sim2 for the slow force `−∇V` of `potential` (see [`Sim2::with_force`] for any force).
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(
        mass: Mass<T, N>,
        fast: FastParams<T, N>,
        potential: P,
        h: T,
    ) -> Result<Self, ConfigError> {
        Self::with_force(mass, fast, Conservative(potential), h)
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim2<T, F, N> {
    /// SIM2 with mass `M`, fast part `fast`, slow force `force` and step `H`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn with_force(
        mass: Mass<T, N>,
        fast: FastParams<T, N>,
        force: F,
        h: T,
    ) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let lin = StiffLinear::new(mass, &fast)?;
        let flow = FastFlow::new(&lin, h)?;
        Ok(Self {
            watch: Watch::default(),
            lin,
            flow,
            force,
            h,
            cache: None,
            half: T::lit(0.5),
        })
    }

    /// The validated fast system.
    pub fn stiff(&self) -> &StiffLinear<T, N> {
        &self.lin
    }

    /// The fast flow over the configured step.
    pub fn flow(&self) -> &FastFlow<T, N> {
        &self.flow
    }

    /// Mutable access to the force; clears the cached force.
    pub fn force_mut(&mut self) -> &mut F {
        self.cache = None;
        &mut self.force
    }

    fn accel(&self, q: &SVector<T, N>) -> SVector<T, N> {
        match &self.cache {
            Some((cq, a)) if cq == q => *a,
            _ => self.lin.mass().solve(&self.force.force(q)),
        }
    }

    fn advance(
        &self,
        s: &State<T, N>,
        h: T,
        maps: &[nalgebra::Matrix2<T>; N],
        r: Option<&Increment<T, N>>,
    ) -> (State<T, N>, SVector<T, N>) {
        let half = h * self.half;
        let v = s.v + self.accel(&s.q) * half;
        let (q, v) = self
            .lin
            .apply_maps(maps, &s.q, &v, r.map(|r| (&r.z, &r.zeta)));
        let a1 = self.lin.mass().solve(&self.force.force(&q));
        (
            State {
                t: s.t + h,
                q,
                v: v + a1 * half,
            },
            a1,
        )
    }

    /// One step with a given fast-flow increment (see [`super::Sim1::step_with_increment`]).
    ///
    /// # Errors
    /// As [`StochasticIntegrator::step`].
    pub fn step_with_increment(
        &mut self,
        state: &mut State<T, N>,
        r: &Increment<T, N>,
    ) -> Result<(), StepError> {
        check_step_input(state, self.h)?;
        let (next, a1) = self.advance(state, self.h, self.flow.maps(), Some(r));
        self.watch.commit(state, &next, self.h, &NoProbe)?;
        self.cache = Some((next.q, a1));
        Ok(())
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> crate::Stepper<T> for Sim2<T, F, N> {
    fn step_size(&self) -> T {
        self.h
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Integrator<T, N> for Sim2<T, F, N> {
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn watch(&self) -> Option<&Watch<T, N>> {
        Some(&self.watch)
    }

    fn watch_mut(&mut self) -> Option<&mut Watch<T, N>> {
        Some(&mut self.watch)
    }

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        if self.lin.is_noisy() {
            return Err(StepError::Precondition);
        }
        let (next, a1) = if h == self.h {
            self.advance(state, h, self.flow.maps(), None)
        } else {
            self.advance(state, h, &self.lin.mode_maps(h), None)
        };
        self.watch.commit(state, &next, h, &NoProbe)?;
        self.cache = Some((next.q, a1));
        Ok(())
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> StochasticIntegrator<T, N> for Sim2<T, F, N> {
    const DETERMINISTIC_ORDER: u32 = 2;

    /// Draws `2N` normals per step when the system is noisy, none otherwise.
    fn step<R: Rng + ?Sized>(
        &mut self,
        state: &mut State<T, N>,
        rng: &mut R,
    ) -> Result<(), StepError> {
        let r = self.flow.sample_increment(rng);
        self.step_with_increment(state, &r)
    }
}

/// The held force `u` of an [`Actuated`](crate::forcing::Actuated) slow potential, a zero-order
/// hold entering the slow kicks (the stiff linear flow is unchanged): `Sim2::new(mass,
/// fast, Actuated::new(slow), h)`.
impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for Sim2<T, Conservative<crate::forcing::Actuated<T, P, N>>, N>
{
    fn force(&self) -> &SVector<T, N> {
        self.force.0.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        if crate::forcing::set_held(&mut self.force.0, &mut self.watch, u)? {
            self.cache = None;
        }
        Ok(())
    }
}
