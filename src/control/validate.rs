//! The input checks of LQR and the filter.

use super::ControlError;
use crate::linalg::symmetric_eigen_in_place;
use crate::Real;
use nalgebra::SMatrix;

/// Every entry finite.
pub(super) fn finite<T: Real, const R: usize, const C: usize>(
    m: &SMatrix<T, R, C>,
    name: &'static str,
) -> Result<(), ControlError> {
    if m.iter().all(|x| x.finite()) {
        Ok(())
    } else {
        Err(ControlError::NonFinite { name })
    }
}

/// `N·ε` times `scale`, the tolerance of the symmetry and definiteness checks.
fn tol<T: Real>(n: usize, scale: T) -> T {
    crate::linalg::pivot_floor(n.max(1), scale)
}

/// Finite, symmetric, and its smallest eigenvalue `> floor` (`strict`) or `≥ −floor`, with
/// `floor = N·ε·max|λ|`. Not inlined: the eigenvalue check's matrices stay out of its callers'
/// frames (a device's stack budget).
#[inline(never)]
pub(super) fn symmetric<T: Real, const N: usize>(
    m: &SMatrix<T, N, N>,
    name: &'static str,
    strict: bool,
) -> Result<(), ControlError> {
    finite(m, name)?;
    let scale = m.amax();
    // `max |m − mᵀ|` entry by entry, and the eigenvalues on the diagonal of `work`: no matrix
    // temporaries beyond the decomposition's two.
    let mut asym = T::zero();
    for j in 0..N {
        for i in 0..N {
            asym = asym.max((m[(i, j)] - m[(j, i)]).abs());
        }
    }
    if asym > tol(N, scale) {
        return Err(ControlError::NotSymmetric { name });
    }
    let (mut work, mut vectors) = (SMatrix::<T, N, N>::zeros(), SMatrix::<T, N, N>::zeros());
    if symmetric_eigen_in_place(m, &mut work, &mut vectors).is_none() {
        return Err(if strict {
            ControlError::NotPositiveDefinite { name }
        } else {
            ControlError::NotPsd { name }
        });
    }
    let values = work.diagonal();
    let max = values.amax();
    let min = values.min();
    let floor = tol(N, max);
    if strict && min.partial_cmp(&floor) != Some(core::cmp::Ordering::Greater) {
        Err(ControlError::NotPositiveDefinite { name })
    } else if !strict && min < -floor {
        Err(ControlError::NotPsd { name })
    } else {
        Ok(())
    }
}

/// `m⁻¹ b` for a small square `m` by LU with partial pivoting ([`solve_in_place`] on copies).
///
/// # Errors
/// [`ControlError::Singular`] when a pivot is below `N·ε·max|pivot|`.
pub(super) fn solve<T: Real, const N: usize, const C: usize>(
    m: &SMatrix<T, N, N>,
    b: &SMatrix<T, N, C>,
) -> Result<SMatrix<T, N, C>, ControlError> {
    let (mut lu, mut x) = (*m, *b);
    solve_in_place(&mut lu, &mut x, &mut SMatrix::<T, N, 0>::zeros())?;
    Ok(x)
}

/// `x ← m⁻¹ x` and `y ← m⁻¹ y` by one LU factorisation with partial pivoting of `m`, in place:
/// `m` is left holding the factors. Each right-hand column sees the operations [`solve`] applies
/// to it, in the same order (the two blocks are one right-hand side `[x y]`), so the results are
/// [`solve`]'s bit for bit, without a copy of `m` or of a right-hand side on the stack.
///
/// Entries go through the column arrays (`a[j][i]` is `m[(i, j)]`) indexed by loop counters, the
/// pivot row only through [`swap_entries`]: no bounds-check panic branch (the firmware links it
/// with `panic_never!()`).
///
/// # Errors
/// [`ControlError::Singular`] when a pivot is below `N·ε·max|pivot|` or a result is not finite;
/// `m`, `x` and `y` are then unspecified.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub(super) fn solve_in_place<T: Real, const N: usize, const C: usize, const D: usize>(
    m: &mut SMatrix<T, N, N>,
    x: &mut SMatrix<T, N, C>,
    y: &mut SMatrix<T, N, D>,
) -> Result<(), ControlError> {
    let lu = &mut m.data.0;
    let (xc, yc) = (&mut x.data.0, &mut y.data.0);
    let mut max = T::zero();
    for k in 0..N {
        let (mut p, mut best) = (k, lu[k][k].abs());
        for i in (k + 1)..N {
            let v = lu[k][i].abs();
            if v > best {
                (p, best) = (i, v);
            }
        }
        for column in lu.iter_mut() {
            swap_entries(column, p, k);
        }
        for column in xc.iter_mut().chain(yc.iter_mut()) {
            swap_entries(column, p, k);
        }
        let d = lu[k][k];
        if !(d != T::zero() && d.finite()) {
            return Err(ControlError::Singular);
        }
        max = max.max(d.abs());
        for i in (k + 1)..N {
            let l = lu[k][i] / d;
            for j in k..N {
                let u = lu[j][k];
                lu[j][i] -= l * u;
            }
            for column in xc.iter_mut().chain(yc.iter_mut()) {
                let u = column[k];
                column[i] -= l * u;
            }
        }
    }
    let floor = tol(N, max);
    for k in (0..N).rev() {
        let d = lu[k][k];
        if d.abs() <= floor {
            return Err(ControlError::Singular);
        }
        for column in xc.iter_mut().chain(yc.iter_mut()) {
            let mut s = column[k];
            for j in (k + 1)..N {
                s -= lu[j][k] * column[j];
            }
            column[k] = s / d;
        }
    }
    if x.iter().chain(y.iter()).all(|v| v.finite()) {
        Ok(())
    } else {
        Err(ControlError::Singular)
    }
}

