//! What the six methods of the family share: their state, construction, accessors, the held
//! force, and the step skeletons (the two-stage form of 000 eq 2.10 with the linearly implicit
//! force, and Newmark's Newton loop, 000 eq 2.1).
//!
//! Each method is a type alias of [`ZsFamily`] with its own member `M` (as heapless' `VecInner`
//! takes its storage and nalgebra's `base/alias.rs` names the matrix types): the member holds
//! what the method adds to the shared state and says what differs — the part of the potential
//! whose Hessian is solved with, the third-derivative term of Z&S, whether `f` is linear in a
//! held force. Each method keeps its own file with the paper's update and its own `step_by`.

use super::{handover, Fsal, Handover, ZsParams};
use crate::forcing::{set_held_into, Actuate, Actuated};
use crate::guard::{Probe, Watch};
use crate::linalg::{all_finite, ShiftedSolve};
use crate::model::{Hessian, Mass, Measured, Potential, System};
use crate::sealed;
use crate::validate::check_step;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// A member of the Z&S family: the system, the step size, `β`, the linear-solve strategy `S`,
/// the first-same-as-last cache of `f`, the guard memory and the member `M` (what the method
/// adds; named only in the aliases' definitions).
///
/// Used through its aliases, whose docs give the paper, the update and the properties:
/// [`ZhangSkeel`](super::ZhangSkeel), [`Sylipn`](super::Sylipn),
/// [`StiffSylipn`](super::StiffSylipn), [`Newmark`](super::Newmark),
/// [`PushForwardNewmark`](super::PushForwardNewmark) and
/// [`NewmarkOneIteration`](super::NewmarkOneIteration).
#[derive(Clone, Copy, Debug)]
pub struct ZsFamily<T: Real, P, const N: usize, S, M> {
    pub(super) system: System<T, P, N>,
    pub(super) h: T,
    pub(super) beta: T,
    pub(super) solver: S,
    pub(super) cache: Fsal<T, N>,
    pub(super) watch: Watch<T, N>,
    pub(super) member: M,
}

#[doc(hidden)]
/// What a member of [`ZsFamily`] adds to the shared state and what differs between members.
pub trait Member<T: Real, P, const N: usize>: Copy + sealed::Sealed {
    /// The part of the potential whose Hessian enters the linear solves `M + c·Hess`: all of it,
    /// or the stiff part for [`StiffSylipn`](super::StiffSylipn). The strategy is checked
    /// against it when the method is built.
    type Matrix: Hessian<T, N>;

    /// Whether `f` solves the one linear system `(M + βh² Hess V) a = −∇V + u` with the held
    /// force `u` on its right-hand side (the linearly implicit members): a change `δu` then
    /// refreshes the cached `f` by `f ← f + A⁻¹ δu` when the strategy keeps its factors
    /// ([`DenseKept`](crate::linalg::DenseKept)). The Newton members' `f` is not linear in `u`:
    /// a change clears it.
    const LINEAR_IN_FORCE: bool;

    /// The part of `potential` the linear solves use.
    #[doc(hidden)]
    fn matrix(potential: &P) -> &Self::Matrix;

    /// Keeps what the member records of a committed step (Newmark: its Newton count).
    #[doc(hidden)]
    #[inline]
    fn accept(&mut self) {}

    /// Turns the solution `a` of the linear system at `x` into `f` in place (Z&S: its
    /// third-derivative term). The default is `f = a`.
    #[doc(hidden)]
    #[inline]
    fn correct(&self, system: &System<T, P, N>, x: &SVector<T, N>, h2: T, f: &mut SVector<T, N>) {
        let _ = (system, x, h2, f);
    }
}

#[doc(hidden)]
/// The linearly implicit members ([`ZhangSkeel`](super::ZhangSkeel), [`Sylipn`](super::Sylipn),
/// [`StiffSylipn`](super::StiffSylipn)): `f` from one solve with `M + βh² Hess V` (000 eq 1.3,
/// 2.7, 2.8) whatever the strategy; [`DampedZs`](super::DampedZs) runs the same force with the
/// damping added into the matrix.
pub trait LinearlyImplicit<T: Real, P, const N: usize>: Member<T, P, N> {
    /// Whether the damped map is symmetric (see [`super::damped`]).
    const DAMPED_SYMMETRIC: bool;

    /// The factor of [`Member::matrix`]'s Hessian in the matrix, from `βh²` (stiff Z&Ss: `α βh²`).
    #[doc(hidden)]
    #[inline]
    fn shift(potential: &P, beta_h2: T) -> T {
        let _ = potential;
        beta_h2
    }

