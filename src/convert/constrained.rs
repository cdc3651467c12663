//! The symplectic layer of 003 on a constrained configuration space (§3, stages S1–S4) over any
//! [`ConstrainedLayer`].

use super::constrained_rk::{minv_jt, ConstrainedLayer};
use super::{lu_solve, lu_solve_cols, ConvertParams};
use crate::constrained::{ConstraintNewtonParams, ConstraintProbe, OffManifold};
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::{Constraint, System};
use crate::{ConfigError, Integrator, PreconditionKind, Real, State, StepError, Stepper};
use nalgebra::{SMatrix, SVector};

/// The variational integrator converted from a standard layer `L` on the constraint manifold
/// `Q = {g(q) = 0}` (Patrick, Cuell, Spiteri & Zhang, 003 §3: stages S1–S4 with the projection
/// `ℙ` of (3.2); bias `α⁻ = 0`).
///
/// With `R` the (ambient, constraint-drifting) layer, `∂⁻(w) = q`, `∂⁺(w) = ℙ(R^q_h(w))`,
/// `L_h(w) = R^S_h(w)` for `w = (q, u) ∈ TQ`, the multipliers of (S1.1)/(S2.4) solve
///
/// ```text
/// DL_h(w) = λ D∂⁻(w) + μ D∂⁺(w) + ν₁[g′(q), 0] + ν₂[uᵀD²g(q), g′(q)],   λ g′(q)ᵀ = 0,  μ g′(∂⁺)ᵀ = 0,
/// ```
///
/// and one step from `(q_k, v_k) ∈ TQ` solves the shooting problem for `u ∈ T_{q_k}Q` and maps
///
/// ```text
/// λ(q_k, u) = −Π M v_k      (Π: orthogonal projector onto ker g′(q_k))
/// q_{k+1} = ∂⁺(q_k, u),   M v_{k+1} = μ + g′(q_{k+1})ᵀκ  with  g′(q_{k+1}) v_{k+1} = 0.
/// ```
///
/// Order `L::ORDER` (the source's), symplectic on the constrained phase space
/// `{g(q) = 0, g′(q)v = 0}` for the restriction of `dq ∧ d(Mv)` whatever the source; `q_{k+1}`
/// is on `g = 0` to the Newton tolerance of `ℙ`. Symmetry is not claimed. Cost per fixed-point
/// iteration: one layer evaluation with tangents, one bounded Newton solve for `ℙ`, and a few
/// `N × N` and `D × D` LU solves.
///
/// # Errors
/// Those of [`Integrator::step_by`]; [`StepError::Precondition`] when the start is off the
/// manifold (`‖g(q)‖∞` or `‖g′(q)v‖∞` above [`ConstraintNewtonParams::manifold_tol`]) and
/// [`OffManifold::Reject`] is set; [`StepError::NotConverged`] when the fixed-point iteration
/// reaches [`ConvertParams::max_iter`] or the Newton solve of `ℙ` reaches
/// [`ConstraintNewtonParams::max_iter`]; [`StepError::Singular`] when a linear system of the
/// step is singular (dependent constraints, step far too large); [`StepError::NonFiniteResult`]
/// when a layer evaluation is not finite. The state is unchanged on error.
///
/// ```
/// use macrostep::constrained::ConstraintNewtonParams;
/// use macrostep::convert::{ConstrainedRk, ConvertParams, ConvertedConstrained, Rk4};
/// use macrostep::{systems::Pendulum, Integrator};
/// let p = Pendulum::<f64>::paper();
/// let rk4 = ConstrainedRk::<_, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), 0.1).unwrap();
/// let mut vi = ConvertedConstrained::new(
///     rk4,
///     ConvertParams::default(),
///     ConstraintNewtonParams::default(),
/// )
/// .unwrap();
/// let mut s = p.initial_state();
/// let e0 = p.system().energy(&s);
/// vi.integrate(&mut s, 2_000).unwrap(); // ~27 periods
/// assert!((s.q.norm() - 1.0).abs() < 1e-12); // on the rod
/// assert!((p.system().energy(&s) - e0).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ConvertedConstrained<T: Real, L, const N: usize, const D: usize> {
    layer: L,
    params: ConvertParams<T>,
    newton: ConstraintNewtonParams<T>,
    iterations: u32,
    /// The iteration count of the last proposal (kept when the driver commits it).
    proposed_iterations: u32,
    watch: Watch<T, N>,
}

/// The end `∂⁺`, and the multipliers `λ`, `μ` at one `w`.
struct Ends<T: Real, const N: usize> {
    q: SVector<T, N>,
    lambda: SVector<T, N>,
    mu: SVector<T, N>,
}

/// `I − Gᵀ(GGᵀ)⁻¹G`: the orthogonal projector onto `ker G`.
fn kernel_projector<T: Real, const N: usize, const D: usize>(
    g: &SMatrix<T, D, N>,
) -> Result<SMatrix<T, N, N>, StepError> {
    let gt = g.transpose();
    Ok(SMatrix::identity() - gt * lu_solve_cols(&(g * gt), g)?)
}

