//! The state a one-step method advances: time, positions, velocities.

use crate::Real;
use nalgebra::SVector;

/// The state of a mechanical system with `N` degrees of freedom: `(t, q, v)`.
///
/// Velocities, not momenta, are stored: the Zhang–Skeel family is written in velocities, and the
/// momentum `p = M v` is one call away ([`crate::model::Mass::mul`]). The caller owns the state;
/// an integrator's `step` updates it in place, or leaves it bit-identical when it fails.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    pub fn is_finite(&self) -> bool {
        self.t.finite() && self.q.iter().all(|x| x.finite()) && self.v.iter().all(|x| x.finite())
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
