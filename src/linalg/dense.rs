//! Dense symmetric solve: `LDLᵀ` (square-root-free Cholesky), LU fallback, typed error when
//! singular.

// Plain index loops over the const sizes, deliberately: they mirror the formulas and compile to
// straight-line code at opt-level "s" (iterator adapters there stay out of line).
#![allow(clippy::needless_range_loop)]

use super::{all_finite, each, pivot_floor, zero_if_finite, ShiftedSolve};
use crate::model::{Hessian, Mass, Measured};
use crate::{Real, StepError};
use nalgebra::{SMatrix, SVector};

/// Solves `A x = b` for a symmetric `A`: `LDLᵀ` (square-root-free Cholesky) when `A` is
/// positive definite, otherwise LU with partial pivoting.
///
/// # Errors
/// [`StepError::Singular`] when a pivot of the factorisation is below `N·ε·max|pivot|` (or
/// the matrix holds a NaN or an infinity), [`StepError::NonFiniteResult`] when the solution is
/// not finite.
pub fn solve_symmetric<T: Real, const N: usize>(
    mut a: SMatrix<T, N, N>,
    b: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    let mut x = *b;
    solve_symmetric_in_place(&mut a, &mut x)?;
    Ok(x)
}

/// [`solve_symmetric`] in place: `x` holds `b` on entry and the solution on success; `a` is
/// overwritten (its factors). On error `x` is unspecified.
///
/// The positive definite path is `A = L D Lᵀ` with unit lower `L` and `D > 0`: the pivots `Dⱼ`
/// are exactly the squares of Cholesky's, so definiteness and the singularity test
/// (`Dⱼ ≤ N·ε·max D`) are those of Cholesky, without its `N` square roots (a software routine on
/// FPUs without one, e.g. the Cortex-M4F). It reads the lower triangle and keeps the strict
/// upper one, so an indefinite matrix is restored for the LU fallback without a copy.
///
/// # Errors
/// As [`solve_symmetric`].
pub(crate) fn solve_symmetric_in_place<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    solve_symmetric_kind(a, x).map(|_| ())
}

/// [`solve_symmetric_in_place`], returning `true` when `a` holds the `LDLᵀ` factors (positive
/// definite path) and `false` when it went through the LU fallback (`a` then holds LU factors
/// without the row permutation: not reusable).
#[inline]
pub(crate) fn solve_symmetric_kind<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<bool, StepError> {
    let ldlt = match ldlt_in_place(a) {
        Ok(()) => {
            ldlt_solve(a, x)?;
            true
        }
        Err(diag) => {
            // Not positive definite: restore A from its strict upper triangle and diagonal.
            let m = &mut a.data.0;
            for j in 0..N {
                m[j][j] = diag[j];
                for i in (j + 1)..N {
                    // Column-major: m[j][i] = A[i, j] (lower), m[i][j] = A[j, i] (upper).
                    m[j][i] = m[i][j];
                }
            }
            lu_solve(a, x)?;
            false
        }
    };
    if all_finite(x.as_slice()) {
        Ok(ldlt)
    } else {
        Err(StepError::NonFiniteResult)
    }
}

/// `A = L D Lᵀ` in place (lower triangle read; `L` stored below the diagonal, `D` on it; the
/// strict upper triangle untouched). `Err(diagonal of A)` when a pivot is not positive and finite
/// (`A` is not positive definite, or holds a NaN/infinity below the diagonal).
/// `Ok` with a numerically singular `A` (`Dⱼ ≤ N·ε·max D`) is reported by `ldlt_solve`.
#[inline]
fn ldlt_in_place<T: Real, const N: usize>(a: &mut SMatrix<T, N, N>) -> Result<(), [T; N]> {
    let m = &mut a.data.0;
    let mut diag = [T::zero(); N];
    each(N, |j| diag[j] = m[j][j]);
    // Row j: v[k] = L[j,k]·D[k] for k < j, then L[j,k] = v[k]/D[k], D[j] = A[j,j] − Σ v[k] L[j,k].
    let mut v = [T::zero(); N];
    let mut definite = true;
    each(N, |j| {
        if !definite {
            return;
        }
        let mut dj = m[j][j];
        each(j, |k| {
            let mut s = m[k][j];
            each(k, |p| s -= v[p] * m[p][k]);
            v[k] = s;
            let l = s / m[k][k];
            m[k][j] = l;
            dj -= s * l;
        });
        // A NaN pivot fails `dj > 0`; an infinite one fails `dj − dj = 0` (it is NaN).
        if !(dj > T::zero() && zero_if_finite(dj) == T::zero()) {
            definite = false;
            return;
        }
        m[j][j] = dj;
    });
    if definite {
        Ok(())
    } else {
        Err(diag)
    }
}

