//! Potentials: energy, gradient, Hessian and the third-derivative contraction.

use super::BandMut;
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// A potential energy `V: ℝᴺ → ℝ` with its gradient.
///
/// Explicit methods (Verlet, symplectic Euler, SIM kicks, FLAVOR legacy maps) need only this.
/// Implement it by hand, or write the energy once generically and wrap it in
/// [`crate::autodiff::AutoDiff`] to get every derivative exactly.
pub trait Potential<T: Real, const N: usize> {
    /// `V(q)`.
    fn energy(&self, q: &SVector<T, N>) -> T;
    /// `∇V(q)`.
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N>;

    /// The residual of the constraints this potential penalises
    /// ([`Constraint::residual`](super::Constraint::residual)), `None` when it penalises none
    /// (the default). The step guards bound it ([`crate::guard::Guards::residual`]).
    #[inline]
    fn constraint_residual(&self, q: &SVector<T, N>) -> Option<T> {
        let _ = q;
        None
    }
}

/// The larger of two optional residuals.
#[inline]
pub(crate) fn max_residual<T: Real>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if x > y { x } else { y }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// What the step guards measure at a position, handed over by a force evaluation there
/// ([`Hessian::gradient_add_hessian`]): the potential energy `V(q)` and the constraint residual,
/// bit for bit those of [`Potential::energy`] and [`Potential::constraint_residual`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured<T> {
    /// `V(q)`.
    pub energy: T,
    /// The residual of the penalised constraints at `q` (`None` when there are none).
    pub residual: Option<T>,
}

/// A potential with its Hessian (linearly implicit methods need it).
pub trait Hessian<T: Real, const N: usize>: Potential<T, N> {
    /// `Hess V(q)`, symmetric.
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N>;

    /// `Hess V(q) · a`. The default forms the Hessian; override when a cheaper product exists.
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        self.hessian(q) * a
    }

    /// Adds `scale · Hess V(q)` into `out` (the dense linear solve of a Z&S step forms
    /// `M + βh² Hess V` this way). The default forms the Hessian; models with few non-zero terms
    /// (penalties of distance constraints, gravity) override it to add them in place.
    #[inline]
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        *out += self.hessian(q) * scale;
    }

    /// `∇V(q)` into `grad` and `scale · Hess V(q)` added into `out`: what one linearly implicit
    /// step needs at a position, the right-hand side and the matrix of its solve. Returns what
    /// the same pass gives of what the step guards measure at `q` — `(V(q), residual)`, equal
    /// bit for bit to [`Potential::energy`] and [`Potential::constraint_residual`] — or `None`.
    ///
    /// The default calls [`Potential::gradient`] and [`Hessian::add_hessian`] and returns
    /// `None`; a model whose gradient, Hessian and energy share most of their work (a penalty:
    /// the differences and values of its constraints) overrides it with one pass giving the
    /// same results, bit for bit.
    #[inline]
    fn gradient_add_hessian(
        &self,
        q: &SVector<T, N>,
        scale: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
    ) -> Option<Measured<T>> {
        *grad = self.gradient(q);
        self.add_hessian(q, scale, out);
        None
    }

    /// Adds `scale · Hess V(q)` into the band matrix `band` and returns `true`, when the model
    /// knows its Hessian is banded and it fits in `band.width()` diagonals. The default returns
    /// `false` (no band structure known), and [`crate::linalg::Banded`] then refuses the model at
    /// construction. Local models (chains, polymers) override it so a Z&S step costs
    /// `O(N W²)` (000 §4.3, 004 §5.4.1). When it returns `false` the band's contents are
    /// unspecified.
    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        let _ = (q, scale, band);
        false
    }
}

/// A potential with the contraction of its third derivative with a vector on two slots:
/// `(a·V‴·a)ᵢ = Σⱼₖ ∂³V/∂qᵢ∂qⱼ∂qₖ aⱼ aₖ` (000 eq 1.3, the Z&S correction term).
pub trait ThirdDerivative<T: Real, const N: usize>: Hessian<T, N> {
    /// Whether `V‴ ≡ 0` (a potential at most quadratic): [`Self::third_contraction`] is zero
    /// wherever it is evaluated, so a sum with this potential skips it. `false` unless that
    /// holds for every instance of the type.
    const VANISHES: bool = false;

    /// `a·V‴(q)·a`.
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N>;
}

/// The zero potential `V = 0` (free flight).
#[derive(Clone, Copy, Debug, Default)]
pub struct Zero;

