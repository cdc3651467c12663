//! The Newmark members of the Z&S family: Newmark (000 eq 2.1), push-forward Newmark (000 eq 2.3)
//! and one-iteration Newmark (000 §4.1 Fig 1 row 5).
//!
//! The fully solved methods are differentiated by the implicit function theorem on the equation
//! their Newton iteration solves, at its converged root (found by the step's iteration: same
//! start, tolerance and cap, the Newton matrix factorised densely whatever the method's solve
//! strategy; the derivative itself is not iterated):
//!
//! ```text
//! Newmark:       M(x − q̃) + βh²(∇V(x) − u) = 0     ⇒  K δx = M δq̃ + βh² δu,      K = M + βh² Hess V(x)
//! push-forward:  M a + ∇V(x + βh² a) − u = 0       ⇒  K δa = −Hess V(y) δx + δu,  K = M + βh² Hess V(y)
//! ```
//!
//! with `q̃ = q + h v + ½h²(1 − 2β) a₀` and `y = x + βh² a`. One-iteration Newmark takes one
//! Newton update from `q̃` and is differentiated as that one update, not as the converged solve:
//! `x = q̃ + δ` with `K(q̃) δ = −βh²(∇V(q̃) − u)`, so
//!
//! ```text
//! ∂x/∂q̃ = I − βh² K⁻¹ (Hess V(q̃) + V‴(q̃)[δ]),     ∂x/∂u = βh² K⁻¹.
//! ```
//!
//! The velocity `v⁺ = v + ½h (a₀ + a(x))` with `a = M⁻¹(−∇V + u)` follows by the chain rule. One
//! factorisation of `K` serves every column.

use super::kernel::{
    check_input, finite, mass_inverse, third_matrix, two_stage_by, Factored, ForceJacobian,
};
use super::{Linearise, StepJacobian};
use crate::guard::Probe;
use crate::linalg::ShiftedSolve;
use crate::model::{Hessian, System, ThirdDerivative};
use crate::zs::{ImplicitNewtonParams, Newmark, NewmarkOneIteration, PushForwardNewmark};
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// The position-only part of a Newmark step: `q̃` and the derivatives of `q̃`
/// (`∂q̃/∂q = I − c̃ M⁻¹ Hess V(q)`, `∂q̃/∂v = h I`, `∂q̃/∂u = c̃ M⁻¹`, `c̃ = ½h²(1 − 2β)`).
struct Predictor<T: Real, const N: usize> {
    /// `M⁻¹ Hess V(q)`.
    minv_h0: SMatrix<T, N, N>,
    qt: SVector<T, N>,
    ct: T,
}

/// What every Newmark linearisation starts from: the step's input checks, then `M⁻¹`, the
/// implicit coefficient `c = βh²` and the [`Predictor`].
fn predictor<T: Real, P: Hessian<T, N>, const N: usize>(
    system: &System<T, P, N>,
    beta: T,
    state: &State<T, N>,
    h: T,
) -> Result<(SMatrix<T, N, N>, T, Predictor<T, N>), StepError> {
    check_input(state, h)?;
    let minv = mass_inverse(&system.mass);
    let c = beta * h * h;
    let a0 = system.acceleration(&state.q);
    let ct = h * h * T::lit(0.5) * (T::one() - T::lit(2.0) * beta);
    let qt = state.q + state.v * h + a0 * ct;
    if !qt.iter().chain(a0.iter()).all(|x| x.finite()) {
        return Err(StepError::NonFiniteResult);
    }
    let p = Predictor {
        minv_h0: minv * system.potential.hessian(&state.q),
        qt,
        ct,
    };
    Ok((minv, c, p))
}

/// The Newmark velocity update differentiated: from `∂x/∂(q, v, u)` (`xq`, `xv`, `xu`) and the
/// predictor, `v⁺ = v + ½h (a₀ + a(x))`.
fn newmark_jacobian<T: Real, P: Hessian<T, N>, const N: usize>(
    system: &System<T, P, N>,
    minv: &SMatrix<T, N, N>,
    p: &Predictor<T, N>,
    h: T,
    x: &SVector<T, N>,
    [xq, xv, xu]: [SMatrix<T, N, N>; 3],
) -> StepJacobian<T, N> {
    let i = SMatrix::<T, N, N>::identity();
    let ch = h * T::lit(0.5);
    let minv_h1 = minv * system.potential.hessian(x);
    StepJacobian {
        qq: xq,
        qv: xv,
        vq: -(p.minv_h0 + minv_h1 * xq) * ch,
        vv: i - minv_h1 * xv * ch,
        bq: xu,
        bv: (minv * T::lit(2.0) - minv_h1 * xu) * ch,
    }
}

/// The derivatives of `q̃` as `[∂q̃/∂q, ∂q̃/∂v, ∂q̃/∂u]`.
fn predictor_jacobian<T: Real, const N: usize>(
    p: &Predictor<T, N>,
    minv: &SMatrix<T, N, N>,
    h: T,
) -> [SMatrix<T, N, N>; 3] {
    let i = SMatrix::<T, N, N>::identity();
    [i - p.minv_h0 * p.ct, i * h, minv * p.ct]
}

