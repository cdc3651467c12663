//! BDF2 for constrained mechanics (Leimkuhler & Skeel, 001 eqs 35–37 with `k = 2`): the
//! nonsymplectic, dissipative baseline of 001 §7.

use super::method::{Constrained, ConstrainedScheme, Sealed};
#[cfg(doc)]
use super::ConstraintNewtonParams;
use crate::driver::Method;
use crate::guard::Watch;
use crate::linalg::solve_symmetric;
use crate::model::{Constraint, Hessian};
#[cfg(doc)]
use crate::Integrator;
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// The second-order backward differentiation formula on `M q̈ = −∇V(q) + g'(q)ᵀλ`, `g(q) = 0`
/// (001 eqs 35–37, `k = 2`, in velocities `v = M⁻¹p`):
///
/// ```text
/// (3/2) q_{n+1} − 2 qₙ + (1/2) q_{n−1} = h v_{n+1}                               (35)
/// M ((3/2) v_{n+1} − 2 vₙ + (1/2) v_{n−1}) = −h ∇V(q_{n+1}) + h g'(q_{n+1})ᵀ λ_{n+1}   (36)
/// g(q_{n+1}) = 0                                                                  (37)
/// ```
///
/// Both `∇V` and `g` are implicit: each step solves for `(q_{n+1}, λ_{n+1})` by Newton's
/// method with the exact Jacobian `[(9/4)M + h²Hess V − Σ μₖ Hess gₖ, −g'ᵀ; g', 0]` (`μ = h²λ`),
/// eliminated through its Schur complement (`D + 1` symmetric `N × N` solves and one `D × D`
/// solve per iteration), predictor `2qₙ − q_{n−1}`. A two-step method needs the previous step:
/// the integrator keeps it and uses it only while the state handed to `step` is the one it
/// returned last and the step size is unchanged; otherwise the step is one backward Euler step
/// (the same equations with coefficients `1, −1, 0`), the usual start. The local error of that
/// one first-order step is `O(h²)`, so the global order stays 2.
///
/// Properties (measured by `reproduce lj` and `host-tests/tests/bdf2.rs`): order 2; neither
/// symplectic nor symmetric; it damps motion it does not resolve (001 §7.4: the vibrations of
/// the Lennard-Jones chain vanish at `h = 0.1`), so its energy decays. The velocity satisfies the
/// hidden constraint `g'(q)v = 0` only to `O(h²)`; a start needs `g(q) = 0` (to
/// [`ConstraintNewtonParams::manifold_tol`]) but not `g'(q)v = 0`. The multipliers of the last step are
/// [`Bdf2::multiplier`].
///
/// **Guards.** The energy loss is the method, not a failure, so the run-energy guard is off by
/// default (a two-sided bound would refuse an accurate damped run); the constraint residual
/// guard and the clock are on. Set
/// [`Guards::energy_run`](crate::guard::Guards::energy_run) to bound the loss.
///
/// # Errors
/// Besides [`Integrator::step_by`]'s: [`StepError::Precondition`] for a start off the manifold
/// (with [`OffManifold::Reject`](super::OffManifold::Reject)), [`StepError::Singular`] for a
/// singular Newton matrix, [`StepError::NotConverged`] when Newton hits its cap. The state and
/// the kept previous step are unchanged on error.
///
/// ```
/// use macrostep::constrained::{Bdf2, ConstraintNewtonParams};
/// use macrostep::model::Constraint;
/// use macrostep::systems::Pendulum;
/// use macrostep::Integrator;
///
/// let p = Pendulum::<f64>::paper();
/// let mut bdf = Bdf2::new(p.system(), p.constraint(), 0.05, ConstraintNewtonParams::default()).unwrap();
/// let mut s = p.initial_state();
/// let e0 = p.system().energy(&s);
/// bdf.integrate(&mut s, 200).unwrap();
/// assert!(p.constraint().value(&s.q)[0].abs() < 1e-12);
/// // Dissipative: the pendulum has lost energy.
/// assert!(p.system().energy(&s) < e0);
/// ```
pub type Bdf2<T, P, G, const N: usize, const D: usize> =
    Constrained<T, P, G, Bdf2Scheme<T, N, D>, N, D>;

/// The BDF2 step (the [`ConstrainedScheme`] of [`Bdf2`]): the kept previous step and the last
/// multiplier.
#[derive(Clone, Copy, Debug)]
pub struct Bdf2Scheme<T: Real, const N: usize, const D: usize> {
    history: Option<History<T, N>>,
    multiplier: SVector<T, D>,
    /// What the last proposal would add to the history (kept when the driver commits it).
    proposed: Proposed<T, N, D>,
}

impl<T: Real, const N: usize, const D: usize> Default for Bdf2Scheme<T, N, D> {
    fn default() -> Self {
        Self {
            history: None,
            multiplier: SVector::zeros(),
            proposed: Proposed {
                previous: State::at_rest(SVector::zeros()),
                h: T::zero(),
                multiplier: SVector::zeros(),
            },
        }
    }
}

/// What a BDF2 step needs of the past: the state before the last step, the state the last step
/// returned (to recognise a continuing run) and its step size.
#[derive(Clone, Copy, Debug)]
struct History<T: Real, const N: usize> {
    previous: State<T, N>,
    returned: State<T, N>,
    h: T,
}

