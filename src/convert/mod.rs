//! Converting any one-step method into a variational integrator of the same order
//! (Patrick, Cuell, Spiteri & Zhang, seed 003, §2 and stages S0–S4 of §3).
//!
//! # The construction (003 §2)
//!
//! A *standard layer* is any one-step method of order `r` applied to the Euler–Lagrange
//! equations augmented with the action, `q̇ = v`, `v̇ = A(q, v)`, `Ṡ = L(q, v)` (003 §2, with
//! `L = ½ vᵀMv − V(q)` here): `R_t(q, v) = (R^q_t, R^v_t, R^S_t)`. With a *bias*
//! `α⁻ ∈ [−1, 0]`, `α⁺ = 1 + α⁻` and a step `h`, every `w = (q, v)` carries a curve segment with
//! ends and action
//!
//! ```text
//! ∂⁻(w) = R^q_{hα⁻}(w),   ∂⁺(w) = R^q_{hα⁺}(w),   L_h(w) = R^S_{hα⁺}(w) − R^S_{hα⁻}(w).
//! ```
//!
//! Stage S0 of 003 §3 (unconstrained: `d = 0`, [`Converted`]) is the discrete Euler–Lagrange system
//! `DL_h(w₁) = λ⁻D∂⁻(w₁) + μD∂⁺(w₁)`, `DL_h(w₂) = λ⁺D∂⁺(w₂) − μD∂⁻(w₂)`,
//! `∂⁺(w₁) = ∂⁻(w₂)` for `w₂`, with multipliers `λ⁻, μ, λ⁺ ∈ ℝᴺ`. Read through the map
//! `w ↦ (∂⁻(w), ∂⁺(w))` this is the classical variational integrator of the discrete Lagrangian
//! `L_d(∂⁻(w), ∂⁺(w)) = L_h(w)`: `(λ, μ) = (D₁L_d, D₂L_d)` solve the linear system
//! `[λ μ]·[D∂⁻; D∂⁺] = DL_h` at `w`, and the discrete momenta are `p⁻(w) = −λ`, `p⁺(w) = μ`.
//!
//! # Decisions (003's equations are partly garbled; its structure is used)
//!
//! - **State in discrete-Legendre coordinates.** [`Converted`] advances `(q, v)` where `q` is a
//!   segment end (a node `q̄` of 003) and `M v` the discrete momentum there:
//!   given `(q_k, p_k = M v_k)` it solves `∂⁻(w) = q_k`, `p⁻(w) = p_k` for `w` (the shooting
//!   problem, `2N` equations) and returns `q_{k+1} = ∂⁺(w)`, `p_{k+1} = p⁺(w) = μ(w)`. This is
//!   003's symplectic layer `w₁ ↦ w₂` conjugated by the discrete Legendre transform
//!   `w ↦ (∂⁻(w), p⁻(w))` (S0.1–S0.3 say exactly `(∂⁻(w₂), p⁻(w₂)) = (∂⁺(w₁), p⁺(w₁))`), so it
//!   is the same integrator; in these coordinates it is symplectic for the *canonical* form in
//!   `(q, M v)`, which is what [`Integrator::SYMPLECTIC`] claims
//!   and host tests measure (on `w` it preserves `ω_{L_h}` of 003 instead).
//! - **The solve** is 003 §4.2–4.3's fixed-point iteration on the approximates (4.9),
//!   `D∂⁻ ≈` its exact value and `Dp⁻/Dv ≈ M`: one linear solve with `D_q∂⁻` (the identity when
//!   `α⁻ = 0`) and one with `M` per iteration, contraction `O(h²‖M⁻¹∇²V‖)`; it is bounded by
//!   [`ConvertParams::max_iter`] and ends with [`StepError::NotConverged`](crate::StepError) —
//!   the state untouched — when the cap is reached. After the tolerance is met one more
//!   iteration is taken, so the map is smooth to rounding (the symplecticity test differences
//!   it).
//! - **Derivatives of the layer** (`D∂±`, `DL_h`, 003 §4.1) are exact: a Runge–Kutta layer
//!   integrates the first-variation equations with the same tableau (Hairer–Lubich–Wanner
//!   Lemma 4.1, as 003 §4.1 proposes); the Verlet-type layers differentiate their closed form.
//!   The crate's [`Integrator`] cannot be differentiated (its scalar is `f32`
//!   or `f64`, no dual number implements `RealField`), so the construction is generic over
//!   [`StandardLayer`], an `Integrator` that also supplies the action and the tangent map.
//! - **Action of a partitioned layer.** Symplectic Euler and Störmer–Verlet integrate `Ṡ = L`
//!   with the quadrature their partitioning implies (the left/right rectangle and the
//!   trapezoidal rule at the half-step velocity): their converted maps are the methods themselves
//!   (a test checks it).
//!
//! # The constrained construction (003 §3, stages S1–S4): [`ConvertedConstrained`]
//!
//! On `Q = {g(q) = 0} ⊂ ℝᴺ` (`D` holonomic constraints, [`Constraint`](crate::model::Constraint))
//! the source is a layer of the *ambient* space ([`ConstrainedLayer`]) that need not preserve
//! `g`, e.g. [`ConstrainedRk`]: an explicit RK method on the index-1 equations (4.2) with a
//! constant mass matrix, whose first variation needs `Hess gᵢ` and `a·gᵢ‴·a` (003 §4.1). Stage S3
//! redefines the segment ends through the projection `ℙ` of (3.2): `ℙ(q̂) = q` with
//! `q̂ = q + g′(q)ᵀθ`, `g(q) = 0`. Decisions:
//!
//! - **Bias `α⁻ = 0` only.** Then `∂⁻(w) = q` on `TQ` (no projection needed at the start), the
//!   state is a node `q_k ∈ Q` with a tangent velocity `v_k` (`g′(q_k)v_k = 0`), and the unknown
//!   of a step is `w = (q_k, u)`, `u ∈ T_{q_k}Q` — `N − D` unknowns, kept in ambient
//!   coordinates by projecting every update `M`-orthogonally onto `ker g′(q_k)`. A centred bias
//!   would add the shooting equation `ℙ(R^q_{hα⁻}(w)) = q_k` with its own `θ` (S3.5's second
//!   half); it is refused (`ConfigError::OutOfRange` for `"alpha_minus"`).
//! - **Multipliers solved exactly, not by the approximates.** At each iterate `w` the linear
//!   system of S1.1 with S2's disambiguation is solved for `λ, μ ∈ ℝᴺ`, `ν₁, ν₂ ∈ ℝᴰ`:
//!   `DL_h = λD∂⁻ + μD∂⁺ + ν₁[g′, 0] + ν₂[uᵀD²g, g′]`, `λg′(q_k)ᵀ = 0`, `μg′(∂⁺)ᵀ = 0`, with
//!   `D∂⁺ = Dℙ(q̂)·DR^q_h` and `Dℙ = X − XGᵀ(GXGᵀ)⁻¹GX`, `X = (I + D²(θᵀg))⁻¹` from (4.6)–(4.7).
//!   Composing `Dℙ` with the layer's tangent replaces S3.3–S3.4's hatted multipliers
//!   (`λ̂ᵀ = Dℙᵀλᵀ` is the chain rule) and with `α⁻ = 0` S3.5's `θ⁺` is zero, so neither is
//!   carried. `C⁺ = ∂_u∂⁺` is singular on the normals at `∂⁺` (`Dℙ` kills them); since
//!   `g′(∂⁺)μ = 0`, `C⁺ᵀ` is replaced by `C⁺ᵀ + h P_N` (`P_N` the orthogonal projector onto
//!   those normals), which leaves the solution unchanged and makes the `μ` block invertible
//!   (`≈ hI`). Only the outer iteration uses 003's approximate (4.9), `λ ≈ −Mu`:
//!   `u ← u + P_M M⁻¹(λ(u) + ΠMv_k)` until the update is below [`ConvertParams::tol`]
//!   (convergence judged on the physical `u`, not on the non-unique `ν`, as 003 §4.4 advises),
//!   bounded by [`ConvertParams::max_iter`], then one more iteration.
//! - **Momenta.** The discrete momenta are covectors on `Q`, defined modulo the normals:
//!   matching `−λ ≡ Mv_k` uses the orthogonal projector `Π` onto `ker g′(q_k)`, and the new
//!   velocity is the representative of `μ` that is tangent, `M v_{k+1} = μ + g′ᵀκ`,
//!   `g′(q_{k+1})v_{k+1} = 0` (RATTLE's convention). The map is symplectic for the restriction
//!   of `dq ∧ d(Mv)` to `{g = 0, g′v = 0}`; the host tests measure it on a tangent basis of
//!   that manifold (`host-tests/src/manifold.rs`).
//! - **`ℙ` is a bounded Newton solve** on `(q, θ)` with the crate's
//!   [`ConstraintNewtonParams`](crate::constrained::ConstraintNewtonParams) (tolerance on
//!   `‖g‖∞`, iteration cap, off-manifold policy), plus one update after the tolerance is met so
//!   that `ℙ` is smooth to rounding; non-convergence is
//!   [`StepError::NotConverged`](crate::StepError) with the state untouched.
//! - Garbled parts of 003 not used: the primed approximates (S4.3a′–S4.7b′, whose indices are
//!   inconsistent in the source text) are only needed for 003's all-approximate iteration.
//!
//! Everything here is `no_std`, fixed-size and allocation-free.

