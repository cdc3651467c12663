//! [`BodyState`]: a rigid body's time, attitude and body angular velocity, the view of the
//! relaxed state `(q, v) = (vec R, vec Ṙ)` the SO(3) methods step.

use super::{hat, matrix_of, orthogonality_error, vec_of, vee};
use crate::{ConfigError, Real, State};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};

/// The state of a rigid body: time, attitude `R` (body to world) and body angular velocity `Ω`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState<T: Real> {
    /// Time.
    pub t: T,
    /// Attitude `R ∈ SO(3)`.
    pub rotation: Matrix3<T>,
    /// Body angular velocity `Ω` (`Ṙ = RΩ̂`).
    pub omega: Vector3<T>,
}

impl<T: Real> BodyState<T> {
    /// A state at time `0`; `rotation` must be orthogonal to within [`Self::tolerance`].
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] for `"rotation"` / `"omega"`; [`ConfigError::OutOfRange`] for
    /// `"rotation"` when `‖RᵀR − I‖_F` exceeds the tolerance or `det R < 0`;
    /// [`ConfigError::Overflow`] for `"omega"` when the relaxed velocity `RΩ̂` overflows.
    pub fn new(rotation: Matrix3<T>, omega: Vector3<T>) -> Result<Self, ConfigError> {
        if !crate::linalg::all_finite(rotation.as_slice()) {
            return Err(ConfigError::NonFinite { name: "rotation" });
        }
        if !crate::linalg::all_finite(omega.as_slice()) {
            return Err(ConfigError::NonFinite { name: "omega" });
        }
        if orthogonality_error(&rotation) > Self::tolerance() || rotation.determinant() < T::zero()
        {
            return Err(ConfigError::OutOfRange {
                name: "rotation",
                bound: "orthogonal with determinant +1",
            });
        }
        let s = Self {
            t: T::zero(),
            rotation,
            omega,
        };
        // The relaxed velocity `RΩ̂` must be representable (`Ω` near MAX overflows it).
        if !s.to_relaxed().is_finite() {
            return Err(ConfigError::Overflow { name: "omega" });
        }
        Ok(s)
    }

    /// The paper's initial condition: `R(0) = I`, `Ω(0) = (1, 0.2, 0.1)` (000 §4.5).
    pub fn paper() -> Self {
        Self {
            t: T::zero(),
            rotation: Matrix3::identity(),
            omega: Vector3::new(T::one(), T::lit(0.2), T::lit(0.1)),
        }
    }

    /// The largest `‖RᵀR − I‖_F` a step of the SO(3) methods accepts in its start state:
    /// `0.5`. The methods keep `R` on SO(3) (Cayley) or near it (the penalty of the linearised
    /// Z&S, whose default residual guard refuses results above `0.1`); a start above this is not
    /// a rotation (`1.5 I`, `diag(3.5e280, 1, 1)`) and is refused with
    /// [`StepError::Precondition`](crate::StepError::Precondition)
    /// `{ kind: NotOrthogonal, .. }` whatever the guards.
    pub fn step_tolerance() -> T {
        T::lit(0.5)
    }

    /// The largest accepted `‖RᵀR − I‖_F`: `√ε` of the scalar (`3.5e-4` in `f32`, `1.5e-8` in
    /// `f64`), room for a rotation computed in the same precision, far below a wrong input.
    pub fn tolerance() -> T {
        T::default_epsilon().sqrt()
    }

    /// The relaxed state in `ℝ⁹ × ℝ⁹`: `q = vec R`, `v = vec(RΩ̂)` (column-major).
    pub fn to_relaxed(&self) -> State<T, 9> {
        State::new(
            self.t,
            vec_of(&self.rotation),
            vec_of(&(self.rotation * hat(&self.omega))),
        )
    }

    /// A body state from a relaxed one: `R` as is (not projected) and `Ω = vee(RᵀṘ)` (the
    /// skew part; exact when `R` is orthogonal).
    pub fn from_relaxed(s: &State<T, 9>) -> Self {
        let r = matrix_of(&s.q);
        Self {
            t: s.t,
            rotation: r,
            omega: vee(&(r.transpose() * matrix_of(&s.v))),
        }
    }

    /// The nearest rotation to `R`: the orthogonal polar factor by Newton's iteration
    /// `X ← ½(X + X⁻ᵀ)` (quadratic convergence, at most 20 iterations; for an orthogonal `R` it
    /// is `R`). A singular `R` falls back to nalgebra's `Rotation3::from_matrix_eps` from the
    /// identity.
    pub fn rotation(&self) -> Rotation3<T> {
        let half = T::lit(0.5);
        let mut x = self.rotation;
        for _ in 0..20 {
            let Some(inv) = x.try_inverse() else {
                return Rotation3::from_matrix_eps(
                    &self.rotation,
                    T::default_epsilon(),
                    100,
                    Rotation3::identity(),
                );
            };
            let next = (x + inv.transpose()) * half;
            let change = (next - x).amax();
            x = next;
            if change <= T::default_epsilon() * T::lit(4.0) {
                break;
            }
        }
        Rotation3::from_matrix_unchecked(x)
    }

    /// The attitude as a unit quaternion (of [`Self::rotation`]).
    pub fn quaternion(&self) -> UnitQuaternion<T> {
        UnitQuaternion::from_rotation_matrix(&self.rotation())
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.t.finite()
            && crate::linalg::all_finite(self.rotation.as_slice())
            && crate::linalg::all_finite(self.omega.as_slice())
    }
}
