//! The dense strategy that keeps its factors for a changed right-hand side.

use super::dense::{ldlt_substitute, solve_symmetric_kind};
use super::{all_finite, ShiftedSolve};
use crate::model::{Hessian, Mass};
use crate::{Real, StepError};
use nalgebra::{SMatrix, SVector};

/// [`Dense`](super::Dense) that keeps the `LDLᵀ` factors of `M + c·Hess V(q)` and the solution
/// of its last solve, so that [`ShiftedSolve::resolve_changed`] answers a changed right-hand
/// side with two triangular solves.
///
/// What it is for: a controller sets a new held force `u` every tick
/// ([`Actuate::set_force`](crate::forcing::Actuate::set_force)). The Z&S family's force at the
/// start of the next step is `a = (M + βh² Hess V)⁻¹(−∇V + u)` at the position where the last
/// step ended — the matrix is the one the last step already factorised, only the right-hand side
/// changed. With this strategy the integrator updates `a ← a + A⁻¹ δu` (and, for Z&S, the
/// third-derivative term at the new `a`) instead of a second full force evaluation per tick.
/// The results equal a fresh solve up to rounding (the update is exact in exact arithmetic).
///
/// Solves are bit-identical to [`Dense`](super::Dense)'s. After the LU fallback (an indefinite
/// matrix) nothing is kept and the integrator evaluates afresh. Memory: `N² + N` scalars.
///
/// ```
/// use macrostep::forcing::{Actuate, Actuated};
/// use macrostep::linalg::DenseKept;
/// use macrostep::systems::DoublePendulum;
/// use macrostep::model::System;
/// use macrostep::zs::{ZhangSkeel, ZsParams};
/// use macrostep::Integrator;
/// use nalgebra::vector;
///
/// let dp = DoublePendulum::<f64>::paper();
/// let pen = dp.penalised(20.0).unwrap();
/// let sys = System::new(pen.mass, Actuated::new(pen.potential));
/// let mut zs = ZhangSkeel::with_solver(sys, 0.01, ZsParams::default(), DenseKept::new()).unwrap();
/// let mut s = dp.initial_state();
/// for k in 0..100 {
///     // A new force every tick: one factorisation per step, not two.
///     let u = 0.1 * (k as f64 * 0.1).sin();
///     zs.set_force(&vector![u, 0.0, 0.0, 0.0]).unwrap();
///     zs.step(&mut s).unwrap();
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DenseKept<T: Real, const N: usize> {
    factors: SMatrix<T, N, N>,
    last: SVector<T, N>,
    kept: bool,
}

impl<T: Real, const N: usize> DenseKept<T, N> {
    /// An empty strategy (nothing kept yet).
    pub fn new() -> Self {
        Self {
            factors: SMatrix::zeros(),
            last: SVector::zeros(),
            kept: false,
        }
    }

    /// Whether factors of a positive definite matrix are kept (after a successful solve that did
    /// not need the LU fallback).
    pub fn is_kept(&self) -> bool {
        self.kept
    }
}

impl<T: Real, const N: usize> Default for DenseKept<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real, const N: usize> ShiftedSolve<T, N> for DenseKept<T, N> {
    #[inline]
    fn solve_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<(), StepError> {
        self.kept = false;
        let a = &mut self.factors;
        *a = SMatrix::zeros();
        mass.add_to(a);
        potential.add_hessian(q, c, a);
        if solve_symmetric_kind(a, x)? {
            self.last = *x;
            self.kept = true;
        }
        Ok(())
    }

    fn resolve_changed(&mut self, x: &mut SVector<T, N>) -> Result<bool, StepError> {
        if !self.kept {
            return Ok(false);
        }
        // Kept factors passed the pivot test of the solve that made them.
        ldlt_substitute(&self.factors, x);
        for i in 0..N {
            x[i] += self.last[i];
        }
        if !all_finite(x.as_slice()) {
            return Err(StepError::NonFiniteResult);
        }
        for i in 0..N {
            self.last[i] = x[i];
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::Dense;
    use crate::model::Quadratic;
    use nalgebra::{matrix, vector};

    #[test]
    fn solves_like_dense_and_updates_a_changed_rhs() {
        let k = matrix![4.0, 1.0, 0.5; 1.0, 3.0, 0.25; 0.5, 0.25, 2.0];
        let pot = Quadratic::new(k);
        let mass = Mass::<f64, 3>::diagonal(vector![1.0, 2.0, 0.5]).unwrap();
        let q = vector![0.1, -0.2, 0.3];
        let b = vector![1.0, -2.0, 0.5];
        let mut kept = DenseKept::new();
        let x = kept.solve(&mass, &pot, &q, 0.3, &b).unwrap();
        assert_eq!(x, Dense.solve(&mass, &pot, &q, 0.3, &b).unwrap());
        assert!(kept.is_kept());
        let db = vector![0.25, 0.0, -1.0];
        let mut y = db;
        assert_eq!(kept.resolve_changed(&mut y), Ok(true));
        let fresh = Dense.solve(&mass, &pot, &q, 0.3, &(b + db)).unwrap();
        assert!((y - fresh).amax() < 1e-14, "{y} vs {fresh}");
        // The update became the last solution: a second change adds to it.
        let mut z = db;
        assert_eq!(kept.resolve_changed(&mut z), Ok(true));
        let fresh2 = Dense.solve(&mass, &pot, &q, 0.3, &(b + db + db)).unwrap();
        assert!((z - fresh2).amax() < 1e-14);
    }

    #[test]
    fn keeps_nothing_after_the_lu_fallback_or_an_error() {
        // M + c·K indefinite: LU fallback, nothing kept.
        let k = matrix![-4.0, 0.0; 0.0, 1.0];
        let pot = Quadratic::new(k);
        let mass = Mass::<f64, 2>::identity();
        let mut kept = DenseKept::new();
        let mut y = vector![1.0, 0.0];
        assert_eq!(kept.resolve_changed(&mut y), Ok(false));
        let x = kept.solve(&mass, &pot, &vector![0.0, 0.0], 1.0, &vector![1.0, 1.0]);
        assert!(x.is_ok());
        assert!(!kept.is_kept());
        assert_eq!(kept.resolve_changed(&mut y), Ok(false));
        assert_eq!(y, vector![1.0, 0.0]);
        // A singular matrix: an error, nothing kept.
        let sing = Quadratic::new(matrix![-1.0, 0.0; 0.0, 0.0]);
        let r = kept.solve(&mass, &sing, &vector![0.0, 0.0], 1.0, &vector![1.0, 1.0]);
        assert_eq!(r, Err(StepError::Singular));
        assert!(!kept.is_kept());
        // An overflowing update is an error and leaves the kept solution.
        let mut kept = DenseKept::new();
        let b = vector![1.0, 1.0];
        let x = kept.solve(&mass, &Quadratic::new(SMatrix::zeros()), &b, 1.0, &b);
        assert_eq!(x, Ok(b));
        let huge = vector![f64::MAX, f64::MAX];
        let mut y = huge;
        assert_eq!(kept.resolve_changed(&mut y), Ok(true));
        let mut y = huge;
        assert_eq!(
            kept.resolve_changed(&mut y),
            Err(StepError::NonFiniteResult)
        );
        let mut z = vector![0.0, 0.0];
        assert_eq!(kept.resolve_changed(&mut z), Ok(true));
        assert_eq!(z, vector![f64::MAX, f64::MAX]);
    }
}
