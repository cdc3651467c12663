//! Fourth-order SIM by triple-jump composition, 004 Remark 4.2.4.

use super::impulse::{Sealed, Sim, SimScheme};
use super::{FastFlow, Force, StiffLinear};
use crate::driver::Method;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{Matrix2, SVector};

/// Fourth-order impulse method (004 Remark 4.2.4), with `c₄ = 1/(2 − 2^{1/3})`:
///
/// ```text
/// φˢ(c₄H/2) ∘ φᶠ(c₄H) ∘ φˢ((1−c₄)H/2) ∘ φᶠ((1−2c₄)H) ∘ φˢ((1−c₄)H/2) ∘ φᶠ(c₄H) ∘ φˢ(c₄H/2)
/// ```
///
/// Fourth order, symplectic and symmetric when `c = 0`. Friction is allowed (the damped fast
/// flow over the negative sub-step `(1 − 2c₄)H < 0` is well defined), **noise is not**: an
/// Ornstein–Uhlenbeck increment over a negative time has no meaning, and every composition of
/// order > 2 needs a negative sub-step of each flow (Sheng–Suzuki). A noisy fast part is
/// rejected at construction ([`ConfigError::Inconsistent`] `"fourth-order SIM needs σ = 0"`).
///
/// # Errors
/// As [`super::Sim1`], plus the noise rule above.
///
/// ```
/// use macrostep::{sim::{FastParams, Sim4, SimSystem}, model::{Mass, Quadratic}};
/// use macrostep::{Integrator, State};
/// use nalgebra::{matrix, vector};
/// let soft = Quadratic::new(matrix![1.0]);
/// let system = SimSystem::new(Mass::identity(), matrix![1.0e4_f64], soft);
/// let mut sim = Sim4::new(system, 1e-2, FastParams::default()).unwrap();
/// let mut s = State::at_rest(vector![1.0]);
/// sim.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - (0.1 * 10001f64.sqrt()).cos()).abs() < 1e-6);
/// ```
pub type Sim4<T, F, const N: usize> = Sim<T, F, TripleJump<T, N>, N>;

/// The triple-jump composition of SIM4 (the [`SimScheme`] of [`Sim4`]): the fast flows over the
/// outer and inner sub-steps and the constant `c₄`.
#[derive(Clone, Copy, Debug)]
pub struct TripleJump<T: Real, const N: usize> {
    outer: FastFlow<T, N>,
    inner: FastFlow<T, N>,
    c: T,
    half: T,
}

impl<T: Real, F: Force<T, N>, const N: usize> Sim4<T, F, N> {
    fn kick(&self, q: &SVector<T, N>, v: &SVector<T, N>, w: T) -> SVector<T, N> {
        v + self.lin.mass().solve(&self.force.force(q)) * w
    }

    fn advance_maps(
        &self,
        s: &State<T, N>,
        h: T,
        outer: &[Matrix2<T>; N],
        inner: &[Matrix2<T>; N],
        next: &mut State<T, N>,
    ) {
        let half = self.scheme.half;
        let c = self.scheme.c;
        let w_end = c * h * half;
        let w_mid = (T::one() - c) * h * half;
        let v = self.kick(&s.q, &s.v, w_end);
        let (q, v) = self.lin.apply_maps(outer, &s.q, &v, None);
        let v = self.kick(&q, &v, w_mid);
        let (q, v) = self.lin.apply_maps(inner, &q, &v, None);
        let v = self.kick(&q, &v, w_mid);
        let (q, v) = self.lin.apply_maps(outer, &q, &v, None);
        next.v = self.kick(&q, &v, w_end);
        next.q = q;
    }
}

impl<T: Real, const N: usize> Sealed for TripleJump<T, N> {}

impl<T: Real, const N: usize> SimScheme<T, N> for TripleJump<T, N> {
    fn build(lin: &StiffLinear<T, N>, h: T) -> Result<Self, ConfigError> {
        if lin.is_noisy() {
            return Err(ConfigError::Inconsistent {
                name: "fourth-order SIM needs σ = 0",
            });
        }
        // `c₄` is the first coefficient of Yoshida's triple jump for a second-order base.
        let c = T::lit(crate::compose::Scheme::TripleJump.gammas(2).0[0]);
        let outer = FastFlow::new(lin, c * h)?;
        let inner = FastFlow::new(lin, (T::one() - c - c) * h)?;
        Ok(Self {
            outer,
            inner,
            c,
            half: T::lit(0.5),
        })
    }

    #[inline]
    fn forget(&mut self) {}
}

impl<T: Real, F: Force<T, N>, const N: usize> Method<T, N> for Sim4<T, F, N> {
    const ORDER: u32 = 4;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        if h == self.h {
            self.advance_maps(
                state,
                h,
                self.scheme.outer.maps(),
                self.scheme.inner.maps(),
                next,
            );
        } else {
            let c = self.scheme.c;
            let outer = self.lin.mode_maps(c * h);
            let inner = self.lin.mode_maps((T::one() - c - c) * h);
            self.advance_maps(state, h, &outer, &inner, next);
        }
        Ok(T::zero())
    }
}
