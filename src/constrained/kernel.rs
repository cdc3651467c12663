//! The shared machinery of the constrained methods: the multiplier solves and the projections.

use super::{ConstraintNewtonParams, OffManifold};
use crate::linalg::{all_finite, lu_solve_in_place};
use crate::model::{Constraint, Mass};
use crate::{ConfigError, PreconditionKind, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// Validated solver parameters and the constants a step needs (converted once).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kernel<T: Real> {
    pub(crate) params: ConstraintNewtonParams<T>,
    /// Relative pivot threshold of the `D × D` eliminations.
    pivot_rel: T,
    /// `½`.
    pub(crate) half: T,
    /// `8 ε`, the factor of the round-off floor of a position solve (see
    /// [`Kernel::position_solve`]).
    eps_n: T,
}

impl<T: Real> Kernel<T> {
    pub(crate) fn new(params: ConstraintNewtonParams<T>) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        Ok(Self {
            params,
            pivot_rel: T::default_epsilon() * T::lit(256.0),
            half: T::lit(0.5),
            eps_n: T::default_epsilon() * T::lit(8.0),
        })
    }

    /// `M⁻¹ Jᵀ`, column by column.
    pub(crate) fn minv_jt<const N: usize, const D: usize>(
        mass: &Mass<T, N>,
        j: &SMatrix<T, D, N>,
    ) -> SMatrix<T, N, D> {
        let jt = j.transpose();
        let mut b = jt;
        for k in 0..D {
            let col = mass.solve(&jt.column(k).into_owned());
            b.set_column(k, &col);
        }
        b
    }

    /// Solves `a x = b` (`D × D`) by LU with partial pivoting
    /// ([`lu_solve_in_place`], shared with the dense Z&S fallback).
    ///
    /// [`StepError::Singular`] when a pivot is not above `pivot_rel · max|aᵢⱼ|` (rank-deficient
    /// constraint Jacobian), [`StepError::NonFiniteResult`] on NaN/∞ input.
    pub(crate) fn solve<const D: usize>(
        &self,
        mut a: SMatrix<T, D, D>,
        mut b: SVector<T, D>,
    ) -> Result<SVector<T, D>, StepError> {
        if !(all_finite(a.as_slice()) && all_finite(b.as_slice())) {
            return Err(StepError::NonFiniteResult);
        }
        let thresh = a.amax() * self.pivot_rel;
        lu_solve_in_place(&mut a, &mut b, thresh)?;
        Ok(b)
    }

    /// Newton on `g(y + c·B λ) = 0` for `λ`, from `guess`. Returns `(q, λ)`.
    ///
    /// Converged when `‖g(q)‖∞ ≤ tol`, or when `‖g(q)‖∞` is within the round-off of evaluating
    /// `g` at `q`, `8 ε ‖g'(q)‖_max ‖q‖∞` (a tolerance below it cannot be reached; iterating
    /// further only turns round-off into multipliers of size `r/c`, which for a tiny step are
    /// enormous and cancel to garbage velocities).
    pub(crate) fn position_solve<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        y: &SVector<T, N>,
        b: &SMatrix<T, N, D>,
        c: T,
        guess: SVector<T, D>,
    ) -> Result<(SVector<T, N>, SVector<T, D>), StepError>
    where
        G: Constraint<T, N, D>,
    {
        let cb = b * c;
        let mut lam = guess;
        let mut it = 0u32;
        loop {
            let q = y + cb * lam;
            let r = g.value(&q);
            if r.iter().any(|x| !x.finite()) || q.iter().any(|x| !x.finite()) {
                return Err(StepError::NonFiniteResult);
            }
            if r.amax() <= self.params.tol {
                return Ok((q, lam));
            }
            if it >= self.params.max_iter {
                return Err(StepError::NotConverged);
            }
            let jq = g.jacobian(&q);
            if r.amax() <= self.eps_n * jq.amax() * q.amax() {
                return Ok((q, lam));
            }
            let jac = jq * cb;
            lam += self.solve(jac, -r)?;
            it += 1;
        }
    }

    /// The `M`-orthogonal projection of `v` onto `g'(q) v = 0`: `v + M⁻¹Jᵀμ`. Returns `(v, μ)`.
    pub(crate) fn velocity_project<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        mass: &Mass<T, N>,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Result<(SVector<T, N>, SVector<T, D>), StepError>
    where
        G: Constraint<T, N, D>,
    {
        let (_, out, mu) = self.velocity_project_with(g, mass, q, v)?;
        Ok((out, mu))
    }

    /// [`Kernel::velocity_project`] for the end of a step: the projected velocity must satisfy
    /// the hidden constraint to the manifold tolerance, as the next step's start requires. A
    /// projection that cannot (the velocity before it was out of all proportion, e.g. a Newton
    /// tolerance below round-off closed over a tiny step, and cancelled to garbage) is refused
    /// with [`PreconditionKind::NotTangent`] instead of returning a state no step accepts.
    pub(crate) fn velocity_project_end<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        mass: &Mass<T, N>,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Result<(SVector<T, N>, SVector<T, D>), StepError>
    where
        G: Constraint<T, N, D>,
    {
        let (j, out, mu) = self.velocity_project_with(g, mass, q, v)?;
        let tol = self.params.manifold_tol;
        let rv = (j * out).amax();
        if rv <= tol {
            Ok((out, mu))
        } else {
            Err(StepError::exceeded(PreconditionKind::NotTangent, rv, tol))
        }
    }

    /// The projection of [`Kernel::velocity_project`] with the Jacobian `J = g'(q)` it used.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn velocity_project_with<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        mass: &Mass<T, N>,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Result<(SMatrix<T, D, N>, SVector<T, N>, SVector<T, D>), StepError>
    where
        G: Constraint<T, N, D>,
    {
        let j = g.jacobian(q);
        let b = Self::minv_jt(mass, &j);
        let mu = self.solve(j * b, -(j * v))?;
        Ok((j, v + b * mu, mu))
    }

    /// Projects a state onto the solution manifold: positions along `M⁻¹g'(q)ᵀμ` (Newton), then
    /// velocities (`hidden = true`) `M`-orthogonally onto `g'(q)v = 0`.
    pub(crate) fn project<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        mass: &Mass<T, N>,
        s: &State<T, N>,
        hidden: bool,
    ) -> Result<State<T, N>, StepError>
    where
        G: Constraint<T, N, D>,
    {
        if !s.is_finite() {
            return Err(StepError::NonFiniteState);
        }
        let b = Self::minv_jt(mass, &g.jacobian(&s.q));
        let (q, _) = self.position_solve(g, &s.q, &b, T::one(), SVector::zeros())?;
        let v = if hidden {
            self.velocity_project(g, mass, &q, &s.v)?.0
        } else {
            s.v
        };
        let out = State { t: s.t, q, v };
        if out.is_finite() {
            Ok(out)
        } else {
            Err(StepError::NonFiniteResult)
        }
    }

    /// The start of a step: the state itself when on the manifold; otherwise rejected or
    /// projected per [`ConstraintNewtonParams::off_manifold`].
    /// Refuses a step whose velocity change is out of proportion with the start's velocity and
    /// the forces: `‖v₁ − v₀‖∞ ≤ 10 (‖v₀‖∞ + |h|(‖a₀‖∞ + ‖a₁‖∞)) + √ε (1 + ‖v₀‖∞)` (see
    /// [`MAX_CORRECTION`](super::MAX_CORRECTION)). A start whose residual `r` is within the
    /// manifold tolerance is closed by the step's Newton solve at the price of a velocity jump
    /// `≈ r/h`; for a tiny `h` that jump is garbage, and this is where it is caught.
    pub(crate) fn check_jump<const N: usize>(
        v0: &SVector<T, N>,
        v1: &SVector<T, N>,
        a0: &SVector<T, N>,
        a1: &SVector<T, N>,
        h: T,
    ) -> Result<(), StepError> {
        let k = T::lit(super::MAX_CORRECTION);
        let nv = v0.amax();
        let bound = k * (nv + h.abs() * (a0.amax() + a1.amax()))
            + T::default_epsilon().sqrt() * (T::one() + nv);
        let jump = (v1 - v0).amax();
        if jump <= bound {
            Ok(())
        } else {
            Err(StepError::exceeded(
                PreconditionKind::VelocityJump,
                jump,
                bound,
            ))
        }
    }

    pub(crate) fn start<G, const N: usize, const D: usize>(
        &self,
        g: &G,
        mass: &Mass<T, N>,
        s: &State<T, N>,
        hidden: bool,
    ) -> Result<State<T, N>, StepError>
    where
        G: Constraint<T, N, D>,
    {
        let tol = self.params.manifold_tol;
        let r = g.value(&s.q);
        let mut off = None;
        if !(r.iter().all(|x| x.finite()) && r.amax() <= tol) {
            off = Some(StepError::exceeded(
                PreconditionKind::OffManifold,
                r.amax(),
                tol,
            ));
        } else if hidden {
            let f = g.jacobian(&s.q) * s.v;
            if !(f.iter().all(|x| x.finite()) && f.amax() <= tol) {
                off = Some(StepError::exceeded(
                    PreconditionKind::NotTangent,
                    f.amax(),
                    tol,
                ));
            }
        }
        match (off, self.params.off_manifold) {
            (None, _) => Ok(*s),
            (Some(e), OffManifold::Reject) => Err(e),
            (Some(_), OffManifold::Project) => self.project(g, mass, s, hidden),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector};

    #[test]
    fn solve_pivots_and_detects_singularity() {
        let k = Kernel::<f64>::new(ConstraintNewtonParams::default()).unwrap();
        // Zero leading entry forces a row swap; exact solution (1, −2, 3).
        let a = matrix![0.0, 2.0, 1.0; 1.0, 1.0, 1.0; 2.0, 0.0, 5.0];
        let x = vector![1.0, -2.0, 3.0];
        let got = k.solve(a, a * x).unwrap();
        assert!((got - x).amax() < 1e-14);
        // Two equal rows (a rank-deficient constraint Jacobian makes g'M⁻¹g'ᵀ like this).
        let s = matrix![1.0, 2.0; 1.0, 2.0];
        assert_eq!(k.solve(s, vector![1.0, 1.0]), Err(StepError::Singular));
        // Nearly singular below the relative pivot threshold.
        let s = matrix![1.0, 2.0; 1.0, 2.0 + 1e-15];
        assert_eq!(k.solve(s, vector![1.0, 1.0]), Err(StepError::Singular));
        let n = matrix![f64::NAN, 0.0; 0.0, 1.0];
        assert_eq!(
            k.solve(n, vector![1.0, 1.0]),
            Err(StepError::NonFiniteResult)
        );
    }
}
