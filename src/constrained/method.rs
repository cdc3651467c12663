//! The shared body of the constrained one-step methods: [`Constrained`] holds the system, the
//! constraint, the step, the validated Newton kernel and the guard memory; what one step computes
//! is its strategy parameter `S` ([`ConstrainedScheme`]). [`super::Rattle`], [`super::Shake`],
//! [`super::Reich4`] and [`super::Bdf2`] are aliases of `Constrained` with one scheme each (the
//! `VecInner`/alias pattern of heapless and nalgebra). The step driver's [`Guarded`] is
//! implemented once, here, for all four; each alias implements [`Method`](crate::driver::Method)
//! itself.

use super::kernel::Kernel;
use super::{ConstraintNewtonParams, Multipliers};
use crate::driver::Guarded;
use crate::guard::{Probe, Watch};
use crate::model::{Constraint, Potential, System};
use crate::{validate::check_step, ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

pub(super) use crate::sealed::Sealed;

#[doc(hidden)]
/// The strategy of [`Constrained`]: what one method keeps between steps and starts with. Each
/// alias implements [`Method`](crate::driver::Method) itself, so that its proposal compiles
/// exactly as a hand-written struct's would (the firmware instruction counts are golden).
///
/// Implemented by [`super::RattleScheme`], [`super::ShakeScheme`], [`super::ReichScheme`] and
/// [`super::Bdf2Scheme`]; sealed.
pub trait ConstrainedScheme<T: Real, const N: usize>: Sealed + Sized {
    /// Whether the method's states satisfy the hidden constraint `g'(q)v = 0` (RATTLE, Reich's
    /// composition), so that a velocity changed between steps must be projected onto it.
    const HIDDEN: bool = false;

    /// The guard memory a new integrator starts with.
    fn watch() -> Watch<T, N> {
        Watch::default()
    }

    /// Keeps what the proposal that was just committed computed (its multipliers, the history
    /// of a two-step method); `committed` is the state the driver returned.
    #[inline]
    fn accept(&mut self, committed: &State<T, N>) {
        let _ = committed;
    }
}

/// What the guards measure on an exact-constraint method: the energy of `energy` (its
/// potential penalises nothing) and the residual of `constraint`
/// ([`Constraint::residual`]).
#[derive(Clone, Copy, Debug)]
pub struct ConstraintProbe<'a, S, G, const D: usize> {
    /// The probe giving the energy (the system).
    pub energy: &'a S,
    /// The constraint whose residual is bounded.
    pub constraint: &'a G,
}

impl<T, S, G, const N: usize, const D: usize> Probe<T, N> for ConstraintProbe<'_, S, G, D>
where
    T: Real,
    S: Probe<T, N>,
    G: Constraint<T, N, D>,
{
    #[inline]
    fn energy(&self, s: &State<T, N>) -> Option<(T, T)> {
        self.energy.energy(s)
    }
    #[inline]
    fn residual(&self, q: &SVector<T, N>) -> Option<T> {
        Some(self.constraint.residual(q))
    }
}

/// A constrained one-step method with scheme `S`: the common body of [`super::Rattle`],
/// [`super::Shake`], [`super::Reich4`] and [`super::Bdf2`] (see those for the methods, their
/// equations, properties and errors).
#[derive(Clone, Copy, Debug)]
pub struct Constrained<T: Real, P, G, S, const N: usize, const D: usize> {
    pub(super) system: System<T, P, N>,
    pub(super) constraint: G,
    pub(super) h: T,
    pub(super) kernel: Kernel<T>,
    pub(super) watch: Watch<T, N>,
    pub(super) scheme: S,
}

/// The step size, the guard memory and the probe, one impl for all four aliases (their
/// proposals are [`Method`](crate::driver::Method) impls of their own).
impl<T, P, G, S, const N: usize, const D: usize> Guarded<T, N> for Constrained<T, P, G, S, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
    S: ConstrainedScheme<T, N>,
{
    type Probe<'a>
        = ConstraintProbe<'a, System<T, P, N>, G, D>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>) {
        (
            &mut self.watch,
            ConstraintProbe {
                energy: &self.system,
                constraint: &self.constraint,
            },
        )
    }

    #[inline]
    fn accept(&mut self, committed: &State<T, N>) {
        self.scheme.accept(committed);
    }

    /// For RATTLE and Reich's composition, `P = I − M⁻¹g'ᵀ(g'M⁻¹g'ᵀ)⁻¹g'` at `q`, the
    /// `M`-orthogonal projector onto `g'(q)v = 0`; `None` for SHAKE and BDF2 (their velocities
    /// are not on the hidden constraint).
    fn velocity_projector(&self, q: &SVector<T, N>) -> Result<Option<SMatrix<T, N, N>>, StepError> {
        if !S::HIDDEN {
            return Ok(None);
        }
        let j = self.constraint.jacobian(q);
        let b = Kernel::minv_jt(&self.system.mass, &j);
        let jb = j * b;
        let mut p = SMatrix::<T, N, N>::identity();
        for k in 0..N {
            let x = self.kernel.solve(jb, j.column(k).into_owned())?;
            let col = p.column(k) - b * x;
            p.set_column(k, &col);
        }
        Ok(Some(p))
    }
}

