//! Zhang and Skeel's symplectic method (Z&S), 000 Integrator 1.1, eq 1.3.

use super::{two_stage_step, Fsal, ZsParams};
use crate::guard::Watch;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{System, ThirdDerivative};
use crate::validate::check_step;
use crate::{ConfigError, Integrator, Real, State, StepError};
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
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0).unwrap();
/// let mut zs = ZhangSkeel::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// zs.integrate(&mut s, 100).unwrap();
/// // q(1) = cos(1) to second order
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ZhangSkeel<T: Real, P, const N: usize, S = Dense> {
    pub(super) system: System<T, P, N>,
    h: T,
    pub(super) beta: T,
    pub(super) half_beta2: T,
    solver: S,
    cache: Fsal<T, N>,
    pub(super) watch: Watch<T, N>,
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
        let h = check_step(h)?;
        let beta = params.validate()?;
        solver.check(&system.mass, &system.potential)?;
        Ok(Self {
            system,
            h,
            beta,
            half_beta2: beta * beta * T::lit(0.5),
            solver,
            cache: Fsal::empty(),
            watch: Watch::default(),
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// Mutable access to the system; clears the cached `f`.
    pub fn system_mut(&mut self) -> &mut System<T, P, N> {
        self.cache.clear();
        self.watch.restart();
        &mut self.system
    }

    /// `β`.
    pub fn beta(&self) -> T {
        self.beta
    }

    /// `f(x)` of eq 1.3 for step size squared `h2` (no cache).
    ///
    /// # Errors
    /// As the step's linear solve.
    pub fn force(&mut self, x: &SVector<T, N>, h2: T) -> Result<SVector<T, N>, StepError> {
        // The solve replaces what the strategy keeps for the cached `f`.
        self.cache.clear();
        let mut f = SVector::zeros();
        force(
            &self.system,
            &mut self.solver,
            self.beta,
            self.half_beta2,
            x,
            h2,
            &mut f,
        )?;
        Ok(f)
    }
}

#[inline]
fn force<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>>(
    system: &System<T, P, N>,
    solver: &mut S,
    beta: T,
    half_beta2: T,
    x: &SVector<T, N>,
    h2: T,
    out: &mut SVector<T, N>,
) -> Result<(), StepError> {
    let g = system.potential.gradient(x);
    for i in 0..N {
        out[i] = -g[i];
    }
    solver.solve_in_place(&system.mass, &system.potential, x, beta * h2, out)?;
    let c = system.potential.third_contraction(x, out);
    let m = system.mass.solve(&c);
    let k = half_beta2 * h2 * h2;
    for i in 0..N {
        out[i] -= m[i] * k;
    }
    Ok(())
}

crate::integrator::impl_stepper!(
    impl[T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>]
    ZhangSkeel<T, P, N, S> => h
);

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>> Integrator<T, N>
    for ZhangSkeel<T, P, N, S>
{
    crate::watched::claims_and_watch!(order: 2, symplectic: true, symmetric: true);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        let Self {
            system,
            beta,
            half_beta2,
            solver,
            cache,
            watch,
            ..
        } = self;
        two_stage_step(state, h, cache, watch, &*system, |x, h2, out| {
            force(system, solver, *beta, *half_beta2, x, h2, out)
        })
    }
}

/// A changed force refreshes the cached `f` at the last position: with a strategy that keeps its
/// factors ([`DenseKept`](crate::linalg::DenseKept)) by `a ← a + A⁻¹ δu` and the
/// third-derivative term at the new `a` (no new assembly or factorisation); otherwise the next
/// step evaluates `f` afresh.
impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    crate::forcing::Actuate<T, N> for ZhangSkeel<T, crate::forcing::Actuated<T, P, N>, N, S>
{
    fn force(&self) -> &SVector<T, N> {
        self.system.potential.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        let Self {
            system,
            half_beta2,
            solver,
            cache,
            watch,
            ..
        } = self;
        let Some((q, h2, f)) = cache.slot() else {
            let mut du = SVector::zeros();
            crate::forcing::set_held_into(&mut system.potential, watch, u, &mut du)?;
            return Ok(());
        };
        // `f` receives δu, then `a + A⁻¹ δu`, then `a − ½β²h⁴ M⁻¹ V‴(q)[a, a]`.
        if !crate::forcing::set_held_into(&mut system.potential, watch, u, f)? {
            return Ok(());
        }
        let fresh = match solver.resolve_changed(f) {
            Ok(true) => {
                let c = system.potential.third_contraction(q, f);
                let m = system.mass.solve(&c);
                let k = *half_beta2 * h2 * h2;
                for i in 0..N {
                    f[i] -= m[i] * k;
                }
                crate::linalg::all_finite(f.as_slice())
            }
            _ => false,
        };
        if !fresh {
            cache.clear();
        }
        Ok(())
    }
}
