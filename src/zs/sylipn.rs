//! Z&Ss (SyLiPN), 000 Integrator 2.3 (eq 2.7), 004 Integrator 5.2.3 (eq 5.5).

use super::family::{linear_force, LinearlyImplicit, Member, ZsFamily};
use super::ZsParams;
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};

/// Z&Ss (SyLiPN): Zhang and Skeel's method simplified (000 Integrator 2.3, eq 2.7), the thesis'
/// SyLiPN (004 Integrator 5.2.3):
///
/// ```text
/// a_k     = −(M + βh² Hess V(x_k))⁻¹ ∇V(x_k)
/// x_{k+1} = x_k + h v_k + ½ h² a_k
/// v_{k+1} = v_k + ½ h (a_k + a_{k+1})
/// ```
///
/// Z&S without the `O(h⁵)` third-derivative correction: it is the first Newton step, from
/// `a = 0`, of push-forward Newmark's `a = −M⁻¹∇V(x + βh²a)`. **Symmetric** (Thm 2.9),
/// **second order** (Cor 2.8), **unconditionally linearly stable for `β ≥ ¼`** (Thm 2.4), but
/// **symplectic only when `M + βh²Hess V` commutes with `V‴·(M + βh²Hess V)⁻¹·∇V`** (Thm 2.4,
/// Rem 2.14) — e.g. one degree of freedom — so `SYMPLECTIC = false` (the thesis' claim that
/// SyLiPN is always symplectic is corrected by 000; the host tests measure the difference). One
/// gradient, one Hessian and one solve per step.
///
/// # Errors
/// As [`ZhangSkeel`](super::ZhangSkeel): bad input, [`StepError::Singular`],
/// [`StepError::NonFiniteResult`]; the state is then unchanged.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{Sylipn, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut zss = Sylipn::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// zss.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[doc(alias = "Z&Ss")]
#[doc(alias = "ZSs")]
#[doc(alias = "SyLiPN")]
pub type Sylipn<T, P, const N: usize, S = Dense> = ZsFamily<T, P, N, S, SylipnMember>;

/// The member of [`Sylipn`]: nothing beyond the shared state.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct SylipnMember;

impl sealed::Sealed for SylipnMember {}

/// A changed force refreshes the cached `f` at the last position by `f ← f + A⁻¹ δu` when the
/// strategy keeps its factors ([`DenseKept`](crate::linalg::DenseKept)).
impl<T: Real, P: Hessian<T, N>, const N: usize> Member<T, P, N> for SylipnMember {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = true;

