//! A bounded-cost symmetric eigendecomposition: cyclic Jacobi with a sweep cap.
//!
//! nalgebra's `SymmetricEigen::new` iterates until convergence with no cap; a `no_std` real-time
//! code wants a fixed worst-case cost. Cyclic Jacobi converges quadratically once the
//! off-diagonal mass is small (typically 5–10 sweeps in `f64` for `N ≤ 20`), so a cap of
//! [`MAX_SWEEPS`] is never reached for finite input; reaching it is reported, not hidden.

use crate::Real;
use nalgebra::{SMatrix, SVector};

/// The sweep cap of [`symmetric_eigen`].
pub const MAX_SWEEPS: usize = 64;

/// Eigenvalues and orthonormal eigenvectors of a symmetric matrix.
#[derive(Clone, Copy, Debug)]
pub struct Eigen<T: Real, const N: usize> {
    /// Eigenvalues `λᵢ` (unsorted).
    pub values: SVector<T, N>,
    /// Orthogonal `Q` whose columns are the eigenvectors: `A = Q diag(λ) Qᵀ`.
    pub vectors: SMatrix<T, N, N>,
    /// Sweeps used.
    pub sweeps: usize,
}

/// The cyclic Jacobi eigendecomposition of the symmetric part of `a`, with at most
/// [`MAX_SWEEPS`] sweeps of `N(N−1)/2` rotations each.
///
/// Returns `None` if the input is not finite or the off-diagonal Frobenius norm is still above
/// `N·ε·‖A‖_F` after the cap. A matrix whose Frobenius norm overflows (entries near the top of
/// the scalar's range) is decomposed scaled to a largest entry of 1 and its eigenvalues scaled
/// back, so such entries are judged like any others instead of passing as "converged".
///
/// ```
/// use macrostep::linalg::symmetric_eigen;
/// use nalgebra::matrix;
/// let a = matrix![2.0_f64, 1.0; 1.0, 2.0];
/// let e = symmetric_eigen(&a).unwrap();
/// let back = e.vectors * nalgebra::Matrix2::from_diagonal(&e.values) * e.vectors.transpose();
/// assert!((back - a).amax() < 1e-14);
/// ```
pub fn symmetric_eigen<T: Real, const N: usize>(a: &SMatrix<T, N, N>) -> Option<Eigen<T, N>> {
    if !a.iter().all(|x| x.finite()) {
        return None;
    }
    let half = T::lit(0.5);
    // `x/2 + y/2` is `(x + y)/2` bit for bit, and cannot overflow.
    let m = a * half + a.transpose() * half;
    if m.norm().finite() {
        jacobi(m)
    } else {
        scaled(m)
    }
}

/// [`jacobi`] of `m / max|m|`, eigenvalues scaled back (out of line: its copies stay off the
/// common path's stack).
#[inline(never)]
fn scaled<T: Real, const N: usize>(m: SMatrix<T, N, N>) -> Option<Eigen<T, N>> {
    let scale = m.amax();
    let e = jacobi(m / scale)?;
    Some(Eigen {
        values: e.values * scale,
        ..e
    })
}

/// Cyclic Jacobi on the symmetric `m` (finite Frobenius norm).
#[inline(never)]
fn jacobi<T: Real, const N: usize>(mut m: SMatrix<T, N, N>) -> Option<Eigen<T, N>> {
    let mut v = SMatrix::<T, N, N>::identity();
    let sweeps = jacobi_in_place(&mut m, &mut v)?;
    Some(Eigen {
        values: m.diagonal(),
        vectors: v,
        sweeps,
    })
}

/// The eigenvectors of the symmetric part of `a` into `vectors`, the eigenvalues on the
/// diagonal of `work`: [`symmetric_eigen`] without its by-value copies (for constructions that
/// must run in a small stack, e.g. an integrator built in a `static` on a microcontroller). The
/// same operations in the same order, so the same bits. `None` as [`symmetric_eigen`]
/// (`work` and `vectors` then unspecified).
pub(crate) fn symmetric_eigen_in_place<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    work: &mut SMatrix<T, N, N>,
    vectors: &mut SMatrix<T, N, N>,
) -> Option<()> {
    if !a.iter().all(|x| x.finite()) {
        return None;
    }
    let half = T::lit(0.5);
    for j in 0..N {
        for i in 0..N {
            work[(i, j)] = a[(i, j)] * half + a[(j, i)] * half;
        }
    }
    let scale = if work.norm().finite() {
        None
    } else {
        let scale = work.amax();
        *work /= scale;
        Some(scale)
    };
    vectors.fill_with_identity();
    jacobi_in_place(work, vectors)?;
    if let Some(scale) = scale {
        for i in 0..N {
            work[(i, i)] *= scale;
        }
    }
    Some(())
}

