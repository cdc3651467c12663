//! The held-force potential wrapper `V(q) − uᵀq`.

use crate::model::BandMut;
use crate::model::{Hessian, Potential, ThirdDerivative};
use crate::{ConfigError, ConstReal, Real, StepError};
use nalgebra::{ArrayStorage, SMatrix, SVector};

/// A potential `V` with a generalised force `u` held over the step: `V(q) − uᵀq`, gradient
/// `∇V − u`, Hessian and third derivative those of `V` (see [`crate::forcing`] for why this is
/// the discrete Lagrange–d'Alembert forcing of a zero-order-hold force).
///
/// `u` follows the sign convention `M q̈ = −∇V + u` (a positive component pushes the coordinate
/// up). With `u = 0` every derivative is bit-identical to `V`'s (`x − 0 = x`), so a run is
/// bit-identical to the unwrapped one. Inside an integrator, set `u` with
/// [`Actuate::set_force`](super::Actuate::set_force), which keeps the guards' run going.
///
/// ```
/// use macrostep::forcing::{Actuate, Actuated};
/// use macrostep::model::{Mass, System, Zero};
/// use macrostep::zs::{ZhangSkeel, ZsParams};
/// use macrostep::{Integrator, State};
/// use nalgebra::vector;
///
/// // A free unit mass pushed by u = 2 for 1 s: x = ½·2·1² = 1, v = 2.
/// let sys = System::new(Mass::<f64, 1>::identity(), Actuated::new(Zero));
/// let mut zs = ZhangSkeel::new(sys, 0.01, ZsParams::default()).unwrap();
/// zs.set_force(&vector![2.0]).unwrap();
/// let mut s = State::at_rest(vector![0.0]);
/// zs.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - 1.0).abs() < 1e-12 && (s.v[0] - 2.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Actuated<T: Real, P, const N: usize> {
    /// The potential `V`.
    pub potential: P,
    pub(super) u: SVector<T, N>,
}

impl<T: ConstReal, P, const N: usize> Actuated<T, P, N> {
    /// [`Actuated::new`] as a constant expression: `V` with no force, for a blank that a
    /// system built in place starts from.
    ///
    /// ```
    /// use macrostep::forcing::Actuated;
    /// use macrostep::model::Zero;
    /// const A: Actuated<f64, Zero, 2> = Actuated::new_const(Zero);
    /// assert_eq!(A.force(), Actuated::<f64, Zero, 2>::new(Zero).force());
    /// ```
    #[inline(always)]
    pub const fn new_const(potential: P) -> Self {
        Self {
            potential,
            u: SVector::from_array_storage(ArrayStorage([[T::ZERO; N]; 1])),
        }
    }
}

impl<T: Real, P, const N: usize> Actuated<T, P, N> {
    /// `V` with no force (`u = 0`).
    pub fn new(potential: P) -> Self {
        Self {
            potential,
            u: SVector::zeros(),
        }
    }

    /// `V` with the force `u`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "u" }` for a non-finite `u`.
    pub fn with_force(potential: P, u: SVector<T, N>) -> Result<Self, ConfigError> {
        if !crate::linalg::all_finite(u.as_slice()) {
            return Err(ConfigError::NonFinite { name: "u" });
        }
        Ok(Self { potential, u })
    }

    /// The held force `u`.
    #[inline]
    pub fn force(&self) -> &SVector<T, N> {
        &self.u
    }

    /// Sets the held force (outside an integrator; inside one use
    /// [`Actuate::set_force`](super::Actuate::set_force)).
    ///
    /// # Errors
    /// [`StepError::NonFiniteForce`] for a non-finite `u` (then unchanged).
    pub fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        if !crate::linalg::all_finite(u.as_slice()) {
            return Err(StepError::NonFiniteForce);
        }
        self.u = *u;
        Ok(())
    }

    /// The work `uᵀ(q₁ − q₀)` the held force does over a step from `q₀` to `q₁` (exact for a
    /// held force; what the energy balance adds up).
    #[inline]
    pub fn work(&self, q0: &SVector<T, N>, q1: &SVector<T, N>) -> T {
        self.u.dot(&(q1 - q0))
    }
}

impl<T: Real, P: Potential<T, N>, const N: usize> Potential<T, N> for Actuated<T, P, N> {
    #[inline]
    fn energy(&self, q: &SVector<T, N>) -> T {
        self.potential.energy(q) - self.u.dot(q)
    }
    #[inline]
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        self.potential.gradient(q) - self.u
    }
    #[inline]
    fn constraint_residual(&self, q: &SVector<T, N>) -> Option<T> {
        self.potential.constraint_residual(q)
    }
}

impl<T: Real, P: Hessian<T, N>, const N: usize> Hessian<T, N> for Actuated<T, P, N> {
    #[inline]
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        self.potential.hessian(q)
    }
    #[inline]
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        self.potential.hessian_vector(q, a)
    }
    #[inline]
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        self.potential.add_hessian(q, scale, out)
    }
    #[inline]
    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        self.potential.hessian_band(q, scale, band)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> ThirdDerivative<T, N>
    for Actuated<T, P, N>
{
    /// `u·q` is linear: `V‴` is the potential's.
    const VANISHES: bool = P::VANISHES;

    #[inline]
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        self.potential.third_contraction(q, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::DoublePendulum;
    use nalgebra::vector;

    #[test]
    fn zero_force_is_bit_identical_and_gradient_shifts() {
        let dp = DoublePendulum::<f64>::paper();
        let p = dp.penalised(20.0).unwrap().potential;
        let a = Actuated::new(p);
        let q = vector![0.3, -0.9, 1.1, -1.7];
        assert_eq!(a.gradient(&q), p.gradient(&q));
        assert_eq!(a.energy(&q), p.energy(&q));
        let u = vector![1.0, -2.0, 0.5, 0.25];
        let b = Actuated::with_force(p, u).unwrap();
        assert_eq!(b.gradient(&q), p.gradient(&q) - u);
        assert_eq!(b.hessian(&q), p.hessian(&q));
        assert!((b.energy(&q) - (p.energy(&q) - u.dot(&q))).abs() < 1e-15);
        assert_eq!(
            Actuated::with_force(p, vector![f64::NAN, 0.0, 0.0, 0.0]).err(),
            Some(ConfigError::NonFinite { name: "u" })
        );
    }
}
