//! Reaction forces: the generalised force each constraint exerts on the system.
//!
//! **Convention** (the crate's, [`crate::constrained`]): constrained dynamics are
//! `M q̈ = −∇V(q) + u + g'(q)ᵀλ`, so constraint `i` exerts the generalised force `λᵢ ∇gᵢ(q)`,
//! in the units of `∇V` (newtons on Cartesian coordinates); [`forces`] returns these as the
//! columns of an `N × D` matrix. `λᵢ` has the units of force divided by the units of `gᵢ` per
//! unit of `q`: for the squared-distance rods of [`crate::systems`] (`g = ‖d‖² − L²`,
//! `∇g = ±2d` on the two ends) the force on the far mass is `2λd`, the rod's tension is
//! `−2λL` (positive when the rod pulls), and a hanging pendulum has `λ < 0`.
//!
//! Where each method's `λ` comes from:
//! - [`Rattle`](crate::constrained::Rattle) and [`Shake`](crate::constrained::Shake):
//!   `reactions(q)` with the multiplier acting at the end of the last step (`λ⁽ᵛ⁾ₙ₊₁` for
//!   RATTLE, first order in `h`; `λₙ₊₁` for SHAKE, second order; 001 §4). The mean
//!   `½(λ⁽ᵛ⁾ₙ + λ⁽ʳ⁾ₙ)` over consecutive RATTLE steps is second order at `tₙ`.
//! - Penalty methods (any integrator of a [`Penalty`] potential): the penalty force
//!   `−ωᵢ² gᵢ ∇gᵢ` plays the part of `λᵢ∇gᵢ`, so [`penalty_multipliers`] gives the pointwise
//!   `λᵢ = −ωᵢ² gᵢ(q)`. It oscillates at the penalty frequency with an `O(1)` amplitude; its
//!   window average ([`MultiplierWindow`](crate::constrained::MultiplierWindow), 000 eq 1.8, the
//!   two-scale limit of Thm 1.3) converges to the rigid `λ` as `ω → ∞`. Feed either to
//!   [`forces`].
//! - [`Reich4`](crate::constrained::Reich4) reports none (its stage multipliers are not
//!   approximations of `λ(t)`); run RATTLE alongside, or a penalty window.

use crate::model::{Constraint, Penalty};
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// The generalised force of each constraint at `q` for multipliers `λ`: column `i` is
/// `λᵢ ∇gᵢ(q)`; the total constraint force is the sum of the columns, `g'(q)ᵀλ`.
///
/// ```
/// use macrostep::forcing::reaction;
/// use macrostep::model::Constraint;
/// use macrostep::systems::Pendulum;
/// use nalgebra::vector;
///
/// let p = Pendulum::<f64>::paper();
/// let q = p.initial_state().q;
/// let f = reaction::forces(&p.constraint(), &q, &vector![-0.5]);
/// let total = p.constraint().jacobian(&q).transpose() * vector![-0.5];
/// assert_eq!(f.column(0), total.column(0));
/// ```
pub fn forces<T: Real, G: Constraint<T, N, D>, const N: usize, const D: usize>(
    g: &G,
    q: &SVector<T, N>,
    lambda: &SVector<T, D>,
) -> SMatrix<T, N, D> {
    let j = g.jacobian(q);
    SMatrix::from_fn(|k, i| j[(i, k)] * lambda[i])
}

/// The pointwise multipliers of a penalty potential at `q`: `λᵢ = −ωᵢ² gᵢ(q)` (the penalty force
/// is `Σ λᵢ∇gᵢ`, same sign as RATTLE's `λ`). Average them over a window for the two-scale
/// estimate (000 eq 1.8).
///
/// ```
/// use macrostep::forcing::reaction;
/// use macrostep::systems::DoublePendulum;
///
/// let dp = DoublePendulum::<f64>::paper();
/// let pen = dp.penalised(20.0).unwrap().potential;
/// let q = dp.initial_state().q; // on the constraint (to roundoff): no penalty force
/// assert!(reaction::penalty_multipliers(&pen, &q).amax() < 1e-10); // ω² × roundoff
/// ```
pub fn penalty_multipliers<T: Real, V, G: Constraint<T, N, D>, const N: usize, const D: usize>(
    penalty: &Penalty<T, V, G, D>,
    q: &SVector<T, N>,
) -> SVector<T, D> {
    -penalty.omega2().component_mul(&penalty.constraint.value(q))
}
