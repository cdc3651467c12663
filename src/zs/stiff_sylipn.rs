//! Simplified Z&Ss for stiff systems, 000 Integrator 2.6, eq 2.8.

use super::{two_stage_step, Fsal, ZsParams};
use crate::guard::Watch;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{Hessian, Potential, Split, System};
use crate::validate::check_step;
use crate::{ConfigError, Integrator, Real, State, StepError};
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
/// ```
/// use macrostep::model::{Mass, Quadratic, Split, System};
/// use macrostep::{nalgebra::matrix, zs::{StiffSylipn, ZsParams}, Integrator, State};
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
#[derive(Clone, Copy, Debug)]
pub struct StiffSylipn<T: Real, V, U, const N: usize, S = Dense> {
    pub(super) system: System<T, Split<T, V, U>, N>,
    h: T,
    pub(super) beta: T,
    solver: S,
    cache: Fsal<T, N>,
    pub(super) watch: Watch<T, N>,
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
        let h = check_step(h)?;
        let beta = params.validate()?;
        crate::validate::check_finite(system.potential.alpha, "alpha")?;
        solver.check(&system.mass, &system.potential.stiff)?;
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
    pub fn system(&self) -> &System<T, Split<T, V, U>, N> {
        &self.system
    }

    /// Mutable access to the system (e.g. to change `alpha`); clears the cached acceleration.
    pub fn system_mut(&mut self) -> &mut System<T, Split<T, V, U>, N> {
        self.cache.clear();
        self.watch.restart();
        &mut self.system
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>]
    StiffSylipn<T, V, U, N, S> => h
);

impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    Integrator<T, N> for StiffSylipn<T, V, U, N, S>
{
    crate::watched::claims_and_watch!(order: 2, symplectic: false, symmetric: true);

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        let Self {
            system,
            beta,
            solver,
            cache,
            watch,
            ..
        } = self;
        two_stage_step(
            state,
            h,
            cache,
            watch,
            &*system,
            |x: &SVector<T, N>, h2, out| {
                let split = &system.potential;
                let g = split.gradient(x);
                let c = *beta * h2 * split.alpha;
                for i in 0..N {
                    out[i] = -g[i];
                }
                solver.solve_in_place(&system.mass, &split.stiff, x, c, out)
            },
        )
    }
}

/// The held force lives in the soft part: `Split<Actuated<V>, U>`.
impl<T: Real, V: Potential<T, N>, U: Hessian<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    crate::forcing::Actuate<T, N> for StiffSylipn<T, crate::forcing::Actuated<T, V, N>, U, N, S>
{
    fn force(&self) -> &SVector<T, N> {
        self.system.potential.soft.force()
    }
    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        let Self {
            system,
            solver,
            cache,
            watch,
            ..
        } = self;
        let Some((_, _, f)) = cache.slot() else {
            let mut du = SVector::zeros();
            crate::forcing::set_held_into(&mut system.potential.soft, watch, u, &mut du)?;
            return Ok(());
        };
        // `f` receives δu, then `f + A⁻¹ δu` when the strategy kept its factors.
        if !crate::forcing::set_held_into(&mut system.potential.soft, watch, u, f)? {
            return Ok(());
        }
        if !matches!(solver.resolve_changed(f), Ok(true)) {
            cache.clear();
        }
        Ok(())
    }
}