/// Newmark (000 eq 2.1): Newton to the step's tolerance for `x`, then the implicit function
/// theorem at `x`: `∂x/∂(q, v, u) = K⁻¹ (M ∂q̃/∂(q, v, u) + [0, 0, βh² I])`, one factorisation.
/// Cost: the step's Newton solve, one more Hessian and factorisation, and `3N` triangular solves.
impl<T, P, const N: usize, S> Linearise<T, N> for Newmark<T, P, N, S>
where
    T: Real,
    P: Hessian<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let (minv, c, p) = predictor(system, self.beta(), state, h)?;
        let x = newton_position(system, self.newton(), c, &p.qt)?;
        let k = Factored::new(&system.mass, c, &system.potential.hessian(&x))?;
        let m = system.mass.matrix();
        let [tq, tv, tu] = predictor_jacobian(&p, &minv, h);
        let (mut xq, mut xv) = (m * tq, m * tv);
        let mut xu = m * tu + SMatrix::<T, N, N>::identity() * c;
        k.solve(&mut xq);
        k.solve(&mut xv);
        k.solve(&mut xu);
        finite(newmark_jacobian(system, &minv, &p, h, &x, [xq, xv, xu]))
    }
}

/// Newton on `M(x − q̃) + c ∇V(x) = 0` from `x = q̃`, as [`Newmark`]'s step.
fn newton_position<T: Real, P: Hessian<T, N>, const N: usize>(
    system: &System<T, P, N>,
    newton: &ImplicitNewtonParams<T>,
    c: T,
    qt: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    let mut x = *qt;
    for _ in 0..newton.max_iter {
        let r = system.mass.mul(&(x - qt)) + system.potential.gradient(&x) * c;
        let k = Factored::new(&system.mass, c, &system.potential.hessian(&x))?;
        let mut dx = SMatrix::<T, N, 1>::from(-r);
        k.solve(&mut dx);
        let dx = SVector::<T, N>::from(dx);
        x += dx;
        if !x.iter().all(|v| v.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        if newton.converged(&dx, &x) {
            return Ok(x);
        }
    }
    Err(StepError::NotConverged)
}

/// Push-forward Newmark's force at `x`: Newton on `M a + ∇V(x + c a) = 0` from `a = 0` (as the
/// step), then `∂a/∂x = −K⁻¹ Hess V(y)`, `∂a/∂u = K⁻¹` at the root.
fn push_forward_force<T: Real, P: Hessian<T, N>, const N: usize>(
    system: &System<T, P, N>,
    newton: &ImplicitNewtonParams<T>,
    c: T,
    x: &SVector<T, N>,
) -> Result<ForceJacobian<T, N>, StepError> {
    let mut a = SVector::<T, N>::zeros();
    for _ in 0..newton.max_iter {
        let y = x + a * c;
        let r = system.mass.mul(&a) + system.potential.gradient(&y);
        let k = Factored::new(&system.mass, c, &system.potential.hessian(&y))?;
        let mut da = SMatrix::<T, N, 1>::from(-r);
        k.solve(&mut da);
        let da = SVector::<T, N>::from(da);
        a += da;
        if !a.iter().all(|v| v.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        if newton.converged(&da, &a) {
            let hy = system.potential.hessian(&(x + a * c));
            let k = Factored::new(&system.mass, c, &hy)?;
            let mut fx = -hy;
            k.solve(&mut fx);
            let mut fu = SMatrix::<T, N, N>::identity();
            k.solve(&mut fu);
            return Ok(ForceJacobian { f: a, fx, fu });
        }
    }
    Err(StepError::NotConverged)
}

/// Push-forward Newmark (000 eq 2.3): the two-stage chain rule with the force of
/// `M a + ∇V(x + βh² a) = u` differentiated at its Newton root (at `q` and `q⁺`). The root is the
/// exact map's up to the Newton tolerance, so the linearisation is symplectic to roundoff even
/// where the step is symplectic only to the tolerance (000 Rem 2.15). Cost: the step's two Newton
/// solves plus a Hessian, a factorisation and `2N` triangular solves at each end.
impl<T, P, const N: usize, S> Linearise<T, N> for PushForwardNewmark<T, P, N, S>
where
    T: Real,
    P: Hessian<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let c = self.beta() * h * h;
        two_stage_by(state, h, |x| {
            push_forward_force(system, self.newton(), c, x)
        })
    }
}

/// One-iteration Newmark (000 §4.1 Fig 1 row 5): the one Newton update differentiated (the
/// derivative of its matrix `K(q̃) = M + βh² Hess V(q̃)` enters through `V‴(q̃)[δ]`, from the
/// potential's exact third-derivative contraction). Cost: two Hessians, one factorisation, `2N`
/// contractions `a·V‴·a` and `3N` triangular solves (the step: one Hessian, one factorisation).
impl<T, P, const N: usize, S> Linearise<T, N> for NewmarkOneIteration<T, P, N, S>
where
    T: Real,
    P: ThirdDerivative<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let (minv, c, p) = predictor(system, self.beta(), state, h)?;
        let ht = system.potential.hessian(&p.qt);
        let k = Factored::new(&system.mass, c, &ht)?;
        let mut delta = SMatrix::<T, N, 1>::from(-(system.potential.gradient(&p.qt) * c));
        k.solve(&mut delta);
        let delta = SVector::<T, N>::from(delta);
        let x = p.qt + delta;
        if !x.iter().all(|v| v.finite()) {
            return Err(StepError::NonFiniteResult);
        }
        // ∂x/∂q̃ = I − c K⁻¹ (Hess V(q̃) + V‴(q̃)[δ]).
        let mut xt = -(ht + third_matrix(&system.potential, &p.qt, &delta)) * c;
        k.solve(&mut xt);
        let i = SMatrix::<T, N, N>::identity();
        let xt = i + xt;
        let mut direct = i * c;
        k.solve(&mut direct);
        let [tq, tv, tu] = predictor_jacobian(&p, &minv, h);
        let jx = [xt * tq, xt * tv, xt * tu + direct];
        finite(newmark_jacobian(system, &minv, &p, h, &x, jx))
    }
}
