//! Variational Euler with d'Alembert forcing as a legacy map (004 eqs 2.114, 2.115).

use super::euler_map::{EulerKick, EulerMap};
use super::Stiffness;
use crate::model::Mass;
use crate::sealed::Sealed;
use crate::{validate::check_finite, ConfigError, Real};
use nalgebra::SVector;

/// A mechanical force field split into a soft part at real time `t` and a stiff part at the fast
/// clock `c` (eq 2.115): `M q̈ = f(t, q) + α g(c, q)`. Conservative forces are `−∇V`.
pub trait SplitForce<T: Real, const N: usize> {
    /// The soft force `f(t, q)`.
    fn soft_force(&self, t: T, q: &SVector<T, N>) -> SVector<T, N>;
    /// The stiff force `g(c, q)` (without the factor `α`).
    fn stiff_force(&self, clock: T, q: &SVector<T, N>) -> SVector<T, N>;
}

/// Variational (symplectic) Euler with d'Alembert forcing (004 eq 2.114), drift then kick:
///
/// ```text
/// q' = q + h v,   v' = v + h M⁻¹ [f(t, q') + α g(c, q')]       (α = 0 when off)
/// ```
///
/// with the forcing evaluated at the step's start time (real `t` for the soft part, fast clock
/// `c` for the stiff part). As the legacy map of the nonintrusive FLAVOR it gives the Kapitza
/// FLAVOR eq 2.115 exactly. Its adjoint (kick then drift, forcing at the end time
/// `t + h`, `c + h`) is available, so the [`Symmetric`](super::Symmetric) FLAVOR can use it.
///
/// Properties: first order; symplectic for each frozen time when the forces are conservative.
///
/// # Errors
/// Construction: [`ConfigError::NonFinite`] `{ name: "alpha" }`. A step never fails (it checks
/// nothing: the FLAVOR over it does).
///
/// ```
/// use macrostep::flavor::{ForcedEuler, Legacy, SplitForce};
/// use macrostep::{model::Mass, Integrator, State};
/// use nalgebra::{vector, SVector};
/// struct Shaken; // q̈ = −q + α sin(c)
/// impl SplitForce<f64, 1> for Shaken {
///     fn soft_force(&self, _: f64, q: &SVector<f64, 1>) -> SVector<f64, 1> { -q }
///     fn stiff_force(&self, c: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> { vector![c.sin()] }
/// }
/// let map = ForcedEuler::new(Shaken, Mass::identity(), 10.0)?;
/// // Alone (stiffness on, forcing at the step's start time t = 1): drift, then kick.
/// let mut legacy = Legacy::new(map, 0.1)?;
/// let mut s = State::new(1.0, vector![0.0], vector![1.0]);
/// legacy.step(&mut s)?;
/// assert!((s.v[0] - (1.0 + 0.1 * (-0.1 + 10.0 * 1.0_f64.sin()))).abs() < 1e-12);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub type ForcedEuler<T, F, const N: usize> = EulerMap<ForcedKick<T, F, N>, N>;

/// The kick of [`ForcedEuler`]: the split force, the mass and the "on" stiffness; always
/// drift–kick (the adjoint kick–drift).
#[derive(Clone, Copy, Debug)]
pub struct ForcedKick<T: Real, F, const N: usize> {
    force: F,
    mass: Mass<T, N>,
    on: T,
}

impl<T: Real, F: SplitForce<T, N>, const N: usize> ForcedEuler<T, F, N> {
    /// The map for `force` with mass `mass` and "on" stiffness `alpha`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn new(force: F, mass: Mass<T, N>, alpha: T) -> Result<Self, ConfigError> {
        let on = check_finite(alpha, "alpha")?;
        let kick = ForcedKick { force, mass, on };
        Ok(Self { kick })
    }

    /// The split force field (its soft and stiff parts).
    pub fn split_force(&self) -> &F {
        &self.kick.force
    }
}

impl<T: Real, F, const N: usize> Sealed for ForcedKick<T, F, N> {}

impl<T: Real, F: SplitForce<T, N>, const N: usize> EulerKick<T, N> for ForcedKick<T, F, N> {
    fn drift_first(_: Stiffness<T>) -> bool {
        true
    }

    /// `M⁻¹ [f(t, q) + α g(c, q)]` (`α = 0` when off).
    fn acceleration(&self, t: T, q: &SVector<T, N>, stiffness: Stiffness<T>) -> SVector<T, N> {
        let mut f = self.force.soft_force(t, q);
        if let Stiffness::On { clock } = stiffness {
            f += self.force.stiff_force(clock, q) * self.on;
        }
        self.mass.solve(&f)
    }
}

/// Kapitza's pendulum (004 eq 2.113) as a split force: soft `g sin θ` at real time, stiff
/// `ω² sin(2πω c) sin θ` at the fast clock `c`, with "on" stiffness `α = 1`. With
/// [`ForcedEuler`] as legacy map, the nonintrusive FLAVOR is exactly eq 2.115.
impl<T: Real> SplitForce<T, 1> for crate::systems::Kapitza<T> {
    fn soft_force(&self, _t: T, q: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::<T, 1>::new(self.g() * q[0].sin())
    }
    fn stiff_force(&self, clock: T, q: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::<T, 1>::new(self.stiff_forcing(clock) * q[0].sin())
    }
}
