//! Discrete-time LQR by the structure-preserving doubling iteration on the Riccati equation.

use super::validate::{finite, solve, symmetric};
use super::ControlError;
use crate::{ConfigError, Real};
use nalgebra::SMatrix;

/// The controls of the Riccati iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RiccatiParams<T> {
    /// The iteration cap, `≥ 1`. Default 64: the `k`-th iterate solves the `2ᵏ`-step horizon, so
    /// 64 iterations reach any horizon a discretised plant can need.
    pub max_iter: u32,
    /// Relative change `‖Pₖ₊₁ − Pₖ‖max ≤ tol·‖Pₖ₊₁‖max` at which the iteration stops, `> 0`.
    /// Default `√ε`: the convergence is quadratic, so the iterate is then accurate to about `ε`.
    pub tol: T,
}

impl<T: Real> Default for RiccatiParams<T> {
    fn default() -> Self {
        Self {
            max_iter: 64,
            tol: T::default_epsilon().sqrt(),
        }
    }
}

impl<T: Real> RiccatiParams<T> {
    /// Checks the controls and returns them.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] for `"max_iter"` (`0`); [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"tol"` (`≤ 0`).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        crate::validate::check_count(self.max_iter, "max_iter")?;
        crate::validate::check_positive(self.tol, "tol")?;
        Ok(*self)
    }
}

/// An LQR solution: the gain and the cost-to-go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lqr<T: Real, const S: usize, const U: usize> {
    /// The gain `K` of `u = −K x`.
    pub k: SMatrix<T, U, S>,
    /// The stabilising solution `P` of the Riccati equation (`xᵀPx` is the optimal cost).
    pub p: SMatrix<T, S, S>,
    /// The doubling iterations used.
    pub iterations: u32,
}

/// The infinite-horizon discrete LQR gain for `x⁺ = A x + B u`, cost `Σ xᵀQx + uᵀRu`:
/// `K = (R + BᵀPB)⁻¹ BᵀPA` with `P` the stabilising solution of
/// `P = Q + AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA`.
///
/// `P` comes from the structure-preserving doubling algorithm (Chu, Fan, Lin, Wang 2004):
/// `A₀ = A`, `G₀ = B R⁻¹ Bᵀ`, `H₀ = Q`, and with `W = I + Gₖ Hₖ`,
///
/// ```text
/// Aₖ₊₁ = Aₖ W⁻¹ Aₖ,   Gₖ₊₁ = Gₖ + Aₖ W⁻¹ Gₖ Aₖᵀ,   Hₖ₊₁ = Hₖ + Aₖᵀ Hₖ W⁻¹ Aₖ,
/// ```
///
/// `Hₖ` being the Riccati iterate of horizon `2ᵏ` (quadratic convergence). Cost per iteration
/// two `S × S` LU solves and six `S × S` products; at most [`RiccatiParams::max_iter`]
/// iterations. The closed loop `A − BK` is then checked stable (its powers `(A − BK)^(2ᵏ)`
/// vanish).
///
/// # Errors
/// [`ControlError::Config`] for bad `params`; [`ControlError::NonFinite`] for `A`, `B`;
/// [`ControlError::NotSymmetric`] / [`ControlError::NotPsd`] for `Q`,
/// [`ControlError::NotSymmetric`] / [`ControlError::NotPositiveDefinite`] for `R`;
/// [`ControlError::Unstabilizable`] when the iterates overflow or the loop is not stable;
/// [`ControlError::NotConverged`] at the cap; [`ControlError::Singular`].
pub fn lqr<T: Real, const S: usize, const U: usize>(
    a: &SMatrix<T, S, S>,
    b: &SMatrix<T, S, U>,
    q: &SMatrix<T, S, S>,
    r: &SMatrix<T, U, U>,
    params: &RiccatiParams<T>,
) -> Result<Lqr<T, S, U>, ControlError> {
    let params = params.validate().map_err(ControlError::Config)?;
    finite(a, "A")?;
    finite(b, "B")?;
    symmetric(q, "Q", false)?;
    symmetric(r, "R", true)?;
    let half = T::lit(0.5);
    let sym = |m: SMatrix<T, S, S>| m * half + m.transpose() * half;
    let g = sym(b * solve(r, &b.transpose())?);
    let (mut ak, mut gk, mut hk) = (*a, g, sym(*q));
    let i = SMatrix::<T, S, S>::identity();
    for it in 1..=params.max_iter {
        let w = i + gk * hk;
        let (wa, wg) = match (solve(&w, &ak), solve(&w, &gk)) {
            (Ok(wa), Ok(wg)) => (wa, wg),
            _ => return Err(ControlError::Unstabilizable),
        };
        let h1 = sym(hk + ak.transpose() * hk * wa);
        let g1 = sym(gk + ak * wg * ak.transpose());
        let a1 = ak * wa;
        if finite(&h1, "P").is_err() || finite(&a1, "A").is_err() || finite(&g1, "G").is_err() {
            return Err(ControlError::Unstabilizable);
        }
        let done = (h1 - hk).amax() <= params.tol * h1.amax();
        (ak, gk, hk) = (a1, g1, h1);
        if done {
            return finish(a, b, r, hk, it);
        }
    }
    Err(ControlError::NotConverged)
}

/// The gain from the converged `P`, and the stability check of the closed loop.
fn finish<T: Real, const S: usize, const U: usize>(
    a: &SMatrix<T, S, S>,
    b: &SMatrix<T, S, U>,
    r: &SMatrix<T, U, U>,
    p: SMatrix<T, S, S>,
    iterations: u32,
) -> Result<Lqr<T, S, U>, ControlError> {
    let btp = b.transpose() * p;
    let k = solve(&(r + btp * b), &(btp * a))?;
    finite(&k, "K")?;
    // ρ(A − BK) < 1 iff (A − BK)^(2ᵐ) → 0: 64 squarings reach 2⁶⁴ steps.
    let mut m = a - b * k;
    for _ in 0..64 {
        if m.amax() < T::lit(1e-3) {
            return Ok(Lqr { k, p, iterations });
        }
        m = m * m;
        if !m.iter().all(|x| x.finite()) {
            break;
        }
    }
    Err(ControlError::Unstabilizable)
}
