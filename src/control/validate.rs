//! The input checks of LQR and the filter.

use super::ControlError;
use crate::linalg::symmetric_eigen;
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
    if (m - m.transpose()).amax() > tol(N, scale) {
        return Err(ControlError::NotSymmetric { name });
    }
    let Some(eig) = symmetric_eigen(m) else {
        return Err(if strict {
            ControlError::NotPositiveDefinite { name }
        } else {
            ControlError::NotPsd { name }
        });
    };
    let max = eig.values.amax();
    let min = eig.values.min();
    let floor = tol(N, max);
    if strict && min.partial_cmp(&floor) != Some(core::cmp::Ordering::Greater) {
        Err(ControlError::NotPositiveDefinite { name })
    } else if !strict && min < -floor {
        Err(ControlError::NotPsd { name })
    } else {
        Ok(())
    }
}

/// `m⁻¹ b` for a small square `m` by LU with partial pivoting.
///
/// Entries go through the column arrays (`a[j][i]` is `m[(i, j)]`) indexed by loop counters, the
/// pivot row only through [`swap_entries`]: no bounds-check panic branch (the firmware links it
/// with `panic_never!()`).
///
/// # Errors
/// [`ControlError::Singular`] when a pivot is below `N·ε·max|pivot|`.
#[allow(clippy::needless_range_loop)]
pub(super) fn solve<T: Real, const N: usize, const C: usize>(
    m: &SMatrix<T, N, N>,
    b: &SMatrix<T, N, C>,
) -> Result<SMatrix<T, N, C>, ControlError> {
    let (mut lu_m, mut x_m) = (*m, *b);
    let (lu, x) = (&mut lu_m.data.0, &mut x_m.data.0);
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
        for column in x.iter_mut() {
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
            for c in 0..C {
                let u = x[c][k];
                x[c][i] -= l * u;
            }
        }
    }
    let floor = tol(N, max);
    for k in (0..N).rev() {
        let d = lu[k][k];
        if d.abs() <= floor {
            return Err(ControlError::Singular);
        }
        for c in 0..C {
            let mut s = x[c][k];
            for j in (k + 1)..N {
                s -= lu[j][k] * x[c][j];
            }
            x[c][k] = s / d;
        }
    }
    if x_m.iter().all(|v| v.finite()) {
        Ok(x_m)
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
