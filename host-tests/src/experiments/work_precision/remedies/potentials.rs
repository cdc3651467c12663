//! The two model variants of the remedies: the distance-form penalty (b) and the squared-distance
//! penalty with a Gauss–Newton matrix (c).

use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::model::{Constraint, Hessian, Potential, System, ThirdDerivative};
use macrostep::systems::{DoublePendulum, GravityPenalty, PlanarDistances};
use nalgebra::{SMatrix, SVector};

/// `V = y₁ + y₂ + ½ Σ ωᵢ² (|dᵢ| − Lᵢ)²` (the seed's unit masses and g), generic for [`AutoDiff`].
#[derive(Clone, Copy, Debug)]
pub struct DistanceEnergy {
    /// `[ω₁², ω₂²]`.
    pub omega2: [f64; 2],
    /// `[L₁, L₂]`.
    pub lengths: [f64; 2],
}

impl Energy<f64, 4> for DistanceEnergy {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 4]) -> S {
        let r1 = (q[0] * q[0] + q[1] * q[1]).sqrt();
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        let r2 = (dx * dx + dy * dy).sqrt();
        let (g1, g2) = (r1 - self.lengths[0], r2 - self.lengths[1]);
        q[1] + q[3] + g1 * g1 * (0.5 * self.omega2[0]) + g2 * g2 * (0.5 * self.omega2[1])
    }
}

/// The distance-form penalised double pendulum (remedy b): [`DistanceEnergy`] with its exact
/// AD derivatives, and the rods' residual for the guards (the model's own measure).
#[derive(Clone, Copy, Debug)]
pub struct DistanceForm {
    ad: AutoDiff<DistanceEnergy>,
    rods: PlanarDistances<f64, 4, 2>,
}

impl DistanceForm {
    /// The seed's double pendulum at penalty frequency ω: `ωᵢ = ω` or, when `matched`,
    /// `ωᵢ = 2ωLᵢ`, the rod stiffness `4ω²Lᵢ²` of the squared-distance penalty at ω (the same
    /// linearised fast frequencies on the manifold).
    pub fn paper(omega: f64, matched: bool) -> System<f64, Self, 4> {
        let dp = DoublePendulum::<f64>::paper();
        let l = dp.lengths();
        let k = |i: usize| {
            if matched {
                4.0 * omega * omega * l[i] * l[i]
            } else {
                omega * omega
            }
        };
        System::new(
            dp.system().mass,
            Self {
                ad: AutoDiff(DistanceEnergy {
                    omega2: [k(0), k(1)],
                    lengths: dp.lengths(),
                }),
                rods: dp.constraint(),
            },
        )
    }
}

impl Potential<f64, 4> for DistanceForm {
    fn energy(&self, q: &SVector<f64, 4>) -> f64 {
        Potential::energy(&self.ad, q)
    }
    fn gradient(&self, q: &SVector<f64, 4>) -> SVector<f64, 4> {
        self.ad.gradient(q)
    }
    fn constraint_residual(&self, q: &SVector<f64, 4>) -> Option<f64> {
        Some(self.rods.residual(q))
    }
}
impl Hessian<f64, 4> for DistanceForm {
    fn hessian(&self, q: &SVector<f64, 4>) -> SMatrix<f64, 4, 4> {
        self.ad.hessian(q)
    }
}
impl ThirdDerivative<f64, 4> for DistanceForm {
    fn third_contraction(&self, q: &SVector<f64, 4>, a: &SVector<f64, 4>) -> SVector<f64, 4> {
        self.ad.third_contraction(q, a)
    }
}

/// The squared-distance penalty with a Gauss–Newton matrix (remedy c): energy, gradient and
/// residual exact; `hessian = ω² JᵀJ`; `third_contraction` = the derivative of that matrix,
/// `2ω² Aᵀ(J a)` (or the exact `V‴` when `exact_third`, the non-variational control).
#[derive(Clone, Copy, Debug)]
pub struct GaussNewton {
    pen: GravityPenalty<f64, 4, 2>,
    rods: PlanarDistances<f64, 4, 2>,
    omega2: f64,
    exact_third: bool,
}

impl GaussNewton {
    /// The seed's double pendulum at penalty frequency ω.
    pub fn paper(omega: f64, exact_third: bool) -> System<f64, Self, 4> {
        let dp = DoublePendulum::<f64>::paper();
        let pen = dp.penalised(omega).expect("valid omega");
        System::new(
            pen.mass,
            Self {
                pen: pen.potential,
                rods: dp.constraint(),
                omega2: omega * omega,
                exact_third,
            },
        )
    }
}

impl Potential<f64, 4> for GaussNewton {
    fn energy(&self, q: &SVector<f64, 4>) -> f64 {
        Potential::energy(&self.pen, q)
    }
    fn gradient(&self, q: &SVector<f64, 4>) -> SVector<f64, 4> {
        self.pen.gradient(q)
    }
    fn constraint_residual(&self, q: &SVector<f64, 4>) -> Option<f64> {
        self.pen.constraint_residual(q)
    }
}
impl Hessian<f64, 4> for GaussNewton {
    fn hessian(&self, q: &SVector<f64, 4>) -> SMatrix<f64, 4, 4> {
        let j = self.rods.jacobian(q);
        j.tr_mul(&j) * self.omega2
    }
}
impl ThirdDerivative<f64, 4> for GaussNewton {
    fn third_contraction(&self, q: &SVector<f64, 4>, a: &SVector<f64, 4>) -> SVector<f64, 4> {
        if self.exact_third {
            return self.pen.third_contraction(q, a);
        }
        let ja = self.rods.jacobian(q) * a;
        self.rods.hessian_times(q, a).tr_mul(&ja) * (2.0 * self.omega2)
    }
}
