//! One-iteration ("linearly implicit") Newmark: the negative baseline of 000 §4.1 Fig 1 row 5.

use super::newmark::newmark_step;
use super::{Fsal, ImplicitNewtonParams, ZsParams};
use crate::guard::Watch;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::validate::check_step;
use crate::{ConfigError, Integrator, Real, State, StepError};

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
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{NewmarkOneIteration, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut nm = NewmarkOneIteration::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// nm.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NewmarkOneIteration<T: Real, P, const N: usize, S = Dense> {
    system: System<T, P, N>,
    h: T,
    beta: T,
    solver: S,
    cache: Fsal<T, N>,
    watch: Watch<T, N>,
}

impl<T: Real, P: Hessian<T, N>, const N: usize> NewmarkOneIteration<T, P, N, Dense> {
    /// One-iteration Newmark with step `h` and `β` from `params`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`]; `"beta"` as in [`ZsParams::validate`].
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
        let h = check_step(h)?;
        let beta = params.validate()?;
        solver.check(&system.mass, &system.potential)?;
        Ok(Self {
            system,
            h,
            beta,
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>]
    NewmarkOneIteration<T, P, N, S> => h
);

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Integrator<T, N>
    for NewmarkOneIteration<T, P, N, S>
{
    crate::watched::claims_and_watch!(order: 2, symplectic: false, symmetric: false);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        let one = ImplicitNewtonParams {
            tol: T::one(),
            max_iter: 1,
        };
        newmark_step(
            &self.system,
            &mut self.solver,
            &mut self.cache,
            &mut self.watch,
            self.beta,
            &one,
            false,
            state,
            h,
        )?;
        Ok(())
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> crate::forcing::Actuate<T, N>
    for NewmarkOneIteration<T, crate::forcing::Actuated<T, P, N>, N, S>
{
    crate::forcing::actuate_impl!(self, self.cache.clear());
}
