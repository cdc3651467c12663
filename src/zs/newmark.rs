//! Newmark with γ = ½, fully solved: 000 Integrator 2.1, eq 2.1.

use super::family::{Member, ZsFamily};
use super::{ImplicitNewtonParams, NewmarkParams, ZsParams};
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};

/// Newmark's method with `γ = ½` (000 Integrator 2.1, eq 2.1), the implicit equation solved by
/// Newton's method to a tolerance:
///
/// ```text
/// q_{k+1} = q_k + h q̇_k + ½h² [(1 − 2β) a_k + 2β a_{k+1}],   a = −M⁻¹∇V(q)
/// q̇_{k+1} = q̇_k + ½h (a_k + a_{k+1})
/// ```
///
/// Newton solves `R(q) = M(q − q̃) + βh²∇V(q) = 0` (with `q̃ = q_k + hq̇_k + ½h²(1−2β)a_k`,
/// Jacobian `M + βh²Hess V(q)`) from `q⁰ = q̃` (the guess `a_{k+1} = 0`) until
/// `‖Δq‖∞ ≤ tol·(1 + ‖q‖∞)`. **Second order, symmetric, variational** (Kane et al. 2000) but
/// **not canonically symplectic** (000 §2.1: its push-forward is, see
/// [`PushForwardNewmark`](super::PushForwardNewmark)); unconditionally linearly stable for
/// `β ≥ ¼`. Cost per step: one Hessian, one factorisation and two gradients per Newton
/// iteration, plus one gradient; `a` at the end of a step is reused at the next.
///
/// # Errors
/// Bad input ([`StepError::StepSize`], [`StepError::NonFiniteState`]),
/// [`StepError::NotConverged`] when Newton has not met the tolerance after `max_iter` updates,
/// [`StepError::Singular`] from the Newton matrix, [`StepError::NonFiniteResult`]. The state is
/// unchanged on error.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{Newmark, NewmarkParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut nm = Newmark::new(osc.system(), 0.01, NewmarkParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// nm.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
pub type Newmark<T, P, const N: usize, S = Dense> = ZsFamily<T, P, N, S, NewmarkMember<T>>;

/// The member of [`Newmark`]: the Newton controls and the last step's iteration count.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct NewmarkMember<T> {
    newton: ImplicitNewtonParams<T>,
    iterations: u32,
    pending: u32,
}

impl<T> sealed::Sealed for NewmarkMember<T> {}

/// A changed force clears the cached acceleration (the next step evaluates it afresh).
impl<T: Real, P: Hessian<T, N>, const N: usize> Member<T, P, N> for NewmarkMember<T> {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = false;

    fn matrix(potential: &P) -> &P {
        potential
    }

    #[inline]
    fn accept(&mut self) {
        self.iterations = self.pending;
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> Newmark<T, P, N, Dense> {
    /// Newmark with step `h`, `β` and Newton controls from `params`, and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; then `"beta"`, `"tol"`, `"max_iter"` as in
    /// [`NewmarkParams::validate`].
    pub fn new(
        system: System<T, P, N>,
        h: T,
        params: NewmarkParams<T>,
    ) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Newmark<T, P, N, S> {
    /// Newmark with a given linear-solve strategy for the Newton matrix.
    ///
    /// # Errors
    /// As [`Newmark::new`], plus [`ConfigError::Inconsistent`] from the strategy.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: NewmarkParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        let beta = ZsParams::with_beta(params.beta);
        Self::build(system, h, beta, solver, |_, _| {
            let newton = params.newton.validate()?;
            Ok(NewmarkMember {
                newton,
                iterations: 0,
                pending: 0,
            })
        })
    }

    /// Newton updates taken by the last successful step.
    pub fn last_iterations(&self) -> u32 {
        self.member.iterations
    }

    /// The Newton controls.
    pub(crate) fn newton(&self) -> &ImplicitNewtonParams<T> {
        &self.member.newton
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for Newmark<T, P, N, S>
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = true;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let newton = self.member.newton;
        self.member.pending = self.newmark_step(&newton, true, state, h, next)?;
        Ok(T::zero())
    }
}