/// Solves `L D Lᵀ x = b` with the factors of [`ldlt_in_place`], `x` holding `b` on entry.
///
/// # Errors
/// [`StepError::Singular`] when a pivot `Dⱼ ≤ N·ε·max D` (Cholesky's test on its squared pivots).
#[inline]
pub(super) fn ldlt_solve<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    let m = &a.data.0;
    let mut max = T::zero();
    each(N, |j| {
        if m[j][j] > max {
            max = m[j][j];
        }
    });
    let floor = pivot_floor(N, max);
    let mut singular = false;
    each(N, |j| singular |= m[j][j] <= floor);
    if singular {
        return Err(StepError::Singular);
    }
    ldlt_substitute(a, x);
    Ok(())
}

/// The substitutions of [`ldlt_solve`] without its pivot test: for factors that passed it
/// already (factors kept from an earlier [`ldlt_solve`]).
#[inline]
pub(super) fn ldlt_substitute<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) {
    let m = &a.data.0;
    let x = &mut x.data.0[0];
    each(N, |i| {
        let mut s = x[i];
        each(i, |k| s -= m[k][i] * x[k]);
        x[i] = s;
    });
    each(N, |i| x[i] /= m[i][i]);
    each(N, |r| {
        let i = N - 1 - r;
        let mut s = x[i];
        each(r, |t| {
            let k = i + 1 + t;
            s -= m[i][k] * x[k];
        });
        x[i] = s;
    });
}

/// LU with partial pivoting for the indefinite fallback: a matrix with a NaN or an infinity, or
/// all zeros, is [`StepError::Singular`]; so is a pivot `≤ N·ε·max|aᵢⱼ|`.
fn lu_solve<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    if !all_finite(a.as_slice()) {
        return Err(StepError::Singular);
    }
    let scale = a.amax();
    if scale == T::zero() {
        return Err(StepError::Singular);
    }
    lu_solve_in_place(a, x, pivot_floor(N, scale))
}

/// Solves `a x = b` by LU with partial pivoting, in place (`x` holds `b` on entry), written out
/// because nalgebra's `LU` needs `typenum` bounds that a const-generic `N` cannot name. Shared by
/// the dense fallback and the constrained methods' `D × D` multiplier solves.
///
/// # Errors
/// [`StepError::Singular`] when the largest candidate pivot of a column is `≤ floor` or not
/// finite. The caller checks its input for NaN/∞ (and picks the error it reports).
pub(crate) fn lu_solve_in_place<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
    floor: T,
) -> Result<(), StepError> {
    // Column-major storage, m[j][i] = A[i, j]: fixed-size arrays indexed by the loop counters,
    // so every access is provably in range; the pivot row `p` (a data-dependent index) is only
    // used through `swap_entries`.
    let m = &mut a.data.0;
    let y = &mut x.data.0[0];
    for k in 0..N {
        let mut p = k;
        let mut best = m[k][k].abs();
        for i in (k + 1)..N {
            let v = m[k][i].abs();
            if v > best {
                p = i;
                best = v;
            }
        }
        if best <= floor || !best.finite() {
            return Err(StepError::Singular);
        }
        if p != k {
            for column in m.iter_mut() {
                swap_entries(column, p, k);
            }
            swap_entries(y, p, k);
        }
        let piv = m[k][k];
        for i in (k + 1)..N {
            let f = m[k][i] / piv;
            if f != T::zero() {
                for j in (k + 1)..N {
                    let akj = m[j][k];
                    m[j][i] -= f * akj;
                }
                let yk = y[k];
                y[i] -= f * yk;
            }
        }
    }
    for i in (0..N).rev() {
        let mut s = y[i];
        for j in (i + 1)..N {
            s -= m[j][i] * y[j];
        }
        y[i] = s / m[i][i];
    }
    Ok(())
}

/// Swaps entries `i` and `j`; nothing if either is out of range (a pivot row never is).
#[inline]
fn swap_entries<T>(v: &mut [T], i: usize, j: usize) {
    if i < v.len() && j < v.len() {
        v.swap(i, j);
    }
}

