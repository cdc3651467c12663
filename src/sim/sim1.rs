//! First-order SIM (Lie–Trotter), 004 Integrators 4.2.1/4.2.2, Remark 4.2.1, and eq 4.8.

use super::impulse::{NoisyScheme, Sealed, Sim, SimScheme};
use super::{FastFlow, FastParams, Force, Increment, SimSystem, StiffLinear};
use crate::driver::Method;
use crate::guard::Watch;
use crate::model::Mass;
use crate::validate::check_step;
use crate::{ConfigError, PreconditionKind, Real, State, StepError};
#[cfg(doc)]
use crate::{Integrator, StochasticIntegrator};
use nalgebra::SVector;

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
/// Construction: as [`Sim::new`]. Steps: as [`Integrator::step_by`] and
/// [`StochasticIntegrator::step_noisy`]; the deterministic [`Integrator`] interface returns
/// [`StepError::Precondition`] when the system has noise (use
/// [`StochasticIntegrator::step_noisy`]).
///
/// ```
/// use macrostep::{sim::{FastParams, Sim1, SimSystem}, model::{Mass, Zero}, Integrator, State};
/// use nalgebra::{matrix, vector};
/// // A stiff oscillator ω = 100 and no slow force: SIM1 is exact at any H.
/// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], Zero);
/// let mut sim = Sim1::new(system, 0.1, FastParams::default()).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - 100.0_f64.cos()).abs() < 1e-12);
/// ```
pub type Sim1<T, F, const N: usize> = Sim<T, F, LieTrotter<T, N>, N>;