/// Cyclic Jacobi on `m` (symmetric), accumulating the rotations into `v`: `m` ends with the
/// eigenvalues on its diagonal. Returns the sweeps taken, `None` at the cap.
#[inline(never)]
fn jacobi_in_place<T: Real, const N: usize>(
    m: &mut SMatrix<T, N, N>,
    v: &mut SMatrix<T, N, N>,
) -> Option<usize> {
    let norm = m.norm();
    let tol = norm * T::default_epsilon() * T::lit(N.max(1) as f64);
    // Entries through the column arrays (`a[j][i]` is `m[(i, j)]`) indexed by loop counters:
    // provably in range, no bounds-check panic branch on the device (for every `N`).
    #[allow(clippy::needless_range_loop)] // the row-major order of the sum is kept
    let off = |m: &SMatrix<T, N, N>| {
        let a = &m.data.0;
        let mut s = T::zero();
        for i in 0..N {
            for j in 0..N {
                if i != j {
                    s += a[j][i] * a[j][i];
                }
            }
        }
        s.sqrt()
    };
    for sweep in 0..=MAX_SWEEPS {
        if off(m) <= tol {
            return Some(sweep);
        }
        if sweep == MAX_SWEEPS {
            break;
        }
        for p in 0..N {
            for q in (p + 1)..N {
                let apq = m[(p, q)];
                if apq == T::zero() {
                    continue;
                }
                let app = m[(p, p)];
                let aqq = m[(q, q)];
                // Rotation angle: tan(2θ) = 2a_pq / (a_qq − a_pp), t = tan θ (smaller root).
                let theta = (aqq - app) / (apq + apq);
                let t = {
                    let sgn = if theta >= T::zero() {
                        T::one()
                    } else {
                        -T::one()
                    };
                    sgn / (theta.abs() + (theta * theta + T::one()).sqrt())
                };
                let c = T::one() / (t * t + T::one()).sqrt();
                let s = t * c;
                // A ← Jᵀ A J with J the rotation in the (p, q) plane.
                for k in 0..N {
                    let mkp = m[(k, p)];
                    let mkq = m[(k, q)];
                    m[(k, p)] = c * mkp - s * mkq;
                    m[(k, q)] = s * mkp + c * mkq;
                }
                for k in 0..N {
                    let mpk = m[(p, k)];
                    let mqk = m[(q, k)];
                    m[(p, k)] = c * mpk - s * mqk;
                    m[(q, k)] = s * mpk + c * mqk;
                }
                m[(p, q)] = T::zero();
                m[(q, p)] = T::zero();
                for k in 0..N {
                    let vkp = v[(k, p)];
                    let vkq = v[(k, q)];
                    v[(k, p)] = c * vkp - s * vkq;
                    v[(k, q)] = s * vkp + c * vkq;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, Matrix4};

    #[test]
    fn reconstructs_and_is_orthogonal() {
        let a: Matrix4<f64> = matrix![
            4.0, 1.0, -2.0, 0.5;
            1.0, 3.0, 0.0, 1.5;
            -2.0, 0.0, 5.0, -1.0;
            0.5, 1.5, -1.0, 2.0
        ];
        let e = symmetric_eigen(&a).unwrap();
        let back = e.vectors * Matrix4::from_diagonal(&e.values) * e.vectors.transpose();
        assert!((back - a).amax() < 1e-13);
        assert!((e.vectors.transpose() * e.vectors - Matrix4::identity()).amax() < 1e-14);
        assert!(e.sweeps < 12);
        // Trace is preserved.
        assert!((e.values.sum() - 14.0).abs() < 1e-13);
    }

    /// Entries whose squares overflow: `[[1, 0, −b], [0, 1, 0], [−b, 0, 1]]` has the eigenvalue
    /// `1 − b`, found for every `b` up to the top of the range (the Frobenius norm overflows from
    /// `b ≈ 1.3e154`).
    #[test]
    fn entries_near_the_top_of_the_range() {
        for b in [1e150_f64, 1e154, 1e200, 1e300, 1.7e308] {
            let a = matrix![1.0, 0.0, -b; 0.0, 1.0, 0.0; -b, 0.0, 1.0];
            let e = symmetric_eigen(&a).unwrap();
            let min = e.values.iter().cloned().fold(f64::INFINITY, f64::min);
            assert!(
                (min / -b - 1.0).abs() < 1e-12,
                "b = {b}: min eigenvalue {min}"
            );
        }
        let b = 1e30_f32;
        let a = matrix![1.0, 0.0, -b; 0.0, 1.0, 0.0; -b, 0.0, 1.0];
        let min = symmetric_eigen(&a)
            .unwrap()
            .values
            .iter()
            .cloned()
            .fold(f32::INFINITY, f32::min);
        assert!((min / -b - 1.0).abs() < 1e-5);
    }

    #[test]
    fn degenerate_and_diagonal_inputs() {
        let e = symmetric_eigen(&Matrix4::<f64>::identity()).unwrap();
        assert_eq!(e.sweeps, 0);
        let z = symmetric_eigen(&Matrix4::<f64>::zeros()).unwrap();
        assert_eq!(z.values, nalgebra::Vector4::zeros());
        assert!(symmetric_eigen(&Matrix4::<f64>::from_element(f64::NAN)).is_none());
    }

    #[test]
    fn f32_works() {
        let a = matrix![2.0_f32, 1.0, 0.0; 1.0, 2.0, 1.0; 0.0, 1.0, 2.0];
        let e = symmetric_eigen(&a).unwrap();
        let back = e.vectors * nalgebra::Matrix3::from_diagonal(&e.values) * e.vectors.transpose();
        assert!((back - a).amax() < 1e-5);
    }
}