/// What a proposal leaves for the history: its start, its step size and its multiplier.
#[derive(Clone, Copy, Debug)]
struct Proposed<T: Real, const N: usize, const D: usize> {
    previous: State<T, N>,
    h: T,
    multiplier: SVector<T, D>,
}

/// The coefficients `(α₀, α₁, α₂)` of `α₀ q_{n+1} + α₁ qₙ + α₂ q_{n−1}`.
type Alphas<T> = (T, T, T);

impl<T, P, G, const N: usize, const D: usize> Bdf2<T, P, G, N, D>
where
    T: Real,
    P: Hessian<T, N>,
    G: Constraint<T, N, D>,
{
    /// `λ_{n+1}` of the last successful step (the constraint force is `g'(q)ᵀλ`).
    pub fn multiplier(&self) -> &SVector<T, D> {
        &self.scheme.multiplier
    }

    /// Forgets the previous step: the next step is a backward Euler start.
    pub fn restart(&mut self) {
        self.scheme.history = None;
    }

    /// Newton on `F(q, μ) = α₀²Mq + c + h²∇V(q) − g'(q)ᵀμ = 0`, `g(q) = 0` from `q`; returns
    /// `(q, μ)`.
    fn solve(
        &self,
        alpha0: T,
        c: &SVector<T, N>,
        h: T,
        mut q: SVector<T, N>,
    ) -> Result<(SVector<T, N>, SVector<T, D>), StepError> {
        let (g, mass) = (&self.constraint, &self.system.mass);
        let tol = self.kernel.params.tol;
        let (a2, h2) = (alpha0 * alpha0, h * h);
        let mut mu = SVector::<T, D>::zeros();
        for _ in 0..self.kernel.params.max_iter {
            let jac = g.jacobian(&q);
            let f = mass.mul(&q) * a2 + c + self.system.potential.gradient(&q) * h2
                - jac.transpose() * mu;
            let a = mass.matrix() * a2 + self.system.potential.hessian(&q) * h2
                - g.weighted_hessian(&q, &mu);
            let y = solve_symmetric(a, &f)?;
            let mut z = SMatrix::<T, N, D>::zeros();
            for k in 0..D {
                let col = solve_symmetric(a, &jac.row(k).transpose())?;
                z.set_column(k, &col);
            }
            let schur = jac * z;
            let rhs = jac * y - g.value(&q);
            let dmu = solve_symmetric(schur, &rhs)?;
            let dq = z * dmu - y;
            q += dq;
            mu += dmu;
            if !(q.iter().all(|x| x.finite()) && mu.iter().all(|x| x.finite())) {
                return Err(StepError::NonFiniteResult);
            }
            let small = dq.amax() <= tol * (T::one() + q.amax());
            if small && g.value(&q).amax() <= tol {
                return Ok((q, mu));
            }
        }
        Err(StepError::NotConverged)
    }

    /// The coefficients and the previous state for a step of `h` from `state`: BDF2 when the
    /// run continues, else the backward Euler start (`α₂ = 0`, the previous state unused).
    fn scheme(&self, state: &State<T, N>, h: T) -> (Alphas<T>, State<T, N>) {
        match &self.scheme.history {
            Some(hist) if hist.h == h && hist.returned == *state => {
                ((T::lit(1.5), T::lit(-2.0), T::lit(0.5)), hist.previous)
            }
            _ => ((T::one(), -T::one(), T::zero()), *state),
        }
    }
}

impl<T: Real, const N: usize, const D: usize> Sealed for Bdf2Scheme<T, N, D> {}

impl<T: Real, const N: usize, const D: usize> ConstrainedScheme<T, N> for Bdf2Scheme<T, N, D> {
    /// The run-energy guard off (see the type docs).
    fn watch() -> Watch<T, N> {
        Watch::default_without(|g| g.energy_run = None)
    }

    /// The committed step becomes the history of the next: its start, the state the driver
    /// returned and its step size.
    #[inline]
    fn accept(&mut self, committed: &State<T, N>) {
        self.history = Some(History {
            previous: self.proposed.previous,
            returned: *committed,
            h: self.proposed.h,
        });
        self.multiplier = self.proposed.multiplier;
    }
}

impl<T, P, G, const N: usize, const D: usize> Method<T, N> for Bdf2<T, P, G, N, D>
where
    T: Real,
    P: Hessian<T, N>,
    G: Constraint<T, N, D>,
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let ((a0, a1, a2), prev) = self.scheme(state, h);
        let s = self
            .kernel
            .start(&self.constraint, &self.system.mass, state, false)?;
        let rq = s.q * a1 + prev.q * a2;
        let rv = s.v * a1 + prev.v * a2;
        let mass = &self.system.mass;
        let c = mass.mul(&rq) * a0 + mass.mul(&rv) * h;
        let guess = if a2 == T::zero() {
            s.q + s.v * h
        } else {
            s.q * T::lit(2.0) - prev.q
        };
        let (q, mu) = self.solve(a0, &c, h, guess)?;
        next.q = q;
        next.v = (q * a0 + rq) / h;
        self.scheme.proposed = Proposed {
            previous: s,
            h,
            multiplier: mu / (h * h),
        };
        Ok(T::zero())
    }
}
