//! The rigid planar pendulum in Cartesian coordinates with one holonomic constraint (002 §5).

use super::{
    check_nonnegative, check_positive, GravityPenalty, LinearPotential, Link, PlanarDistances,
};
use crate::model::{Mass, Penalty, System};
use crate::{ConfigError, Real, State};
use nalgebra::SVector;

/// A point mass `m` on a massless rod of length `L` pivoting at the origin, under gravity `g`
/// pointing to `−y` (Reich, 002 §5, eqs 35–36).
///
/// - coordinates `q = (x, y)`, mass matrix `M = m I`;
/// - potential `V(q) = m g y` (002 eq 35);
/// - constraint `g(q) = x² + y² − L²` (the squared form of 002's `√(x² + y²) − L`; same
///   manifold, multiplier scaled by `1/(2L)`), as a [`PlanarDistances`] with one anchored link;
/// - start `q = (L, 0)` at rest, i.e. a horizontal rod, amplitude `φ₀ = π/2` (002 §5).
///
/// [`Pendulum::paper`] has `m = g = L = 1`; the period is then `T ≈ 7.416298709`
/// ([`Pendulum::period`]).
///
/// ```
/// use macrostep::model::Constraint;
/// use macrostep::systems::Pendulum;
///
/// let p = Pendulum::<f64>::paper();
/// let s = p.initial_state();
/// assert_eq!(p.constraint().value(&s.q)[0], 0.0);
/// assert!((p.period(core::f64::consts::FRAC_PI_2) - 7.416298709).abs() < 1e-9);
/// // The penalised system (000 eq 1.7) for Z&S:
/// let sys = p.penalised(100.0).unwrap();
/// assert_eq!(sys.potential.omega2()[0], 1e4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pendulum<T: Real> {
    m: T,
    g: T,
    length: T,
    mass: Mass<T, 2>,
    gravity: LinearPotential<T, 2>,
    constraint: PlanarDistances<T, 2, 1>,
}

impl<T: Real> Pendulum<T> {
    /// A pendulum of mass `m`, gravity `g` and length `length`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"m"` (`m ≤ 0`), `"g"`
    /// (`g < 0`) or `"length"` (`L ≤ 0`).
    pub fn new(m: T, g: T, length: T) -> Result<Self, ConfigError> {
        check_positive(m, "m")?;
        check_nonnegative(g, "g")?;
        check_positive(length, "length")?;
        Ok(Self::build(m, g, length, Mass::uniform(m)?))
    }

    /// Reich's test case (002 §5): `m = g = L = 1`, start `q = (1, 0)` at rest.
    pub fn paper() -> Self {
        let one = T::one();
        Self::build(one, one, one, Mass::identity())
    }

    /// From validated parameters.
    fn build(m: T, g: T, length: T, mass: Mass<T, 2>) -> Self {
        Self {
            m,
            g,
            length,
            mass,
            gravity: LinearPotential::from_valid(SVector::from([T::zero(), m * g])),
            constraint: PlanarDistances::from_chain_links([Link::anchored(
                0,
                SVector::zeros(),
                length,
            )]),
        }
    }

    /// The mass `m`.
    pub fn m(&self) -> T {
        self.m
    }
    /// The gravitational acceleration `g`.
    pub fn g(&self) -> T {
        self.g
    }
    /// The rod length `L`.
    pub fn length(&self) -> T {
        self.length
    }

    /// The unconstrained system: `M = m I`, `V = m g y` (for SHAKE/RATTLE with
    /// [`Pendulum::constraint`]).
    pub fn system(&self) -> System<T, LinearPotential<T, 2>, 2> {
        System::new(self.mass, self.gravity)
    }

    /// The constraint `x² + y² − L² = 0`.
    pub fn constraint(&self) -> PlanarDistances<T, 2, 1> {
        self.constraint
    }

    /// The penalised system `V + ½ ω² g²` (000 eq 1.7) for unconstrained integrators.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ω ≤ 0`).
    pub fn penalised(
        &self,
        omega: T,
    ) -> Result<System<T, GravityPenalty<T, 2, 1>, 2>, ConfigError> {
        Ok(System::new(
            self.mass,
            Penalty::new(self.gravity, self.constraint, omega)?,
        ))
    }

    /// The start `q = (L, 0)`, `v = 0` (002 §5).
    pub fn initial_state(&self) -> State<T, 2> {
        State::at_rest(SVector::from([self.length, T::zero()]))
    }

    /// The exact period of the pendulum released from rest at angle `φ₀` from the downward
    /// vertical: `T = 4 √(L/g) K(sin(φ₀/2))` (002 §5), with the complete elliptic integral `K`
    /// computed by the arithmetic–geometric mean, `K(k) = π / (2 AGM(1, √(1 − k²)))`.
    ///
    /// Valid for `0 ≤ φ₀ < π`; returns `+∞` at `φ₀ = π` (and for `g = 0`), NaN outside.
    pub fn period(&self, phi0: T) -> T {
        let k = (phi0 * T::lit(0.5)).sin();
        let mut a = T::one();
        let mut b = (T::one() - k * k).sqrt();
        // AGM converges quadratically: 40 rounds are far more than f64 needs for k < 1.
        for _ in 0..40 {
            let next_a = (a + b) * T::lit(0.5);
            b = (a * b).sqrt();
            a = next_a;
        }
        let quarter = T::pi() / (a + b); // π / (2 AGM) with AGM ≈ (a + b)/2
        (self.length / self.g).sqrt() * quarter * T::lit(4.0)
    }
}