/// The Lie–Trotter composition of SIM1 (the [`SimScheme`] of [`Sim1`]): the fast flow over the
/// configured step, the composition order and the kick.
#[derive(Clone, Copy, Debug)]
pub struct LieTrotter<T: Real, const N: usize> {
    flow: FastFlow<T, N>,
    order: Sim1Order,
    mollified: bool,
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim1<T, F, N> {
    /// [`Sim::new`] built in place in `slot`, for a device that keeps its integrator in a
    /// `static` (static RAM rather than stack): no `N×N` matrix and no copy of the method
    /// passes through the stack (the modal transforms are computed in the method's own storage,
    /// [`StiffLinear`]), so the construction needs a fraction of the stack of
    /// `*slot = Some(Sim1::new(…)?)`. The same operations as [`Sim::new`], so the same method bit
    /// for bit.
    ///
    /// ```
    /// use macrostep::{sim::{FastParams, Sim1, SimSystem}, model::{Mass, Zero}};
    /// use nalgebra::matrix;
    /// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], Zero);
    /// let mut slot = None;
    /// let sim = Sim1::new_in(&mut slot, system, 0.1, FastParams::default())?;
    /// assert_eq!(sim.stiff().modal_stiffness()[0], 1.0e4);
    /// assert!(Sim1::new_in(&mut slot, system, -0.0, FastParams::default()).is_err());
    /// assert!(slot.is_none()); // a failed construction leaves no method behind
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Sim::new`]; `slot` is then `None`.
    pub fn new_in(
        slot: &mut Option<Self>,
        system: SimSystem<T, F, N>,
        h: T,
        params: FastParams<T, N>,
    ) -> Result<&mut Self, ConfigError> {
        *slot = None;
        let h = check_step(h)?;
        // The system's parts by reference or moved straight into place: no copy of the
        // stiffness or the parameters in this frame. The transforms' scratch is the flow's
        // noise factor, written only after them.
        let sim = Self::blank_in(slot, system.mass, system.force, h);
        let built = sim
            .lin
            .fill(&system.stiffness, &params, sim.scheme.flow.scratch())
            .and_then(|()| sim.scheme.flow.fill(&sim.lin, h));
        if let Err(e) = built {
            *slot = None;
            return Err(e);
        }
        slot.as_mut().ok_or(ConfigError::Inconsistent {
            name: "method built in its slot",
        })
    }

    /// A method of zero transforms in `slot` (completed by [`Self::new_in`]). Out of line: the
    /// part of the value the compiler assembles before moving it into the slot lives in this
    /// frame, gone before the transforms are computed. The blank holds the identity mass and
    /// `mass` is written into the slot afterwards, so the `N×N`-sized mass is not assembled
    /// here too.
    #[inline(never)]
    fn blank_in(slot: &mut Option<Self>, mass: Mass<T, N>, force: F, h: T) -> &mut Self {
        let sim = slot.insert(Self {
            lin: StiffLinear::blank(Mass::identity()),
            scheme: LieTrotter {
                flow: FastFlow::blank(),
                order: Sim1Order::FlowThenKick,
                mollified: false,
            },
            force,
            h,
            watch: Watch::default(),
        });
        sim.lin.set_mass(mass);
        sim
    }

    /// Chooses the composition order.
    pub fn with_order(mut self, order: Sim1Order) -> Self {
        self.scheme.order = order;
        self
    }

    /// Uses the mollified (Hamilton–Pontryagin–Marsden, eq 4.8) kick.
    pub fn mollified(mut self, on: bool) -> Self {
        self.scheme.mollified = on;
        self
    }
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim1<T, F, N> {
    fn kick(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        h: T,
        maps_b12: &SVector<T, N>,
    ) -> SVector<T, N> {
        let f = self.force.force(q);
        if self.scheme.mollified {
            v + self.lin.weighted_kick(maps_b12, &f)
        } else {
            v + self.lin.mass().solve(&f) * h
        }
    }

    fn advance_maps(
        &self,
        s: &State<T, N>,
        h: T,
        maps: &[nalgebra::Matrix2<T>; N],
        r: Option<&Increment<T, N>>,
        next: &mut State<T, N>,
    ) {
        let b12 = SVector::<T, N>::from_fn(|i, _| maps[i][(0, 1)]);
        let noise = r.map(|r| (&r.z, &r.zeta));
        let (q, v) = match self.scheme.order {
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
        next.q = q;
        next.v = v;
    }
}

impl<T: Real, const N: usize> Sealed for LieTrotter<T, N> {}

impl<T: Real, const N: usize> SimScheme<T, N> for LieTrotter<T, N> {
    fn build(lin: &StiffLinear<T, N>, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            flow: FastFlow::new(lin, h)?,
            order: Sim1Order::FlowThenKick,
            mollified: false,
        })
    }

    #[inline]
    fn forget(&mut self) {}
}

impl<T: Real, const N: usize> NoisyScheme<T, N> for LieTrotter<T, N> {
    const ORDER: u32 = 1;

    fn flow(&self) -> &FastFlow<T, N> {
        &self.flow
    }

    #[inline]
    fn propose_with<F: Force<T, N>>(
        m: &mut Sim1<T, F, N>,
        s: &State<T, N>,
        r: &Increment<T, N>,
        next: &mut State<T, N>,
    ) {
        m.advance_maps(s, m.h, m.scheme.flow.maps(), Some(r), next);
    }
}

/// The deterministic SIM1 (`c` arbitrary, `σ = 0`): the fast flow over any signed step `h`
/// (the precomputed maps at the configured step).
impl<T: Real, F: Force<T, N>, const N: usize> Method<T, N> for Sim1<T, F, N> {
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        if self.lin.is_noisy() {
            return Err(StepError::precondition(PreconditionKind::Noisy));
        }
        if h == self.h {
            self.advance_maps(state, h, self.scheme.flow.maps(), None, next);
        } else {
            self.advance_maps(state, h, &self.lin.mode_maps(h), None, next);
        }
        Ok(T::zero())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Quadratic;
    use crate::sim::{Friction, Noise};
    use crate::Integrator;
    use nalgebra::SMatrix;

    /// A full mass, a coupled stiffness and a soft coupling: every transform non-trivial.
    fn system<T: Real>() -> SimSystem<T, super::super::Conservative<Quadratic<T, 3>>, 3> {
        let l = |x: f64| T::lit(x);
        let m = SMatrix::<T, 3, 3>::from_fn(|i, j| if i == j { l(2.0 + i as f64) } else { l(0.3) });
        let k = SMatrix::<T, 3, 3>::from_fn(|i, j| {
            if i == j {
                l(900.0 * (1.0 + i as f64))
            } else {
                l(-120.5)
            }
        });
        let soft = Quadratic::new(SMatrix::from_fn(
            |i, j| if i == j { l(1.3) } else { l(0.1) },
        ));
        SimSystem::new(Mass::full(m).unwrap(), k, soft)
    }

    /// `new_in` builds the method `new` builds, bit for bit: same steps in f32 and f64, with
    /// and without friction; the noisy flow's covariance factor too.
    fn same_method<T: Real>() {
        let params = [
            FastParams::default(),
            FastParams::langevin(T::lit(0.7), T::zero()),
            FastParams::thermal(T::lit(0.7), T::lit(2.0)),
        ];
        for p in params {
            let mut plain = Sim1::new(system::<T>(), T::lit(0.02), p).unwrap();
            let mut slot = None;
            let placed = Sim1::new_in(&mut slot, system::<T>(), T::lit(0.02), p).unwrap();
            for i in 0..3 {
                for j in 0..3 {
                    assert_eq!(
                        placed.flow().covariance_block(i, j),
                        plain.flow().covariance_block(i, j)
                    );
                }
            }
            if plain.stiff().is_noisy() {
                continue;
            }
            let start = State::new(
                T::zero(),
                nalgebra::vector![T::lit(0.1), T::lit(-0.2), T::lit(0.05)],
                nalgebra::vector![T::lit(1.0), T::zero(), T::lit(-0.5)],
            );
            let (mut a, mut b) = (start, start);
            plain.integrate(&mut a, 50).unwrap();
            placed.integrate(&mut b, 50).unwrap();
            assert_eq!(a, b);
            assert!(a.q != start.q);
        }
    }

    #[test]
    fn new_in_builds_the_same_method_as_new() {
        same_method::<f32>();
        same_method::<f64>();
    }

    /// A failed construction leaves the slot empty, even when it held a method.
    #[test]
    fn new_in_failure_empties_the_slot() {
        let mut slot = None;
        Sim1::new_in(&mut slot, system::<f64>(), 0.02, FastParams::default()).unwrap();
        let mut bad = system::<f64>();
        bad.stiffness[(0, 1)] = 5.0; // not symmetric
        let e = Sim1::new_in(&mut slot, bad, 0.02, FastParams::default());
        assert_eq!(
            e.err(),
            Some(ConfigError::NotSymmetric { name: "stiffness" })
        );
        assert!(slot.is_none());
        let matrix_friction = FastParams {
            friction: Friction::Matrix(SMatrix::from_fn(|i, j| {
                f64::from(u8::from(i == j)) * (i as f64 + 1.0)
            })),
            noise: Noise::Scalar(0.0),
        };
        // Friction not sharing the stiff modes: refused by the modal decomposition in place too.
        let e = Sim1::new_in(&mut slot, system::<f64>(), 0.02, matrix_friction);
        assert_eq!(
            e.err(),
            Sim1::new(system::<f64>(), 0.02, matrix_friction).err()
        );
        assert!(slot.is_none());
    }
}
