//! An explicit Runge–Kutta method on the index-1 form of a holonomically constrained system:
//! the non-symplectic, constraint-drifting standard layer of 003 §3–4.

use super::rk::{action_slope, rk_advance, rk_segment, Slope, Tangent};
use super::{lu_solve, lu_solve_cols, ExplicitRk, Segment, StandardLayer, Tableau};
use crate::constrained::ConstraintProbe;
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::{Constraint, Hessian, Mass, Potential, System};
#[cfg(doc)]
use crate::Integrator;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

#[doc(hidden)]
/// A standard layer on a constrained configuration space `Q = {g(q) = 0}` (003 §3): a
/// [`StandardLayer`] of the ambient `ℝᴺ` whose vector field is the constrained one, together with
/// the constraint. The layer need not preserve `g` (stage S3 lifts that restriction).
pub trait ConstrainedLayer<T: Real, const N: usize, const D: usize>: StandardLayer<T, N> {
    /// The constraint type.
    type Constraint: Constraint<T, N, D>;

    /// The holonomic constraint `g`.
    fn constraint(&self) -> &Self::Constraint;
}

/// The explicit Runge–Kutta method with tableau `K` for the index-1 constrained equations of
/// 003 (4.2) with a constant mass matrix:
///
/// ```text
/// q̇ = v,   v̇ = A(q, v) = M⁻¹(−∇V + g′ᵀλ),   (g′M⁻¹g′ᵀ) λ = g′M⁻¹∇V − (vᵀ Hess gᵢ v)ᵢ,
/// ```
///
/// i.e. the acceleration that keeps `g′(q)v` constant (coefficient matrix (4.3)). Order
/// `K::ORDER`, neither symplectic nor symmetric, and `g(q)` drifts at `O(h^r)` per unit time:
/// this is the source the constrained conversion
/// ([`ConvertedConstrained`](super::ConvertedConstrained)) is measured against. As a
/// [`StandardLayer`] it integrates the action `Ṡ = ½vᵀMv − V` and the first-variation equations
/// with the same tableau (003 §4.1; the derivative of `A` needs `Hess gᵢ` and `a·gᵢ‴·a`).
///
/// # Errors
/// Those of [`Integrator::step_by`]; [`StepError::Singular`] when `g′M⁻¹g′ᵀ` is singular
/// (dependent constraints). The state is unchanged on error.
///
/// ```
/// use macrostep::convert::{ConstrainedRk, Rk4};
/// use macrostep::{systems::Pendulum, Integrator};
/// let p = Pendulum::<f64>::paper();
/// let mut rk = ConstrainedRk::<_, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), 0.01).unwrap();
/// let mut s = p.initial_state();
/// rk.integrate(&mut s, 100).unwrap();
/// // Close to, but not on, |q| = 1.
/// assert!((s.q.norm() - 1.0).abs() < 1e-8);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ConstrainedRk<T: Real, P, G, K, const N: usize, const D: usize> {
    /// The unconstrained method: system, step, tableau and guard memory.
    rk: ExplicitRk<T, P, K, N>,
    constraint: G,
}

impl<
        T: Real,
        P: Potential<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > ConstrainedRk<T, P, G, K, N, D>
{
    /// The method with step `h` (coefficients converted to `T` here, once).
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] when `h` is not positive and finite.
    pub fn new(system: System<T, P, N>, constraint: G, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            rk: ExplicitRk::new(system, h)?,
            constraint,
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.rk.system
    }

    /// `M⁻¹g′ᵀ`, `S = g′M⁻¹g′ᵀ`, and `λ`, `A` at `(q, v)`.
    fn accel(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> Result<Accel<T, N, D>, StepError> {
        let m = &self.rk.system.mass;
        let j = self.constraint.jacobian(q);
        let b = minv_jt(m, &j);
        let s = j * b;
        let grad = self.rk.system.potential.gradient(q);
        let z = m.solve(&grad);
        let hv = self.constraint.hessian_times(q, v);
        let lam = lu_solve(&s, &(j * z - hv * v))?;
        Ok(Accel {
            j,
            b,
            s,
            grad,
            hv,
            acc: b * lam - z,
            lam,
        })
    }
}

/// The constrained acceleration at one point and the pieces its derivative reuses.
struct Accel<T: Real, const N: usize, const D: usize> {
    j: SMatrix<T, D, N>,
    b: SMatrix<T, N, D>,
    s: SMatrix<T, D, D>,
    grad: SVector<T, N>,
    hv: SMatrix<T, D, N>,
    lam: SVector<T, D>,
    acc: SVector<T, N>,
}

