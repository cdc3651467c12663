//! The linearly implicit members of the Z&S family: Z&S (000 eq 1.3), Z&Ss (000 eq 2.7) and
//! stiff Z&Ss (000 eq 2.8).
//!
//! Their force `f(x)` solves `K a = −∇V(x) + u` with `K = M + s·Hess W(x)` (`W = V`, `s = βh²`;
//! stiff Z&Ss: `W = U`, `s = αβh²`). By the implicit function theorem
//!
//! ```text
//! ∂a/∂x = −K⁻¹ (Hess V + s·W‴[a]),      ∂a/∂u = K⁻¹,
//! ```
//!
//! with one factorisation of `K` for all `2N` columns. Z&S adds `f = a − ½β²h⁴ M⁻¹ (a·V‴·a)`:
//!
//! ```text
//! ∂f/∂x = ∂a/∂x − ½β²h⁴ M⁻¹ (∂ₓ(a·V‴·a) + 2 V‴[a] ∂a/∂x),   ∂f/∂u = (I − β²h⁴ M⁻¹ V‴[a]) ∂a/∂u.
//! ```
//!
//! The step's two stages then combine by the chain rule of 000 eq 2.10. Cost: a factorisation,
//! a Hessian and `2N` contractions `a·V‴·a` at each of `q` and `q⁺` (Z&S also `N` fourth-derivative
//! contractions at each); the step has one factorisation and one Hessian.

use super::kernel::{
    check_input, drift, mass_inverse, third_matrix, two_stage, two_stage_by, two_stage_state,
    Factored, ForceJacobian,
};
use super::{FourthDerivative, Linearise, StepJacobian};
use crate::guard::Probe;
use crate::linalg::ShiftedSolve;
use crate::model::{Hessian, Potential, Split, System, ThirdDerivative};
use crate::zs::{StiffSylipn, Sylipn, ZhangSkeel};
use crate::{Real, State, StepError, Stepper};
use nalgebra::{SMatrix, SVector};

/// `a`, `∂a/∂x`, `∂a/∂u` (with `with_b`; else `fu` is left alone) into `out` and `W‴[a]` into
/// `t` at `x`: `full` is the potential whose gradient and Hessian enter, `matrix` the part whose
/// Hessian is in `K = M + s·Hess W`. Written in place rather than returned in a `Result` (on a
/// Cortex-M that move is a byte-wise copy).
#[allow(clippy::too_many_arguments)]
fn solved<T, V, W, const N: usize>(
    system_mass: &crate::model::Mass<T, N>,
    full: &V,
    matrix: Option<&W>,
    s: T,
    x: &SVector<T, N>,
    out: &mut ForceJacobian<T, N>,
    t: &mut SMatrix<T, N, N>,
    with_b: bool,
) -> Result<(), StepError>
where
    T: Real,
    V: ThirdDerivative<T, N>,
    W: ThirdDerivative<T, N>,
{
    let h_full = full.hessian(x);
    let h_matrix = match matrix {
        Some(w) => w.hessian(x),
        None => h_full,
    };
    let k = Factored::new(system_mass, s, &h_matrix)?;
    let mut a = SMatrix::<T, N, 1>::from(-full.gradient(x));
    k.solve(&mut a);
    let a = SVector::<T, N>::from(a);
    if !a.iter().all(|x| x.finite()) {
        return Err(StepError::NonFiniteResult);
    }
    *t = match matrix {
        Some(w) => third_matrix(w, x, &a),
        None => third_matrix(full, x, &a),
    };
    out.f = a;
    out.fx = -(h_full + *t * s);
    k.solve(&mut out.fx);
    if with_b {
        out.fu = SMatrix::<T, N, N>::identity();
        k.solve(&mut out.fu);
    }
    Ok(())
}

/// The force of a linearly implicit member and its derivatives at `x` (see [`solved`]).
fn sylipn_force<T, V, W, const N: usize>(
    system_mass: &crate::model::Mass<T, N>,
    full: &V,
    matrix: Option<&W>,
    s: T,
    x: &SVector<T, N>,
) -> Result<ForceJacobian<T, N>, StepError>
where
    T: Real,
    V: ThirdDerivative<T, N>,
    W: ThirdDerivative<T, N>,
{
    let mut out = ForceJacobian::zeros();
    let mut t = SMatrix::zeros();
    solved(system_mass, full, matrix, s, x, &mut out, &mut t, true)?;
    Ok(out)
}

