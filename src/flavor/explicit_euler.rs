//! Forward Euler for stiff first-order ODEs as a legacy map (004 eqs 2.30, 2.104).

use super::{LegacyMap, Stiffness};
use crate::sealed;
use crate::{validate::check_finite, ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// A stiff first-order ODE `u̇ = G(t, u) + α F(c, u)` on `ℝᴰ` (004 eq 2.1 / 2.30): a soft field
/// `G` at real time `t` and a stiff field `F` at the fast clock `c` (eq 2.115), with the stiffness
/// `α = 1/ε` supplied by the legacy map.
pub trait StiffOde<T: Real, const D: usize> {
    /// The soft vector field `G(t, u)`.
    fn soft(&self, t: T, u: &SVector<T, D>) -> SVector<T, D>;
    /// The stiff vector field `F(c, u)` (without the factor `α`).
    fn stiff(&self, clock: T, u: &SVector<T, D>) -> SVector<T, D>;
}

/// Forward Euler with a stiffness switch, the legacy map of the Van der Pol experiment
/// (004 eq 2.104): `Φ_h^α(u) = u + h G(t, u) + α h F(c, u)` (`α = 0` when off).
///
/// First order, explicit, stable for the stiff part when `h·α·|λ(∂F)| ≲ 2`. No adjoint.
///
/// The ODE's state `u` is the position `q` of a [`State`] (`v` is not used and carried unchanged:
/// keep it zero, [`State::at_rest`]); see the [module docs](super) for why.
///
/// # Errors
/// Construction: [`ConfigError::NonFinite`] `{ name: "alpha" }`. A step never fails (it checks
/// nothing: the FLAVOR over it does).
///
/// ```
/// use macrostep::flavor::{ExplicitEuler, Legacy, Nonintrusive, Params, StiffOde};
/// use macrostep::{Integrator, State};
/// use nalgebra::{vector, SVector};
/// #[derive(Clone, Copy)]
/// struct Relax; // u̇ = 1 − αu
/// impl StiffOde<f64, 1> for Relax {
///     fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> { vector![1.0] }
///     fn stiff(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> { -u }
/// }
/// let euler = ExplicitEuler::new(Relax, 100.0)?;
/// // Forward Euler alone (eq 2.104) at h = 0.001: u ← u + h(1 − αu).
/// let mut legacy = Legacy::new(euler, 0.001)?;
/// let mut s = State::at_rest(vector![1.0]); // u = q = 1 at t = 0
/// legacy.step(&mut s)?;
/// assert!((s.q[0] - 0.901).abs() < 1e-12);
/// // The FLAVOR over it (eq 2.34) steps through the driver: checks, guards and the clock.
/// let mut flavor = Nonintrusive::new(euler, Params::new(0.01, 0.001)?)?;
/// flavor.integrate(&mut s, 100)?;
/// assert!((s.t - 1.001).abs() < 1e-12 && s.q[0].is_finite());
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub type ExplicitEuler<T, F, const D: usize> = OdeEuler<ExplicitScheme<T, F>, D>;

/// The increment of [`ExplicitEuler`]: the ODE and its "on" stiffness.
#[derive(Clone, Copy, Debug)]
pub struct ExplicitScheme<T, F> {
    ode: F,
    on: T,
}

impl<T: Real, F, const D: usize> ExplicitEuler<T, F, D> {
    /// Forward Euler for `ode` with "on" stiffness `alpha` (`1/ε`).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn new(ode: F, alpha: T) -> Result<Self, ConfigError> {
        let on = check_finite(alpha, "alpha")?;
        Ok(OdeEuler::from_scheme(ExplicitScheme { ode, on }))
    }

    /// The ODE.
    pub fn ode(&self) -> &F {
        &self.scheme.ode
    }
}

impl<T, F> sealed::Sealed for ExplicitScheme<T, F> {}

impl<T: Real, F: StiffOde<T, D>, const D: usize> OdeIncrement<T, D> for ExplicitScheme<T, F> {
    const FORWARD_ONLY: bool = false;

    #[inline]
    fn next(&mut self, x: &State<T, D>, h: T, stiffness: Stiffness<T>) -> SVector<T, D> {
        let mut du = self.ode.soft(x.t, &x.q);
        if let Stiffness::On { clock } = stiffness {
            du += self.ode.stiff(clock, &x.q) * self.on;
        }
        x.q + du * h
    }
}

#[doc(hidden)]
/// What one step of an [`OdeEuler`] map computes: the next point `u'` of a step `h` from `x`
/// (the ODE's state `u` is `x.q`, its time `x.t`) with the stiffness as switched. Implemented by [`ExplicitScheme`] and
/// [`MaruyamaScheme`](super::MaruyamaScheme) (sealed).
pub trait OdeIncrement<T: Real, const D: usize>: sealed::Sealed {
    /// Whether only forward steps (`h > 0`) are defined (a random increment has no meaning for
    /// a negative step).
    const FORWARD_ONLY: bool;

    /// The next point `u'` (the time advances by `h` outside).
    fn next(&mut self, x: &State<T, D>, h: T, stiffness: Stiffness<T>) -> SVector<T, D>;
}

/// A forward-Euler-type legacy map on the state `u = x.q` of a first-order ODE with increment
/// `S`: the common body of [`ExplicitEuler`] and [`EulerMaruyama`](super::EulerMaruyama) (see
/// those for the equations). A step sets `x.q ← S::next(…)` and `x.t ← x.t + h`; `x.v` is
/// carried unchanged.
#[derive(Clone, Copy, Debug)]
pub struct OdeEuler<S, const D: usize> {
    scheme: S,
}

impl<S, const D: usize> OdeEuler<S, D> {
    pub(super) fn from_scheme(scheme: S) -> Self {
        Self { scheme }
    }

    pub(super) fn scheme_mut(&mut self) -> &mut S {
        &mut self.scheme
    }
}

impl<T: Real, S: OdeIncrement<T, D>, const D: usize> LegacyMap<T, D> for OdeEuler<S, D> {
    const SYMPLECTIC: bool = false;
    const ORDER: u32 = 1;
    const SYMMETRIC: bool = false;

    /// # Errors
    /// [`StepError::StepSize`] for a backward step (`h < 0`) of a random increment (it has no
    /// meaning there).
    #[inline]
    fn step(&mut self, x: &mut State<T, D>, h: T, stiffness: Stiffness<T>) -> Result<T, StepError> {
        if S::FORWARD_ONLY && h < T::zero() {
            return Err(StepError::StepSize);
        }
        x.q = self.scheme.next(x, h, stiffness);
        x.t += h;
        Ok(T::zero())
    }
}