/// The projection `ℙ` of 003 (3.2): `q` with `g(q) = 0` and `q̂ = q + g′(q)ᵀθ`, by Newton on
/// `(q, θ)` from `(q̂, 0)` (one more update after the tolerance is met, so `ℙ` is smooth to
/// rounding), and its derivative `Dℙ(q̂) = X − XGᵀ(GXGᵀ)⁻¹GX`, `X = (I + Σθᵢ Hess gᵢ)⁻¹` (4.6).
pub(crate) fn project_3_2<T: Real, G: Constraint<T, N, D>, const N: usize, const D: usize>(
    g: &G,
    qhat: &SVector<T, N>,
    newton: &ConstraintNewtonParams<T>,
) -> Result<(SVector<T, N>, SMatrix<T, N, N>), StepError> {
    let (mut q, mut theta) = (*qhat, SVector::<T, D>::zeros());
    let scale = T::one() + qhat.amax();
    let mut met = false;
    for _ in 0..=newton.max_iter {
        let j = g.jacobian(&q);
        let k = SMatrix::<T, N, N>::identity() + g.weighted_hessian(&q, &theta);
        let x = lu_solve_cols(&k, &SMatrix::<T, N, N>::identity())?;
        let xjt = x * j.transpose();
        let s = j * xjt;
        if met {
            let dp = x - xjt * lu_solve_cols(&s, &(j * x))?;
            return if q.iter().chain(dp.iter()).all(|z| z.finite()) {
                Ok((q, dp))
            } else {
                Err(StepError::NonFiniteResult)
            };
        }
        let r1 = q + j.transpose() * theta - qhat;
        let r2 = g.value(&q);
        if !(r1.iter().chain(r2.iter()).all(|z| z.finite())) {
            return Err(StepError::NonFiniteResult);
        }
        met = r2.amax() <= newton.tol && r1.amax() <= newton.tol * scale;
        let xr = x * r1;
        let dtheta = lu_solve(&s, &(r2 - j * xr))?;
        q -= xr + xjt * dtheta;
        theta += dtheta;
    }
    Err(StepError::NotConverged)
}

