//! Newmark with γ = ½, fully solved: 000 Integrator 2.1, eq 2.1.

use super::{Fsal, ImplicitNewtonParams, ZsParams};
use crate::guard::Watch;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, System};
use crate::validate::check_step;
use crate::validate::check_step_input;
use crate::{ConfigError, Integrator, Real, State, StepError};

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
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{Newmark, ImplicitNewtonParams, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut nm = Newmark::new(osc.system(), 0.01, ZsParams::default(), ImplicitNewtonParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// nm.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Newmark<T: Real, P, const N: usize, S = Dense> {
    system: System<T, P, N>,
    h: T,
    beta: T,
    newton: ImplicitNewtonParams<T>,
    solver: S,
    cache: Fsal<T, N>,
    watch: Watch<T, N>,
    iterations: u32,
}

impl<T: Real, P: Hessian<T, N>, const N: usize> Newmark<T, P, N, Dense> {
    /// Newmark with step `h`, `β` from `params` and Newton controls `newton`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`]; `"beta"`, `"tol"`, `"max_iter"` as in [`ZsParams::validate`]
    /// and [`ImplicitNewtonParams::validate`].
    pub fn new(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        newton: ImplicitNewtonParams<T>,
    ) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, newton, Dense)
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
        params: ZsParams<T>,
        newton: ImplicitNewtonParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let beta = params.validate()?;
        let newton = newton.validate()?;
        solver.check(&system.mass, &system.potential)?;
        Ok(Self {
            system,
            h,
            beta,
            newton,
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
            iterations: 0,
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// Mutable access to the system; clears the cached acceleration.
    pub fn system_mut(&mut self) -> &mut System<T, P, N> {
        self.cache.clear();
        self.watch.restart();
        &mut self.system
    }

    /// Newton updates taken by the last successful step.
    pub fn last_iterations(&self) -> u32 {
        self.iterations
    }
}

/// Shared by [`Newmark`] and [`NewmarkOneIteration`](super::NewmarkOneIteration): one step with
/// at most `newton.max_iter` Newton updates; `check = false` takes exactly one update and accepts
/// it. Returns the number of updates.
#[allow(clippy::too_many_arguments)]
pub(super) fn newmark_step<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>(
    system: &System<T, P, N>,
    solver: &mut S,
    cache: &mut Fsal<T, N>,
    watch: &mut Watch<T, N>,
    beta: T,
    newton: &ImplicitNewtonParams<T>,
    check: bool,
    state: &mut State<T, N>,
    h: T,
) -> Result<u32, StepError> {
    check_step_input(state, h)?;
    let half = T::lit(0.5);
    let two = T::lit(2.0);
    let h2 = h * h;
    let c = beta * h2;
    let a0 = match cache.lookup(&state.q, T::zero()) {
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
        let dx = solver.solve(&system.mass, &system.potential, &x, c, &(-r))?;
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
    let v = state.v + (a0 + a1) * (h * half);
    watch.commit(
        state,
        &State {
            t: state.t + h,
            q: x,
            v,
        },
        h,
        system,
    )?;
    cache.store(x, T::zero(), a1);
    Ok(it)
}

crate::integrator::impl_stepper!(
    impl[T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>] Newmark<T, P, N, S> => h
);

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> Integrator<T, N>
    for Newmark<T, P, N, S>
{
    crate::watched::claims_and_watch!(order: 2, symplectic: false, symmetric: true);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        self.iterations = newmark_step(
            &self.system,
            &mut self.solver,
            &mut self.cache,
            &mut self.watch,
            self.beta,
            &self.newton,
            true,
            state,
            h,
        )?;
        Ok(())
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>> crate::forcing::Actuate<T, N>
    for Newmark<T, crate::forcing::Actuated<T, P, N>, N, S>
{
    crate::forcing::actuate_impl!(self, self.cache.clear());
}
