//! The symmetric positive definite solve of the dense strategy for `N = 4`, by `2×2` blocks.
//!
//! `A = [[P, Qᵀ], [Q, R]]` with `2×2` blocks: `P⁻¹` and the Schur complement
//! `S = R − Q P⁻¹ Qᵀ` are inverted through their determinants, so the factorisation has two
//! dependent divisions where `LDLᵀ` has four (and ten in all), and a step of a linearly implicit
//! integrator on a 4-coordinate model (the double pendulum) waits on fewer of them. Block
//! elimination is `LDLᵀ` with `2×2` pivots: for a positive definite `A` both pivots `P` and `S`
//! are positive definite and the result agrees with [`solve_symmetric`](super::solve_symmetric)
//! to rounding (relative `≈ κ(A)·ε`).

use super::{all_finite, pivot_floor, zero_if_finite};
use crate::{Real, StepError};
use nalgebra::{SMatrix, SVector};

/// Whether `x` is positive and finite (a NaN fails `x > 0`, an infinity `x − x = 0`).
#[inline(always)]
fn positive<T: Real>(x: T) -> bool {
    x > T::zero() && zero_if_finite(x) == T::zero()
}

/// Solves `A x = b` for a symmetric positive definite `4×4` `A` (lower triangle read; `A` is not
/// written), `x` holding `b` on entry. `Ok(true)` with the solution in `x`; `Ok(false)` with `x`
/// and `A` untouched when `N ≠ 4` or `A` is not positive definite (a pivot of the block
/// factorisation — `a₀₀`, `det P`, `s₀₀`, `det S` — not positive and finite): the caller then
/// solves with [`solve_symmetric_in_place`](super::solve_symmetric_in_place), which falls back
/// to LU.
///
/// The singularity test is `LDLᵀ`'s on the same pivots: the pivots of `A = L D Lᵀ` are
/// `D = (a₀₀, det P / a₀₀, s₀₀, det S / s₀₀)`, and `Dⱼ ≤ 4ε·max D` is [`StepError::Singular`].
///
/// # Errors
/// [`StepError::Singular`] as above; [`StepError::NonFiniteResult`] when the solution is not
/// finite.
#[inline]
pub(crate) fn spd4_solve_in_place<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<bool, StepError> {
    if N != 4 {
        return Ok(false);
    }
    // Column-major, m[j][i] = A[i, j]; the lower triangle (i ≥ j).
    let m = &a.data.0;
    let (a00, a10, a11) = (m[0][0], m[0][1], m[1][1]);
    let (a20, a21, a30, a31) = (m[0][2], m[1][2], m[0][3], m[1][3]);
    let (a22, a32, a33) = (m[2][2], m[2][3], m[3][3]);
    // P⁻¹ = adj(P) / det P.
    let det_p = a00 * a11 - a10 * a10;
    if !(positive(a00) && positive(det_p)) {
        return Ok(false);
    }
    let inv_p = T::one() / det_p;
    // W = Q P⁻¹ (rows 2, 3), formed as (Q adj P) / det P.
    let w00 = (a20 * a11 - a21 * a10) * inv_p;
    let w01 = (a21 * a00 - a20 * a10) * inv_p;
    let w10 = (a30 * a11 - a31 * a10) * inv_p;
    let w11 = (a31 * a00 - a30 * a10) * inv_p;
    // S = R − W Qᵀ (its lower triangle).
    let s00 = a22 - (w00 * a20 + w01 * a21);
    let s10 = a32 - (w10 * a20 + w11 * a21);
    let s11 = a33 - (w10 * a30 + w11 * a31);
    let det_s = s00 * s11 - s10 * s10;
    if !(positive(s00) && positive(det_s)) {
        return Ok(false);
    }
    // LDLᵀ's singularity test on the pivots D = (a₀₀, det P / a₀₀, s₀₀, det S / s₀₀).
    let d = [a00, det_p / a00, s00, det_s / s00];
    let mut max = T::zero();
    for &dj in &d {
        if dj > max {
            max = dj;
        }
    }
    let floor = pivot_floor(4, max);
    let mut singular = false;
    for &dj in &d {
        singular |= dj <= floor;
    }
    if singular {
        return Err(StepError::Singular);
    }
    let y = &mut x.data.0[0];
    let (b0, b1, b2, b3) = (y[0], y[1], y[2], y[3]);
    // z = P⁻¹ b₀₁, then x₂₃ = S⁻¹ (b₂₃ − W b₀₁) and x₀₁ = z − Wᵀ x₂₃.
    let z0 = (a11 * b0 - a10 * b1) * inv_p;
    let z1 = (a00 * b1 - a10 * b0) * inv_p;
    let r2 = b2 - (w00 * b0 + w01 * b1);
    let r3 = b3 - (w10 * b0 + w11 * b1);
    let inv_s = T::one() / det_s;
    let x2 = (s11 * r2 - s10 * r3) * inv_s;
    let x3 = (s00 * r3 - s10 * r2) * inv_s;
    y[0] = z0 - (w00 * x2 + w10 * x3);
    y[1] = z1 - (w01 * x2 + w11 * x3);
    y[2] = x2;
    y[3] = x3;
    if all_finite(&y[..]) {
        Ok(true)
    } else {
        Err(StepError::NonFiniteResult)
    }
}