/// `M⁻¹ Jᵀ`, column by column.
pub(crate) fn minv_jt<T: Real, const N: usize, const D: usize>(
    m: &Mass<T, N>,
    j: &SMatrix<T, D, N>,
) -> SMatrix<T, N, D> {
    let mut out = SMatrix::<T, N, D>::zeros();
    for k in 0..D {
        out.set_column(k, &m.solve(&j.row(k).transpose()));
    }
    out
}

impl<
        T: Real,
        P: Potential<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > Guarded<T, N> for ConstrainedRk<T, P, G, K, N, D>
{
    type Probe<'a>
        = ConstraintProbe<'a, System<T, P, N>, G, D>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        self.rk.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.rk.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>) {
        (
            &mut self.rk.watch,
            ConstraintProbe {
                energy: &self.rk.system,
                constraint: &self.constraint,
            },
        )
    }
}

impl<
        T: Real,
        P: Potential<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > Method<T, N> for ConstrainedRk<T, P, G, K, N, D>
{
    const ORDER: u32 = K::ORDER;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let mut singular = false;
        let (q, v) = rk_advance(&self.rk.a, &self.rk.b, K::STAGES, state, h, |q, v| {
            self.accel(q, v).map_or_else(
                |_| {
                    singular = true;
                    SVector::zeros()
                },
                |a| a.acc,
            )
        });
        if singular {
            return Err(StepError::Singular);
        }
        next.q = q;
        next.v = v;
        Ok(T::zero())
    }
}

impl<
        T: Real,
        P: Hessian<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > ConstrainedRk<T, P, G, K, N, D>
{
    /// `f(Y)` and `Df(Y)·DY` for the augmented constrained system with first variation
    /// (differentiating `M A − g′ᵀλ = −∇V`, `g′A = −(vᵀ Hess gᵢ v)ᵢ` as 003 §4.1 does). A
    /// singular `g′M⁻¹g′ᵀ` gives a non-finite slope (the conversion reports it).
    fn slope(&self, y: &Tangent<T, N>) -> Slope<T, N> {
        let nan = T::zero() / T::zero();
        let Ok(a) = self.accel(&y.q, &y.v) else {
            let mut t = *y;
            t.q.fill(nan);
            return Slope {
                t,
                s: nan,
                s_q: y.q * nan,
                s_v: y.q * nan,
            };
        };
        let (m, g) = (&self.rk.system.mass, &self.constraint);
        // F_q = −Hess V + Σ λᵢ Hess gᵢ (the force's q-derivative at fixed λ).
        let f_q = g.weighted_hessian(&y.q, &a.lam) - self.rk.system.potential.hessian(&y.q);
        let minv_fq = super::mass_solve_cols(m, &f_q);
        // Row i of ∂(vᵀ Hess gᵢ v)/∂q is a·gᵢ‴·a with a = v.
        let mut b3 = SMatrix::<T, D, N>::zeros();
        for i in 0..D {
            let mut e = SVector::<T, D>::zeros();
            e[i] = T::one();
            b3.set_row(i, &g.weighted_third_contraction(&y.q, &e, &y.v).transpose());
        }
        let rhs_q = -(g.hessian_times(&y.q, &a.acc) + a.j * minv_fq + b3);
        let rhs_v = -(a.hv * T::lit(2.0));
        let (lam_q, lam_v) = match (lu_solve_cols(&a.s, &rhs_q), lu_solve_cols(&a.s, &rhs_v)) {
            (Ok(x), Ok(y)) => (x, y),
            _ => (rhs_q * nan, rhs_v * nan),
        };
        let acc_q = minv_fq + a.b * lam_q;
        let acc_v = a.b * lam_v;
        let (s, s_q, s_v) = action_slope(m, y, &a.grad, self.rk.system.potential.energy(&y.q));
        Slope {
            t: Tangent {
                q: y.v,
                v: a.acc,
                qq: y.vq,
                qv: y.vv,
                vq: acc_q * y.qq + acc_v * y.vq,
                vv: acc_q * y.qv + acc_v * y.vv,
            },
            s,
            s_q,
            s_v,
        }
    }
}

impl<
        T: Real,
        P: Hessian<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > StandardLayer<T, N> for ConstrainedRk<T, P, G, K, N, D>
{
    type Potential = P;

    fn system(&self) -> &System<T, P, N> {
        &self.rk.system
    }

    fn segment(&self, q: &SVector<T, N>, v: &SVector<T, N>, t: T) -> Segment<T, N> {
        rk_segment(&self.rk.a, &self.rk.b, K::STAGES, q, v, t, |y| {
            self.slope(y)
        })
    }
}

impl<
        T: Real,
        P: Hessian<T, N>,
        G: Constraint<T, N, D>,
        K: Tableau,
        const N: usize,
        const D: usize,
    > ConstrainedLayer<T, N, D> for ConstrainedRk<T, P, G, K, N, D>
{
    type Constraint = G;

    fn constraint(&self) -> &G {
        &self.constraint
    }
}
