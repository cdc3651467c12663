//! Dense symmetric solve: Cholesky, LU fallback, typed error when singular.

use super::{pivot_floor, ShiftedSolve};
use crate::model::{Hessian, Mass};
use crate::{ConfigError, Real, StepError};
use nalgebra::{Cholesky, SMatrix, SVector};

/// Solves `A x = b` for a symmetric `A`: Cholesky when `A` is positive definite, otherwise LU
/// with partial pivoting.
///
/// # Errors
/// [`StepError::Singular`] when a pivot of the LU factorisation is below `N·ε·max|pivot|` (or
/// the matrix holds a NaN), [`StepError::NonFiniteResult`] when the solution is not finite.
pub fn solve_symmetric<T: Real, const N: usize>(
    a: SMatrix<T, N, N>,
    b: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    if !a.iter().all(|x| x.finite()) {
        return Err(StepError::Singular);
    }
    let x = match Cholesky::new(a) {
        Some(chol) => {
            // Cholesky succeeded: still reject a numerically singular SPD matrix.
            let l = chol.l_dirty();
            let d = l.diagonal();
            let max = d.amax();
            if d.iter().any(|&p| p * p <= pivot_floor(N, max * max)) {
                return Err(StepError::Singular);
            }
            chol.solve(b)
        }
        None => lu_solve(a, b)?,
    };
    if x.iter().all(|v| v.finite()) {
        Ok(x)
    } else {
        Err(StepError::NonFiniteResult)
    }
}

/// LU with partial pivoting, written out because nalgebra's `LU` needs `typenum` bounds that a
/// const-generic `N` cannot name.
fn lu_solve<T: Real, const N: usize>(
    mut a: SMatrix<T, N, N>,
    b: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    let scale = a.amax();
    if scale == T::zero() {
        return Err(StepError::Singular);
    }
    let floor = pivot_floor(N, scale);
    let mut x = *b;
    for k in 0..N {
        let mut p = k;
        for i in (k + 1)..N {
            if a[(i, k)].abs() > a[(p, k)].abs() {
                p = i;
            }
        }
        if a[(p, k)].abs() <= floor || !a[(p, k)].finite() {
            return Err(StepError::Singular);
        }
        if p != k {
            a.swap_rows(p, k);
            x.swap_rows(p, k);
        }
        let piv = a[(k, k)];
        for i in (k + 1)..N {
            let m = a[(i, k)] / piv;
            if m != T::zero() {
                for j in (k + 1)..N {
                    let akj = a[(k, j)];
                    a[(i, j)] -= m * akj;
                }
                let xk = x[k];
                x[i] -= m * xk;
            }
        }
    }
    for i in (0..N).rev() {
        let mut s = x[i];
        for j in (i + 1)..N {
            s -= a[(i, j)] * x[j];
        }
        x[i] = s / a[(i, i)];
    }
    Ok(x)
}

/// The dense strategy: forms `M + c·Hess V(q)` (`N×N`) and calls [`solve_symmetric`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dense;

impl<T: Real, const N: usize> ShiftedSolve<T, N> for Dense {
    fn check<P: Hessian<T, N>>(&self, _: &Mass<T, N>, _: &P) -> Result<(), ConfigError> {
        Ok(())
    }

    fn solve<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        b: &SVector<T, N>,
    ) -> Result<SVector<T, N>, StepError> {
        let mut a = potential.hessian(q) * c;
        match mass.as_diagonal() {
            Some(m) => {
                for i in 0..N {
                    a[(i, i)] += m[i];
                }
            }
            None => a += mass.matrix(),
        }
        solve_symmetric(a, b)
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
    }
}