    /// The solution `a` of `(M + shift·Hess V_matrix(x)) a = −∇V(x)` into `out`, by `solver`,
    /// and what the guards measure at `x` when the evaluation gave it. The default evaluates the gradient and calls [`ShiftedSolve::solve_in_place`] on
    /// [`Member::matrix`]; a member whose matrix is the whole potential's (Z&S, Z&Ss) calls
    /// [`ShiftedSolve::solve_force_in_place`], which forms the gradient with the matrix.
    ///
    /// # Errors
    /// As the solve.
    #[doc(hidden)]
    #[inline]
    fn solve_force<S: ShiftedSolve<T, N>>(
        system: &System<T, P, N>,
        solver: &mut S,
        x: &SVector<T, N>,
        beta_h2: T,
        out: &mut SVector<T, N>,
    ) -> Result<Option<Measured<T>>, StepError>
    where
        P: Potential<T, N>,
    {
        let g = system.potential.gradient(x);
        for i in 0..N {
            out[i] = -g[i];
        }
        let shift = Self::shift(&system.potential, beta_h2);
        solver.solve_in_place(&system.mass, Self::matrix(&system.potential), x, shift, out)?;
        Ok(None)
    }
}

/// The checks every member's constructor starts with, in this order: the step `h`, then `β`.
///
/// # Errors
/// [`ConfigError::StepSize`]; [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for
/// `"beta"`.
fn check_h_beta<T: Real>(h: T, params: &ZsParams<T>) -> Result<(T, T), ConfigError> {
    let h = check_step(h)?;
    Ok((h, params.validate()?.beta))
}

impl<T: Real, P, const N: usize, S: ShiftedSolve<T, N>, M: Member<T, P, N>>
    ZsFamily<T, P, N, S, M>
{
    /// Checks `h`, `β`, then `member(β, &system)` (the member's own checks), then the strategy
    /// against [`Member::matrix`], and builds the method with an empty cache and fresh guards.
    pub(super) fn build(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
        member: impl FnOnce(T, &System<T, P, N>) -> Result<M, ConfigError>,
    ) -> Result<Self, ConfigError> {
        let (h, beta) = check_h_beta(h, &params)?;
        let member = member(beta, &system)?;
        solver.check(&system.mass, M::matrix(&system.potential))?;
        Ok(Self {
            system,
            h,
            beta,
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
            member,
        })
    }
}

impl<T: Real, P: Copy, const N: usize, S: ShiftedSolve<T, N>, M: Member<T, P, N>>
    ZsFamily<T, P, N, S, M>
{
    /// [`Self::build`] for the identity mass in place in `slot`, for a member without checks of
    /// its own: the method is written into the slot (the identity mass as a constant, the
    /// potential copied from `potential`), so no `N×N`-sized mass and no copy of the method
    /// passes through the stack. The strategy is checked in place; on an error `slot` is `None`.
    ///
    /// Out of line: the check's temporaries (a band of the Hessian) stay off the caller's frame,
    /// which holds the potential.
    #[inline(never)]
    pub(super) fn build_unit_mass_in<'s>(
        slot: &'s mut Option<Self>,
        potential: &P,
        h: T,
        params: ZsParams<T>,
        solver: S,
        member: M,
    ) -> Result<&'s mut Self, ConfigError> {
        *slot = None;
        let (h, beta) = check_h_beta(h, &params)?;
        let zs = Self::blank_in(slot, potential, h, beta, solver, member);
        if let Err(e) = zs
            .solver
            .check(&zs.system.mass, M::matrix(&zs.system.potential))
        {
            *slot = None;
            return Err(e);
        }
        slot.as_mut().ok_or(ConfigError::Inconsistent {
            name: "method built in its slot",
        })
    }

    /// The method with the identity mass in `slot` (out of line: what the compiler assembles
    /// before the move into the slot lives in this frame only).
    #[inline(never)]
    fn blank_in<'s>(
        slot: &'s mut Option<Self>,
        potential: &P,
        h: T,
        beta: T,
        solver: S,
        member: M,
    ) -> &'s mut Self {
        slot.insert(Self {
            system: System {
                mass: Mass::identity(),
                potential: *potential,
            },
            h,
            beta,
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
            member,
        })
    }
}

