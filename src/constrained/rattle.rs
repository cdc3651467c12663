//! RATTLE = VR (Leimkuhler & Skeel, 001 eqs 24–28).

use super::kernel::Kernel;
use super::method::{Constrained, ConstrainedScheme, HeldForce, KeepsMultipliers, Sealed};
#[cfg(doc)]
use super::ConstraintNewtonParams;
use super::Multipliers;
use crate::model::{Constraint, Potential};
use crate::validate::check_step_input;
use crate::{Integrator, Real, State, StepError};
use nalgebra::SVector;

/// RATTLE (VR, 001 eqs 24–28) in velocities, for `M q̈ = −∇V(q) + g'(q)ᵀλ`, `g(q) = 0`:
///
/// ```text
/// v_{n+½} = vₙ − (h/2) M⁻¹∇V(qₙ) + (h/2) M⁻¹g'(qₙ)ᵀ λ⁽ʳ⁾      (25)
/// q_{n+1} = qₙ + h v_{n+½},         λ⁽ʳ⁾ such that g(q_{n+1}) = 0   (24, 26)
/// v_{n+1} = v_{n+½} − (h/2) M⁻¹∇V(q_{n+1}) + (h/2) M⁻¹g'(q_{n+1})ᵀ λ⁽ᵛ⁾   (27)
///           λ⁽ᵛ⁾ such that g'(q_{n+1}) v_{n+1} = 0                  (28)
/// ```
///
/// `λ⁽ʳ⁾` by Newton on `D` unknowns ([`ConstraintNewtonParams`]), `λ⁽ᵛ⁾` by one linear `D × D` solve.
///
/// Properties: order 2; maps the solution manifold `{g = 0, g'v = 0}` into itself; symplectic on
/// it (the restriction of `dq ∧ dp` is preserved, 001 §4); symmetric (`Φ₋ₕ∘Φₕ = id` to the
/// Newton tolerance); one gradient and at least two Jacobians per step. The multipliers of the
/// last step are [`Rattle::multipliers`].
///
/// # Errors
/// Besides [`Integrator::step_by`]'s: [`StepError::Precondition`] for a start off the manifold
/// (with [`OffManifold::Reject`](super::OffManifold::Reject)), [`StepError::Singular`] for a
/// rank-deficient `g' M⁻¹ g'ᵀ`, [`StepError::NotConverged`] when Newton hits its cap. The state is
/// unchanged on error.
///
/// ```
/// use macrostep::constrained::{ConstraintNewtonParams, Rattle};
/// use macrostep::model::{Constraint, Mass, System};
/// use macrostep::systems::Pendulum;
/// use macrostep::{Integrator, State};
///
/// let p = Pendulum::<f64>::paper();
/// let mut rattle = Rattle::new(p.system(), p.constraint(), 0.05, ConstraintNewtonParams::default()).unwrap();
/// let mut s = p.initial_state();
/// let e0 = p.system().energy(&s);
/// rattle.integrate(&mut s, 1000).unwrap();
/// assert!(p.constraint().value(&s.q)[0].abs() < 1e-12);
/// assert!((p.system().energy(&s) - e0).abs() < 1e-2);
/// // The constraint force at the end of the last step is g'(q)ᵀλ:
/// let force = p.constraint().jacobian(&s.q).transpose() * rattle.multipliers().end;
/// # let _ = force;
/// ```
pub type Rattle<T, P, G, const N: usize, const D: usize> =
    Constrained<T, P, G, RattleScheme<T, D>, N, D>;

/// The RATTLE step (the [`ConstrainedScheme`] of [`Rattle`]) and the multipliers of its last
/// step.
#[derive(Clone, Copy, Debug)]
pub struct RattleScheme<T: Real, const D: usize> {
    last: Multipliers<T, D>,
}

impl<T, P, G, const N: usize, const D: usize> Rattle<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    /// One RATTLE step from `s` (on the manifold) into locals: `(state, multipliers)`.
    pub(crate) fn raw_step(
        &self,
        s: &State<T, N>,
        h: T,
        guess: SVector<T, D>,
    ) -> Result<(State<T, N>, Multipliers<T, D>), StepError> {
        let g = &self.constraint;
        let mass = &self.system.mass;
        let half = h * self.kernel.half;
        let a0 = self.system.acceleration(&s.q);
        let w = s.v + a0 * half;
        let b0 = Kernel::minv_jt(mass, &g.jacobian(&s.q));
        let (q, lr) = self
            .kernel
            .position_solve(g, &(s.q + w * h), &b0, half * h, guess)?;
        let a1 = self.system.acceleration(&q);
        let u = w + b0 * (lr * half) + a1 * half;
        let (v, mu) = self.kernel.velocity_project(g, mass, &q, &u)?;
        Kernel::check_jump(&s.v, &v, &a0, &a1, h)?;
        let lv = mu / half;
        Ok((
            State { t: s.t + h, q, v },
            Multipliers { start: lr, end: lv },
        ))
    }
}

impl<T: Real, const D: usize> Default for RattleScheme<T, D> {
    fn default() -> Self {
        Self {
            last: Multipliers::default(),
        }
    }
}

impl<T: Real, const D: usize> Sealed for RattleScheme<T, D> {}

impl<T: Real, const D: usize> HeldForce for RattleScheme<T, D> {}

impl<T: Real, const D: usize> KeepsMultipliers<T, D> for RattleScheme<T, D> {
    fn last(&self) -> &Multipliers<T, D> {
        &self.last
    }
}

impl<T: Real, const N: usize, const D: usize> ConstrainedScheme<T, N> for RattleScheme<T, D> {}

impl<T, P, G, const N: usize, const D: usize> Integrator<T, N> for Rattle<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    crate::watched::claims_and_watch!(order: 2, symplectic: true, symmetric: true);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let s = self
            .kernel
            .start(&self.constraint, &self.system.mass, state, true)?;
        let guess = if self.kernel.params.warm_start {
            self.scheme.last.end
        } else {
            SVector::zeros()
        };
        let (next, lam) = self.raw_step(&s, h, guess)?;
        if lam.start.iter().chain(lam.end.iter()).any(|x| !x.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        self.commit(state, &next, h)?;
        self.scheme.last = lam;
        Ok(())
    }
}