impl<T: Real, L: ConstrainedLayer<T, N, D>, const N: usize, const D: usize>
    ConvertedConstrained<T, L, N, D>
{
    /// The converted integrator of `layer` (its step size is the layer's); `newton` bounds the
    /// Newton solve of `ℙ` and sets the manifold tolerances and the off-manifold policy
    /// (`warm_start` is not used: `ℙ` always starts from `θ = 0`, so a step is a pure function
    /// of the state).
    ///
    /// # Errors
    /// As [`ConvertParams::validate`] and [`ConstraintNewtonParams::validate`];
    /// [`ConfigError::OutOfRange`] for `"alpha_minus"` unless it is `0` (the constrained
    /// conversion puts the state at the start of each segment; see the module docs).
    pub fn new(
        layer: L,
        params: ConvertParams<T>,
        newton: ConstraintNewtonParams<T>,
    ) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        if params.alpha_minus != T::zero() {
            return Err(ConfigError::OutOfRange {
                name: "alpha_minus",
                bound: "0 for a constrained conversion",
            });
        }
        let newton = newton.validate()?;
        Ok(Self {
            layer,
            params,
            newton,
            iterations: 0,
            proposed_iterations: 0,
            watch: Watch::default(),
        })
    }

    /// The standard layer.
    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// The parameters of the fixed-point iteration.
    pub fn params(&self) -> &ConvertParams<T> {
        &self.params
    }

    /// The parameters of the projection's Newton solve.
    pub fn newton_params(&self) -> &ConstraintNewtonParams<T> {
        &self.newton
    }

    /// Fixed-point iterations taken by the last successful step.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Brings `state` onto the constrained phase space: `q ← ℙ(q)` (3.2) and `v` projected
    /// `M`-orthogonally onto `g′(q)v = 0`.
    ///
    /// # Errors
    /// Those of the Newton solve of `ℙ` ([`StepError::NotConverged`], [`StepError::Singular`],
    /// [`StepError::NonFiniteResult`]); the state is unchanged on error.
    pub fn project(&self, state: &mut State<T, N>) -> Result<(), StepError> {
        let (q, _) = project_3_2(self.layer.constraint(), &state.q, &self.newton)?;
        let v = self.tangent(&q, &state.v)?;
        state.q = q;
        state.v = v;
        Ok(())
    }

    /// `v` projected `M`-orthogonally onto `ker g′(q)`.
    fn tangent(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> Result<SVector<T, N>, StepError> {
        let j = self.layer.constraint().jacobian(q);
        let b = minv_jt(&self.layer.system().mass, &j);
        Ok(v - b * lu_solve(&(j * b), &(j * v))?)
    }

    /// `∂⁺`, `λ` and `μ` at `w = (q, u)` (stages S1–S3 with `α⁻ = 0`, so `∂⁻(w) = q`). `μ`
    /// solves `C⁺ᵀμ + g′(q)ᵀν₂ = ∂_u L_h`, `g′(∂⁺)μ = 0` with `C⁺ = Dℙ ∂_u R^q` singular on the
    /// normals: `C⁺ᵀ` is replaced by `C⁺ᵀ + h P_N⁺` (`P_N⁺` the orthogonal projector onto the
    /// normals at `∂⁺`), which changes nothing on `g′(∂⁺)μ = 0` and is invertible.
    fn ends(
        &self,
        q: &SVector<T, N>,
        u: &SVector<T, N>,
        h: T,
        pi: &SMatrix<T, N, N>,
    ) -> Result<Ends<T, N>, StepError> {
        let g = self.layer.constraint();
        let seg = self.layer.segment(q, u, h);
        if !seg.is_finite() {
            return Err(StepError::NonFiniteResult);
        }
        let (qp, dp) = project_3_2(g, &seg.q, &self.newton)?;
        let (a_plus, c_plus) = (dp * seg.q_q, dp * seg.q_v);
        let (g0, gp) = (g.jacobian(q), g.jacobian(&qp));
        let normal = SMatrix::<T, N, N>::identity() - kernel_projector(&gp)?;
        let bt = c_plus.transpose() + normal * h;
        let yc = lu_solve(&bt, &seg.s_v)?;
        let yg = lu_solve_cols(&bt, &g0.transpose())?;
        let nu2 = lu_solve(&(gp * yg), &(gp * yc))?;
        let mu = yc - yg * nu2;
        let hm = g.hessian_times(q, u);
        let lambda = pi * (seg.s_q - a_plus.transpose() * mu - hm.transpose() * nu2);
        Ok(Ends { q: qp, lambda, mu })
    }

    /// The bounded fixed-point solve of `λ(q, u) = −Π M v` for `u ∈ T_qQ` (003 §4.2–4.4 on the
    /// approximates `λ ≈ −Mu`); returns the next `(q, v)` and the iteration count.
    fn solve(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        h: T,
    ) -> Result<(SVector<T, N>, SVector<T, N>, u32), StepError> {
        let mass = &self.layer.system().mass;
        let pi = kernel_projector(&self.layer.constraint().jacobian(q))?;
        let target = pi * mass.mul(v);
        let mut u = self.tangent(q, v)?;
        let scale = T::one() + v.amax();
        let mut met = false;
        for it in 0..=self.params.max_iter {
            let e = self.ends(q, &u, h, &pi)?;
            if met {
                return Ok((e.q, self.tangent(&e.q, &mass.solve(&e.mu))?, it));
            }
            let du = self.tangent(q, &mass.solve(&(e.lambda + target)))?;
            if !du.iter().all(|z| z.finite()) {
                return Err(StepError::NonFiniteResult);
            }
            met = du.amax() <= self.params.tol * scale;
            u += du;
        }
        Err(StepError::NotConverged)
    }

    /// The start of a step on the manifold, or [`StepError::Precondition`].
    fn start(&self, state: &State<T, N>) -> Result<(SVector<T, N>, SVector<T, N>), StepError> {
        let g = self.layer.constraint();
        let tol = self.newton.manifold_tol;
        let r = g.value(&state.q).amax();
        let rv = (g.jacobian(&state.q) * state.v).amax();
        // `!(x <= tol)`: a NaN residual is off the manifold.
        let off = !(r <= tol && rv <= tol);
        if !off {
            return Ok((state.q, state.v));
        }
        match self.newton.off_manifold {
            OffManifold::Project => {
                let mut s = *state;
                self.project(&mut s)?;
                Ok((s.q, s.v))
            }
            OffManifold::Reject if r > tol || !r.finite() => {
                Err(StepError::exceeded(PreconditionKind::OffManifold, r, tol))
            }
            OffManifold::Reject => Err(StepError::exceeded(PreconditionKind::NotTangent, rv, tol)),
        }
    }
}

impl<T: Real, L: ConstrainedLayer<T, N, D>, const N: usize, const D: usize> Guarded<T, N>
    for ConvertedConstrained<T, L, N, D>
{
    type Probe<'a>
        = ConstraintProbe<'a, System<T, L::Potential, N>, L::Constraint, D>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        Stepper::step_size(&self.layer)
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>) {
        (
            &mut self.watch,
            ConstraintProbe {
                energy: self.layer.system(),
                constraint: self.layer.constraint(),
            },
        )
    }

    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.iterations = self.proposed_iterations;
    }
}

impl<T: Real, L: ConstrainedLayer<T, N, D>, const N: usize, const D: usize> Method<T, N>
    for ConvertedConstrained<T, L, N, D>
{
    const ORDER: u32 = <L as Integrator<T, N>>::ORDER;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let (q, v) = self.start(state)?;
        let (q, v, it) = self.solve(&q, &v, h)?;
        next.q = q;
        next.v = v;
        self.proposed_iterations = it;
        Ok(T::zero())
    }
}
