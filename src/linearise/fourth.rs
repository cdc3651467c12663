//! The fourth derivative a Z&S linearisation needs: the derivative of the correction term
//! `a·V‴(x)·a` with respect to `x`.

use crate::autodiff::{AdScalar, AutoDiff, Dual, Energy, Jet2, VDual};
use crate::forcing::Actuated;
use crate::model::{Quadratic, Split, ThirdDerivative, Zero};
use crate::Real;
use nalgebra::SVector;

/// A potential with the directional derivative of its third-derivative contraction:
/// `(∂ᵦ(a·V‴·a))ᵢ = Σⱼₖₗ ∂⁴V/∂qᵢ∂qⱼ∂qₖ∂qₗ aⱼ aₖ bₗ`, the term the linearisation of Z&S's
/// correction (000 eq 1.3) needs.
///
/// [`AutoDiff`] implements it for every [`Energy`] (one evaluation in `Jet2<Dual<VDual>>`), so
/// does every core potential whose parts do.
///
/// ```
/// use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
/// use macrostep::linearise::FourthDerivative;
/// use macrostep::nalgebra::vector;
/// use macrostep::Real;
/// /// `V = x⁴ y`: `∂⁴V/∂x⁴ = 24 y`, `∂⁴V/∂x³∂y = 24 x`.
/// struct Quartic;
/// impl<T: Real> Energy<T, 2> for Quartic {
///     fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
///         q[0] * q[0] * q[0] * q[0] * q[1]
///     }
/// }
/// let d = AutoDiff(Quartic).fourth_contraction(&vector![2.0, 3.0], &vector![1.0, 0.0], &vector![1.0, 0.0]);
/// assert_eq!(d, vector![24.0 * 3.0, 24.0 * 2.0]);
/// ```
pub trait FourthDerivative<T: Real, const N: usize>: ThirdDerivative<T, N> {
    /// `∂ᵦ(a·V‴(q)·a)`: the derivative of the contraction along `b`.
    fn fourth_contraction(
        &self,
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        b: &SVector<T, N>,
    ) -> SVector<T, N>;
}

/// One evaluation at `xᵢ = qᵢ + εᵢ + aᵢ t + bᵢ δ` in `Jet2<Dual<VDual>>`: the `t²δε` part is
/// `½ ∂ᵦ ∇(aᵀ Hess V a)`.
impl<T: Real, const N: usize, E: Energy<T, N>> FourthDerivative<T, N> for AutoDiff<E> {
    fn fourth_contraction(
        &self,
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        b: &SVector<T, N>,
    ) -> SVector<T, N> {
        let zero = VDual::cst(T::zero());
        let x: [Jet2<Dual<VDual<T, N>>>; N] = core::array::from_fn(|i| {
            Jet2::new(
                Dual::new(VDual::variable(q[i], i), VDual::cst(b[i])),
                Dual::new(VDual::cst(a[i]), zero),
                Dual::new(zero, zero),
            )
        });
        let c2 = self.0.energy(&x).c2.eps.grad;
        c2 + c2
    }
}

impl<T: Real, const N: usize> FourthDerivative<T, N> for Zero {
    fn fourth_contraction(
        &self,
        _: &SVector<T, N>,
        _: &SVector<T, N>,
        _: &SVector<T, N>,
    ) -> SVector<T, N> {
        SVector::zeros()
    }
}

impl<T: Real, const N: usize> FourthDerivative<T, N> for Quadratic<T, N> {
    fn fourth_contraction(
        &self,
        _: &SVector<T, N>,
        _: &SVector<T, N>,
        _: &SVector<T, N>,
    ) -> SVector<T, N> {
        SVector::zeros()
    }
}

impl<T: Real, const N: usize, V: FourthDerivative<T, N>, U: FourthDerivative<T, N>>
    FourthDerivative<T, N> for Split<T, V, U>
{
    fn fourth_contraction(
        &self,
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        b: &SVector<T, N>,
    ) -> SVector<T, N> {
        let s = self.soft.fourth_contraction(q, a, b);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.fourth_contraction(q, a, b) * self.alpha
        }
    }
}

/// The held force is linear in `q`: it adds nothing.
impl<T: Real, const N: usize, P: FourthDerivative<T, N>> FourthDerivative<T, N>
    for Actuated<T, P, N>
{
    fn fourth_contraction(
        &self,
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        b: &SVector<T, N>,
    ) -> SVector<T, N> {
        self.potential.fourth_contraction(q, a, b)
    }
}

impl<T: Real, const N: usize, P: FourthDerivative<T, N> + ?Sized> FourthDerivative<T, N> for &P {
    fn fourth_contraction(
        &self,
        q: &SVector<T, N>,
        a: &SVector<T, N>,
        b: &SVector<T, N>,
    ) -> SVector<T, N> {
        (**self).fourth_contraction(q, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ThirdDerivative;
    use nalgebra::vector;

    /// `V = sin(x) e^{y} + x² y³`.
    struct Mixed;
    impl<T: Real> Energy<T, 2> for Mixed {
        fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
            q[0].sin() * q[1].exp() + q[0] * q[0] * q[1] * q[1] * q[1]
        }
    }

    #[test]
    fn fourth_contraction_is_the_derivative_of_the_third() {
        // Central differences of the exact a·V‴·a along b, against the AD fourth derivative.
        let v = AutoDiff(Mixed);
        let (q, a, b) = (vector![0.3, -0.4], vector![0.7, 1.1], vector![-0.5, 0.9]);
        let d = v.fourth_contraction(&q, &a, &b);
        let e = 1e-5;
        let fd = (v.third_contraction(&(q + b * e), &a) - v.third_contraction(&(q - b * e), &a))
            / (2.0 * e);
        assert!((d - fd).amax() < 1e-8 * (1.0 + d.amax()), "{d} vs {fd}");
        // Closed form along a = e_x, b = e_y, the component i: ∂⁴V/∂x²∂y∂qᵢ. For sin x e^y:
        // (−cos x e^y, −sin x e^y); for x² y³: (0, 12 y).
        let d = v.fourth_contraction(&q, &vector![1.0, 0.0], &vector![0.0, 1.0]);
        let (x, y) = (0.3f64, -0.4f64);
        let want = vector![-x.cos() * y.exp(), -x.sin() * y.exp() + 12.0 * y];
        assert!((d - want).amax() < 1e-14, "{d} vs {want}");
    }
}
