//! The scalar abstraction: every integrator is generic over `f32` and `f64`.

use nalgebra::RealField;

/// A real scalar the integrators compute in: `f32` or `f64`.
///
/// This is `nalgebra::RealField + Copy` under one name, so bounds stay short. Transcendental
/// functions come from `libm` through nalgebra's `libm` feature, which keeps the crate `no_std`.
pub trait Real: RealField + Copy {
    /// Converts an `f64` literal to `Self` (rounding to nearest for `f32`).
    ///
    /// Use it at construction time, not per step.
    #[inline]
    fn lit(x: f64) -> Self {
        nalgebra::convert(x)
    }

    /// Converts to `f64` (exact for `f32` and `f64`).
    #[inline]
    fn to_f64(self) -> f64 {
        nalgebra::try_convert(self).unwrap_or(f64::NAN)
    }

    /// Whether the value is neither NaN nor infinite.
    #[inline]
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl<T: RealField + Copy> Real for T {}

/// A [`Real`] whose zero and one are constants: `f32` and `f64`. The in-place constructors
/// ([`MechanismBuilder::new_in`](crate::mechanism::MechanismBuilder::new_in) and friends) make
/// their blank values from them, so that a blank is data copied into its slot rather than code
/// that assembles it on the stack first.
pub trait ConstReal: Real {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
}

impl ConstReal for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}

impl ConstReal for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}
