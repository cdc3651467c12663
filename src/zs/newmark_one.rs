//! One-iteration ("linearly implicit") Newmark: the negative baseline of 000 §4.1 Fig 1 row 5.

use super::family::{Member, ZsFamily};
use super::{ImplicitNewtonParams, ZsParams};
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};

/// Newmark (γ = ½, 000 Integrator 2.1) with **only the first Newton iteration** of its implicit
/// equation — "Newmark with only the first step of nonlinear solve" (000 §4.1, Fig 1 row 5).
///
/// ```text
/// q̃       = q_k + h q̇_k + ½h²(1 − 2β) a_k                 (the guess a_{k+1} = 0)
/// q_{k+1} = q̃ − β h² (M + βh² Hess V(q̃))⁻¹ ∇V(q̃)          (one Newton update from q̃)
/// q̇_{k+1} = q̇_k + ½h (a_k + a_{k+1}),        a_{k+1} = −M⁻¹∇V(q_{k+1})
/// ```
///
/// Newton starts from the guess `a_{k+1} = 0`, as Z&Ss's linearisation starts from `a = 0` (000
/// §2.2, "partial Newton solve"); the predictor guess `a_{k+1} = a_k` or `q⁰ = q_k` make the
/// penalised double pendulum of 000 §4.1 blow up at `h = 0.1`, `ω = 20`.
///
/// A **documented negative baseline**: it is consistent (second order on smooth problems) and
/// linearly implicit like Z&S, but it is **neither symplectic nor symmetric**, and on the
/// penalised double pendulum its error is far larger than Z&S's or fully solved Newmark's
/// (000 §4.1: "a large error due to the loss of symplecticity"). Use [`ZhangSkeel`](super::ZhangSkeel)
/// for the same cost with the structure kept.
///
/// # Errors
/// Bad input, [`StepError::Singular`], [`StepError::NonFiniteResult`]; the state is unchanged.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{NewmarkOneIteration, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut nm = NewmarkOneIteration::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// nm.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
pub type NewmarkOneIteration<T, P, const N: usize, S = Dense> =
    ZsFamily<T, P, N, S, NewmarkOneIterationMember>;

/// The member of [`NewmarkOneIteration`]: nothing beyond the shared state.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct NewmarkOneIterationMember;

impl sealed::Sealed for NewmarkOneIterationMember {}

/// A changed force clears the cached acceleration (the next step evaluates it afresh).
impl<T: Real, P: Hessian<T, N>, const N: usize> Member<T, P, N> for NewmarkOneIterationMember {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = false;

    fn matrix(potential: &P) -> &P {
        potential
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> NewmarkOneIteration<T, P, N, Dense> {
    /// One-iteration Newmark with step `h`, parameters `params` and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; `"beta"` as in [`ZsParams::validate`].
    pub fn new(system: System<T, P, N>, h: T, params: ZsParams<T>) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    NewmarkOneIteration<T, P, N, S>
{
    /// With a given linear-solve strategy.
    ///
    /// # Errors
    /// As [`NewmarkOneIteration::new`], plus [`ConfigError::Inconsistent`] from the strategy.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        Self::build(system, h, params, solver, |_, _| {
            Ok(NewmarkOneIterationMember)
        })
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for NewmarkOneIteration<T, P, N, S>
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = false;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let one = ImplicitNewtonParams {
            tol: T::one(),
            max_iter: 1,
        };
        self.newmark_step(&one, false, state, h, next)?;
        Ok(T::zero())
    }
}
