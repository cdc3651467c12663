//! RATTLE (001 eqs 24–28) linearised in the tangent coordinates of its solution manifold
//! `𝓜 = {(q, v) : g(q) = 0, g'(q) v = 0}` (dimension `2R`, `R = N − D`).
//!
//! ## Coordinates
//! At a configuration `q` with `G = g'(q)`, `B = M⁻¹Gᵀ` and `S = G B`, let `U(q)` (`N × R`) be an
//! `M`-orthonormal basis of `ker G` (`UᵀMU = I`, `GU = 0`): the `M`-orthogonal projections
//! `P eⱼ = (I − B S⁻¹ G) eⱼ` of `R` coordinate axes, Gram–Schmidt-orthonormalised in the `M` inner
//! product. The axes are chosen at the start of the step (greedily, the projection with the
//! largest remaining `M`-norm first) and the **same axes** give the basis at the end, so the
//! bases of consecutive linearisations along a trajectory are one smooth field `U(q)` (and at an
//! equilibrium the start and end coordinates are the same).
//!
//! A tangent vector of `𝓜` at `(q, v)` has the coordinates `(ξ, η) ∈ ℝᴿ × ℝᴿ`:
//!
//! ```text
//! δq = U ξ,    δv = U η − B S⁻¹ Γ(v) U ξ          (Γ(v) row i: (Hess gᵢ(q) v)ᵀ),
//! ξ = UᵀM δq,  η = UᵀM δv,
//! ```
//!
//! the velocity correction keeping the hidden constraint `δ(G v) = G δv + Γ(v) δq = 0`. These are
//! Darboux coordinates of the restriction of `dq ∧ dp` (`p = M v`) to `𝓜`:
//! `ω(δ₁, δ₂) = ξ₁·η₂ − η₁·ξ₂`, because `G U = 0` and `UᵀMU = I`. So RATTLE's symplecticity
//! on `𝓜` (001 §4) is `AᵀJA = J` for the reduced `A` with the canonical `J`
//! ([`TangentJacobian::symplectic_defect`]).
//!
//! ## The derivative
//! The step is differentiated in full coordinates along the tangent directions and the result
//! read in the end coordinates. With `c = h²/2`, `Λ₀ = Σ λ⁽ʳ⁾ᵢ Hess gᵢ(qₙ)` and
//! `Μ₁ = Σ μᵢ Hess gᵢ(qₙ₊₁)` (`μ = (h/2)λ⁽ᵛ⁾`):
//!
//! ```text
//! δa₀ = M⁻¹(−Hess V(qₙ) δqₙ + δu),   δw = δvₙ + (h/2) δa₀,   z = δqₙ + h δw + c M⁻¹Λ₀ δqₙ
//! δλ⁽ʳ⁾ = −(c G₁ B₀)⁻¹ G₁ z,         δqₙ₊₁ = z + c B₀ δλ⁽ʳ⁾                 (G₁ δqₙ₊₁ = 0)
//! δũ = δw + (h/2)(M⁻¹Λ₀ δqₙ + B₀ δλ⁽ʳ⁾) + (h/2) M⁻¹(−Hess V(qₙ₊₁) δqₙ₊₁ + δu)
//! δμ = −S₁⁻¹ (G₁(δũ + M⁻¹Μ₁ δqₙ₊₁) + Γ₁(vₙ₊₁) δqₙ₊₁),   δvₙ₊₁ = δũ + M⁻¹Μ₁ δqₙ₊₁ + B₁ δμ
//! ```
//!
//! (the implicit function theorem on the position constraint `g(qₙ₊₁) = 0` and on the hidden
//! constraint at the end). The end projection's change `B₁ δμ` lies along `M⁻¹G₁ᵀ`, which the
//! end coordinates `η = UᵀMδv` do not see (`UᵀG₁ᵀ = 0`): it keeps the full-coordinate `δvₙ₊₁`
//! tangent and does not change the reduced `A`. `c G₁ B₀` is the matrix of the step's Newton iteration at its root and
//! `S₁` that of its end projection; each is factorised once for every column. The held force
//! `u ∈ ℝᴺ` stays in full coordinates: `B` is `2R × N` (a force along `g'ᵀ` is absorbed by the
//! multipliers at the start of the step, not at its end: it acts at `O(h²)`).
//!
//! Cost: the step (its Newton solve), two Hessians of `V`, two weighted Hessians and two
//! `Hess g · v` products of the constraint, three `D × D` factorisations and `O(N²R)` for the
//! bases; no iteration beyond the step's.

