//! Any integrator over a [`Split`] potential as a legacy map (004 eqs 2.43, 2.49, 2.50).

use super::{LegacyMap, Stiffness};
use crate::baselines::{SymplecticEuler, VelocityVerlet};
use crate::driver::Method;
use crate::model::{Potential, Split};
use crate::{validate::check_finite, ConfigError, PreconditionKind, Real, State, StepError};

/// A dedicated adjoint proposal `adjoint(inner, state, h, next)`, with the contract of
/// [`Method::propose`].
pub type AdjointStep<I, T, const N: usize> =
    fn(&mut I, &State<T, N>, T, &mut State<T, N>) -> Result<T, StepError>;

/// How the adjoint step of a [`Switched`] map is taken.
#[derive(Clone, Copy)]
enum Adjoint<I, T: Real, const N: usize> {
    /// The map has no adjoint available.
    None,
    /// The map is symmetric: `Φ* = Φ`.
    Itself,
    /// A dedicated adjoint step.
    Step(AdjointStep<I, T, N>),
}

/// A legacy map made of any one-step [`Method`] whose stiffness can be set: `Φ_h^α` is one
/// proposal of the method for the step `h` after setting `α` (the "on" value, or zero).
///
/// The method's own checks, guards and clock are not used: the FLAVOR built on the map steps
/// through the driver and owns the guards.
///
/// Built with [`Switched::symplectic_euler`] (004 eq 2.49, adjoint eq 2.50: the other ordering),
/// [`Switched::verlet`] (velocity Verlet, self-adjoint), or [`Switched::new`] for any integrator
/// with a function that sets its stiffness (typically
/// `|i, a| i.system_mut().potential.alpha = a` for an integrator over a [`Split`]). The "on"
/// stiffness is the split's `alpha` when the map is built (`1/ε`, or `1` if the stiff potential
/// already carries `1/ε`).
///
/// Adjoint: a symmetric integrator (`I::SYMMETRIC`) is its own adjoint; symplectic Euler's is the
/// other ordering; any other method has none unless given with [`Switched::with_adjoint`].
/// Time-dependent forcing is not part of a [`Method`]; see [`ForcedEuler`](super::ForcedEuler).
///
/// ```
/// use macrostep::{baselines::{EulerOrdering, SymplecticEuler}, flavor::{Legacy, Nonintrusive, Params, Switched},
///                 model::{Mass, Quadratic, Split, System, Zero}, Integrator, State};
/// use nalgebra::vector;
/// // A free particle on a stiff spring: V = 0, αU = ½·1e4·q².
/// let split = Split::new(Zero, Quadratic::new(nalgebra::matrix![1.0_f64]), 1e4);
/// let se = SymplecticEuler::new(System::new(Mass::identity(), split), 1e-3, EulerOrdering::KickDrift)?;
/// let map = Switched::symplectic_euler(se)?;
/// // Alone, the stiffness on: one kick–drift step of 1e-3 kicks by −1e4·1·1e-3.
/// let mut s = State::new(0.0, vector![1.0], vector![0.0]);
/// Legacy::new(map, 1e-3)?.step(&mut s)?;
/// assert!((s.v[0] + 10.0).abs() < 1e-12);
/// // In a FLAVOR step of δ = 0.5 the spring acts for τ = 1e-3 only: the same kick, then free
/// // flight for δ − τ.
/// let mut f = Nonintrusive::new(map, Params::new(0.5, 1e-3)?)?;
/// let mut s = State::new(0.0, vector![1.0], vector![0.0]);
/// f.step(&mut s)?;
/// assert!((s.v[0] + 10.0).abs() < 1e-12 && (s.q[0] - (0.99 - 10.0 * 0.499)).abs() < 1e-12);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct Switched<T: Real, I, const N: usize> {
    inner: I,
    on: T,
    set_alpha: fn(&mut I, T),
    adjoint: Adjoint<I, T, N>,
}

impl<T: Real, I, const N: usize> core::fmt::Debug for Switched<T, I, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Switched")
            .field("on", &self.on)
            .field(
                "adjoint",
                &match self.adjoint {
                    Adjoint::None => "none",
                    Adjoint::Itself => "self",
                    Adjoint::Step(_) => "step",
                },
            )
            .finish_non_exhaustive()
    }
}

impl<T: Real, I: Method<T, N>, const N: usize> Switched<T, I, N> {
    /// Wraps `inner`; `set_alpha(inner, α)` sets its stiffness, `on` is the "on" value.
    /// The adjoint is the map itself when the method is symmetric (`I::SYMMETRIC`), otherwise
    /// none.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }` when `on` is not finite.
    pub fn new(inner: I, on: T, set_alpha: fn(&mut I, T)) -> Result<Self, ConfigError> {
        check_finite(on, "alpha")?;
        Ok(Self {
            inner,
            on,
            set_alpha,
            adjoint: if <I as Method<T, N>>::SYMMETRIC {
                Adjoint::Itself
            } else {
                Adjoint::None
            },
        })
    }