impl<T: Real, P: Copy, const N: usize, S: ShiftedSolve<T, N>, M: Member<T, P, N>>
    ZsFamily<T, P, N, S, M>
{
    /// [`Self::build`] in place in `slot` for a member without checks of its own (`member`
    /// from `β`): the system copied from where the caller keeps it straight into the slot, so
    /// no copy of the system or the method passes through the stack. The same checks in the
    /// same order and the same method as [`Self::build`], bit for bit; on an error `slot` is
    /// `None`.
    pub(super) fn build_in<'s>(
        slot: &'s mut Option<Self>,
        system: &System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
        member: impl FnOnce(T) -> M,
    ) -> Result<&'s mut Self, ConfigError> {
        *slot = None;
        let (h, beta) = check_h_beta(h, &params)?;
        Self::place_in(slot, system, h, beta, solver, member(beta));
        let checked = match slot.as_mut() {
            Some(zs) => zs
                .solver
                .check(&zs.system.mass, M::matrix(&zs.system.potential)),
            None => Err(ConfigError::Inconsistent {
                name: "method built in its slot",
            }),
        };
        if let Err(e) = checked {
            *slot = None;
            return Err(e);
        }
        slot.as_mut().ok_or(ConfigError::Inconsistent {
            name: "method built in its slot",
        })
    }

    /// Writes the method into `slot`, `system` copied into it. Inlined into the caller, so
    /// that a strategy made there (zeros) is written into the slot, not first into an argument.
    #[inline(always)]
    fn place_in(
        slot: &mut Option<Self>,
        system: &System<T, P, N>,
        h: T,
        beta: T,
        solver: S,
        member: M,
    ) {
        *slot = Some(Self {
            system: *system,
            h,
            beta,
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
            member,
        });
    }
}

impl<T: Real, P, const N: usize, S, M> ZsFamily<T, P, N, S, M> {
    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// Mutable access to the system (e.g. to change a stiff part's `alpha`); clears the cached
    /// `f` and starts a new guard run.
    pub fn system_mut(&mut self) -> &mut System<T, P, N> {
        self.cache.clear();
        self.watch.restart();
        &mut self.system
    }

    /// `β`.
    pub fn beta(&self) -> T {
        self.beta
    }
}

/// `f` of a linearly implicit member at `x` for step size squared `h2` into `out`:
/// `(M + shift·Hess V_matrix(x)) a = −∇V(x)` solved by `solver`, then [`Member::correct`].
/// Returns what the guards measure at `x` when the solve's evaluation gave it.
///
/// # Errors
/// [`StepError::Singular`] / [`StepError::NonFiniteResult`] from the solve.
#[inline]
pub(super) fn linear_force<T, P, const N: usize, S, M>(
    member: &M,
    system: &System<T, P, N>,
    solver: &mut S,
    beta: T,
    x: &SVector<T, N>,
    h2: T,
    out: &mut SVector<T, N>,
) -> Result<Handover<T>, StepError>
where
    T: Real,
    P: Potential<T, N>,
    S: ShiftedSolve<T, N>,
    M: LinearlyImplicit<T, P, N>,
{
    let measured = M::solve_force(system, solver, x, beta * h2, out)?;
    member.correct(system, x, h2, out);
    Ok(handover(measured))
}

