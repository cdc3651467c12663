//! The closed-form flow of uncoupled harmonic oscillators.

use crate::{ConfigError, Real, State};
use nalgebra::SVector;

/// The exact flow of `q̈ᵢ = −ωᵢ² qᵢ` (unit mass, uncoupled):
/// `q(t+h) = q cos ωh + (v/ω) sin ωh`, `v(t+h) = −qω sin ωh + v cos ωh`.
///
/// The reference solution for order, stability and exactness tests.
///
/// ```
/// use macrostep::{baselines::HarmonicFlow, State};
/// use nalgebra::vector;
/// let flow = HarmonicFlow::new(vector![2.0_f64]).unwrap();
/// let s = flow.evolve(&State::at_rest(vector![1.0]), core::f64::consts::PI);
/// assert!((s.q[0] - 1.0).abs() < 1e-12); // a full period
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HarmonicFlow<T: Real, const N: usize> {
    omega: SVector<T, N>,
}

impl<T: Real, const N: usize> HarmonicFlow<T, N> {
    /// The flow with frequencies `ωᵢ`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] or [`ConfigError::OutOfRange`] (`ωᵢ ≤ 0`) for `"omega"`.
    pub fn new(omega: SVector<T, N>) -> Result<Self, ConfigError> {
        crate::validate::check_all_positive(omega.as_slice(), "omega")?;
        Ok(Self { omega })
    }

    /// The frequencies.
    pub fn omega(&self) -> &SVector<T, N> {
        &self.omega
    }

    /// The state after time `h` (any sign).
    pub fn evolve(&self, s: &State<T, N>, h: T) -> State<T, N> {
        let mut q = s.q;
        let mut v = s.v;
        for i in 0..N {
            let w = self.omega[i];
            let (sn, cs) = (w * h).sin_cos();
            q[i] = s.q[i] * cs + s.v[i] / w * sn;
            v[i] = -s.q[i] * w * sn + s.v[i] * cs;
        }
        State { t: s.t + h, q, v }
    }

    /// The energy `½ Σ (vᵢ² + ωᵢ² qᵢ²)` (unit mass), conserved by the flow.
    pub fn energy(&self, s: &State<T, N>) -> T {
        let mut e = T::zero();
        for i in 0..N {
            e += s.v[i] * s.v[i] + self.omega[i] * self.omega[i] * s.q[i] * s.q[i];
        }
        e * T::lit(0.5)
    }
}