use super::kernel::{mass_inverse, Factored};
use crate::constrained::Rattle;
use crate::linalg::all_finite;
use crate::model::{Constraint, Hessian, Mass, System};
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// The linearisation of one RATTLE step in the tangent coordinates `(ξ, η)` of the solution
/// manifold at its start and end (see the [module docs](self) for the construction): `R × R`
/// blocks of `A` and `R × N` blocks of `B` (the held force `u` in full coordinates).
///
/// ```text
/// δξ⁺ = qq δξ + qv δη + bq δu
/// δη⁺ = vq δξ + vv δη + bv δu
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentJacobian<T: Real, const N: usize, const R: usize> {
    /// `∂ξ⁺/∂ξ`.
    pub qq: SMatrix<T, R, R>,
    /// `∂ξ⁺/∂η`.
    pub qv: SMatrix<T, R, R>,
    /// `∂η⁺/∂ξ`.
    pub vq: SMatrix<T, R, R>,
    /// `∂η⁺/∂η`.
    pub vv: SMatrix<T, R, R>,
    /// `∂ξ⁺/∂u`.
    pub bq: SMatrix<T, R, N>,
    /// `∂η⁺/∂u`.
    pub bv: SMatrix<T, R, N>,
    /// `U(qₙ)`: the `M`-orthonormal basis of `ker g'(qₙ)` of the start coordinates.
    pub start_basis: SMatrix<T, N, R>,
    /// `U(qₙ₊₁)`: the basis of the end coordinates (the same coordinate axes projected).
    pub end_basis: SMatrix<T, N, R>,
}

impl<T: Real, const N: usize, const R: usize> TangentJacobian<T, N, R> {
    /// `A = [[qq, qv], [vq, vv]]` as an `S × S` matrix; `S = 2R` is checked at compile time.
    pub fn a<const S: usize>(&self) -> SMatrix<T, S, S> {
        const { assert!(S == 2 * R, "TangentJacobian::a: S must be 2R") };
        let mut a = SMatrix::<T, S, S>::zeros();
        a.fixed_view_mut::<R, R>(0, 0).copy_from(&self.qq);
        a.fixed_view_mut::<R, R>(0, R).copy_from(&self.qv);
        a.fixed_view_mut::<R, R>(R, 0).copy_from(&self.vq);
        a.fixed_view_mut::<R, R>(R, R).copy_from(&self.vv);
        a
    }

    /// `B = [[bq], [bv]]` as an `S × N` matrix; `S = 2R` is checked at compile time.
    pub fn b<const S: usize>(&self) -> SMatrix<T, S, N> {
        const { assert!(S == 2 * R, "TangentJacobian::b: S must be 2R") };
        let mut b = SMatrix::<T, S, N>::zeros();
        b.fixed_view_mut::<R, N>(0, 0).copy_from(&self.bq);
        b.fixed_view_mut::<R, N>(R, 0).copy_from(&self.bv);
        b
    }

    /// The defect `max |AᵀJA − J|` of the canonical symplectic form in `(ξ, η)` (Darboux
    /// coordinates of the restricted form): zero to roundoff for RATTLE.
    pub fn symplectic_defect(&self) -> T {
        let i = SMatrix::<T, R, R>::identity();
        let (a, b, c, d) = (self.qq, self.qv, self.vq, self.vv);
        let b1 = a.transpose() * c - c.transpose() * a;
        let b2 = a.transpose() * d - c.transpose() * b - i;
        let b3 = b.transpose() * d - d.transpose() * b;
        b1.amax().max(b2.amax()).max(b3.amax())
    }

    /// Whether every entry is finite.
    pub fn is_finite(&self) -> bool {
        let blocks = [self.qq, self.qv, self.vq, self.vv];
        let inputs = [self.bq, self.bv];
        let bases = [self.start_basis, self.end_basis];
        blocks.iter().all(|m| all_finite(m.as_slice()))
            && inputs.iter().all(|m| all_finite(m.as_slice()))
            && bases.iter().all(|m| all_finite(m.as_slice()))
    }
}

/// `⟨x, y⟩_M`.
fn m_dot<T: Real, const N: usize>(mass: &Mass<T, N>, x: &SVector<T, N>, y: &SVector<T, N>) -> T {
    x.dot(&mass.mul(y))
}