impl<T: Real, P, const N: usize, S: ShiftedSolve<T, N>, M> ZsFamily<T, P, N, S, M>
where
    System<T, P, N>: Probe<T, N>,
{
    /// The proposal of the two-stage form (000 eq 2.10) into `next`, with `f` from
    /// `force(member, system, solver, β, q, h², &mut f)` and the FSAL cache. The cache ends
    /// keyed on the proposed position (valid whether or not the driver commits it).
    ///
    /// Written with plain loops over `N` and results into `&mut` places: on a Cortex-M4F at
    /// opt-level "s" every by-value vector move through a `Result` is a call of the byte-wise
    /// `memcpy` (≈ 150 instructions each).
    #[inline]
    pub(super) fn two_stage(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
        mut force: impl FnMut(
            &M,
            &System<T, P, N>,
            &mut S,
            T,
            &SVector<T, N>,
            T,
            &mut SVector<T, N>,
        ) -> Result<Handover<T>, StepError>,
    ) -> Result<(), StepError> {
        let (system, beta, member) = (&self.system, self.beta, &self.member);
        let (solver, cache) = (&mut self.solver, &mut self.cache);
        let h2 = h * h;
        let half = T::lit(0.5);
        let (c0, ch) = (h2 * half, h * half);
        let i0 = cache.cur & 1;
        let i1 = i0 ^ 1;
        let hit = cache.hit(&state.q, h2);
        // From here on `cache.q` is overwritten with the new position: valid again only on success.
        cache.valid = false;
        cache.forget_measured();
        if !hit {
            force(member, system, solver, beta, &state.q, h2, &mut cache.f[i0])?;
        }
        for i in 0..N {
            cache.q[i] = state.q[i] + state.v[i] * h + cache.f[i0][i] * c0;
        }
        if !all_finite(cache.q.as_slice()) {
            return Err(StepError::NonFiniteResult);
        }
        let q = &cache.q;
        let measured = force(member, system, solver, beta, q, h2, &mut cache.f[i1])?;
        for i in 0..N {
            next.q[i] = cache.q[i];
            next.v[i] = state.v[i] + (cache.f[i0][i] + cache.f[i1][i]) * ch;
        }
        cache.h2 = h2;
        cache.cur = i1;
        cache.valid = true;
        cache.keep_measured(measured);
        Ok(())
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>, M> ZsFamily<T, P, N, S, M> {
    /// The proposal of one Newmark step (000 eq 2.1) into `next`, with at most
    /// `newton.max_iter` Newton updates; `check = false` takes exactly one update and accepts it
    /// ([`NewmarkOneIteration`](super::NewmarkOneIteration)). Returns the number of updates.
    pub(super) fn newmark_step(
        &mut self,
        newton: &super::ImplicitNewtonParams<T>,
        check: bool,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<u32, StepError> {
        let (system, beta) = (&self.system, self.beta);
        let half = T::lit(0.5);
        let two = T::lit(2.0);
        let h2 = h * h;
        let c = beta * h2;
        let a0 = match self.cache.lookup(&state.q, T::zero()) {
            Some(a) => a,
            None => system.acceleration(&state.q),
        };
        let qt = state.q + state.v * h + a0 * (h2 * half * (T::one() - two * beta));
        let mut x = qt;
        let mut done = false;
        let mut it = 0;
        while it < newton.max_iter {
            it += 1;
            let r = system.mass.mul(&(x - qt)) + system.potential.gradient(&x) * c;
            let dx = self
                .solver
                .solve(&system.mass, &system.potential, &x, c, &(-r))?;
            x += dx;
            if !check || newton.converged(&dx, &x) {
                done = true;
                break;
            }
        }
        if !done {
            return Err(StepError::NotConverged);
        }
        if !x.iter().all(|v| v.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        let a1 = system.acceleration(&x);
        next.v = state.v + (a0 + a1) * (h * half);
        next.q = x;
        // Keyed on the proposed position: valid whether or not the driver commits it.
        self.cache.store(x, T::zero(), a1);
        Ok(it)
    }
}

impl<T: Real, P, const N: usize, S: ShiftedSolve<T, N>, M: Member<T, P, N>>
    ZsFamily<T, P, N, S, M>
{
    /// Sets the held force `u` of the actuated part `held(&mut potential)` (see
    /// [`crate::forcing::Actuate`]) and keeps the cached `f` at the last position when the
    /// member's `f` is linear in `u` and the strategy kept its factors: `a ← a + A⁻¹ δu`, then
    /// [`Member::correct`] and a check that `f` is finite. Otherwise the cache is cleared and the next step evaluates `f`
    /// afresh.
    #[inline]
    pub(super) fn set_held<Q>(
        &mut self,
        u: &SVector<T, N>,
        held: impl FnOnce(&mut P) -> &mut Actuated<T, Q, N>,
    ) -> Result<(), StepError> {
        let system = &mut self.system;
        // The potential changes: what was measured under the old one is not handed over.
        self.cache.forget_measured();
        let Some((q, h2, f)) = self.cache.slot() else {
            let mut du = SVector::zeros();
            set_held_into(held(&mut system.potential), &mut self.watch, u, &mut du)?;
            return Ok(());
        };
        // `f` receives δu, then `f + A⁻¹ δu` when the strategy kept its factors.
        if !set_held_into(held(&mut system.potential), &mut self.watch, u, f)? {
            return Ok(());
        }
        let fresh = M::LINEAR_IN_FORCE && matches!(self.solver.resolve_changed(f), Ok(true)) && {
            self.member.correct(system, q, h2, f);
            all_finite(f.as_slice())
        };
        if !fresh {
            self.cache.clear();
        }
        Ok(())
    }
}

/// A held force through [`Actuate::set_force`] (the guards' run goes on, [`crate::forcing`]);
/// what happens to the cached `f` is [`Member::LINEAR_IN_FORCE`]'s.
impl<T: Real, P, const N: usize, S: ShiftedSolve<T, N>, M> Actuate<T, N>
    for ZsFamily<T, Actuated<T, P, N>, N, S, M>
where
    M: Member<T, Actuated<T, P, N>, N>,
{
    fn force(&self) -> &SVector<T, N> {
        self.system.potential.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        self.set_held(u, |p| p)
    }
}