impl<T: Real, const N: usize> Potential<T, N> for Zero {
    fn energy(&self, _: &SVector<T, N>) -> T {
        T::zero()
    }
    fn gradient(&self, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
}
impl<T: Real, const N: usize> Hessian<T, N> for Zero {
    fn hessian(&self, _: &SVector<T, N>) -> SMatrix<T, N, N> {
        SMatrix::zeros()
    }
    fn hessian_vector(&self, _: &SVector<T, N>, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
    fn add_hessian(&self, _: &SVector<T, N>, _: T, _: &mut SMatrix<T, N, N>) {}
    fn hessian_band(&self, _: &SVector<T, N>, _: T, _: &mut BandMut<'_, T>) -> bool {
        true
    }
}
impl<T: Real, const N: usize> ThirdDerivative<T, N> for Zero {
    const VANISHES: bool = true;
    fn third_contraction(&self, _: &SVector<T, N>, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
}

/// A quadratic potential `V(q) = ½ (q − q₀)ᵀ K (q − q₀) + bᵀq` with constant symmetric `K`.
///
/// The stiff part of SIM (004 §4.2) is of this form (with `K/ε`).
#[derive(Clone, Copy, Debug)]
pub struct Quadratic<T: Real, const N: usize> {
    /// The stiffness matrix `K` (symmetric).
    pub k: SMatrix<T, N, N>,
    /// The rest position `q₀`.
    pub rest: SVector<T, N>,
    /// A constant linear term `b` (e.g. gravity).
    pub linear: SVector<T, N>,
}

impl<T: Real, const N: usize> Quadratic<T, N> {
    /// `½ qᵀ K q`.
    pub fn new(k: SMatrix<T, N, N>) -> Self {
        Self {
            k,
            rest: SVector::zeros(),
            linear: SVector::zeros(),
        }
    }
}

impl<T: Real, const N: usize> Potential<T, N> for Quadratic<T, N> {
    fn energy(&self, q: &SVector<T, N>) -> T {
        let d = q - self.rest;
        d.dot(&(self.k * d)) * T::lit(0.5) + self.linear.dot(q)
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        self.k * (q - self.rest) + self.linear
    }
}
impl<T: Real, const N: usize> Hessian<T, N> for Quadratic<T, N> {
    fn hessian(&self, _: &SVector<T, N>) -> SMatrix<T, N, N> {
        self.k
    }
    fn hessian_vector(&self, _: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        self.k * a
    }
    fn hessian_band(&self, _: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        band.add_dense(&self.k, scale)
    }
}
impl<T: Real, const N: usize> ThirdDerivative<T, N> for Quadratic<T, N> {
    const VANISHES: bool = true;
    fn third_contraction(&self, _: &SVector<T, N>, _: &SVector<T, N>) -> SVector<T, N> {
        SVector::zeros()
    }
}

/// A soft + stiff split `V + α·U` whose stiffness `α` can be switched (FLAVOR, SIM, 004 Ch. 2).
///
/// `soft` is `V`, `stiff` is `U`; the potential seen by an integrator is `V + α U`. FLAVOR turns
/// the stiff part on (`α = 1/ε`, or `α = 1` when `U` already carries `1/ε`) and off (`α = 0`).
#[derive(Clone, Copy, Debug)]
pub struct Split<T: Real, V, U> {
    /// The soft potential `V`.
    pub soft: V,
    /// The stiff potential `U`.
    pub stiff: U,
    /// The stiffness switch `α` multiplying `U`.
    pub alpha: T,
}

impl<T: Real, V, U> Split<T, V, U> {
    /// `V + α U`.
    pub fn new(soft: V, stiff: U, alpha: T) -> Self {
        Self { soft, stiff, alpha }
    }
    /// Sets the stiffness `α`.
    pub fn set_alpha(&mut self, alpha: T) {
        self.alpha = alpha;
    }
}

impl<T: Real, const N: usize, V: Potential<T, N>, U: Potential<T, N>> Potential<T, N>
    for Split<T, V, U>
{
    fn energy(&self, q: &SVector<T, N>) -> T {
        let s = self.soft.energy(q);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.energy(q) * self.alpha
        }
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let s = self.soft.gradient(q);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.gradient(q) * self.alpha
        }
    }
    fn constraint_residual(&self, q: &SVector<T, N>) -> Option<T> {
        max_residual(
            self.soft.constraint_residual(q),
            self.stiff.constraint_residual(q),
        )
    }
}
impl<T: Real, const N: usize, V: Hessian<T, N>, U: Hessian<T, N>> Hessian<T, N> for Split<T, V, U> {
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        let s = self.soft.hessian(q);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.hessian(q) * self.alpha
        }
    }
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let s = self.soft.hessian_vector(q, a);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.hessian_vector(q, a) * self.alpha
        }
    }
    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        self.soft.hessian_band(q, scale, band)
            && (self.alpha == T::zero() || self.stiff.hessian_band(q, scale * self.alpha, band))
    }
}
impl<T: Real, const N: usize, V: ThirdDerivative<T, N>, U: ThirdDerivative<T, N>>
    ThirdDerivative<T, N> for Split<T, V, U>
{
    const VANISHES: bool = V::VANISHES && U::VANISHES;

    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let s = self.soft.third_contraction(q, a);
        if self.alpha == T::zero() {
            s
        } else {
            s + self.stiff.third_contraction(q, a) * self.alpha
        }
    }
}

