//! The three-degree-of-freedom soft/stiff test problem of 004 §2.5.3, eq (2.100).

use super::{check_positive, QuarticBond};
use crate::model::{Mass, Quadratic, Split, System};
use crate::{ConfigError, Real, State};
use nalgebra::{Matrix3, SVector};

/// Three unit masses `q = (x, y, z)` with a soft quartic well on `x` and two stiff springs
/// (004 eq 2.100):
///
/// ```text
/// H = ½ (p_x² + p_y² + p_z²) + x⁴ + ε⁻¹ [ ω₁/2 (y − x)² + ω₂/2 (z − y)² ].
/// ```
///
/// As a [`Split`] ([`SpringTrimer::split`]): soft `V = x⁴` (a [`QuarticBond`] with `κ = 1` tied
/// to the origin), stiff `U = ω₁/2 (y − x)² + ω₂/2 (z − y)²` (a [`Quadratic`] with
/// `K = [[ω₁, −ω₁, 0], [−ω₁, ω₁ + ω₂, −ω₂], [0, −ω₂, ω₂]]`), switch `α = 1/ε` (FLAVOR sets
/// `α = 0` to turn the stiff springs off). `(x + y + z)/3` is slow, `y − x` and `z − y` are fast.
///
/// [`SpringTrimer::paper`] (004 Fig. 2.4): `ε = 10⁻⁶`, `ω₁ = 1.1`, `ω₂ = 0.97`, start
/// `(x, y, z) = (0.8, 0.811, 0.721)`, zero momenta.
///
/// ```
/// use macrostep::model::Potential;
/// use macrostep::systems::SpringTrimer;
///
/// let m = SpringTrimer::<f64>::paper();
/// let s = m.initial_state();
/// let mut split = m.split();
/// assert_eq!(split.alpha, 1e6);
/// split.set_alpha(0.0); // stiffness off: only x⁴ remains
/// assert_eq!(split.energy(&s.q), 0.8f64.powi(4));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpringTrimer<T: Real> {
    eps: T,
    omega: [T; 2],
    start: [T; 3],
}

impl<T: Real> SpringTrimer<T> {
    /// Scale separation `ε` and spring constants `ω₁, ω₂`; start `(0.8, 0.811, 0.721)` at rest.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"eps"` (`ε ≤ 0`) and
    /// `"omega"` (`ωᵢ ≤ 0`).
    pub fn new(eps: T, omega: [T; 2]) -> Result<Self, ConfigError> {
        check_positive(eps, "eps")?;
        for &w in &omega {
            check_positive(w, "omega")?;
        }
        Ok(Self::build(eps, omega))
    }

    /// 004 Fig. 2.4: `ε = 10⁻⁶`, `ω₁ = 1.1`, `ω₂ = 0.97`.
    pub fn paper() -> Self {
        Self::build(T::lit(1e-6), [T::lit(1.1), T::lit(0.97)])
    }

    fn build(eps: T, omega: [T; 2]) -> Self {
        Self {
            eps,
            omega,
            start: [T::lit(0.8), T::lit(0.811), T::lit(0.721)],
        }
    }

    /// `ε`.
    pub fn eps(&self) -> T {
        self.eps
    }
    /// `[ω₁, ω₂]`.
    pub fn omega(&self) -> [T; 2] {
        self.omega
    }

    /// Soft `x⁴`, stiff `ω₁/2 (y − x)² + ω₂/2 (z − y)²`, `α = 1/ε`.
    pub fn split(&self) -> Split<T, QuarticBond<T, 3>, Quadratic<T, 3>> {
        let [w1, w2] = self.omega;
        let z = T::zero();
        let k = Matrix3::new(w1, -w1, z, -w1, w1 + w2, -w2, z, -w2, w2);
        Split::new(
            QuarticBond::from_valid(0, None, T::one()),
            Quadratic::new(k),
            T::one() / self.eps,
        )
    }

    /// The system `M = I`, `V = x⁴ + ε⁻¹ U`.
    pub fn system(&self) -> System<T, Split<T, QuarticBond<T, 3>, Quadratic<T, 3>>, 3> {
        System::new(Mass::identity(), self.split())
    }

    /// `(x, y, z) = (0.8, 0.811, 0.721)`, zero momenta (004 Fig. 2.4).
    pub fn initial_state(&self) -> State<T, 3> {
        let [x, y, z] = self.start;
        State::at_rest(SVector::from([x, y, z]))
    }
}
