//! The planar double pendulum with 4 Cartesian degrees of freedom and 2 constraints (000 §4.1).

use super::{check_nonnegative, check_positive, GravityPenalty, LinearPotential, PlanarDistances};
use super::{distance::chain_links, Link};
use crate::model::{Mass, Penalty, System};
use crate::{ConfigError, Real, State};
use nalgebra::SVector;

/// Two point masses on massless rods: mass 1 hangs from the origin on a rod `L₁`, mass 2 from
/// mass 1 on a rod `L₂` (Tao & Owhadi, 000 §4.1).
///
/// - `q = (x₁, y₁, x₂, y₂)`, `M = diag(m₁, m₁, m₂, m₂)`;
/// - `V(q) = g m₁ y₁ + g m₂ y₂`, gravity pulling towards `−y`. 000 §4.1 prints `V = −g y₁ − g y₂`,
///   which pulls towards `+y` and puts its own start (hanging below the pivot) above the stable
///   equilibrium, in a chaotic regime; we read the printed sign as a typo and use the physical
///   one, under which the seed's start is a regular (non-chaotic) swing on `[0, 50]`;
/// - `g₁ = x₁² + y₁² − L₁²`, `g₂ = (x₂ − x₁)² + (y₂ − y₁)² − L₂²` ([`PlanarDistances`]).
///
/// Constraint form ([`DoublePendulum::system`] + [`DoublePendulum::constraint`]) for
/// SHAKE/RATTLE; penalised form `V + ½ Σ ωᵢ² gᵢ²` ([`DoublePendulum::penalised`], or distinct
/// `ωᵢ` with [`DoublePendulum::penalised_per_constraint`]) for Z&S. Fig. 1 of 000 uses `ω = 20`.
///
/// [`DoublePendulum::paper`]: `m₁ = m₂ = g = 1`, `L₁ = 1`, `L₂ = √2`, start
/// `(x₁, y₁, x₂, y₂) = (0, −1, 1, −2)` at rest (000 Fig. 1).
///
/// ```
/// use macrostep::model::{Constraint, Hessian};
/// use macrostep::systems::DoublePendulum;
///
/// let dp = DoublePendulum::<f64>::paper();
/// let s = dp.initial_state();
/// assert!(dp.constraint().value(&s.q).amax() < 1e-15);
/// let sys = dp.penalised(20.0).unwrap();
/// let h = sys.potential.hessian(&s.q);
/// assert!((h - h.transpose()).amax() < 1e-12 * h.amax());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DoublePendulum<T: Real> {
    masses: [T; 2],
    g: T,
    lengths: [T; 2],
    mass: Mass<T, 4>,
    gravity: LinearPotential<T, 4>,
    constraint: PlanarDistances<T, 4, 2>,
}

impl<T: Real> DoublePendulum<T> {
    /// Masses `m₁, m₂`, gravity `g`, rod lengths `L₁, L₂`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"m"` (`mᵢ ≤ 0`), `"g"`
    /// (`g < 0`), `"length"` (`Lᵢ ≤ 0`); [`ConfigError::Overflow`] for `"g * m"`, `"length^2"`,
    /// `"L1 + L2"` when not representable.
    pub fn new(masses: [T; 2], g: T, lengths: [T; 2]) -> Result<Self, ConfigError> {
        for &m in &masses {
            check_positive(m, "m")?;
        }
        check_nonnegative(g, "g")?;
        for &l in &lengths {
            check_positive(l, "length")?;
        }
        let mass = Mass::diagonal(SVector::from([masses[0], masses[0], masses[1], masses[1]]))?;
        // Derived quantities: the weights `g mᵢ`, the squared lengths, and the initial state's
        // depth `L₁ + L₂/√2`.
        for &m in &masses {
            crate::validate::check_derived(g * m, "g * m")?;
        }
        for &l in &lengths {
            crate::validate::check_derived(l * l, "length^2")?;
        }
        crate::validate::check_derived(lengths[0] + lengths[1], "L1 + L2")?;
        Ok(Self::build(masses, g, lengths, mass))
    }

