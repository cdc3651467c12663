//! Zhang and Skeel's symplectic method (Z&S), 000 Integrator 1.1, eq 1.3.

use super::family::{linear_force, LinearlyImplicit, Member, ZsFamily};
use super::ZsParams;
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Measured, System, ThirdDerivative};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// Z&S (000 Integrator 1.1, eq 1.3; Zhang & Skeel 1997 §3):
///
/// ```text
/// (M + βh² Hess V(x_k)) a_k = −∇V(x_k)                  one symmetric linear solve
/// f_k     = a_k − ½ β² h⁴ M⁻¹ (a_k · V‴(x_k) · a_k)      third-derivative correction
/// x_{k+1} = x_k + h v_k + ½ h² f_k
/// v_{k+1} = v_k + ½ h (f_k + f_{k+1})
/// ```
///
/// It is the Euler–Lagrange map of the discrete Lagrangian 000 eq 1.2, hence **variational and
/// symplectic** (Thm 2.12) and momentum-map preserving; **symmetric** (Cor 2.10); **second
/// order** (Cor 2.8); **unconditionally linearly stable iff `β ≥ ¼`** (Thm 2.5). Linearly
/// implicit: no Newton iteration, a fixed cost per step — one gradient, one Hessian, one
/// factorisation and solve (strategy `S`, [`Dense`] by default), one contraction `a·V‴·a`; `f` at
/// the end of a step is reused at the start of the next (cache keyed on position and `h²`).
///
/// # Errors
/// `step` returns [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
/// [`StepError::Singular`] when `M + βh² Hess V` is singular (an indefinite matrix falls back
/// from `LDLᵀ` to LU), [`StepError::NonFiniteResult`] when the result overflows. The state is
/// then unchanged.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0).unwrap();
/// let mut zs = ZhangSkeel::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// zs.integrate(&mut s, 100).unwrap();
/// // q(1) = cos(1) to second order
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[doc(alias = "Z&S")]
pub type ZhangSkeel<T, P, const N: usize, S = Dense> = ZsFamily<T, P, N, S, ZhangSkeelMember<T>>;

/// The member of [`ZhangSkeel`]: `½β²`, the factor of its third-derivative correction.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ZhangSkeelMember<T> {
    half_beta2: T,
}

impl<T: Real> ZhangSkeelMember<T> {
    fn for_beta(beta: T) -> Self {
        Self {
            half_beta2: beta * beta * T::lit(0.5),
        }
    }
}

impl<T> sealed::Sealed for ZhangSkeelMember<T> {}

/// A changed force refreshes the cached `f` at the last position: with a strategy that keeps its
/// factors ([`DenseKept`](crate::linalg::DenseKept)) by `a ← a + A⁻¹ δu` and the
/// third-derivative term at the new `a` (no new assembly or factorisation); otherwise the next
/// step evaluates `f` afresh.
impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> Member<T, P, N> for ZhangSkeelMember<T> {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = true;

    fn matrix(potential: &P) -> &P {
        potential
    }

    /// `f = a − ½β²h⁴ M⁻¹ (a · V‴(x) · a)`.
    #[inline]
    fn correct(&self, system: &System<T, P, N>, x: &SVector<T, N>, h2: T, f: &mut SVector<T, N>) {
        let c = system.potential.third_contraction(x, f);
        let m = system.mass.solve(&c);
        let k = self.half_beta2 * h2 * h2;
        for i in 0..N {
            f[i] -= m[i] * k;
        }
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> LinearlyImplicit<T, P, N>
    for ZhangSkeelMember<T>
{
    const DAMPED_SYMMETRIC: bool = false;

    /// The gradient with the matrix ([`ShiftedSolve::solve_force_in_place`]): the matrix is the
    /// whole potential's.
    #[inline]
    fn solve_force<S: ShiftedSolve<T, N>>(
        system: &System<T, P, N>,
        solver: &mut S,
        x: &SVector<T, N>,
        beta_h2: T,
        out: &mut SVector<T, N>,
    ) -> Result<Option<Measured<T>>, StepError> {
        solver.solve_force_in_place(&system.mass, &system.potential, x, beta_h2, out)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> ZhangSkeel<T, P, N, Dense> {
    /// Z&S with step `h`, parameters `params` and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"beta"` (`β < 0`).
    pub fn new(system: System<T, P, N>, h: T, params: ZsParams<T>) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    ZhangSkeel<T, P, N, S>
{
    /// Z&S with a given linear-solve strategy (e.g. [`Banded`](crate::linalg::Banded)).
    ///
    /// # Errors
    /// As [`ZhangSkeel::new`], plus [`ConfigError::Inconsistent`] when the strategy cannot work
    /// with this system.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        Self::build(system, h, params, solver, |beta, _| {
            Ok(ZhangSkeelMember::for_beta(beta))
        })
    }

    /// Z&S (000 Integrator 1.1, eq 1.3) as [`ZhangSkeel::with_solver`] builds it, built in
    /// place in `slot`, for a device that keeps its integrator in a `static` (static RAM rather
    /// than stack): the system is copied from where the caller keeps it straight into the slot,
    /// so neither the system nor the method passes through the stack. The same method as
    /// [`ZhangSkeel::with_solver`] on `*system`, bit for bit.
    ///
    /// ```
    /// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, linalg::Dense};
    /// use macrostep::Integrator;
    /// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0)?;
    /// let mut slot = None;
    /// let zs = ZhangSkeel::new_in(&mut slot, &osc.system(), 0.01, ZsParams::default(), Dense)?;
    /// let mut s = osc.initial_state();
    /// zs.integrate(&mut s, 100)?;
    /// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4); // q(1) = cos(1) to second order
    /// let bad = ZhangSkeel::new_in(&mut slot, &osc.system(), -0.01, ZsParams::default(), Dense);
    /// assert!(bad.is_err() && slot.is_none()); // a failed construction leaves no method behind
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`ZhangSkeel::with_solver`]; `slot` is then `None`.
    pub fn new_in<'s>(
        slot: &'s mut Option<Self>,
        system: &System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<&'s mut Self, ConfigError>
    where
        P: Copy,
    {
        Self::build_in(slot, system, h, params, solver, |beta| {
            ZhangSkeelMember::for_beta(beta)
        })
    }

    /// The method's force `f(x)` of eq 1.3 (the solve and the third-derivative correction) for
    /// step size squared `h2`, without the cache.
    ///
    /// # Errors
    /// As the step's linear solve.
    pub fn method_force(&mut self, x: &SVector<T, N>, h2: T) -> Result<SVector<T, N>, StepError> {
        // The solve replaces what the strategy keeps for the cached `f`.
        self.cache.clear();
        let mut f = SVector::zeros();
        let (member, beta) = (&self.member, self.beta);
        linear_force(member, &self.system, &mut self.solver, beta, x, h2, &mut f)?;
        Ok(f)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for ZhangSkeel<T, P, N, S>
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
        self.two_stage(state, h, next, linear_force)?;
        Ok(T::zero())
    }
}