mod constrained;
mod constrained_rk;
mod converted;
mod partitioned;
mod rk;

pub use constrained::ConvertedConstrained;
pub use constrained_rk::{ConstrainedLayer, ConstrainedRk};
pub use converted::{ConvertParams, Converted};
pub use rk::{Euler, ExplicitRk, Heun, Rk4, Tableau, MAX_STAGES};

use crate::model::{Potential, System};
use crate::{Integrator, Real};
use nalgebra::{SMatrix, SVector};

/// The flow `R_t(q, v)` of a standard layer with its tangent map: the segment end `R^q_t`, the
/// action `R^S_t` and their derivatives with respect to `(q, v)` (003 §2, §4.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment<T: Real, const N: usize> {
    /// The end `R^q_t(q, v)`.
    pub q: SVector<T, N>,
    /// `∂R^q_t/∂q`.
    pub q_q: SMatrix<T, N, N>,
    /// `∂R^q_t/∂v`.
    pub q_v: SMatrix<T, N, N>,
    /// The action `R^S_t(q, v)`.
    pub s: T,
    /// `∂R^S_t/∂q`.
    pub s_q: SVector<T, N>,
    /// `∂R^S_t/∂v`.
    pub s_v: SVector<T, N>,
}

impl<T: Real, const N: usize> Segment<T, N> {
    /// The segment of length zero at `q`: `R_0 = id`, zero action.
    pub fn identity(q: &SVector<T, N>) -> Self {
        Self {
            q: *q,
            q_q: SMatrix::identity(),
            q_v: SMatrix::zeros(),
            s: T::zero(),
            s_q: SVector::zeros(),
            s_v: SVector::zeros(),
        }
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.s.finite()
            && self.q.iter().all(|x| x.finite())
            && self.q_q.iter().all(|x| x.finite())
            && self.q_v.iter().all(|x| x.finite())
            && self.s_q.iter().all(|x| x.finite())
            && self.s_v.iter().all(|x| x.finite())
    }
}