/// References to potentials are potentials.
impl<T: Real, const N: usize, P: Potential<T, N> + ?Sized> Potential<T, N> for &P {
    fn energy(&self, q: &SVector<T, N>) -> T {
        (**self).energy(q)
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        (**self).gradient(q)
    }
    fn constraint_residual(&self, q: &SVector<T, N>) -> Option<T> {
        (**self).constraint_residual(q)
    }
}
impl<T: Real, const N: usize, P: Hessian<T, N> + ?Sized> Hessian<T, N> for &P {
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        (**self).hessian(q)
    }
    fn hessian_vector(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        (**self).hessian_vector(q, a)
    }
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        (**self).add_hessian(q, scale, out)
    }
    fn gradient_add_hessian(
        &self,
        q: &SVector<T, N>,
        scale: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
    ) -> Option<Measured<T>> {
        (**self).gradient_add_hessian(q, scale, grad, out)
    }
    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        (**self).hessian_band(q, scale, band)
    }
}
impl<T: Real, const N: usize, P: ThirdDerivative<T, N> + ?Sized> ThirdDerivative<T, N> for &P {
    const VANISHES: bool = P::VANISHES;
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        (**self).third_contraction(q, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forcing::Actuated;
    use crate::model::{Constraint, Penalty};
    use crate::systems::{Distances, LinearPotential};
    use nalgebra::{vector, Vector2, Vector4};

    /// Points and directions far from any special value.
    fn probes() -> [(Vector4<f64>, Vector4<f64>); 3] {
        [
            (vector![0.3, -1.2, 2.5, 0.7], vector![1.0, 0.5, -0.25, 2.0]),
            (
                vector![-4.0, 0.01, 1e3, -2.0],
                vector![-3.0, 7.0, 0.1, 1e-3],
            ),
            (vector![1e-3, 9.0, -0.5, 0.2], vector![0.4, -0.6, 5.0, -8.0]),
        ]
    }

    /// A potential that says `V‴ ≡ 0` contracts to exact zeros everywhere.
    fn vanishes<P: ThirdDerivative<f64, 4>>(p: &P, name: &str) {
        assert!(P::VANISHES, "{name}");
        for (q, a) in probes() {
            assert_eq!(
                p.third_contraction(&q, &a),
                Vector4::zeros(),
                "{name} at {q}"
            );
        }
    }

    #[test]
    fn the_potentials_that_say_their_third_derivative_vanishes_contract_to_zero() {
        let lin = LinearPotential::new(vector![0.0, 9.81, 0.0, 4.905]).unwrap();
        let quad = Quadratic::new(nalgebra::Matrix4::from_diagonal(&vector![
            1.0, 2.0, 3.0, 4.0
        ]));
        vanishes(&Zero, "Zero");
        vanishes(&quad, "Quadratic");
        vanishes(&lin, "LinearPotential");
        vanishes(&&lin, "&LinearPotential");
        vanishes(&Actuated::new(lin), "Actuated<LinearPotential>");
        vanishes(&Split::new(quad, quad, 2.0), "Split<Quadratic, Quadratic>");
    }

    fn says_it_vanishes<P: ThirdDerivative<f64, 4>>(_: &P) -> bool {
        P::VANISHES
    }

    /// A quartic term: `V‴ ≠ 0`, and a split holding it says so (checked at compile time).
    type Quartic = crate::systems::QuarticBond<f64, 4>;
    const _: () =
        assert!(!<Split<f64, Quadratic<f64, 4>, Quartic> as ThirdDerivative<f64, 4>>::VANISHES);

    /// A penalty over a vanishing base is its constraint's contraction alone, bit for bit, and
    /// says it does not vanish.
    #[test]
    fn a_penalty_over_a_linear_base_is_its_constraints_contraction() {
        let lin = LinearPotential::new(vector![0.0, 9.81, 0.0, 4.905]).unwrap();
        let rods = Distances::<f64, 2, 4, 2>::chain(Vector2::zeros(), vector![1.0, 0.5]).unwrap();
        let pen = Penalty::new(lin, rods, 30.0).unwrap();
        assert!(!says_it_vanishes(&pen));
        let w = vector![900.0, 900.0];
        for (q, a) in probes() {
            let c = pen.third_contraction(&q, &a);
            assert_eq!(c, rods.penalty_third_contraction(&q, &w, &a), "at {q}");
            assert_ne!(c, Vector4::zeros());
        }
    }
}