/// Z&S's force and its derivatives at `x` into `out` (`mk = ½β²h⁴ M⁻¹`; `∂f/∂u` only
/// `with_b`).
fn zs_force<T: Real, P: FourthDerivative<T, N>, const N: usize>(
    system: &System<T, P, N>,
    mk: &SMatrix<T, N, N>,
    s: T,
    x: &SVector<T, N>,
    out: &mut ForceJacobian<T, N>,
    with_b: bool,
) -> Result<(), StepError> {
    let mut t = SMatrix::<T, N, N>::zeros();
    solved::<T, P, P, N>(
        &system.mass,
        &system.potential,
        None,
        s,
        x,
        out,
        &mut t,
        with_b,
    )?;
    let a = out.f;
    let c = system.potential.third_contraction(x, &a);
    let mut d4 = SMatrix::<T, N, N>::zeros();
    for j in 0..N {
        let e = SVector::<T, N>::from_fn(|i, _| if i == j { T::one() } else { T::zero() });
        d4.set_column(j, &system.potential.fourth_contraction(x, &a, &e));
    }
    // 2 V‴[a], shared by both derivatives.
    let t2 = t + t;
    out.f = a - mk * c;
    out.fx -= mk * (d4 + t2 * out.fx);
    if with_b {
        out.fu -= mk * (t2 * out.fu);
    }
    Ok(())
}

/// Z&S's linearisation of a step of size `h` from `state` into `out` (unchanged on `Err`;
/// without `with_b` the state blocks only, `bq` and `bv` zero).
fn zs_linearise<T, P, const N: usize, S>(
    zs: &ZhangSkeel<T, P, N, S>,
    state: &State<T, N>,
    h: T,
    out: &mut StepJacobian<T, N>,
    with_b: bool,
) -> Result<(), StepError>
where
    T: Real,
    P: FourthDerivative<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    check_input(state, h)?;
    let system = zs.system();
    let h2 = h * h;
    let s = zs.beta() * h2;
    let k = zs.beta() * zs.beta() * h2 * h2 * T::lit(0.5);
    let mk = mass_inverse(&system.mass) * k;
    let (mut j0, mut j1) = (ForceJacobian::zeros(), ForceJacobian::zeros());
    zs_force(system, &mk, s, &state.q, &mut j0, with_b)?;
    let q1 = drift(state, h, &j0.f)?;
    zs_force(system, &mk, s, &q1, &mut j1, with_b)?;
    let j = if with_b {
        two_stage(h, &j0, &j1)
    } else {
        two_stage_state(h, &j0, &j1)
    };
    if !j.is_finite() {
        return Err(StepError::NonFiniteResult);
    }
    *out = j;
    Ok(())
}

/// Z&S (000 eq 1.3): exact, with the fourth derivative of the potential for its correction term.
/// Cost about four to eight steps plus `2N` fourth-derivative contractions (see the
/// [module docs](super)).
impl<T, P, const N: usize, S> Linearise<T, N> for ZhangSkeel<T, P, N, S>
where
    T: Real,
    P: FourthDerivative<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let mut out = StepJacobian::zeros();
        zs_linearise(self, state, h, &mut out, true)?;
        Ok(out)
    }

    fn linearise_into(
        &self,
        state: &State<T, N>,
        out: &mut StepJacobian<T, N>,
    ) -> Result<(), StepError> {
        zs_linearise(self, state, self.step_size(), out, true)
    }

    fn linearise_state_into(
        &self,
        state: &State<T, N>,
        out: &mut StepJacobian<T, N>,
    ) -> Result<(), StepError> {
        zs_linearise(self, state, self.step_size(), out, false)
    }
}

/// Z&Ss (000 eq 2.7).
impl<T, P, const N: usize, S> Linearise<T, N> for Sylipn<T, P, N, S>
where
    T: Real,
    P: ThirdDerivative<T, N>,
    S: ShiftedSolve<T, N>,
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let s = self.beta() * h * h;
        two_stage_by(state, h, |x| {
            sylipn_force::<T, P, P, N>(&system.mass, &system.potential, None, s, x)
        })
    }
}

/// Stiff Z&Ss (000 eq 2.8): the matrix holds `α` times the stiff part's Hessian.
impl<T, V, U, const N: usize, S> Linearise<T, N> for StiffSylipn<T, V, U, N, S>
where
    T: Real,
    V: ThirdDerivative<T, N>,
    U: ThirdDerivative<T, N>,
    S: ShiftedSolve<T, N>,
    Split<T, V, U>: Potential<T, N> + Hessian<T, N>,
    System<T, Split<T, V, U>, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let p = &system.potential;
        let s = self.beta() * h * h * p.alpha;
        two_stage_by(state, h, |x| {
            sylipn_force(&system.mass, p, Some(&p.stiff), s, x)
        })
    }
}