    fn matrix(potential: &P) -> &P {
        potential
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> LinearlyImplicit<T, P, N> for SylipnMember {
    const DAMPED_SYMMETRIC: bool = true;

    /// The gradient with the matrix ([`ShiftedSolve::solve_force_in_place`]): the matrix is the
    /// whole potential's. Not on a bare-metal target, whose frames and flash the one-pass
    /// plumbing makes larger than the separate evaluations (the same values either way).
    #[cfg(not(target_os = "none"))]
    #[inline]
    fn solve_force<S: ShiftedSolve<T, N>>(
        system: &System<T, P, N>,
        solver: &mut S,
        x: &nalgebra::SVector<T, N>,
        beta_h2: T,
        out: &mut nalgebra::SVector<T, N>,
    ) -> Result<Option<crate::model::Measured<T>>, StepError> {
        solver.solve_force_in_place(&system.mass, &system.potential, x, beta_h2, out)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> Sylipn<T, P, N, Dense> {
    /// Z&Ss with step `h`, parameters `params` and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"beta"`.
    pub fn new(system: System<T, P, N>, h: T, params: ZsParams<T>) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Sylipn<T, P, N, S> {
    /// Z&Ss with a given linear-solve strategy.
    ///
    /// # Errors
    /// As [`Sylipn::new`], plus [`ConfigError::Inconsistent`] from the strategy.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        Self::build(system, h, params, solver, |_, _| Ok(SylipnMember))
    }
}

impl<T: Real, P: Hessian<T, N> + Copy, const N: usize, S: ShiftedSolve<T, N>> Sylipn<T, P, N, S> {
    /// [`Sylipn::with_solver`] for the system `M = I`, `V = potential`, built in place in
    /// `slot`, for a device that keeps its integrator in a `static` (static RAM rather than
    /// stack): neither the mass (sized by its full `N×N` variant) nor a copy of the method
    /// passes through the stack, and the potential is copied from where the caller keeps it
    /// straight into the slot. The same method as [`Sylipn::with_solver`] on
    /// `System::new(Mass::identity(), potential)`, bit for bit.
    ///
    /// ```
    /// use macrostep::{linalg::Dense, model::Quadratic, zs::{Sylipn, ZsParams}};
    /// use macrostep::{nalgebra::matrix, Integrator, State};
    /// let spring = Quadratic::new(matrix![4.0_f64]);
    /// let mut slot = None;
    /// let zss = Sylipn::unit_mass_in(&mut slot, &spring, 0.01, ZsParams::default(), Dense)?;
    /// let mut s = State::at_rest(macrostep::nalgebra::vector![1.0]);
    /// zss.integrate(&mut s, 100)?;
    /// assert!((s.q[0] - 2f64.cos()).abs() < 1e-3);
    /// assert!(Sylipn::unit_mass_in(&mut slot, &spring, -1.0, ZsParams::default(), Dense).is_err());
    /// assert!(slot.is_none()); // a failed construction leaves no method behind
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Sylipn::with_solver`]; `slot` is then `None`.
    pub fn unit_mass_in<'s>(
        slot: &'s mut Option<Self>,
        potential: &P,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<&'s mut Self, ConfigError> {
        Self::build_unit_mass_in(slot, potential, h, params, solver, SylipnMember)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for Sylipn<T, P, N, S>
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::Banded;
    use crate::model::Mass;
    use crate::systems::{Chain, GravityPenalty};
    use crate::Integrator;

    type ChainZss<T> = Sylipn<T, GravityPenalty<T, 8, 4>, 8, Banded<4>>;

    /// `unit_mass_in` builds the method `with_solver` builds on `M = I`, bit for bit: 40 steps
    /// of the banded chain (`ω = 15`, `β = 0.3`, not the paper's) from a moving start, in f32
    /// and f64, into a slot that already held a method (which is replaced).
    fn same_method<T: Real>() {
        let chain = Chain::<T, 8, 4>::slanted();
        let system = chain.penalised(T::lit(15.0)).unwrap();
        let params = ZsParams::with_beta(T::lit(0.3));
        let mut plain = Sylipn::with_solver(system, T::lit(0.04), params, Banded::<4>).unwrap();
        let mut slot: Option<ChainZss<T>> = None;
        let stale = chain.penalised(T::lit(3.0)).unwrap().potential;
        ChainZss::unit_mass_in(&mut slot, &stale, T::lit(0.1), params, Banded::<4>).unwrap();
        let placed = ChainZss::unit_mass_in(
            &mut slot,
            &system.potential,
            T::lit(0.04),
            params,
            Banded::<4>,
        )
        .unwrap();
        assert!(placed.system().mass.is_identity());
        // Not the paper's start: the first node pushed along its rod's normal `(2, 1)`.
        let mut start = chain.initial_state();
        start.v[0] = T::lit(0.4);
        start.v[1] = T::lit(0.2);
        let (mut a, mut b) = (start, start);
        plain.integrate(&mut a, 40).unwrap();
        placed.integrate(&mut b, 40).unwrap();
        assert_eq!(a, b);
        assert!(a.q != start.q);
    }

    #[test]
    fn unit_mass_in_builds_the_same_method_as_with_solver() {
        same_method::<f32>();
        same_method::<f64>();
    }

    /// A refused step size or strategy leaves the slot empty, even when it held a method; the
    /// errors are those of `with_solver`.
    #[test]
    fn unit_mass_in_failure_empties_the_slot() {
        let chain = Chain::<f64, 8, 4>::slanted();
        let potential = chain.penalised(20.0).unwrap().potential;
        let params = ZsParams::default();
        let mut slot: Option<ChainZss<f64>> = None;
        ChainZss::unit_mass_in(&mut slot, &potential, 0.05, params, Banded::<4>).unwrap();
        let e = ChainZss::unit_mass_in(&mut slot, &potential, f64::NAN, params, Banded::<4>);
        assert_eq!(e.err(), Some(ConfigError::StepSize));
        assert!(slot.is_none());
        // Half-bandwidth 3 does not fit in 2 stored diagonals: the strategy check, in place.
        type Narrow = Sylipn<f64, GravityPenalty<f64, 8, 4>, 8, Banded<2>>;
        let system = crate::model::System::new(Mass::identity(), potential);
        let expected = Sylipn::with_solver(system, 0.05, params, Banded::<2>).err();
        assert!(expected.is_some());
        let mut narrow: Option<Narrow> = None;
        Narrow::unit_mass_in(
            &mut narrow,
            &chain.penalised(20.0).unwrap().potential,
            0.05,
            params,
            Banded::<2>,
        )
        .unwrap_err();
        let e = Narrow::unit_mass_in(&mut narrow, &potential, 0.05, params, Banded::<2>);
        assert_eq!(e.err(), expected);
        assert!(narrow.is_none());
    }
}