impl<T, P, G, S, const N: usize, const D: usize> Constrained<T, P, G, S, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
    S: ConstrainedScheme<T, N> + Default,
{
    /// The method (RATTLE, SHAKE, BDF2) with step `h` for `system` under `constraint`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for a bad `h`; the errors of [`ConstraintNewtonParams::validate`].
    pub fn new(
        system: System<T, P, N>,
        constraint: G,
        h: T,
        params: ConstraintNewtonParams<T>,
    ) -> Result<Self, ConfigError> {
        Self::build(system, constraint, h, params, S::default())
    }
}

impl<T, P, G, S, const N: usize, const D: usize> Constrained<T, P, G, S, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
    S: ConstrainedScheme<T, N>,
{
    /// The method with step `h` for `system` under `constraint`, starting from `scheme`.
    pub(super) fn build(
        system: System<T, P, N>,
        constraint: G,
        h: T,
        params: ConstraintNewtonParams<T>,
        scheme: S,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            system,
            constraint,
            h: check_step(h)?,
            kernel: Kernel::new(params)?,
            watch: S::watch(),
            scheme,
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    /// The constraint.
    pub fn constraint(&self) -> &G {
        &self.constraint
    }

    /// The solver parameters.
    pub fn params(&self) -> &ConstraintNewtonParams<T> {
        &self.kernel.params
    }

    /// Projects `state` onto the solution manifold (positions along `M⁻¹g'ᵀ`, then velocities
    /// `M`-orthogonally onto the hidden constraint `g'(q)v = 0`), the explicit alternative to
    /// [`OffManifold::Project`](super::OffManifold::Project).
    ///
    /// # Errors
    /// [`StepError::NonFiniteState`], [`StepError::Singular`], [`StepError::NotConverged`],
    /// [`StepError::NonFiniteResult`]; the state is unchanged on error.
    pub fn project(&self, state: &mut State<T, N>) -> Result<(), StepError> {
        let s = self
            .kernel
            .project(&self.constraint, &self.system.mass, state, true)?;
        *state = s;
        Ok(())
    }
}

#[doc(hidden)]
/// The schemes whose integrator takes a held force ([`crate::forcing::Actuate`]): RATTLE, SHAKE
/// and Reich's composition (BDF2 does not).
pub trait HeldForce: Sealed {}

#[doc(hidden)]
/// The schemes that keep the multipliers `(start, end)` of their last step (RATTLE, SHAKE).
pub trait KeepsMultipliers<T: Real, const D: usize>: Sealed {
    /// The multipliers of the last successful step.
    fn last(&self) -> &Multipliers<T, D>;
}

impl<T, P, G, S, const N: usize, const D: usize> Constrained<T, P, G, S, N, D>
where
    T: Real,
    G: Constraint<T, N, D>,
    S: KeepsMultipliers<T, D>,
{
    /// The multipliers of the last successful step: RATTLE `λ⁽ʳ⁾ₙ` (start) and `λ⁽ᵛ⁾ₙ₊₁` (end);
    /// SHAKE `λₙ` and the look-ahead `λₙ₊₁`.
    pub fn multipliers(&self) -> &Multipliers<T, D> {
        self.scheme.last()
    }

    /// The generalised force each constraint exerts at `q` (the state the last step returned),
    /// from the multiplier acting at the end of the last step (RATTLE `λ⁽ᵛ⁾ₙ₊₁`, first order in
    /// `h`; SHAKE `λₙ₊₁`, second order): column `i` is `λᵢ∇gᵢ(q)` (units and sign:
    /// [`crate::forcing::reaction`]).
    pub fn reactions(&self, q: &SVector<T, N>) -> nalgebra::SMatrix<T, N, D> {
        crate::forcing::reaction::forces(&self.constraint, q, &self.scheme.last().end)
    }
}

impl<T, P, G, S, const N: usize, const D: usize> crate::forcing::Actuate<T, N>
    for Constrained<T, crate::forcing::Actuated<T, P, N>, G, S, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
    S: ConstrainedScheme<T, N> + HeldForce,
{
    crate::forcing::actuate_impl!(self);
}