/// The `M`-orthonormal basis of `ker g'(q)` from the columns of the `M`-orthogonal projector
/// `p` onto it: the axes `axes` in order, or (`axes = None`) greedily the column with the largest
/// remaining `M`-norm. Returns the basis and the axes.
///
/// # Errors
/// [`StepError::Singular`] when a column's remaining `M`-norm is not above `√ε` times the axis'
/// own (`ker g'` does not meet the chosen axes transversally).
fn basis<T: Real, const N: usize, const R: usize>(
    mass: &Mass<T, N>,
    p: &SMatrix<T, N, N>,
    axes: Option<[usize; R]>,
) -> Result<(SMatrix<T, N, R>, [usize; R]), StepError> {
    let mut u = SMatrix::<T, N, R>::zeros();
    let mut chosen = [0usize; R];
    let mut used = [false; N];
    let floor = T::default_epsilon().sqrt();
    for r in 0..R {
        let mut best: Option<(usize, SVector<T, N>, T)> = None;
        for (j, &taken) in used.iter().enumerate() {
            let allowed = match axes {
                Some(a) => a[r] == j,
                None => !taken,
            };
            if !allowed {
                continue;
            }
            let mut x = p.column(j).into_owned();
            // Two passes of modified Gram–Schmidt (the second removes the first's roundoff).
            for _ in 0..2 {
                for k in 0..r {
                    let uk = u.column(k).into_owned();
                    x -= uk * m_dot(mass, &uk, &x);
                }
            }
            let n2 = m_dot(mass, &x, &x);
            let own = mass.matrix()[(j, j)];
            if !(n2.finite() && n2 > floor * floor * own) {
                continue;
            }
            let better = match &best {
                Some((_, _, b)) => n2 / own > *b,
                None => true,
            };
            if better {
                best = Some((j, x, n2 / own));
            }
        }
        let Some((j, x, _)) = best else {
            return Err(StepError::Singular);
        };
        let n = m_dot(mass, &x, &x).sqrt();
        u.set_column(r, &(x / n));
        chosen[r] = j;
        used[j] = true;
    }
    Ok((u, chosen))
}

/// The constraint's matrices at one configuration: `G`, `B = M⁻¹Gᵀ`, `S = G B` factorised and the
/// `M`-orthogonal projector `I − B S⁻¹ G` onto `ker G`.
struct AtConfiguration<T: Real, const N: usize, const D: usize> {
    g: SMatrix<T, D, N>,
    b: SMatrix<T, N, D>,
    s: Factored<T, D>,
    projector: SMatrix<T, N, N>,
}

fn at_configuration<T: Real, C: Constraint<T, N, D>, const N: usize, const D: usize>(
    constraint: &C,
    minv: &SMatrix<T, N, N>,
    q: &SVector<T, N>,
) -> Result<AtConfiguration<T, N, D>, StepError> {
    let g = constraint.jacobian(q);
    let b = minv * g.transpose();
    let s = Factored::matrix(g * b)?;
    let mut sg = g;
    s.solve(&mut sg);
    Ok(AtConfiguration {
        g,
        b,
        s,
        projector: SMatrix::<T, N, N>::identity() - b * sg,
    })
}

/// What the derivative of the step needs, at the start (`0`) and the end (`1`).
struct Chain<T: Real, const N: usize, const D: usize> {
    h: T,
    minv: SMatrix<T, N, N>,
    /// `M⁻¹ Hess V(qₙ)`, `M⁻¹ Hess V(qₙ₊₁)`.
    minv_h0: SMatrix<T, N, N>,
    minv_h1: SMatrix<T, N, N>,
    /// `M⁻¹Λ₀`, `M⁻¹Μ₁`.
    minv_l0: SMatrix<T, N, N>,
    minv_m1: SMatrix<T, N, N>,
    b0: SMatrix<T, N, D>,
    end: AtConfiguration<T, N, D>,
    /// `Γ₁(vₙ₊₁)`.
    gamma1: SMatrix<T, D, N>,
    /// `c G₁ B₀`, the Newton matrix at the root.
    newton: Factored<T, D>,
}

impl<T: Real, const N: usize, const D: usize> Chain<T, N, D> {
    /// `(δqₙ₊₁, δvₙ₊₁)` for the columns of `(δqₙ, δvₙ, δu)`.
    fn apply<const C: usize>(
        &self,
        dq: &SMatrix<T, N, C>,
        dv: &SMatrix<T, N, C>,
        du: &SMatrix<T, N, C>,
    ) -> (SMatrix<T, N, C>, SMatrix<T, N, C>) {
        let (h, half) = (self.h, self.h * T::lit(0.5));
        let c = h * half;
        let minv_du = self.minv * du;
        let dw = dv + (minv_du - self.minv_h0 * dq) * half;
        let l0 = self.minv_l0 * dq;
        let z = dq + dw * h + l0 * c;
        let mut dl = -(self.end.g * z);
        self.newton.solve(&mut dl);
        let q1 = z + self.b0 * dl * c;
        let m1 = self.minv_m1 * q1;
        // δũ + M⁻¹Μ₁ δqₙ₊₁: the end velocity before its projection's change.
        let pre = dw + (l0 + self.b0 * dl) * half + (minv_du - self.minv_h1 * q1) * half + m1;
        let mut mu = -(self.end.g * pre + self.gamma1 * q1);
        self.end.s.solve(&mut mu);
        (q1, pre + self.end.b * mu)
    }
}

