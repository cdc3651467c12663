//! The state a one-step method advances: time, positions, velocities.

use crate::Real;
use nalgebra::SVector;

/// The state of a mechanical system with `N` degrees of freedom: `(t, q, v)`.
///
/// Velocities, not momenta, are stored: the Zhang–Skeel family is written in velocities, and the
/// momentum `p = M v` is one call away ([`crate::model::Mass::mul`]). The caller owns the state;
/// an integrator's `step` updates it in place, or leaves it bit-identical when it fails.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct State<T: Real, const N: usize> {
    /// Time.
    pub t: T,
    /// Generalised positions.
    pub q: SVector<T, N>,
    /// Velocities `q̇`.
    pub v: SVector<T, N>,
}

impl<T: Real, const N: usize> State<T, N> {
    /// A state at time `t` with positions `q` and velocities `v`.
    pub fn new(t: T, q: SVector<T, N>, v: SVector<T, N>) -> Self {
        Self { t, q, v }
    }

    /// A state at rest at time zero.
    pub fn at_rest(q: SVector<T, N>) -> Self {
        Self {
            t: T::zero(),
            q,
            v: SVector::zeros(),
        }
    }

    /// Whether every component (time, positions, velocities) is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        // One branch-free pass: `x − x` is 0 for finite `x` and NaN otherwise.
        use crate::linalg::zero_if_finite as z;
        let mut acc = z(self.t);
        for i in 0..N {
            acc += z(self.q[i]) + z(self.v[i]);
        }
        acc == T::zero()
    }

    /// Converts every component to another scalar type (e.g. `f64` → `f32`).
    pub fn cast<U: Real>(&self) -> State<U, N> {
        State {
            t: U::lit(self.t.to_f64()),
            q: self.q.map(|x| U::lit(x.to_f64())),
            v: self.v.map(|x| U::lit(x.to_f64())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::vector;

    #[test]
    fn is_finite_sees_every_component() {
        let s = State::new(1.0f32, vector![0.5, -2.0], vector![3.0, 0.0]);
        assert!(s.is_finite());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut t = s;
            t.t = bad;
            assert!(!t.is_finite());
            for i in 0..2 {
                let mut t = s;
                t.q[i] = bad;
                assert!(!t.is_finite());
                let mut t = s;
                t.v[i] = bad;
                assert!(!t.is_finite());
            }
        }
        // The largest finite values are finite (x − x = 0 exactly, no overflow).
        let big = State::new(f64::MAX, vector![f64::MAX], vector![f64::MIN]);
        assert!(big.is_finite());
    }
}
