//! The explicit baselines: velocity Verlet and symplectic Euler in both orderings (004 eqs 2.49,
//! 2.50). Their force is `a = M⁻¹(−∇V + u)`, so `∂a/∂x = −M⁻¹ Hess V` and `∂a/∂u = M⁻¹`: one
//! Hessian per force evaluation (the step needs only gradients).

use super::kernel::{check_input, finite, mass_inverse, two_stage_by, ForceJacobian};
use super::{Linearise, StepJacobian};
use crate::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use crate::guard::Probe;
use crate::model::{Hessian, System};
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// `a`, `∂a/∂x`, `∂a/∂u` at `x`.
fn explicit_force<T: Real, P: Hessian<T, N>, const N: usize>(
    system: &System<T, P, N>,
    minv: &SMatrix<T, N, N>,
    x: &SVector<T, N>,
) -> ForceJacobian<T, N> {
    ForceJacobian {
        f: system.acceleration(x),
        fx: -(minv * system.potential.hessian(x)),
        fu: *minv,
    }
}

/// Velocity Verlet: the two-stage form with `f = a`. Cost two Hessians (the step: one gradient).
impl<T: Real, P: Hessian<T, N>, const N: usize> Linearise<T, N> for VelocityVerlet<T, P, N>
where
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let system = self.system();
        let minv = mass_inverse(&system.mass);
        two_stage_by(state, h, |x| Ok(explicit_force(system, &minv, x)))
    }
}

/// Symplectic Euler: kick–drift `v⁺ = v + h a(q)`, `q⁺ = q + h v⁺`; drift–kick `q⁺ = q + h v`,
/// `v⁺ = v + h a(q⁺)`. Cost one Hessian (the step: one gradient).
impl<T: Real, P: Hessian<T, N>, const N: usize> Linearise<T, N> for SymplecticEuler<T, P, N>
where
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        check_input(state, h)?;
        let system = self.system();
        let minv = mass_inverse(&system.mass);
        let i = SMatrix::<T, N, N>::identity();
        let h2 = h * h;
        let j = match self.ordering() {
            EulerOrdering::KickDrift => {
                let f = explicit_force(system, &minv, &state.q);
                StepJacobian {
                    qq: i + f.fx * h2,
                    qv: i * h,
                    vq: f.fx * h,
                    vv: i,
                    bq: f.fu * h2,
                    bv: f.fu * h,
                }
            }
            EulerOrdering::DriftKick => {
                let q1 = state.q + state.v * h;
                if !q1.iter().all(|x| x.finite()) {
                    return Err(StepError::NonFiniteResult);
                }
                let f = explicit_force(system, &minv, &q1);
                StepJacobian {
                    qq: i,
                    qv: i * h,
                    vq: f.fx * h,
                    vv: i + f.fx * h2,
                    bq: SMatrix::zeros(),
                    bv: f.fu * h,
                }
            }
        };
        finite(j)
    }
}
