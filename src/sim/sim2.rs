//! Second-order SIM (Strang), 004 Integrator 4.2.3; the impulse / r-RESPA method when c = σ = 0.

use super::impulse::{NoisyScheme, Sealed, Sim, SimScheme};
use super::{FastFlow, Force, Increment, StiffLinear};
use crate::driver::Method;
use crate::{ConfigError, PreconditionKind, Real, State, StepError};
use nalgebra::SVector;

/// Second-order stochastic impulse method (004 Integrator 4.2.3), `φˢ(H/2)∘φᶠ(H)∘φˢ(H/2)`:
///
/// ```text
/// p' = p + (H/2) F(q)
/// (q⁺, p'') = B(H) (q, p') + R(H),     R(H) ~ N(0, Σ(H))
/// p⁺ = p'' + (H/2) F(q⁺)
/// ```
///
/// With `c = σ = 0` this is the impulse / Verlet-I / r-RESPA method (Remark 4.2.3): second
/// order, symplectic, symmetric. The force at the end of a step is cached, keyed on the position,
/// and reused at the start of the next (one force evaluation per step).
///
/// # Errors
/// As [`super::Sim1`].
///
/// ```
/// use macrostep::{sim::{FastParams, Sim2, SimSystem}, model::{Mass, Quadratic}};
/// use macrostep::{Integrator, State};
/// use nalgebra::{matrix, vector};
/// // Stiff spring ω = 100 plus a soft spring of stiffness 1: ω_eff² = 10001.
/// let soft = Quadratic::new(matrix![1.0]);
/// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], soft);
/// let mut sim = Sim2::new(system, 1e-3, FastParams::default()).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - (0.1 * 10001f64.sqrt()).cos()).abs() < 1e-3);
/// ```
pub type Sim2<T, F, const N: usize> = Sim<T, F, Strang<T, N>, N>;

/// The Strang composition of SIM2 (the [`SimScheme`] of [`Sim2`]): the fast flow over the
/// configured step and the acceleration cached at the end of the last step.
#[derive(Clone, Copy, Debug)]
pub struct Strang<T: Real, const N: usize> {
    flow: FastFlow<T, N>,
    cache: Option<(SVector<T, N>, SVector<T, N>)>,
    half: T,
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim2<T, F, N> {
    fn accel(&self, q: &SVector<T, N>) -> SVector<T, N> {
        match &self.scheme.cache {
            Some((cq, a)) if cq == q => *a,
            _ => self.lin.mass().solve(&self.force.force(q)),
        }
    }

    /// Writes the step from `s` into `next` and returns the acceleration at `next.q`.
    fn advance_maps(
        &self,
        s: &State<T, N>,
        h: T,
        maps: &[nalgebra::Matrix2<T>; N],
        r: Option<&Increment<T, N>>,
        next: &mut State<T, N>,
    ) -> SVector<T, N> {
        let half = h * self.scheme.half;
        let v = s.v + self.accel(&s.q) * half;
        let (q, v) = self
            .lin
            .apply_maps(maps, &s.q, &v, r.map(|r| (&r.z, &r.zeta)));
        let a1 = self.lin.mass().solve(&self.force.force(&q));
        next.q = q;
        next.v = v + a1 * half;
        a1
    }
}

impl<T: Real, const N: usize> Sealed for Strang<T, N> {}

impl<T: Real, const N: usize> SimScheme<T, N> for Strang<T, N> {
    fn build(lin: &StiffLinear<T, N>, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            flow: FastFlow::new(lin, h)?,
            cache: None,
            half: T::lit(0.5),
        })
    }

    #[inline]
    fn forget(&mut self) {
        self.cache = None;
    }
}

impl<T: Real, const N: usize> NoisyScheme<T, N> for Strang<T, N> {
    const ORDER: u32 = 2;

    fn flow(&self) -> &FastFlow<T, N> {
        &self.flow
    }

    #[inline]
    fn propose_with<F: Force<T, N>>(
        m: &mut Sim2<T, F, N>,
        s: &State<T, N>,
        r: &Increment<T, N>,
        next: &mut State<T, N>,
    ) {
        let a1 = m.advance_maps(s, m.h, m.scheme.flow.maps(), Some(r), next);
        // Keyed on the position: valid whether or not the driver commits this proposal.
        m.scheme.cache = Some((next.q, a1));
    }
}

/// The deterministic SIM2 (`c` arbitrary, `σ = 0`; the impulse / r-RESPA method when `c = 0`):
/// the fast flow over any signed step `h` (the precomputed maps at the configured step).
impl<T: Real, F: Force<T, N>, const N: usize> Method<T, N> for Sim2<T, F, N> {
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        if self.lin.is_noisy() {
            return Err(StepError::precondition(PreconditionKind::Noisy));
        }
        let a1 = if h == self.h {
            self.advance_maps(state, h, self.scheme.flow.maps(), None, next)
        } else {
            self.advance_maps(state, h, &self.lin.mode_maps(h), None, next)
        };
        // Keyed on the position: valid whether or not the driver commits this proposal.
        self.scheme.cache = Some((next.q, a1));
        Ok(T::zero())
    }
}
