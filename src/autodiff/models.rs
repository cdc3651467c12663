//! [`Energy`] / [`ConstraintFn`] for the potentials and constraints of the built-in models
//! ([`crate::systems`]), written from the formulas in their docs through their public accessors.
//!
//! The models keep their hand-written derivatives (the ones the integrators use); these impls let
//! `AutoDiff(model.system().potential)` reproduce them independently, which the host test
//! `models_ad` checks for every model, and let users build variants of a model by editing one
//! energy. Composite potentials ([`Split`](crate::model::Split),
//! [`Penalty`](crate::model::Penalty), [`Quadratic`](crate::model::Quadratic)) are covered by the
//! core impls.

use super::{AdScalar, ConstraintFn, Energy};
use crate::systems::{
    BondAngle, BondPair, CosinePotential, Distances, DnaPotential, Endpoint, FpuSoft,
    LinearPotential, QuarticBond,
};
use crate::Real;

/// `q[i]`, or zero for an index the model's constructor has already ruled out (no panic path).
#[inline]
fn at<T: Real, S: AdScalar<T>, const N: usize>(q: &[S; N], i: usize) -> S {
    q.get(i).copied().unwrap_or_else(|| S::cst(T::zero()))
}

/// `V = b·q`.
impl<T: Real, const N: usize> Energy<T, N> for LinearPotential<T, N> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        q.iter()
            .zip(self.coefficients().iter())
            .fold(S::cst(T::zero()), |acc, (&qi, &bi)| acc + qi * bi)
    }
}

/// `V = κ d⁴`, `d = qᵢ − qⱼ` (or `qᵢ` when anchored).
impl<T: Real, const N: usize> Energy<T, N> for QuarticBond<T, N> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        let (i, j) = self.ends();
        let d = match j {
            Some(j) => at(q, i) - at(q, j),
            None => at(q, i),
        };
        let d2 = d * d;
        d2 * d2 * self.kappa()
    }
}

/// `V_s = ¼ Σⱼ₌₀ᵐ dⱼ⁴`, `dⱼ = [xⱼ − x_{m+j}]_{j<m} − [x_{j−1} + x_{m+j−1}]_{j≥1}` (0-based,
/// `m = N/2`; 004 eq 4.18 in the coordinates of eq 4.19).
impl<T: Real, const N: usize> Energy<T, N> for FpuSoft<T, N> {
    fn energy<S: AdScalar<T>>(&self, x: &[S; N]) -> S {
        let m = N / 2;
        let mut v = S::cst(T::zero());
        for j in 0..=m {
            let mut d = S::cst(T::zero());
            if j < m {
                d += at(x, j) - at(x, m + j);
            }
            if j >= 1 {
                d -= at(x, j - 1) + at(x, m + j - 1);
            }
            let d2 = d * d;
            v += d2 * d2;
        }
        v * T::lit(0.25)
    }
}

/// `V(θ) = Σₖ ½ (θₖ₊₁ − θₖ)² + ε Σₖ (E(θₖ) − 1)²`, `E = exp(−a[1 − cos θ − x₀])`, periodic
/// (000 eq 4.9).
impl<T: Real, const N: usize> Energy<T, N> for DnaPotential<T, N> {
    fn energy<S: AdScalar<T>>(&self, theta: &[S; N]) -> S {
        let mut spring = S::cst(T::zero());
        let mut site = S::cst(T::zero());
        for (k, &t) in theta.iter().enumerate() {
            let next = at(theta, if k + 1 == N { 0 } else { k + 1 });
            let d = next - t;
            spring += d * d;
            let w = ((-t.cos() + T::one() - self.x0()) * -self.a()).exp() - T::one();
            site += w * w;
        }
        spring * T::lit(0.5) + site * self.eps()
    }
}

/// `V(θ) = A cos θ`.
impl<T: Real> Energy<T, 1> for CosinePotential<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 1]) -> S {
        q[0].cos() * self.amplitude
    }
}

/// `U = ½[(r₁ − r₀)² + (r₂ − r₀)²]`, `r₁ = |x₂ − x₁|`, `r₂ = |x₃ − x₂|` (004 eq 2.111 without `K_r`).
impl<T: Real> Energy<T, 6> for BondPair<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 6]) -> S {
        let r1 = ((q[2] - q[0]) * (q[2] - q[0]) + (q[3] - q[1]) * (q[3] - q[1])).sqrt();
        let r2 = ((q[4] - q[2]) * (q[4] - q[2]) + (q[5] - q[3]) * (q[5] - q[3])).sqrt();
        let (d1, d2) = (r1 - self.r0(), r2 - self.r0());
        (d1 * d1 + d2 * d2) * T::lit(0.5)
    }
}

/// `V = ½K_θ(cos θ − cos θ₀)²`, `cos θ = u·w/(|u||w|)`, `u = x₁ − x₂`, `w = x₃ − x₂`
/// (004 eq 2.112).
impl<T: Real> Energy<T, 6> for BondAngle<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 6]) -> S {
        let (ux, uy) = (q[0] - q[2], q[1] - q[3]);
        let (wx, wy) = (q[4] - q[2], q[5] - q[3]);
        let c = (ux * wx + uy * wy) / ((ux * ux + uy * uy) * (wx * wx + wy * wy)).sqrt();
        let d = c - self.cos0();
        d * d * (self.k_theta() * T::lit(0.5))
    }
}

/// `gₖ = |p_a − p_b|² − Lₖ²` (node `i` occupies coordinates `DIM·i … DIM·i + DIM − 1`).
impl<T: Real, const DIM: usize, const N: usize, const D: usize> ConstraintFn<T, N, D>
    for Distances<T, DIM, N, D>
{
    fn eval<S: AdScalar<T>>(&self, q: &[S; N]) -> [S; D] {
        let links = self.links();
        let l2 = self.lengths_squared();
        core::array::from_fn(|k| {
            let mut g = S::cst(-l2[k]);
            if let Some(l) = links.get(k) {
                for c in 0..DIM {
                    let pa = at(q, DIM * l.node + c);
                    let d = match l.to {
                        Endpoint::Node(b) => pa - at(q, DIM * b + c),
                        Endpoint::Anchor(p) => pa - p[c],
                    };
                    g += d * d;
                }
            }
            g
        })
    }
}
