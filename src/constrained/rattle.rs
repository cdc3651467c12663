//! RATTLE = VR (Leimkuhler & Skeel, 001 eqs 24–28).

use super::kernel::Kernel;
use super::method::{Constrained, ConstrainedScheme, HeldForce, KeepsMultipliers, Sealed};
#[cfg(doc)]
use super::ConstraintNewtonParams;
use super::Multipliers;
use crate::driver::Method;
use crate::model::{Constraint, Potential};
#[cfg(doc)]
use crate::Integrator;
use crate::{Real, State, StepError};
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
/// (with [`OffManifold::Reject`](super::OffManifold::Reject); kind
/// [`OffManifold`](crate::PreconditionKind::OffManifold) or
/// [`NotTangent`](crate::PreconditionKind::NotTangent)), for a velocity change out of
/// proportion with the step ([`VelocityJump`](crate::PreconditionKind::VelocityJump), see
/// [`MAX_CORRECTION`](super::MAX_CORRECTION)) and for a result whose velocity the projection
/// could not make tangent to the manifold tolerance (`NotTangent`: the step would hand the next
/// one a state it refuses, e.g. a Newton tolerance below round-off closed over a tiny step),
/// [`StepError::Singular`] for a
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
    /// The multipliers of the last committed step.
    last: Multipliers<T, D>,
    /// The multipliers of the last proposal (kept when the driver commits it).
    proposed: Multipliers<T, D>,
}

impl<T: Real, const D: usize> Default for RattleScheme<T, D> {
    fn default() -> Self {
        Self {
            last: Multipliers::default(),
            proposed: Multipliers::default(),
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

impl<T: Real, const N: usize, const D: usize> ConstrainedScheme<T, N> for RattleScheme<T, D> {
    const HIDDEN: bool = true;

    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.last = self.proposed;
    }
}

/// What one RATTLE step of size `h` from `state` computes, for its linearisation
/// ([`crate::linearise`]): the start (projected when [`OffManifold::Project`](super::OffManifold::Project)
/// applies), the end state, the position multiplier `λ⁽ʳ⁾` and the end projection's `μ`
/// (`v_{n+1} = u + M⁻¹g'(q_{n+1})ᵀμ`, `μ = (h/2) λ⁽ᵛ⁾`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RattleParts<T: Real, const N: usize, const D: usize> {
    pub(crate) start: State<T, N>,
    pub(crate) end: State<T, N>,
    pub(crate) lambda: SVector<T, D>,
    pub(crate) mu: SVector<T, D>,
}

impl<T, P, G, const N: usize, const D: usize> Rattle<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    /// The step's computation from `state` without changing the integrator, Newton from
    /// `λ = 0` (the step's root up to its tolerance, whatever [`ConstraintNewtonParams::warm_start`]
    /// says). Same checks and errors as the step.
    pub(crate) fn parts(
        &self,
        state: &State<T, N>,
        h: T,
    ) -> Result<RattleParts<T, N, D>, StepError> {
        crate::validate::check_step_input(state, h)?;
        let g = &self.constraint;
        let mass = &self.system.mass;
        let s = self.kernel.start(g, mass, state, true)?;
        let half = h * self.kernel.half;
        let a0 = self.system.acceleration(&s.q);
        let w = s.v + a0 * half;
        let b0 = Kernel::minv_jt(mass, &g.jacobian(&s.q));
        let (q, lambda) =
            self.kernel
                .position_solve(g, &(s.q + w * h), &b0, half * h, SVector::zeros())?;
        let a1 = self.system.acceleration(&q);
        let u = w + b0 * (lambda * half) + a1 * half;
        let (v, mu) = self.kernel.velocity_project_end(g, mass, &q, &u)?;
        Kernel::check_jump(&s.v, &v, &a0, &a1, h)?;
        if lambda.iter().chain(mu.iter()).any(|x| !x.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        Ok(RattleParts {
            start: s,
            end: State { t: s.t + h, q, v },
            lambda,
            mu,
        })
    }
}

impl<T, P, G, const N: usize, const D: usize> Method<T, N> for Rattle<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let g = &self.constraint;
        let mass = &self.system.mass;
        let s = self.kernel.start(g, mass, state, true)?;
        let guess = if self.kernel.params.warm_start {
            self.scheme.last.end
        } else {
            SVector::zeros()
        };
        let half = h * self.kernel.half;
        let a0 = self.system.acceleration(&s.q);
        let w = s.v + a0 * half;
        let b0 = Kernel::minv_jt(mass, &g.jacobian(&s.q));
        let (q, lr) = self
            .kernel
            .position_solve(g, &(s.q + w * h), &b0, half * h, guess)?;
        let a1 = self.system.acceleration(&q);
        let u = w + b0 * (lr * half) + a1 * half;
        let (v, mu) = self.kernel.velocity_project_end(g, mass, &q, &u)?;
        Kernel::check_jump(&s.v, &v, &a0, &a1, h)?;
        let lv = mu / half;
        if lr.iter().chain(lv.iter()).any(|x| !x.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        next.q = q;
        next.v = v;
        self.scheme.proposed = Multipliers { start: lr, end: lv };
        Ok(T::zero())
    }
}
