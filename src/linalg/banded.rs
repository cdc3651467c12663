//! Symmetric banded solves in band storage: cost `O(N W²)` instead of `O(N³)`.
//!
//! Storage: `band[(d, j)] = A[j + d, j]` for `0 ≤ d < W` (the diagonal in row 0, the `d`-th
//! subdiagonal in row `d`; entries with `j + d ≥ N` are ignored). The half-bandwidth is `W − 1`:
//! a chain of planar pendula with 2×2 blocks coupling neighbours has `W = 4`.

// Plain index loops over the const sizes, deliberately: they mirror the formulas and compile to
// straight-line code at opt-level "s" (iterator adapters there stay out of line).
#![allow(clippy::needless_range_loop)]

use super::{all_finite, pivot_floor, ShiftedSolve};
use crate::model::{BandMut, Hessian, Mass};
use crate::{ConfigError, PreconditionKind, Real, StepError};
use nalgebra::{SMatrix, SVector};

#[inline]
fn lo(i: usize, w: usize) -> usize {
    (i + 1).saturating_sub(w)
}

/// Scale of the band for the singularity threshold: the largest diagonal magnitude.
fn diag_scale<T: Real, const W: usize, const N: usize>(band: &SMatrix<T, W, N>) -> T {
    let mut m = T::zero();
    for j in 0..N {
        m = m.max(band[(0, j)].abs());
    }
    m
}

/// Solves `A x = b` for a symmetric positive definite banded `A` by banded Cholesky.
///
/// Returns `None` when `A` is not (numerically) positive definite, so the caller can fall back
/// to [`band_ldlt_solve`].
pub fn band_cholesky_solve<T: Real, const W: usize, const N: usize>(
    band: &SMatrix<T, W, N>,
    b: &SVector<T, N>,
) -> Option<SVector<T, N>> {
    let floor = pivot_floor(N, diag_scale(band));
    let mut l = *band;
    for j in 0..N {
        let mut s = l[(0, j)];
        for k in lo(j, W)..j {
            let ljk = l[(j - k, k)];
            s -= ljk * ljk;
        }
        if s <= floor || !s.finite() {
            return None;
        }
        let d = s.sqrt();
        l[(0, j)] = d;
        for dd in 1..W {
            let i = j + dd;
            if i >= N {
                break;
            }
            let mut s = l[(dd, j)];
            for k in lo(i, W)..j {
                s -= l[(i - k, k)] * l[(j - k, k)];
            }
            l[(dd, j)] = s / d;
        }
    }
    let mut y = *b;
    for i in 0..N {
        let mut s = y[i];
        for k in lo(i, W)..i {
            s -= l[(i - k, k)] * y[k];
        }
        y[i] = s / l[(0, i)];
    }
    for i in (0..N).rev() {
        let mut s = y[i];
        for k in (i + 1)..N.min(i + W) {
            s -= l[(k - i, i)] * y[k];
        }
        y[i] = s / l[(0, i)];
    }
    Some(y)
}

/// Solves `A x = b` for a symmetric (possibly indefinite) banded `A` by banded `LDLᵀ` without
/// pivoting (pivoting would widen the band).
///
/// For a positive definite `A` the pivots `Dⱼ` are the squares of the Cholesky pivots, so this
/// is banded Cholesky without its `N` square roots.
///
/// # Errors
/// [`StepError::Singular`] when a pivot `|Dⱼ|` falls below `N·ε·max|Aᵢᵢ|`. Without pivoting a
/// strongly indefinite matrix can also be declared singular although it is not; the dense
/// strategy is the robust choice there.
pub fn band_ldlt_solve<T: Real, const W: usize, const N: usize>(
    band: &SMatrix<T, W, N>,
    b: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    let mut l = *band;
    let mut x = *b;
    band_ldlt_in_place(&mut l, &mut x)?;
    Ok(x)
}

/// [`band_ldlt_solve`] in place: `band` is overwritten by the factors (`D` in row 0, `L` below),
/// `x` holds `b` on entry and the solution on success.
///
/// Row by row: `vₖ = L[i,k]·Dₖ` for the `W − 1` columns `k < i` in the band, then
/// `L[i,k] = vₖ / Dₖ` and `Dᵢ = A[i,i] − Σ vₖ L[i,k]` (one multiplication per inner term).
fn band_ldlt_in_place<T: Real, const W: usize, const N: usize>(
    band: &mut SMatrix<T, W, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    let floor = pivot_floor(N, diag_scale(band));
    // l[j][d] = A[j + d, j]: column j of the band. The offsets into a band column (`i − k`) and
    // into `v` (`k − lo(i)`) are below `W` for every row, but the optimizer cannot see it
    // through `lo`: they go through `at` and `get_mut`, whose out-of-range case (zero, no
    // write) never happens. The column indices are loop counters below `N`.
    let l = &mut band.data.0;
    let mut v = [T::zero(); W];
    for i in 0..N {
        let lo_i = lo(i, W);
        let mut di = l[i][0];
        for k in lo_i..i {
            let mut s = at(&l[k], i - k);
            for p in lo_i..k {
                s -= at(&v, p - lo_i) * at(&l[p], k - p);
            }
            if let Some(e) = v.get_mut(k - lo_i) {
                *e = s;
            }
            let lik = s / l[k][0];
            if let Some(e) = l[k].get_mut(i - k) {
                *e = lik;
            }
            di -= s * lik;
        }
        if di.abs() <= floor || !di.finite() {
            return Err(StepError::Singular);
        }
        l[i][0] = di;
    }
    let y = &mut x.data.0[0];
    for i in 0..N {
        let mut s = y[i];
        for k in lo(i, W)..i {
            s -= at(&l[k], i - k) * y[k];
        }
        y[i] = s;
    }
    for i in 0..N {
        y[i] /= l[i][0];
    }
    for i in (0..N).rev() {
        let mut s = y[i];
        for k in (i + 1)..N.min(i + W) {
            s -= at(&l[i], k - i) * y[k];
        }
        y[i] = s;
    }
    Ok(())
}

