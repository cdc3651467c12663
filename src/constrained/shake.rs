//! SHAKE in velocity form = VS (Leimkuhler & Skeel, 001 eqs 15–18).

use super::kernel::Kernel;
use super::method::{Constrained, ConstrainedScheme, HeldForce, KeepsMultipliers, Sealed};
use super::Multipliers;
use crate::driver::Method;
use crate::model::{Constraint, Potential};
use crate::{Real, State, StepError};
use nalgebra::SVector;

/// SHAKE in velocity form (VS, 001 eqs 15–18), for `M q̈ = −∇V(q) + g'(q)ᵀλ`, `g(q) = 0`:
///
/// ```text
/// v_{n+½} = vₙ − (h/2) M⁻¹∇V(qₙ) + (h/2) M⁻¹g'(qₙ)ᵀ λₙ          (16)
/// q_{n+1} = qₙ + h v_{n+½},          λₙ such that g(q_{n+1}) = 0   (15, 17)
/// v_{n+1} = v_{n+½} − (h/2) M⁻¹∇V(q_{n+1}) + (h/2) M⁻¹g'(q_{n+1})ᵀ λₙ₊₁   (18)
/// ```
///
/// `λₙ₊₁` in (18) is the multiplier of the *next* step's (16); it is computed here by a
/// look-ahead solve `g(q_{n+1} + h v_{n+½} − h² M⁻¹∇V(q_{n+1}) + h² M⁻¹g'(q_{n+1})ᵀλ) = 0`, so
/// that `vₙ = (q_{n+1} − q_{n−1})/2h` exactly as in 001 (and the next step's solve for `λₙ₊₁`
/// reproduces it). Two Newton solves per step.
///
/// Properties: order 2; the positions are those of [`Rattle`](super::Rattle) from the same start
/// (001 §4, VS = VR at mesh positions and half-step velocities); the mesh velocities violate the
/// hidden constraint `g'(q)v = 0` by a bounded `O(h²)` amount (001 Fig 2), so only the position
/// constraint is checked at the start; preserves `dq ∧ dp` on `{g = 0}` (001 §3) but is not a
/// symplectic map of the solution manifold; symmetric on VS trajectories. The multipliers of the
/// last step are [`Shake::multipliers`].
///
/// # Errors
/// As [`Rattle`](super::Rattle): [`StepError::Precondition`] (start off `g = 0`),
/// [`StepError::Singular`], [`StepError::NotConverged`], plus the common ones. The state is
/// unchanged on error.
///
/// ```
/// use macrostep::constrained::{ConstraintNewtonParams, Shake};
/// use macrostep::model::Constraint;
/// use macrostep::systems::Pendulum;
/// use macrostep::Integrator;
///
/// let p = Pendulum::<f64>::paper();
/// let mut shake = Shake::new(p.system(), p.constraint(), 0.05, ConstraintNewtonParams::default()).unwrap();
/// let mut s = p.initial_state();
/// shake.integrate(&mut s, 1000).unwrap();
/// assert!(p.constraint().value(&s.q)[0].abs() < 1e-12);
/// // The hidden constraint is violated, but only a little:
/// let hidden = (p.constraint().jacobian(&s.q) * s.v)[0];
/// assert!(hidden.abs() < 1e-2);
/// ```
pub type Shake<T, P, G, const N: usize, const D: usize> =
    Constrained<T, P, G, ShakeScheme<T, D>, N, D>;

/// The SHAKE (VS) step (the [`ConstrainedScheme`] of [`Shake`]) and the multipliers of its last
/// step.
#[derive(Clone, Copy, Debug)]
pub struct ShakeScheme<T: Real, const D: usize> {
    /// The multipliers of the last committed step.
    last: Multipliers<T, D>,
    /// The multipliers of the last proposal (kept when the driver commits it).
    proposed: Multipliers<T, D>,
}

impl<T: Real, const D: usize> Default for ShakeScheme<T, D> {
    fn default() -> Self {
        Self {
            last: Multipliers::default(),
            proposed: Multipliers::default(),
        }
    }
}

impl<T: Real, const D: usize> Sealed for ShakeScheme<T, D> {}

impl<T: Real, const D: usize> HeldForce for ShakeScheme<T, D> {}

impl<T: Real, const D: usize> KeepsMultipliers<T, D> for ShakeScheme<T, D> {
    fn last(&self) -> &Multipliers<T, D> {
        &self.last
    }
}

impl<T: Real, const N: usize, const D: usize> ConstrainedScheme<T, N> for ShakeScheme<T, D> {
    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.last = self.proposed;
    }
}

impl<T, P, G, const N: usize, const D: usize> Method<T, N> for Shake<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let g = &self.constraint;
        let mass = &self.system.mass;
        let s = self.kernel.start(g, mass, state, false)?;
        let half = h * self.kernel.half;
        let guess = if self.kernel.params.warm_start {
            self.scheme.last.end
        } else {
            SVector::zeros()
        };
        // (16), (15), (17): λₙ.
        let a0 = self.system.acceleration(&s.q);
        let w = s.v + a0 * half;
        let b0 = Kernel::minv_jt(mass, &g.jacobian(&s.q));
        let (q, l0) = self
            .kernel
            .position_solve(g, &(s.q + w * h), &b0, half * h, guess)?;
        let vh = w + b0 * (l0 * half);
        // Look-ahead: λₙ₊₁ from the next step's position constraint.
        let a1 = self.system.acceleration(&q);
        let b1 = Kernel::minv_jt(mass, &g.jacobian(&q));
        let y = q + (vh + a1 * h) * h;
        let (_, l1) = self.kernel.position_solve(g, &y, &b1, h * h, l0)?;
        // (18).
        let v = vh + (a1 + b1 * l1) * half;
        if l0.iter().chain(l1.iter()).any(|x| !x.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        Kernel::check_jump(&s.v, &v, &a0, &a1, h)?;
        next.q = q;
        next.v = v;
        self.scheme.proposed = Multipliers { start: l0, end: l1 };
        Ok(T::zero())
    }
}