/// The dense strategy: forms `M + c·Hess V(q)` (`N×N`) and solves it, for `N = 4` in `f64` by
/// `2×2` blocks when it is clearly positive definite, otherwise by [`solve_symmetric`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dense;

impl<T: Real, const N: usize> ShiftedSolve<T, N> for Dense {
    #[inline]
    fn solve_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<(), StepError> {
        let mut a = SMatrix::zeros();
        mass.add_to(&mut a);
        potential.add_hessian(q, c, &mut a);
        super::solve_dense_in_place(&mut a, x)
    }

    /// The gradient and the matrix in one pass ([`Hessian::gradient_add_hessian`]); for
    /// `N = 4` a positive definite matrix is solved by `2×2` blocks (two dependent divisions
    /// instead of `LDLᵀ`'s four; the same solution to rounding), anything else as
    /// [`solve_symmetric`].
    #[inline]
    fn solve_force_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<Option<Measured<T>>, StepError> {
        let mut a = SMatrix::zeros();
        mass.add_to(&mut a);
        let measured = potential.gradient_add_hessian(q, c, x, &mut a);
        for i in 0..N {
            x[i] = -x[i];
        }
        super::solve_dense_in_place(&mut a, x)?;
        Ok(measured)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector};

    #[test]
    fn spd_indefinite_and_singular() {
        let b = vector![1.0, 2.0];
        let spd = matrix![4.0, 1.0; 1.0, 3.0];
        let x = solve_symmetric(spd, &b).unwrap();
        assert!((spd * x - b).amax() < 1e-14);
        let indef = matrix![1.0, 2.0; 2.0, -1.0];
        let x = solve_symmetric(indef, &b).unwrap();
        assert!((indef * x - b).amax() < 1e-14);
        let sing = matrix![1.0, 2.0; 2.0, 4.0];
        assert_eq!(solve_symmetric(sing, &b), Err(StepError::Singular));
        let zero = SMatrix::<f64, 2, 2>::zeros();
        assert_eq!(solve_symmetric(zero, &b), Err(StepError::Singular));
        let nan = matrix![f64::NAN, 0.0; 0.0, 1.0];
        assert_eq!(solve_symmetric(nan, &b), Err(StepError::Singular));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let off = matrix![2.0, bad; bad, 3.0];
            assert_eq!(solve_symmetric(off, &b), Err(StepError::Singular));
            let diag = matrix![2.0, 0.5; 0.5, bad];
            assert_eq!(solve_symmetric(diag, &b), Err(StepError::Singular));
        }
    }

    /// Positive definite but numerically singular (last pivot `2ε ≤ N·ε·max D`): `Singular`.
    #[test]
    fn spd_numerically_singular() {
        let b = vector![1.0, 2.0];
        let a = matrix![1.0, 1.0; 1.0, 1.0 + 2.0 * f64::EPSILON];
        assert!(a[(1, 1)] > 1.0);
        assert_eq!(solve_symmetric(a, &b), Err(StepError::Singular));
        let a32 = matrix![1.0f32, 1.0; 1.0, 1.0 + 1e-9];
        assert_eq!(
            solve_symmetric(a32, &vector![1.0, 2.0]),
            Err(StepError::Singular)
        );
    }

    /// An indefinite matrix whose `LDLᵀ` fails only at the last pivot (after the lower triangle
    /// has been overwritten): the LU fallback must see the original matrix again.
    #[test]
    fn indefinite_at_last_pivot_restores_the_matrix() {
        let a = matrix![4.0, 1.0, 2.0; 1.0, 3.0, 1.0; 2.0, 1.0, -5.0];
        let b = vector![1.0, -2.0, 0.5];
        let x = solve_symmetric(a, &b).unwrap();
        assert!((a * x - b).amax() < 1e-14, "{}", (a * x - b).amax());
        // f32 too, against the f64 solution.
        let x32 = solve_symmetric(a.cast::<f32>(), &b.cast::<f32>()).unwrap();
        assert!((x32.cast::<f64>() - x).amax() < 1e-6);
        // And an SPD 4×4 through LDLᵀ.
        let spd = matrix![
            5.0, 1.0, 0.5, 0.2;
            1.0, 4.0, 1.0, 0.3;
            0.5, 1.0, 3.0, 0.4;
            0.2, 0.3, 0.4, 2.0
        ];
        let b4 = vector![1.0, 2.0, 3.0, 4.0];
        let x4 = solve_symmetric(spd, &b4).unwrap();
        assert!((spd * x4 - b4).amax() < 1e-14);
    }
}
