//! The few linear solves the linearly implicit integrators need.
//!
//! Every Z&S-family step solves one symmetric system `(M + c·Hess V(q)) x = b` with `c = βh²`
//! (000 eq 1.3, 2.7, 2.8). A [`ShiftedSolve`] is the strategy that does it:
//!
//! - [`Dense`]: forms the `N×N` matrix, factorises it as `L D Lᵀ` (Cholesky without square
//!   roots: the pivots `Dⱼ` are the squares of Cholesky's, so definiteness and the singularity
//!   test are Cholesky's) and falls back to LU with partial pivoting when the matrix is
//!   indefinite (a non-convex potential with a large `βh²`); a numerically singular matrix is a
//!   typed error. Cost `O(N³)`.
//! - [`DenseKept`]: the same solve, keeping the `LDLᵀ` factors and the solution, so that a
//!   changed right-hand side (a controller's new held force, [`crate::forcing::Actuate`]) costs
//!   two triangular solves (`O(N²)`) instead of a new assembly and factorisation. Stores `N² + N`
//!   scalars in the integrator.
//! - [`Banded`]: for local models (a chain of pendula, a polymer, the DNA model) whose Hessian is
//!   banded with half-bandwidth `W − 1`, the model fills the band through
//!   [`Hessian::hessian_band`] and the solver factorises it
//!   in band storage by banded `LDLᵀ` without pivoting (positive pivots for a positive definite
//!   matrix, i.e. banded Cholesky without square roots; negative ones accepted for an indefinite
//!   one).
//!   Cost `O(N W²)`: linear in the number of bodies (000 §4.3, 004 §5.4.1).
//!
//! And small fixed-size linear algebra with bounded cost: [`symmetric_eigen`] (cyclic Jacobi with
//! at most [`MAX_SWEEPS`] sweeps) for the SIM family's exact flows.

mod banded;
mod dense;
mod dense_kept;
mod jacobi;
mod ldlt9;
mod spd4;
mod unroll;

/// The band view lives with the model traits that write into it; re-exported here for the solvers' users.
pub use crate::model::BandMut;
pub use banded::{band_cholesky_solve, band_ldlt_solve, Banded};
pub(crate) use dense::{lu_solve_in_place, solve_symmetric_in_place};
pub use dense::{solve_symmetric, Dense};
pub use dense_kept::DenseKept;
pub(crate) use jacobi::symmetric_eigen_in_place;
pub use jacobi::{symmetric_eigen, Eigen, MAX_SWEEPS};
pub(crate) use ldlt9::{ldlt9_in_place, ldlt9_solve};
pub(crate) use spd4::solve_dense_in_place;
pub(crate) use unroll::each;

use crate::model::{Hessian, Mass, Measured};
use crate::{ConfigError, Real, StepError};
use nalgebra::SVector;

#[doc(hidden)]
/// A strategy for solving `(M + c·Hess P(q)) x = b`, the one linear system of a Z&S step.
pub trait ShiftedSolve<T: Real, const N: usize> {
    /// Checks, when the integrator is built, that this strategy can work with the mass matrix
    /// and the potential (e.g. a banded solver needs a diagonal mass and a banded Hessian).
    ///
    /// The default accepts everything (a dense solve works with any mass and potential).
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] naming the violated requirement.
    fn check<P: Hessian<T, N>>(&self, mass: &Mass<T, N>, potential: &P) -> Result<(), ConfigError> {
        let _ = (mass, potential);
        Ok(())
    }

    /// Solves `(M + c·Hess P(q)) x = b`: copies `b` and calls [`ShiftedSolve::solve_in_place`].
    ///
    /// # Errors
    /// [`StepError::Singular`] when the matrix is (numerically) singular,
    /// [`StepError::NonFiniteResult`] when the solution is not finite.
    fn solve<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        b: &SVector<T, N>,
    ) -> Result<SVector<T, N>, StepError> {
        let mut x = *b;
        self.solve_in_place(mass, potential, q, c, &mut x)?;
        Ok(x)
    }

    /// [`ShiftedSolve::solve`] in place, the method a strategy implements: `x` holds `b` on
    /// entry and the solution on success (on error it is unspecified). The integrators call it,
    /// so a step moves no vector by value (on a Cortex-M4F at opt-level "s" such a move is a
    /// byte-wise `memcpy` call).
    ///
    /// # Errors
    /// As [`ShiftedSolve::solve`].
    fn solve_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<(), StepError>;

    /// Solves `(M + c·Hess P(q)) x = −∇P(q)`, the force of a linearly implicit step whose matrix
    /// is the whole potential's: `x` receives the solution (its value on entry is ignored; on
    /// error it is unspecified). Returns what the guards measure at `q` when the evaluation gave
    /// it ([`Hessian::gradient_add_hessian`]), else `None`.
    ///
    /// The default evaluates the gradient, then calls [`ShiftedSolve::solve_in_place`], and
    /// returns `None`; [`Dense`] and [`DenseKept`] form the gradient and the matrix in one pass
    /// ([`Hessian::gradient_add_hessian`]).
    ///
    /// # Errors
    /// As [`ShiftedSolve::solve`].
    #[inline]
    fn solve_force_in_place<P: Hessian<T, N>>(
        &mut self,
        mass: &Mass<T, N>,
        potential: &P,
        q: &SVector<T, N>,
        c: T,
        x: &mut SVector<T, N>,
    ) -> Result<Option<Measured<T>>, StepError> {
        let g = potential.gradient(q);
        for i in 0..N {
            x[i] = -g[i];
        }
        self.solve_in_place(mass, potential, q, c, x)?;
        Ok(None)
    }

    /// Re-solves with the factors of the last successful solve kept, for a right-hand side
    /// changed by `δb`: `x` holds `δb` on entry and `x_last + A⁻¹ δb` on `Ok(true)`, which
    /// becomes the last solution. A change of a held force (`b = −∇V + u`) then costs two
    /// triangular solves instead of assembling and factorising `M + c·Hess V` again. `Ok(false)`,
    /// with `x` unchanged, when the strategy keeps no factors (the default) or the last solve
    /// could not keep them; the caller then solves afresh.
    ///
    /// # Errors
    /// [`StepError::Singular`] / [`StepError::NonFiniteResult`] as a solve; the kept solution is
    /// then unchanged and `x` unspecified.
    #[inline]
    fn resolve_changed(&mut self, x: &mut SVector<T, N>) -> Result<bool, StepError> {
        let _ = x;
        Ok(false)
    }
}

/// Whether every entry is finite, in one branch-free pass (`x − x` is `0` exactly when `x` is
/// finite, NaN otherwise).
#[inline]
pub(crate) fn all_finite<T: Real>(xs: &[T]) -> bool {
    let mut acc = T::zero();
    for &x in xs {
        acc += zero_if_finite(x);
    }
    acc == T::zero()
}

/// `x − x`: `0` for a finite `x`, NaN for `±∞` and NaN. Summing it over many values and comparing
/// the sum with zero checks them all without a branch per value.
#[inline]
#[allow(clippy::eq_op)] // `x − x` is the point
pub(crate) fn zero_if_finite<T: Real>(x: T) -> T {
    x - x
}

/// Relative pivot threshold below which a factorisation is declared singular: `N·ε` of the
/// largest pivot (the accuracy a backward-stable solve can promise).
#[inline]
pub(crate) fn pivot_floor<T: Real>(n: usize, max_pivot: T) -> T {
    let mut k = T::one();
    // `n` is a small const-generic size; repeated addition avoids a lossy cast.
    each(n.saturating_sub(1), |_| k += T::one());
    max_pivot * T::default_epsilon() * k
}