/// Swaps entries `i` and `j`; nothing if either is out of range (a pivot row never is).
#[inline]
fn swap_entries<T>(v: &mut [T], i: usize, j: usize) {
    if i < v.len() && j < v.len() {
        v.swap(i, j);
    }
}

/// Positive semidefinite to round-off, by a symmetric `LDLᵀ` elimination without pivoting: every
/// pivot `≥ −S·ε·max Pᵢᵢ`; a pivot within that floor of zero eliminates nothing, and its column
/// must then be round-off too (`|Pⱼₖ| ≤ 2√(floor·Pⱼⱼ)`, the bound `Pⱼₖ² ≤ PⱼⱼPₖₖ` of a
/// semidefinite matrix). `O(S³/6)` multiply-adds, no eigenvalues: cheap enough
/// for every filter update on a device. Indefiniteness shows as a negative pivot (Sylvester's
/// law of inertia).
#[allow(clippy::needless_range_loop)] // entries of the column arrays by loop counters
pub(super) fn psd_pivots<T: Real, const S: usize>(p: &SMatrix<T, S, S>) -> bool {
    let mut a = p.data.0;
    let mut max = T::zero();
    for k in 0..S {
        max = max.max(a[k][k].abs());
    }
    let floor = tol(S, max);
    for k in 0..S {
        let d = a[k][k];
        if d < -floor {
            return false;
        }
        if d <= floor {
            let root = floor.sqrt();
            for j in (k + 1)..S {
                let bound = (root + root) * a[j][j].max(T::zero()).sqrt();
                if a[k][j].abs() > bound {
                    return false;
                }
            }
            continue;
        }
        for j in (k + 1)..S {
            let l = a[k][j] / d;
            for i in j..S {
                a[j][i] -= l * a[k][i];
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::psd_pivots;
    use nalgebra::{matrix, Matrix3};

    #[test]
    fn psd_pivots_tells_semidefinite_from_indefinite() {
        assert!(psd_pivots(&Matrix3::<f64>::identity()));
        // rank one, semidefinite
        assert!(psd_pivots(&matrix![1.0, 1.0; 1.0, 1.0]));
        assert!(psd_pivots(&matrix![0.0, 0.0; 0.0, 2.0]));
        // eigenvalues 3 and −1
        assert!(!psd_pivots(&matrix![1.0, 2.0; 2.0, 1.0]));
        // a zero pivot with a coupling: eigenvalues ±1
        assert!(!psd_pivots(&matrix![0.0, 1.0; 1.0, 0.0]));
        // at the top of the range: eigenvalues 3e300 and −1e300, then 1.5e300 and 0.5e300
        let big = 1e300;
        assert!(!psd_pivots(&matrix![big, 2.0 * big; 2.0 * big, big]));
        assert!(psd_pivots(&matrix![big, 0.5 * big; 0.5 * big, big]));
        // a unit block beside 1e300 is judged at the matrix's scale: round-off, not indefinite
        assert!(psd_pivots(
            &matrix![big, 0.0, 0.0; 0.0, 1.0, 2.0; 0.0, 2.0, 1.0]
        ));
        // indefinite in the last pivot only
        assert!(!psd_pivots(
            &matrix![4.0, 0.0, 0.0; 0.0, 1.0, 2.0; 0.0, 2.0, 1.0]
        ));
        // f32, a negative eigenvalue of 1e-3 against 1
        assert!(!psd_pivots(&matrix![1.0f32, 0.0; 0.0, -1e-3]));
    }
}