    /// The seed's set-up (000 §4.1, Fig. 1): `m₁ = m₂ = g = L₁ = 1`, `L₂ = √2`.
    pub fn paper() -> Self {
        let one = T::one();
        Self::build([one, one], one, [one, T::lit(2.0).sqrt()], Mass::identity())
    }

    fn build(masses: [T; 2], g: T, lengths: [T; 2], mass: Mass<T, 4>) -> Self {
        let b = SVector::from([T::zero(), g * masses[0], T::zero(), g * masses[1]]);
        let links: [Link<T, 2>; 2] =
            chain_links(SVector::zeros(), SVector::from([lengths[0], lengths[1]]));
        Self {
            masses,
            g,
            lengths,
            mass,
            gravity: LinearPotential::from_valid(b),
            constraint: PlanarDistances::from_chain_links(links),
        }
    }

    /// The masses `[m₁, m₂]`.
    pub fn masses(&self) -> [T; 2] {
        self.masses
    }
    /// The gravitational acceleration `g`.
    pub fn g(&self) -> T {
        self.g
    }
    /// The rod lengths `[L₁, L₂]`.
    pub fn lengths(&self) -> [T; 2] {
        self.lengths
    }

    /// The unconstrained system `M`, `V = g Σ mᵢ yᵢ` (pair it with
    /// [`DoublePendulum::constraint`]).
    pub fn system(&self) -> System<T, LinearPotential<T, 4>, 4> {
        System::new(self.mass, self.gravity)
    }

    /// The two rod constraints `g₁, g₂`.
    pub fn constraint(&self) -> PlanarDistances<T, 4, 2> {
        self.constraint
    }

    /// The penalised system `V + ½ ω² (g₁² + g₂²)` (000 eq 1.7).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ω ≤ 0`).
    pub fn penalised(
        &self,
        omega: T,
    ) -> Result<System<T, GravityPenalty<T, 4, 2>, 4>, ConfigError> {
        self.penalised_per_constraint(SVector::repeat(omega))
    }

    /// The penalised system with one frequency per rod, `V + ½ (ω₁² g₁² + ω₂² g₂²)` (distinct
    /// `ωᵢ` avoid the Takens resonance of 004 §5.3).
    ///
    /// # Errors
    /// As [`DoublePendulum::penalised`].
    pub fn penalised_per_constraint(
        &self,
        omega: SVector<T, 2>,
    ) -> Result<System<T, GravityPenalty<T, 4, 2>, 4>, ConfigError> {
        Ok(System::new(
            self.mass,
            Penalty::per_constraint(self.gravity, self.constraint, omega)?,
        ))
    }

    /// Cartesian positions from the generalised coordinates of 000 §4.1:
    /// `x₁ = L₁ sin θ`, `y₁ = −L₁ cos θ`, `x₂ = x₁ + L₂ sin φ`, `y₂ = y₁ − L₂ cos φ`.
    pub fn from_angles(&self, theta: T, phi: T) -> SVector<T, 4> {
        let [l1, l2] = self.lengths;
        let (st, ct) = theta.sin_cos();
        let (sp, cp) = phi.sin_cos();
        let (x1, y1) = (l1 * st, -l1 * ct);
        SVector::from([x1, y1, x1 + l2 * sp, y1 - l2 * cp])
    }

    /// The generalised coordinates `(θ, φ)` of a configuration (inverse of
    /// [`DoublePendulum::from_angles`] on the constraint manifold; off it, the angles of the two
    /// rod directions), each in `(−π, π]`.
    pub fn angles(&self, q: &SVector<T, 4>) -> (T, T) {
        let theta = q[0].atan2(-q[1]);
        let phi = (q[2] - q[0]).atan2(q[1] - q[3]);
        (theta, phi)
    }

    /// The start of 000 Fig. 1 scaled to the rod lengths: mass 1 at `(0, −L₁)`, mass 2 at
    /// `(L₂/√2, −L₁ − L₂/√2)`, at rest — `(0, −1, 1, −2)` for [`DoublePendulum::paper`].
    pub fn initial_state(&self) -> State<T, 4> {
        let [l1, l2] = self.lengths;
        let d = l2 / T::lit(2.0).sqrt();
        State::at_rest(SVector::from([T::zero(), -l1, d, -l1 - d]))
    }
}
