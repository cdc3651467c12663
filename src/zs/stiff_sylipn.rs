//! Simplified Z&Ss for stiff systems, 000 Integrator 2.6, eq 2.8.

use super::family::{linear_force, LinearlyImplicit, Member, ZsFamily};
use super::ZsParams;
use crate::driver::Method;
use crate::forcing::{Actuate, Actuated};
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, Potential, Split, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// Stiff Z&Ss (000 Integrator 2.6, eq 2.8) on a split potential `V₀ + αV₁`
/// ([`Split`]`{ soft: V₀, stiff: V₁, alpha: α = ε⁻¹ }`):
///
/// ```text
/// (M + βh² α Hess V₁(x_k)) a_k = −(∇V₀(x_k) + α∇V₁(x_k))   only the stiff part's Hessian
/// x_{k+1} = x_k + h v_k + ½ h² a_k
/// v_{k+1} = v_k + ½ h (a_k + a_{k+1})
/// ```
///
/// **Second order** (Cor 2.8), **symmetric** (Thm 2.9), unconditionally linearly stable for
/// `β > ¼ + O(ε)` when `V₀` has a bounded Lipschitz gradient and `V₁` is quadratic and positive
/// definite (000 footnote 2); not symplectic in general. The soft part needs only a gradient —
/// the cheapest member of the family for large systems (000 §4.3).
///
/// # Errors
/// As [`ZhangSkeel`](super::ZhangSkeel); the state is unchanged on error.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::model::{Mass, Quadratic, Split, System};
/// use macrostep::{nalgebra::matrix, zs::{StiffSylipn, ZsParams}, Integrator, State, Stepper};
/// // soft spring 1, stiff spring 1e4 on the other coordinate
/// let soft = Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]);
/// let stiff = Quadratic::new(matrix![0.0, 0.0; 0.0, 1.0]);
/// let sys = System::new(Mass::identity(), Split::new(soft, stiff, 1e4));
/// // The stiff spring starts stretched: at hω = 10 the method keeps its amplitude but slows it,
/// // so its true energy swings far below the start between turning points — the default energy
/// // guard would refuse that (see `guard`); this example wants the raw method.
/// let mut m = StiffSylipn::new(sys, 0.1, ZsParams::default())
///     .unwrap()
///     .with_guards(macrostep::Guards::off())
///     .unwrap();
/// let mut s = State::at_rest(macrostep::nalgebra::vector![1.0, 1.0]);
/// m.integrate(&mut s, 1000).unwrap(); // hω = 10: stable
/// assert!(s.q.amax() <= 1.0 + 1e-9);
/// ```
#[doc(alias = "stiff Z&Ss")]
pub type StiffSylipn<T, V, U, const N: usize, S = Dense> =
    ZsFamily<T, Split<T, V, U>, N, S, StiffSylipnMember>;

/// The member of [`StiffSylipn`]: nothing beyond the shared state (the split is the system's).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct StiffSylipnMember;

impl sealed::Sealed for StiffSylipnMember {}

/// Only the stiff part's Hessian enters the matrix; a changed force (held in the soft part)
/// refreshes the cached `f` by `f ← f + A⁻¹ δu` when the strategy keeps its factors.
impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize> Member<T, Split<T, V, U>, N>
    for StiffSylipnMember
{
    type Matrix = U;
    const LINEAR_IN_FORCE: bool = true;

    fn matrix(potential: &Split<T, V, U>) -> &U {
        &potential.stiff
    }
}

impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize>
    LinearlyImplicit<T, Split<T, V, U>, N> for StiffSylipnMember
{
    const DAMPED_SYMMETRIC: bool = true;

    /// `α βh²`: the stiff part enters scaled by `α`.
    #[inline]
    fn shift(potential: &Split<T, V, U>, beta_h2: T) -> T {
        beta_h2 * potential.alpha
    }
}

impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize> StiffSylipn<T, V, U, N, Dense> {
    /// Stiff Z&Ss with step `h`, parameters `params` and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"beta"`; [`ConfigError::NonFinite`] for `"alpha"`.
    pub fn new(
        system: System<T, Split<T, V, U>, N>,
        h: T,
        params: ZsParams<T>,
    ) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    StiffSylipn<T, V, U, N, S>
{
    /// Stiff Z&Ss with a given linear-solve strategy (checked against the stiff part).
    ///
    /// # Errors
    /// As [`StiffSylipn::new`], plus [`ConfigError::Inconsistent`] from the strategy.
    pub fn with_solver(
        system: System<T, Split<T, V, U>, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        Self::build(system, h, params, solver, |_, system| {
            crate::validate::check_finite(system.potential.alpha, "alpha")?;
            Ok(StiffSylipnMember)
        })
    }
}

impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    Method<T, N> for StiffSylipn<T, V, U, N, S>
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
        self.two_stage(state, h, next, linear_force)?;
        Ok(T::zero())
    }
}

/// The held force lives in the soft part: `Split<Actuated<V>, U>`.
impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    Actuate<T, N> for StiffSylipn<T, Actuated<T, V, N>, U, N, S>
{
    fn force(&self) -> &SVector<T, N> {
        self.system.potential.soft.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        self.set_held(u, |p| &mut p.soft)
    }
}
