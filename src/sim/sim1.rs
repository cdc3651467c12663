//! First-order SIM (Lie–Trotter), 004 Integrators 4.2.1/4.2.2, Remark 4.2.1, and eq 4.8.

use super::{Conservative, FastFlow, FastParams, Force, Increment, StiffLinear};
use crate::guard::{NoProbe, Watch};
use crate::langevin::StochasticIntegrator;
use crate::model::{Mass, Potential};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};
use nalgebra::SVector;
use rand_core::Rng;

/// Which Lie–Trotter order SIM1 uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sim1Order {
    /// `φˢ(H)∘φᶠ(H)`: fast flow first, then the kick at the new position (Integrators 4.2.1,
    /// 4.2.2 — the paper's SIM1).
    #[default]
    FlowThenKick,
    /// `φᶠ(H)∘φˢ(H)`: kick first, then the fast flow (the dual, Remark 4.2.1).
    KickThenFlow,
}

/// First-order stochastic impulse method (004 Integrators 4.2.1 and 4.2.2):
///
/// ```text
/// (q', p') = B(H) (q, p) + R(H),     R(H) ~ N(0, Σ(H))      (exact fast flow φᶠ(H))
/// q⁺ = q',   p⁺ = p' + H F(q')                              (slow kick φˢ(H))
/// ```
///
/// or the dual order (Remark 4.2.1). With [`Sim1::mollified`] the kick is the one of the
/// Hamilton–Pontryagin–Marsden impulse method (004 eq 4.8): per stiff mode of frequency `ω`,
/// the kick weight `H` becomes `sin(ωH)/ω` (`B₁₂(H)` of the mode; `H` for soft modes).
///
/// Properties: first order; symplectic when `c = σ = 0` (composition of exact Hamiltonian
/// flows); conformally symplectic with Jacobian determinant `e^{−c·N·H}` for scalar `c`; error in
/// `q` uniform in the stiffness (Theorem 4.2.2; `O(H^{1/2})` strong with noise, Theorem 4.2.1).
/// The mollified variant (eq 4.8, derived variationally in 004 §4.1.2 for one oscillator) is
/// symplectic in `(q, Mv)` only when the filtered kick `W·Hess V` is symmetric — a scalar system,
/// or equal stiff frequencies; with distinct frequencies it is not (measured in the host tests),
/// so [`Integrator::SYMPLECTIC`] refers to the plain kick.
///
/// # Errors
/// Construction: as [`StiffLinear::new`] and [`ConfigError::StepSize`]. Steps: as
/// [`Integrator::step_by`]; the deterministic [`Integrator`] interface returns
/// [`StepError::Precondition`] when the system has noise (use
/// [`StochasticIntegrator::step`]).
///
/// ```
/// use macrostep::{sim::{FastParams, Sim1}, model::{Mass, Zero}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// // A stiff oscillator ω = 100 and no slow force: SIM1 is exact at any H.
/// let fast = FastParams::hamiltonian(matrix![1.0e4_f64]);
/// let mut sim = Sim1::new(Mass::identity(), fast, Zero, 0.1).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - 100.0_f64.cos()).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sim1<T: Real, F, const N: usize> {
    lin: StiffLinear<T, N>,
    flow: FastFlow<T, N>,
    force: F,
    h: T,
    order: Sim1Order,
    mollified: bool,
    watch: Watch<T, N>,
}

impl<T: Real, P: Potential<T, N>, const N: usize> Sim1<T, Conservative<P>, N> {
    /// Sim1 for the slow force `−∇V` of `potential` (see [`Sim1::with_force`] for any force).
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

impl<T: Real, F: Force<T, N>, const N: usize> Sim1<T, F, N> {
    /// SIM1 (`φˢ∘φᶠ`) with mass `M`, fast part `fast`, slow force `force` and step `H`.
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
            order: Sim1Order::FlowThenKick,
            mollified: false,
        })
    }

    /// Chooses the composition order.
    pub fn with_order(mut self, order: Sim1Order) -> Self {
        self.order = order;
        self
    }

    /// Uses the mollified (Hamilton–Pontryagin–Marsden, eq 4.8) kick.
    pub fn mollified(mut self, on: bool) -> Self {
        self.mollified = on;
        self
    }

    /// The validated fast system.
    pub fn stiff(&self) -> &StiffLinear<T, N> {
        &self.lin
    }

    /// The fast flow over the configured step.
    pub fn flow(&self) -> &FastFlow<T, N> {
        &self.flow
    }

    /// The slow force.
    pub fn force(&self) -> &F {
        &self.force
    }

    fn kick(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        h: T,
        maps_b12: &SVector<T, N>,
    ) -> SVector<T, N> {
        let f = self.force.force(q);
        if self.mollified {
            v + self.lin.weighted_kick(maps_b12, &f)
        } else {
            v + self.lin.mass().solve(&f) * h
        }
    }

    fn advance(
        &self,
        s: &State<T, N>,
        h: T,
        maps: &[nalgebra::Matrix2<T>; N],
        r: Option<&Increment<T, N>>,
    ) -> State<T, N> {
        let b12 = SVector::<T, N>::from_fn(|i, _| maps[i][(0, 1)]);
        let noise = r.map(|r| (&r.z, &r.zeta));
        let (q, v) = match self.order {
            Sim1Order::FlowThenKick => {
                let (q, v) = self.lin.apply_maps(maps, &s.q, &s.v, noise);
                let v = self.kick(&q, &v, h, &b12);
                (q, v)
            }
            Sim1Order::KickThenFlow => {
                let v = self.kick(&s.q, &s.v, h, &b12);
                self.lin.apply_maps(maps, &s.q, &v, noise)
            }
        };
        State { t: s.t + h, q, v }
    }

    /// One step of size `H` with a given fast-flow increment (modal coordinates; see
    /// [`FastFlow::sample_increment`], [`FastFlow::carry`]). Lets a caller reuse one Brownian path
    /// across step sizes.
    ///
    /// # Errors
    /// As [`StochasticIntegrator::step`].
    pub fn step_with_increment(
        &mut self,
        state: &mut State<T, N>,
        r: &Increment<T, N>,
    ) -> Result<(), StepError> {
        check_step_input(state, self.h)?;
        let next = self.advance(state, self.h, self.flow.maps(), Some(r));
        self.watch.commit(state, &next, self.h, &NoProbe)
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> crate::Stepper<T> for Sim1<T, F, N> {
    fn step_size(&self) -> T {
        self.h
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Integrator<T, N> for Sim1<T, F, N> {
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

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
        let next = if h == self.h {
            self.advance(state, h, self.flow.maps(), None)
        } else {
            self.advance(state, h, &self.lin.mode_maps(h), None)
        };
        self.watch.commit(state, &next, h, &NoProbe)
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> StochasticIntegrator<T, N> for Sim1<T, F, N> {
    const DETERMINISTIC_ORDER: u32 = 1;

    /// Draws `2N` normals (`2N` calls of `next_u64`) when the system is noisy, none otherwise.
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
/// hold entering the slow kicks (the stiff linear flow is unchanged): `Sim1::new(mass,
/// fast, Actuated::new(slow), h)`.
impl<T: Real, P: Potential<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for Sim1<T, Conservative<crate::forcing::Actuated<T, P, N>>, N>
{
    fn force(&self) -> &SVector<T, N> {
        self.force.0.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        crate::forcing::set_held(&mut self.force.0, &mut self.watch, u)?;
        Ok(())
    }
}