#[doc(hidden)]
/// A standard layer (003 §2): a one-step [`Integrator`] of `M q̈ = −∇V(q)` that also integrates
/// the action `Ṡ = ½ vᵀMv − V(q)` and supplies the exact tangent map of both.
pub trait StandardLayer<T: Real, const N: usize>: Integrator<T, N> {
    /// The potential of the system.
    type Potential: Potential<T, N>;

    /// The system `(M, V)` whose Lagrangian `L = ½ vᵀMv − V(q)` the layer integrates.
    fn system(&self) -> &System<T, Self::Potential, N>;

    /// `R_t(q, v)` for the signed time `t ≠ 0` with its tangent map.
    fn segment(&self, q: &SVector<T, N>, v: &SVector<T, N>, t: T) -> Segment<T, N>;
}

/// `M⁻¹ X` column by column.
pub(crate) fn mass_solve_cols<T: Real, const N: usize>(
    mass: &crate::model::Mass<T, N>,
    x: &SMatrix<T, N, N>,
) -> SMatrix<T, N, N> {
    let mut out = SMatrix::<T, N, N>::zeros();
    for j in 0..N {
        let col: SVector<T, N> = x.column(j).into_owned();
        out.set_column(j, &mass.solve(&col));
    }
    out
}

/// `A⁻¹ b` by LU with partial pivoting (the crate's const-generic LU).
///
/// # Errors
/// [`StepError::Singular`] when `A` is (numerically) singular or not finite.
pub(crate) fn lu_solve<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    b: &SVector<T, N>,
) -> Result<SVector<T, N>, crate::StepError> {
    if !crate::linalg::all_finite(a.as_slice()) {
        return Err(crate::StepError::Singular);
    }
    let (mut m, mut x) = (*a, *b);
    crate::linalg::lu_solve_in_place(&mut m, &mut x, crate::linalg::pivot_floor(N, a.amax()))?;
    Ok(x)
}

/// `A⁻¹ B` column by column.
///
/// # Errors
/// As [`lu_solve`].
pub(crate) fn lu_solve_cols<T: Real, const N: usize, const C: usize>(
    a: &SMatrix<T, N, N>,
    b: &SMatrix<T, N, C>,
) -> Result<SMatrix<T, N, C>, crate::StepError> {
    let mut out = SMatrix::<T, N, C>::zeros();
    for j in 0..C {
        let col: SVector<T, N> = b.column(j).into_owned();
        out.set_column(j, &lu_solve(a, &col)?);
    }
    Ok(out)
}