    /// As [`Switched::new`], with an explicit adjoint proposal `adjoint(inner, state, h, next)`
    /// (the contract of [`Method::propose`]: `next` holds a copy of `state` on entry, the
    /// proposal writes `next.q`, `next.v` and returns the energy exchanged).
    ///
    /// # Errors
    /// As [`Switched::new`].
    pub fn with_adjoint(
        inner: I,
        on: T,
        set_alpha: fn(&mut I, T),
        adjoint: AdjointStep<I, T, N>,
    ) -> Result<Self, ConfigError> {
        let mut s = Self::new(inner, on, set_alpha)?;
        s.adjoint = Adjoint::Step(adjoint);
        Ok(s)
    }

    /// The wrapped integrator.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// The "on" stiffness `α`.
    pub fn stiffness_on(&self) -> T {
        self.on
    }
}

impl<T: Real, V, U, const N: usize> Switched<T, SymplecticEuler<T, Split<T, V, U>, N>, N>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    /// Symplectic Euler (004 eq 2.49 kick–drift, or eq 2.50 drift–kick) as a legacy map; the
    /// adjoint is the other ordering. The "on" stiffness is the split's current `alpha`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn symplectic_euler(
        se: SymplecticEuler<T, Split<T, V, U>, N>,
    ) -> Result<Self, ConfigError> {
        let on = se.system().potential.alpha;
        Self::with_adjoint(
            se,
            on,
            |i, a| i.system_mut().potential.alpha = a,
            |i, s, h, next| i.adjoint().propose(s, h, next),
        )
    }
}

impl<T: Real, V, U, const N: usize>
    Switched<T, SymplecticEuler<T, crate::forcing::Actuated<T, Split<T, V, U>, N>, N>, N>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    /// As [`Switched::symplectic_euler`], for a split under a held actuator force
    /// ([`Actuated`](crate::forcing::Actuated)): the force is applied in both the stiff and the
    /// soft sub-steps of a FLAVOR step, so it is held over the whole macro-step
    /// ([`Actuate`](crate::forcing::Actuate) is forwarded through the FLAVORs).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn symplectic_euler_actuated(
        se: SymplecticEuler<T, crate::forcing::Actuated<T, Split<T, V, U>, N>, N>,
    ) -> Result<Self, ConfigError> {
        let on = se.system().potential.potential.alpha;
        Self::with_adjoint(
            se,
            on,
            |i, a| i.system_mut().potential.potential.alpha = a,
            |i, s, h, next| i.adjoint().propose(s, h, next),
        )
    }
}

/// The wrapped integrator's held force (both switch positions see it).
impl<T: Real, I: crate::forcing::Actuate<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for Switched<T, I, N>
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.inner.force()
    }
    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        self.inner.set_force(u)
    }
}

impl<T: Real, V, U, const N: usize> Switched<T, VelocityVerlet<T, Split<T, V, U>, N>, N>
where
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    /// Velocity Verlet as a legacy map (self-adjoint). The "on" stiffness is the split's current
    /// `alpha`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn verlet(vv: VelocityVerlet<T, Split<T, V, U>, N>) -> Result<Self, ConfigError> {
        let on = vv.system().potential.alpha;
        Self::new(vv, on, |i, a| i.system_mut().potential.alpha = a)
    }
}

impl<T: Real, I: Method<T, N>, const N: usize> Switched<T, I, N> {
    #[inline]
    fn switch(&mut self, stiffness: Stiffness<T>) {
        let a = match stiffness {
            Stiffness::On { .. } => self.on,
            Stiffness::Off => T::zero(),
        };
        (self.set_alpha)(&mut self.inner, a);
    }

    /// Moves `x` by the proposal `propose(inner, from, h, x)` from a copy of `x`, advances its
    /// time by `h` and lets the method keep what it needs from the sub-step.
    #[inline]
    fn sub_step(
        &mut self,
        x: &mut State<T, N>,
        h: T,
        propose: impl FnOnce(&mut I, &State<T, N>, T, &mut State<T, N>) -> Result<T, StepError>,
    ) -> Result<T, StepError> {
        let from = *x;
        let exchanged = propose(&mut self.inner, &from, h, x)?;
        x.t = from.t + h;
        self.inner.accept(x);
        Ok(exchanged)
    }
}

impl<T: Real, I: Method<T, N>, const N: usize> LegacyMap<T, N> for Switched<T, I, N> {
    const SYMPLECTIC: bool = <I as Method<T, N>>::SYMPLECTIC;
    const ORDER: u32 = <I as Method<T, N>>::ORDER;
    const SYMMETRIC: bool = <I as Method<T, N>>::SYMMETRIC;

    #[inline]
    fn step(&mut self, x: &mut State<T, N>, h: T, stiffness: Stiffness<T>) -> Result<T, StepError> {
        self.switch(stiffness);
        self.sub_step(x, h, I::propose)
    }

    fn has_adjoint(&self) -> bool {
        !matches!(self.adjoint, Adjoint::None)
    }

    #[inline]
    fn step_adjoint(
        &mut self,
        x: &mut State<T, N>,
        h: T,
        stiffness: Stiffness<T>,
    ) -> Result<T, StepError> {
        self.switch(stiffness);
        match self.adjoint {
            Adjoint::None => Err(StepError::precondition(PreconditionKind::NoAdjoint)),
            Adjoint::Itself => self.sub_step(x, h, I::propose),
            Adjoint::Step(f) => self.sub_step(x, h, f),
        }
    }
}
