//! N-dimensional harmonic oscillator.

use crate::model::{Mass, Quadratic, System};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// The N-dimensional harmonic oscillator `q̈ᵢ = −ωᵢ² qᵢ` with unit masses.
///
/// The test problem of Theorem 2.5 (000, linear stability) and of every order test.
#[derive(Clone, Copy, Debug)]
pub struct HarmonicOscillator<T: Real, const N: usize> {
    omega: SVector<T, N>,
}

impl<T: Real, const N: usize> HarmonicOscillator<T, N> {
    /// Frequencies `ωᵢ`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ωᵢ ≤ 0`);
    /// [`ConfigError::Overflow`] for `"omega^2"`.
    pub fn new(omega: SVector<T, N>) -> Result<Self, ConfigError> {
        for &w in omega.iter() {
            crate::validate::check_positive(w, "omega")?;
            // `ω > 0` whose square underflows to 0 is a free particle, not an oscillator.
            if crate::validate::check_derived(w * w, "omega^2")? == T::zero() {
                return Err(ConfigError::Overflow { name: "omega^2" });
            }
        }
        Ok(Self { omega })
    }

    /// The same frequency `ω` in every direction.
    ///
    /// # Errors
    /// As [`HarmonicOscillator::new`].
    pub fn isotropic(omega: T) -> Result<Self, ConfigError> {
        Self::new(SVector::repeat(omega))
    }

    /// The frequencies.
    pub fn omega(&self) -> &SVector<T, N> {
        &self.omega
    }

    /// The system: identity mass, `V = ½ Σ ωᵢ² qᵢ²`.
    pub fn system(&self) -> System<T, Quadratic<T, N>, N> {
        let k = SMatrix::from_diagonal(&self.omega.component_mul(&self.omega));
        System::new(Mass::identity(), Quadratic::new(k))
    }

    /// The initial state `q = (1, …, 1)`, `v = 0`.
    pub fn initial_state(&self) -> State<T, N> {
        State::at_rest(SVector::repeat(T::one()))
    }
}