impl<T, P, G, const N: usize, const D: usize> Rattle<T, P, G, N, D>
where
    T: Real,
    P: Hessian<T, N>,
    G: Constraint<T, N, D>,
{
    /// The linearisation of one step of the configured size from `state` in the tangent
    /// coordinates of the solution manifold (see [`crate::linearise`]'s RATTLE section): `R`
    /// must be `N − D`, checked at compile time.
    ///
    /// # Errors
    /// As [`Rattle::linearise_tangent_by`].
    pub fn linearise_tangent<const R: usize>(
        &self,
        state: &State<T, N>,
    ) -> Result<TangentJacobian<T, N, R>, StepError> {
        self.linearise_tangent_by(state, crate::driver::Guarded::<T, N>::step_size(self))
    }

    /// The linearisation of one step of signed size `h` from `state` in the tangent coordinates
    /// of the solution manifold, at the held force of the potential (if any). `R = N − D` is
    /// checked at compile time.
    ///
    /// ```
    /// use macrostep::constrained::{ConstraintNewtonParams, Rattle};
    /// use macrostep::systems::Pendulum;
    /// use macrostep::nalgebra::{vector, SMatrix};
    /// use macrostep::State;
    /// let p = Pendulum::<f64>::paper();
    /// let rattle = Rattle::new(p.system(), p.constraint(), 0.01, ConstraintNewtonParams::default()).unwrap();
    /// // Hanging at rest: one angle, so A is 2 × 2; symplectic (det A = 1) and oscillating at
    /// // ω = √(g/L) = 1, |arg λ| = ωh to the step's order.
    /// let j = rattle.linearise_tangent::<1>(&State::at_rest(vector![0.0, -1.0])).unwrap();
    /// let a: SMatrix<f64, 2, 2> = j.a();
    /// assert!((a.determinant() - 1.0).abs() < 1e-13);
    /// assert!((a.trace() - 2.0 * 0.01f64.cos()).abs() < 1e-8);
    /// ```
    ///
    /// # Errors
    /// The step's: [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
    /// [`StepError::Precondition`] for a start off the manifold (with
    /// [`OffManifold::Reject`](crate::constrained::OffManifold::Reject); with `Project` the
    /// linearisation is at the projected start), [`StepError::NotConverged`] from the position
    /// solve, [`StepError::Singular`] for a rank-deficient `g'M⁻¹g'ᵀ` or Newton matrix (and when
    /// the start's coordinate axes are tangent to `g'(qₙ₊₁)`'s normal space),
    /// [`StepError::NonFiniteResult`]. The integrator is not changed.
    pub fn linearise_tangent_by<const R: usize>(
        &self,
        state: &State<T, N>,
        h: T,
    ) -> Result<TangentJacobian<T, N, R>, StepError> {
        const { assert!(R + D == N, "linearise_tangent: R must be N − D") };
        let parts = self.parts(state, h)?;
        let (system, constraint): (&System<T, P, N>, &G) = (self.system(), self.constraint());
        let mass = &system.mass;
        let minv = mass_inverse(mass);
        let (q0, q1) = (parts.start.q, parts.end.q);
        let start = at_configuration(constraint, &minv, &q0)?;
        let end = at_configuration(constraint, &minv, &q1)?;
        let c = h * h * T::lit(0.5);
        let newton = Factored::matrix(end.g * start.b * c)?;
        let (u0, axes) = basis::<T, N, R>(mass, &start.projector, None)?;
        let (u1, _) = basis::<T, N, R>(mass, &end.projector, Some(axes))?;
        let chain = Chain {
            h,
            minv,
            minv_h0: minv * system.potential.hessian(&q0),
            minv_h1: minv * system.potential.hessian(&q1),
            minv_l0: minv * constraint.weighted_hessian(&q0, &parts.lambda),
            minv_m1: minv * constraint.weighted_hessian(&q1, &parts.mu),
            b0: start.b,
            gamma1: constraint.hessian_times(&q1, &parts.end.v),
            end,
            newton,
        };
        // The start's tangent directions: ξ moves q along U and v to keep g'(q)v = 0; η moves v.
        let mut corr = -(constraint.hessian_times(&q0, &parts.start.v) * u0);
        start.s.solve(&mut corr);
        let zr = SMatrix::<T, N, R>::zeros();
        let (xq, xv) = chain.apply(&u0, &(start.b * corr), &zr);
        let (eq, ev) = chain.apply(&zr, &u0, &zr);
        let zn = SMatrix::<T, N, N>::zeros();
        let (uq, uv) = chain.apply(&zn, &zn, &SMatrix::<T, N, N>::identity());
        let read = u1.transpose() * mass.matrix();
        let j = TangentJacobian {
            qq: read * xq,
            qv: read * eq,
            vq: read * xv,
            vv: read * ev,
            bq: read * uq,
            bv: read * uv,
            start_basis: u0,
            end_basis: u1,
        };
        if j.is_finite() {
            Ok(j)
        } else {
            Err(StepError::NonFiniteResult)
        }
    }
}
