//! The Verlet-type standard layers: symplectic Euler and Störmer–Verlet with the action their
//! partitioning implies (003 §2 with a partitioned method; see the module docs' decisions).

use super::{mass_solve_cols, Segment, StandardLayer};
use crate::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use crate::model::{Hessian, System};
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// Symplectic Euler as a layer: kick–drift `v' = v + t a(q)`, `q₁ = q + t v'`,
/// `S = t (½ v'ᵀMv' − V(q))`; drift–kick `q₁ = q + t v`, `S = t (½ vᵀMv − V(q₁))`.
impl<T: Real, P: Hessian<T, N>, const N: usize> StandardLayer<T, N> for SymplecticEuler<T, P, N> {
    type Potential = P;

    fn system(&self) -> &System<T, P, N> {
        SymplecticEuler::system(self)
    }

    fn segment(&self, q: &SVector<T, N>, v: &SVector<T, N>, t: T) -> Segment<T, N> {
        let sys = SymplecticEuler::system(self);
        let m = &sys.mass;
        let id = SMatrix::<T, N, N>::identity();
        match self.ordering() {
            EulerOrdering::KickDrift => {
                let g0 = sys.potential.gradient(q);
                let vk = v - m.solve(&g0) * t;
                let vk_q = -mass_solve_cols(m, &sys.potential.hessian(q)) * t;
                let mv = m.mul(&vk);
                Segment {
                    q: q + vk * t,
                    q_q: id + vk_q * t,
                    q_v: id * t,
                    s: t * (m.kinetic(&vk) - sys.potential.energy(q)),
                    s_q: (vk_q.transpose() * mv - g0) * t,
                    s_v: mv * t,
                }
            }
            EulerOrdering::DriftKick => {
                let q1 = q + v * t;
                let g1 = sys.potential.gradient(&q1);
                Segment {
                    q: q1,
                    q_q: id,
                    q_v: id * t,
                    s: t * (m.kinetic(v) - sys.potential.energy(&q1)),
                    s_q: -g1 * t,
                    s_v: (m.mul(v) - g1 * t) * t,
                }
            }
        }
    }
}

/// Störmer–Verlet as a layer: `v½ = v − (t/2) M⁻¹∇V(q)`, `q₁ = q + t v½`,
/// `S = t ½ v½ᵀMv½ − (t/2)(V(q) + V(q₁))` (the trapezoidal action of the variational Verlet).
impl<T: Real, P: Hessian<T, N>, const N: usize> StandardLayer<T, N> for VelocityVerlet<T, P, N> {
    type Potential = P;

    fn system(&self) -> &System<T, P, N> {
        VelocityVerlet::system(self)
    }

    fn segment(&self, q: &SVector<T, N>, v: &SVector<T, N>, t: T) -> Segment<T, N> {
        let sys = VelocityVerlet::system(self);
        let m = &sys.mass;
        let half = t * T::lit(0.5);
        let id = SMatrix::<T, N, N>::identity();
        let g0 = sys.potential.gradient(q);
        let vh = v - m.solve(&g0) * half;
        let vh_q = -mass_solve_cols(m, &sys.potential.hessian(q)) * half;
        let q1 = q + vh * t;
        let q1_q = id + vh_q * t;
        let g1 = sys.potential.gradient(&q1);
        let mv = m.mul(&vh);
        Segment {
            q: q1,
            q_q: q1_q,
            q_v: id * t,
            s: t * m.kinetic(&vh) - half * (sys.potential.energy(q) + sys.potential.energy(&q1)),
            s_q: vh_q.transpose() * mv * t - (g0 + q1_q.transpose() * g1) * half,
            s_v: mv * t - g1 * (t * half),
        }
    }
}
