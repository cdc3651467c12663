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
    check_input, drift, finite, mass_inverse, third_matrix, two_stage, Factored, ForceJacobian,
};
use super::{FourthDerivative, Linearise, StepJacobian};
use crate::guard::Probe;
use crate::linalg::ShiftedSolve;
use crate::model::{Hessian, Potential, Split, System, ThirdDerivative};
use crate::zs::{StiffSylipn, Sylipn, ZhangSkeel};
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// `a`, `∂a/∂x`, `∂a/∂u` and `W‴[a]` at `x`: `full` is the potential whose gradient and Hessian
/// enter, `matrix` the part whose Hessian is in `K = M + s·Hess W`.
struct Solved<T: Real, const N: usize> {
    force: ForceJacobian<T, N>,
    t: SMatrix<T, N, N>,
}

fn solved<T, V, W, const N: usize>(
    system_mass: &crate::model::Mass<T, N>,
    full: &V,
    matrix: Option<&W>,
    s: T,
    x: &SVector<T, N>,
) -> Result<Solved<T, N>, StepError>
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
    let t = match matrix {
        Some(w) => third_matrix(w, x, &a),
        None => third_matrix(full, x, &a),
    };
    let mut fx = -(h_full + t * s);
    k.solve(&mut fx);
    let mut fu = SMatrix::<T, N, N>::identity();
    k.solve(&mut fu);
    Ok(Solved {
        force: ForceJacobian { f: a, fx, fu },
        t,
    })
}

/// Z&S's force and its derivatives at `x` (`k = ½β²h⁴`).
fn zs_force<T: Real, P: FourthDerivative<T, N>, const N: usize>(
    system: &System<T, P, N>,
    minv: &SMatrix<T, N, N>,
    s: T,
    k: T,
    x: &SVector<T, N>,
) -> Result<ForceJacobian<T, N>, StepError> {
    let Solved { force, t } = solved::<T, P, P, N>(&system.mass, &system.potential, None, s, x)?;
    let a = force.f;
    let c = system.potential.third_contraction(x, &a);
    let mut d4 = SMatrix::<T, N, N>::zeros();
    for j in 0..N {
        let e = SVector::<T, N>::from_fn(|i, _| if i == j { T::one() } else { T::zero() });
        d4.set_column(j, &system.potential.fourth_contraction(x, &a, &e));
    }
    let two = T::lit(2.0);
    let mk = minv * k;
    Ok(ForceJacobian {
        f: a - mk * c,
        fx: force.fx - mk * (d4 + t * force.fx * two),
        fu: force.fu - mk * (t * force.fu * two),
    })
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
        check_input(state, h)?;
        let system = self.system();
        let h2 = h * h;
        let s = self.beta() * h2;
        let k = self.beta() * self.beta() * h2 * h2 * T::lit(0.5);
        let minv = mass_inverse(&system.mass);
        let j0 = zs_force(system, &minv, s, k, &state.q)?;
        let q1 = drift(state, h, &j0.f)?;
        let j1 = zs_force(system, &minv, s, k, &q1)?;
        finite(two_stage(h, &j0, &j1))
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
        check_input(state, h)?;
        let system = self.system();
        let s = self.beta() * h * h;
        let at = |x: &SVector<T, N>| {
            solved::<T, P, P, N>(&system.mass, &system.potential, None, s, x).map(|r| r.force)
        };
        let j0 = at(&state.q)?;
        let j1 = at(&drift(state, h, &j0.f)?)?;
        finite(two_stage(h, &j0, &j1))
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
        check_input(state, h)?;
        let system = self.system();
        let p = &system.potential;
        let s = self.beta() * h * h * p.alpha;
        let at = |x: &SVector<T, N>| solved(&system.mass, p, Some(&p.stiff), s, x).map(|r| r.force);
        let j0 = at(&state.q)?;
        let j1 = at(&drift(state, h, &j0.f)?)?;
        finite(two_stage(h, &j0, &j1))
    }
}
