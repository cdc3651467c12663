//! Push-forward Newmark, 000 Integrator 2.2, eq 2.3.

use super::family::{Member, ZsFamily};
use super::{ImplicitNewtonParams, NewmarkParams, ZsParams};
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// Push-forward Newmark (000 Integrator 2.2, eq 2.3): Newmark pushed forward by
/// `η(q, q̇) = (q + βh²M⁻¹∇V(q), q̇)` (eq 2.2), which preserves the canonical symplectic form:
///
/// ```text
/// x_{k+1} = x_k + h v_k + ½ h² a_k
/// v_{k+1} = v_k + ½ h (a_k + a_{k+1})
/// a_k solves  M a + ∇V(x_k + βh² a) = 0            (Newton, to tolerance)
/// ```
///
/// Newton starts from `a = 0`, so its first update is exactly Z&Ss's `a`
/// ([`Sylipn`](super::Sylipn)); it continues until `‖Δa‖∞ ≤ tol·(1 + ‖a‖∞)`. **Second order,
/// symmetric, symplectic** (up to the Newton tolerance, 000 Rem 2.15), unconditionally linearly
/// stable for `β ≥ ¼`. The state holds the pushed-forward position `x` (which differs from
/// Newmark's `q` by `O(h²)`). `a` at the end of a step is reused at the next (keyed on `x`, `h²`).
///
/// # Errors
/// Bad input, [`StepError::NotConverged`], [`StepError::Singular`],
/// [`StepError::NonFiniteResult`]; the state is unchanged on error.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{NewmarkParams, PushForwardNewmark}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut pf = PushForwardNewmark::new(osc.system(), 0.01, NewmarkParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// pf.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
pub type PushForwardNewmark<T, P, const N: usize, S = Dense> =
    ZsFamily<T, P, N, S, PushForwardNewmarkMember<T>>;

/// The member of [`PushForwardNewmark`]: the Newton controls.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct PushForwardNewmarkMember<T> {
    newton: ImplicitNewtonParams<T>,
}

impl<T> sealed::Sealed for PushForwardNewmarkMember<T> {}

/// A changed force clears the cached acceleration (the next step evaluates it afresh).
impl<T: Real, P: Hessian<T, N>, const N: usize> Member<T, P, N> for PushForwardNewmarkMember<T> {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = false;

    fn matrix(potential: &P) -> &P {
        potential
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> PushForwardNewmark<T, P, N, Dense> {
    /// Push-forward Newmark with step `h`, `β` and Newton controls from `params`, and the dense
    /// solver.
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

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    PushForwardNewmark<T, P, N, S>
{
    /// With a given linear-solve strategy for the Newton matrix.
    ///
    /// # Errors
    /// As [`PushForwardNewmark::new`], plus [`ConfigError::Inconsistent`] from the strategy.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: NewmarkParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        let beta = ZsParams::with_beta(params.beta);
        Self::build(system, h, beta, solver, |_, _| {
            let newton = params.newton.validate()?;
            Ok(PushForwardNewmarkMember { newton })
        })
    }

    /// The Newton controls.
    pub(crate) fn newton(&self) -> &ImplicitNewtonParams<T> {
        &self.member.newton
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for PushForwardNewmark<T, P, N, S>
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        self.two_stage(
            state,
            h,
            next,
            |member, system, solver, beta, x, h2, out| {
                let newton = &member.newton;
                let c = beta * h2;
                let mut a = SVector::<T, N>::zeros();
                for _ in 0..newton.max_iter {
                    let y = x + a * c;
                    let r = system.mass.mul(&a) + system.potential.gradient(&y);
                    let da = solver.solve(&system.mass, &system.potential, &y, c, &(-r))?;
                    a += da;
                    if newton.converged(&da, &a) {
                        *out = a;
                        return Ok(Default::default());
                    }
                }
                Err(StepError::NotConverged)
            },
        )?;
        Ok(T::zero())
    }
}
