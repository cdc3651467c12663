//! Kapitza's inverted pendulum: a pendulum whose pivot is shaken vertically (004 §2.6.6,
//! eqs 2.113–2.115).
//!
//! The forcing is time dependent, so the model is a family of potentials indexed by a clock `t`:
//!
//! ```text
//! l θ̈ = [g + ω² sin(2πω t)] sin θ,                                                   (2.113)
//! ```
//!
//! with `θ` the clockwise angle from the *upward* vertical. In Lagrangian form the mass is `l`
//! (the thesis' momentum is `p = l θ̇`) and the potential at time `t` is
//!
//! ```text
//! V(θ, t) = [g + ω² sin(2πω t)] cos θ,   −∂V/∂θ = [g + ω² sin(2πω t)] sin θ.
//! ```
//!
//! # The forcing clock and FLAVOR
//! The single-scale integrator (2.114) evaluates the forcing at the step's own time `ih`. The
//! FLAVOR (2.115) instead splits `V = g cos θ + ω² sin(2πω t) cos θ` into soft and stiff parts
//! ([`Kapitza::split_at`]); over the mesostep `n` it runs one microstep `τ` with the stiff part on
//! and the remaining `δ − τ` with it off, and the stiff forcing is *resynchronised* to the
//! `τ` clock: it is evaluated at `t = nτ` ([`Kapitza::flavor_clock`]), not at the physical time
//! `nδ`. The model therefore takes the forcing time as an explicit argument everywhere and never
//! reads `State::t` itself.

use super::{check_nonnegative, check_positive};
use crate::model::{Hessian, Mass, Potential, Split, System, ThirdDerivative};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// `V(θ) = A cos θ` on one degree of freedom: the Kapitza potential frozen at one time.
///
/// `V′ = −A sin θ`, `V″ = −A cos θ`, `a·V‴·a = A sin θ a²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CosinePotential<T> {
    /// The amplitude `A`.
    pub amplitude: T,
}

impl<T: Real> Potential<T, 1> for CosinePotential<T> {
    /// `V(θ) = A cos θ`.
    fn energy(&self, q: &SVector<T, 1>) -> T {
        self.amplitude * q[0].cos()
    }
    fn gradient(&self, q: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::from([-self.amplitude * q[0].sin()])
    }
}

impl<T: Real> Hessian<T, 1> for CosinePotential<T> {
    fn hessian(&self, q: &SVector<T, 1>) -> SMatrix<T, 1, 1> {
        SMatrix::<T, 1, 1>::new(-self.amplitude * q[0].cos())
    }
}

impl<T: Real> ThirdDerivative<T, 1> for CosinePotential<T> {
    fn third_contraction(&self, q: &SVector<T, 1>, a: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::from([self.amplitude * q[0].sin() * a[0] * a[0]])
    }
}

/// Kapitza's pendulum (004 eq 2.113; see the module docs for the forcing clock).
///
/// [`Kapitza::paper`] (004 Fig. 2.17): `g = 9.8`, `l = 9`, `ω = 1000`, start `θ = 0.2`,
/// `θ̇ = 0`.
///
/// ```
/// use macrostep::systems::Kapitza;
///
/// let k = Kapitza::<f64>::paper();
/// let s = k.initial_state();
/// // At t = 0 the forcing is just gravity: l θ̈ = g sin θ.
/// let acc = k.system_at(0.0).acceleration(&s.q)[0];
/// assert!((acc - 9.8 * 0.2f64.sin() / 9.0).abs() < 1e-15);
/// // FLAVOR (2.115) evaluates the stiff forcing of mesostep n at t = n τ.
/// assert_eq!(k.flavor_clock(3, 0.25), 0.75);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Kapitza<T: Real> {
    g: T,
    l: T,
    omega: T,
    omega2: T,
    two_pi_omega: T,
    mass: Mass<T, 1>,
}