/// `c[d]`, or zero for `d` out of range (see `band_ldlt_in_place`).
#[inline(always)]
fn at<T: Real, const W: usize>(c: &[T; W], d: usize) -> T {
    c.get(d).copied().unwrap_or(T::zero())
}

/// The banded strategy with `W` stored diagonals (half-bandwidth `W − 1`).
///
/// Needs a diagonal mass matrix and a potential that implements
/// [`Hessian::hessian_band`] for this `W`; both are checked when the integrator is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Banded<const W: usize>;

impl<T: Real, const W: usize, const N: usize> ShiftedSolve<T, N> for Banded<W> {
    fn check<P: Hessian<T, N>>(&self, mass: &Mass<T, N>, potential: &P) -> Result<(), ConfigError> {
        if W == 0 {
            return Err(ConfigError::Inconsistent {
                name: "banded solver needs W >= 1",
            });
        }
        if mass.as_diagonal().is_none() {
            return Err(ConfigError::Inconsistent {
                name: "banded solver needs a diagonal mass",
            });
        }
        let mut band = SMatrix::<T, W, N>::zeros();
        if potential.hessian_band(
            &SVector::zeros(),
            T::one(),
            &mut BandMut::from_matrix(&mut band),
        ) {
            Ok(())
        } else {
            Err(ConfigError::Inconsistent {
                name: "banded solver needs Hessian::hessian_band within W diagonals",
            })
        }
    }

    /// Assembles the band and solves by banded `LDLᵀ` ([`band_ldlt_solve`]): positive pivots for
    /// a positive definite matrix (Cholesky without square roots), negative ones accepted for an
    /// indefinite matrix, [`StepError::Singular`] for a pivot below `N·ε·max|Aᵢᵢ|`.
    fn solve_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<(), StepError> {
        let mut band = SMatrix::<T, W, N>::zeros();
        if !potential.hessian_band(q, c, &mut BandMut::from_matrix(&mut band)) {
            return Err(StepError::precondition(PreconditionKind::NoBandHessian));
        }
        for j in 0..N {
            band[(0, j)] += mass
                .diagonal_entry(j)
                .ok_or(StepError::precondition(PreconditionKind::MassNotDiagonal))?;
        }
        if !all_finite(band.as_slice()) {
            return Err(StepError::Singular);
        }
        band_ldlt_in_place(&mut band, x)?;
        if all_finite(x.as_slice()) {
            Ok(())
        } else {
            Err(StepError::NonFiniteResult)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::SMatrix;

    fn dense_from_band<const W: usize, const N: usize>(
        b: &SMatrix<f64, W, N>,
    ) -> SMatrix<f64, N, N> {
        let mut a = SMatrix::<f64, N, N>::zeros();
        for j in 0..N {
            for d in 0..W {
                if j + d < N {
                    a[(j + d, j)] = b[(d, j)];
                    a[(j, j + d)] = b[(d, j)];
                }
            }
        }
        a
    }

    #[test]
    fn band_view_bounds() {
        let mut data = [0.0f64; 6];
        assert!(BandMut::new(2, 4, &mut data).is_none());
        assert!(BandMut::new(0, 6, &mut data).is_none());
        let mut m = SMatrix::<f64, 2, 3>::zeros();
        let mut b = BandMut::from_matrix(&mut m);
        assert!(b.add(1, 0, 2.0) && b.add(0, 1, 1.0) && b.add(2, 2, 5.0));
        assert!(!b.add(2, 0, 1.0), "outside the band");
        assert!(b.add(2, 0, 0.0), "zero outside the band is fine");
        assert!(!b.add(3, 3, 1.0), "outside the matrix");
        assert_eq!((b.get(0, 1), b.get(2, 2), b.get(2, 0)), (3.0, 5.0, 0.0));
        assert_eq!(m[(1, 0)], 3.0);
    }

    #[test]
    fn banded_matches_dense() {
        // Pentadiagonal SPD and an indefinite variant.
        let mut band = SMatrix::<f64, 3, 7>::zeros();
        for j in 0..7 {
            band[(0, j)] = 6.0 + j as f64 * 0.1;
            band[(1, j)] = -1.5 + 0.05 * j as f64;
            band[(2, j)] = 0.7;
        }
        let b = SVector::<f64, 7>::from_fn(|i, _| (i as f64).sin() + 0.3);
        let a = dense_from_band(&band);
        let x = band_cholesky_solve(&band, &b).unwrap();
        assert!((a * x - b).amax() < 1e-13);
        let x = band_ldlt_solve(&band, &b).unwrap();
        assert!((a * x - b).amax() < 1e-13);
        band[(0, 3)] = -4.0;
        assert!(band_cholesky_solve(&band, &b).is_none());
        let a = dense_from_band(&band);
        let x = band_ldlt_solve(&band, &b).unwrap();
        assert!((a * x - b).amax() < 1e-12);
        let zero = SMatrix::<f64, 3, 7>::zeros();
        assert_eq!(band_ldlt_solve(&zero, &b), Err(StepError::Singular));
    }
}