impl<T: Real> Kapitza<T> {
    /// Gravity `g`, length `l`, forcing frequency `ω`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"g"` (`g < 0`), `"l"`
    /// (`l ≤ 0`), `"omega"` (`ω < 0`).
    pub fn new(g: T, l: T, omega: T) -> Result<Self, ConfigError> {
        check_nonnegative(g, "g")?;
        check_positive(l, "l")?;
        check_nonnegative(omega, "omega")?;
        Ok(Self::build(g, omega, Mass::uniform(l)?, l))
    }

    /// 004 Fig. 2.17: `g = 9.8`, `l = 9`, `ω = 1000`.
    pub fn paper() -> Self {
        let l = T::lit(9.0);
        // `Mass::diagonal` only fails for a non-positive or non-finite entry; 9 is neither, so the
        // fallback is dead code kept to avoid a panic path.
        let mass = Mass::diagonal(SVector::from([l])).unwrap_or_else(|_| Mass::identity());
        Self::build(T::lit(9.8), T::lit(1000.0), mass, l)
    }

    fn build(g: T, omega: T, mass: Mass<T, 1>, l: T) -> Self {
        Self {
            g,
            l,
            omega,
            omega2: omega * omega,
            two_pi_omega: T::two_pi() * omega,
            mass,
        }
    }

    /// Gravity `g`.
    pub fn g(&self) -> T {
        self.g
    }
    /// The length `l` (also the mass in the `θ` coordinate).
    pub fn l(&self) -> T {
        self.l
    }
    /// The forcing frequency `ω`.
    pub fn omega(&self) -> T {
        self.omega
    }
    /// The mass matrix `M = (l)`, so that `p = l θ̇` as in 004 eq 2.114.
    pub fn mass(&self) -> Mass<T, 1> {
        self.mass
    }

    /// The effective gravity `g + ω² sin(2πω t)`.
    pub fn forcing(&self, t: T) -> T {
        self.g + self.stiff_forcing(t)
    }

    /// The stiff part of the forcing, `ω² sin(2πω t)`.
    pub fn stiff_forcing(&self, t: T) -> T {
        self.omega2 * (self.two_pi_omega * t).sin()
    }

    /// The generalised force `l θ̈ = [g + ω² sin(2πω t)] sin θ` (eq 2.113).
    pub fn generalised_force(&self, theta: T, t: T) -> T {
        self.forcing(t) * theta.sin()
    }

    /// The potential at time `t`, `V(θ) = [g + ω² sin(2πω t)] cos θ`.
    pub fn potential_at(&self, t: T) -> CosinePotential<T> {
        CosinePotential {
            amplitude: self.forcing(t),
        }
    }

    /// The system at time `t`: `M = (l)`, `V = potential_at(t)`.
    pub fn system_at(&self, t: T) -> System<T, CosinePotential<T>, 1> {
        System::new(self.mass, self.potential_at(t))
    }

    /// The split at forcing time `t`: soft `g cos θ`, stiff `ω² sin(2πω t) cos θ`, `α = 1`.
    /// With `α = 0` the force is `g sin θ`, the last line of 004 eq 2.115.
    pub fn split_at(&self, t: T) -> Split<T, CosinePotential<T>, CosinePotential<T>> {
        Split::new(
            CosinePotential { amplitude: self.g },
            CosinePotential {
                amplitude: self.stiff_forcing(t),
            },
            T::one(),
        )
    }

    /// The resynchronised forcing time of FLAVOR mesostep `n` with microstep `τ`: `nτ`
    /// (004 eq 2.115 uses `ω² sin(2πω nτ)`, not `ω² sin(2πω nδ)`).
    pub fn flavor_clock(&self, n: u32, tau: T) -> T {
        T::lit(f64::from(n)) * tau
    }

    /// The Hamiltonian at forcing time `t`, `½ l θ̇² + [g + ω² sin(2πω t)] cos θ` (not conserved:
    /// it oscillates with the forcing).
    pub fn energy_at(&self, s: &State<T, 1>, t: T) -> T {
        self.mass.kinetic(&s.v) + self.forcing(t) * s.q[0].cos()
    }

    /// `θ(0) = 0.2`, `θ̇(0) = 0` (004 Fig. 2.17).
    pub fn initial_state(&self) -> State<T, 1> {
        State::at_rest(SVector::from([T::lit(0.2)]))
    }
}
