//! Rigid bodies on the Lie group SO(3) (000 §4.5): the variational linearised Z&S on the relaxed
//! configuration `R ∈ ℝ³ˣ³` with an orthogonality penalty, and the Cayley-map variational
//! benchmark it is compared with.
//!
//! | method | paper | solve per step | symplectic | symmetric | order |
//! |---|---|---|---|---|---|
//! | [`LinearizedZs1`] | 000 eqs 4.14–4.15, first-order update | one 9×9 linear | yes (ℝ¹⁸) | no | 1 |
//! | [`LinearizedZs2`] | 000 trapezoidal update after eq 4.15 | one 9×9 linear | yes (ℝ¹⁸) | yes | 2 |
//! | [`CayleyVariational`] | 000 eqs 4.12–4.13 (Bou-Rabee & Marsden 2009) | 3×3 Newton, capped | yes (on T*SO(3)) | no | 1 |
//!
//! All three are [`Integrator<T, 9>`](crate::Integrator)s on the same state, the relaxed
//! [`State<T, 9>`] with `q = vec R` and `v = vec Ṙ` (column-major, [`matrix_of`] / [`vec_of`]),
//! and step through the crate's driver ([`crate::driver`]): input checks, the step guards of
//! [`So3Probe`] and the compensated clock are the same for all.
//!
//! # The model: a magnetised rigid body
//! Configuration `R ∈ SO(3)` (body to world), body angular velocity `Ω` with `Ṙ = R Ω̂`
//! ([`hat`]), kinetic energy `½ Ωᵀ J Ω` and the potential of 000 §4.5,
//!
//! ```text
//! V(R) = B μ e₃ᵀ R⁻¹ e₃ = B μ R₃₃,
//! ```
//!
//! whose body-frame torque is `τ_V = B μ (Rᵀe₃) × e₃` (000 eq 4.13). [`RigidBody`] holds the
//! principal moments `J = diag(J₁, J₂, J₃)` and `Bμ`; [`BodyState`] is the view `(t, R, Ω)` of
//! a state.
//!
//! # The linearised Z&S (000 eqs 4.14–4.15)
//! `R` is relaxed to `ℝ³ˣ³` and orthogonality is enforced by the penalty
//! `½ ω² ‖RᵀR − I‖²_F`. The kinetic energy `½ΩᵀJΩ` equals `½ tr(Ṙ J_d Ṙᵀ)` with the "matrix
//! inertia" `J_d = ½ tr(J) I − J` (for `J = I`: `¼ tr(ṘᵀṘ)`, the paper's), so the relaxed system
//! is Newtonian in the nine entries of `R` with the mass "right-multiplication by `J_d`", the
//! momentum `p = Ṙ J_d` and the potential
//!
//! ```text
//! U(R) = B μ R₃₃ + ½ ω² ‖RᵀR − I‖²_F,     ∇U = B μ e₃e₃ᵀ + 2ω² (R RᵀR − R).
//! ```
//!
//! With `c = βh²`, one step solves the linear equation 4.15 for `a_k` and forms `f_k`:
//!
//! ```text
//! a_k W + 2ω² c (a_k RᵀR + R a_kᵀ R + R Rᵀ a_k − a_k) = −B μ e₃e₃ᵀ − 2ω² (R RᵀR − R)   (4.15)
//! f_k = a_k W − 2ω² c² (a_k a_kᵀ R + a_k Rᵀ a_k + R a_kᵀ a_k)                    (R = R_k)
//! ```
//!
//! (`W = 2 J_d`, the identity for the paper's `J = I`, where this is eq 4.15 verbatim.) With
//! this weight the method is the crate's generic Z&S on the nine coordinates with the mass `J_d`
//! and `β/2` for every inertia (`a_k` is half its acceleration-like `a`), so the paper's
//! scaling and Z&S's stability theory carry over to general bodies. The first-order form is
//! `p_{k+1} = p_k + h f_k`, `R_{k+1} = R_k + h p_{k+1} J_d⁻¹`; the trapezoidal form is
//! `p_{k+½} = p_k + ½h f_k`, `R_{k+1} = R_k + h p_{k+½} J_d⁻¹`, `p_{k+1} = p_{k+½} + ½h f_{k+1}`
//! (for `J = I`, `J_d⁻¹ = 2`: the paper's `R_{k+1} = R_k + 2h p`). Nothing projects `R` back
//! to SO(3); [`orthogonality_error`] reports `‖RᵀR − I‖_F`.
//!
//! # Decisions where the paper's text is garbled or silent
//! - **Sign and transposes of `f_k`.** The paper prints
//!   `f_k = a_k + 2ω²β²h⁴(a_kᵀa_kR_kᵀ + a_kᵀR_ka_kᵀ + R_kᵀa_ka_kᵀ)`. Varying the truncated action
//!   (the paper's `L̃_d`, checked term by term against its eq 4.15) gives
//!   `p_{k+1} = p_k − h(∇U + c Hess U[a] + ½c² U‴[a, a])` and, with 4.15 and
//!   `U‴[a, a] = 4ω²(aaᵀR + aRᵀa + Raᵀa)`, the `f_k` above: a **minus** sign and no transposes.
//!   Only this form makes `f` the gradient of the discrete effective potential, i.e. the map
//!   symplectic; the host tests measure the defect and compare with the crate's generic
//!   [`ZhangSkeel`](crate::zs::ZhangSkeel) run on the nine coordinates (it is the same method
//!   with `β/2`, since the paper weights `a_k` by `½tr(aᵀa)` while the mass is `½I`).
//! - **General inertia.** Eq 4.15 has no inertia in it; weighting `a_k` by `W = 2J_d` (and
//!   `f_k` by `a_k W`) is the generalisation that stays Z&S with `β/2` and mass `J_d`; a bare
//!   identity weight would make the stability threshold depend on the smallest `J_d`.
//! - **Trapezoidal form.** The paper prints `R_{k+1} = R_k + 2h p_{k+1}` and
//!   `p_{k+1} = p_k + ½h f_{k+1}` under `p_{k+½} = p_k + ½h f_k`; the only consistent reading
//!   (velocity Verlet on the effective potential) uses `p_{k+½}` in both places.
//! - **`Bμ` in eq 4.14** is printed `βμ`; it is `Bμ` (eq 4.15 and the potential agree).
//! - **Sign of the penalty in the continuous action** is printed `+`; a penalty is a potential,
//!   so it enters the Lagrangian with `−` (as in eq 4.14).
//! - **Constants.** The paper gives no value for `Bμ`; [`RigidBody::paper`] uses `Bμ = 1` with
//!   the printed sign (`R = I` is then the *maximum* of `V`: the body tumbles away from it).
//! - **Stability.** The relaxed linearised method is Z&S with `β/2` (see above), so its linear
//!   stability is unconditional for `β ≥ ½` only (000 Thm 2.5 with `β/2 ≥ ¼`); for the paper's
//!   `β = 0.4` the penalty modes (frequency `2√2 ω` for `J = I`) need `h²·8ω²(1 − 2β) < 4`,
//!   i.e. `h < 0.158` at `ω = 10` (the paper's `h = 0.1` is inside).
//! - **Benchmark equations.** Eq 4.12 is written for `J = I`; its general-inertia form is the
//!   discrete Euler–Poincaré equation of the Cayley map (Bou-Rabee & Marsden 2009):
//!   `(I + ½hΩ̂_{k+1} + ¼h²Ω_{k+1}Ω_{k+1}ᵀ) JΩ_{k+1} = (I − ½hΩ̂_k + ¼h²Ω_kΩ_kᵀ) JΩ_k + h τ(R_k)`,
//!   which for `J = I` is the printed `Ω_{k+1} + ¼h²|Ω_{k+1}|²Ω_{k+1} = Ω_k + ¼h²|Ω_k|²Ω_k + hτ`
//!   (`Ω̂ᵀΩ̂Ω̂ᵀ = −|Ω|²Ω̂`).
//!
//! # Beyond the paper
//! - a general diagonal inertia `J` (the paper has `J = I`) through `J_d` above;
//! - a body-frame torque `u`, constant over a step, set by the caller (`set_torque`): it enters
//!   the benchmark as `h u` next to `h τ_V`, and the relaxed method as the generalised force
//!   `½ R û` (its virtual work on `δR = Rη̂` is `u·η`), added to `f` at each kick (discrete
//!   Lagrange–d'Alembert; the cached `f` never holds it, so a changed torque acts at once);
//! - views of the state as [`nalgebra::Rotation3`] / [`nalgebra::UnitQuaternion`]
//!   ([`BodyState::rotation`], [`BodyState::quaternion`]; for a relaxed `R` the nearest rotation)
//!   and conversions between [`BodyState`] and the relaxed [`State<T, 9>`] (`q = vec R`
//!   column-major, `v = vec Ṙ`), the state both methods step.
//!
//! # One state type
//! The relaxed method is an ordinary one-step map of `(q, v) ∈ ℝ⁹ × ℝ⁹` with the mass `J_d`, so
//! every measurement of the crate (order, symplecticity in `(q, M v)`, reversibility) applies
//! to it unchanged. The benchmark steps the same [`State<T, 9>`]: it reads `R = matrix_of(q)`
//! and `Ω = vee(RᵀṘ)` and writes `q = vec R_{k+1}`, `v = vec(R_{k+1} Ω̂_{k+1})`. So that `Ω` does
//! not pick up the rounding of that round trip, the benchmark keeps the `Ω_{k+1}` of its last
//! committed step keyed on the bits of the state it produced, and uses it when the next step
//! starts from that state (every step of a run); only a state from elsewhere (a start, a state
//! the caller edited) is read through `vee`, exact for `R = I` and within rounding otherwise. A
//! run therefore makes the same `(R_k, Ω_k)` as the benchmark written on `(R, Ω)`, and both
//! methods share one state, one energy and one guard probe, so they are compared directly.
//! [`BodyState`] `(t, R, Ω)` is the user-facing view: [`BodyState::to_relaxed`] builds the
//! state, [`BodyState::from_relaxed`] reads it back, [`CayleyVariational::body_state`] reads it
//! with the benchmark's own `Ω`. The benchmark's symplectic form is that of T*SO(3), not the
//! canonical one of ℝ¹⁸: its `SYMPLECTIC` is that claim.
//!
//! # Step guards
//! Both methods measure their steps with [`So3Probe`] (default [`Guards`](crate::Guards):
//! `energy_run = 0.25`, `residual = 0.1`):
//!
//! - **energy** `½tr(ṘJ_dṘᵀ) + Bμ R₃₃ + ½ω²‖RᵀR − I‖²_F`: for the relaxed method the energy of
//!   the penalised system it integrates (with its `ω`), for the benchmark the same without the
//!   penalty (`ω = 0`; on SO(3) the kinetic part is `½ΩᵀJΩ`). With a torque `u`, each step
//!   reports the work it did to the driver — `⟨½Rû, R_{k+1} − R_k⟩_F` at `R_k` (first-order
//!   form), averaged over `R_k` and `R_{k+1}` (trapezoidal form), `h u·Ω_{k+1}` (benchmark) — so
//!   the run guard bounds the energy the torque did not supply.
//! - **residual** the orthogonality defect `‖RᵀR − I‖_F`: the relaxed method keeps it
//!   `O(ω⁻²)`-small (below `0.05` on the paper's run at `h = 0.1`), the benchmark at rounding; a
//!   start farther than the bound from SO(3) is refused at its first step.
//!
//! Beyond the linear stability bound (`h ≥ 0.158` for the paper's `β`, `ω`) the relaxed method
//! diverges within a few steps; the guards refuse the first step that breaks them with
//! [`StepError::Diverged`](crate::StepError::Diverged) instead of returning growing finite
//! states. Measurements of the raw method past the bound switch the guards off
//! ([`Guards::off`](crate::Guards::off)).

mod body_state;
mod cayley;
mod linearized;
mod mat3;

pub use body_state::BodyState;
pub use cayley::CayleyVariational;
pub use linearized::{LinearizedZs, LinearizedZs1, LinearizedZs2};

use crate::guard::Probe;
use crate::{ConfigError, Real, State};
use nalgebra::{Matrix3, SVector, Vector3};

/// The map `ℝ³ → so(3)`, `Ω ↦ Ω̂` with `Ω̂ x = Ω × x` (000 §4.5).
#[inline]
pub fn hat<T: Real>(w: &Vector3<T>) -> Matrix3<T> {
    let z = T::zero();
    Matrix3::new(z, -w[2], w[1], w[2], z, -w[0], -w[1], w[0], z)
}

/// The inverse of [`hat`] on the skew-symmetric part: `vee(A) = ½ (A − Aᵀ)^∨`.
#[inline]
pub fn vee<T: Real>(a: &Matrix3<T>) -> Vector3<T> {
    let half = T::lit(0.5);
    Vector3::new(
        half * (a[(2, 1)] - a[(1, 2)]),
        half * (a[(0, 2)] - a[(2, 0)]),
        half * (a[(1, 0)] - a[(0, 1)]),
    )
}

/// `‖RᵀR − I‖_F`, the orthogonality defect the paper reports (Fig 10).
#[inline]
pub fn orthogonality_error<T: Real>(r: &Matrix3<T>) -> T {
    mat3::defect_squared(&r.data.0).sqrt()
}

/// The relaxed configuration matrix `R` of a state in `ℝ⁹` (`q = vec R`, column-major).
#[inline]
pub fn matrix_of<T: Real>(q: &SVector<T, 9>) -> Matrix3<T> {
    Matrix3::from_column_slice(q.as_slice())
}

/// `vec R` (column-major), the inverse of [`matrix_of`].
#[inline]
pub fn vec_of<T: Real>(r: &Matrix3<T>) -> SVector<T, 9> {
    SVector::from_column_slice(r.as_slice())
}

/// A magnetised rigid body (000 §4.5): principal moments of inertia and the field–dipole
/// product `Bμ` of the potential `V(R) = Bμ e₃ᵀR⁻¹e₃`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidBody<T> {
    /// Principal moments `J = diag(J₁, J₂, J₃)`, each finite and `> 0`. Default `(1, 1, 1)`
    /// (the paper's identity inertia).
    pub inertia: Vector3<T>,
    /// `Bμ`, finite (any sign; `0` is the free body). Default `1`.
    pub b_mu: T,
}

impl<T: Real> Default for RigidBody<T> {
    fn default() -> Self {
        Self::paper()
    }
}

impl<T: Real> RigidBody<T> {
    /// The body of 000 §4.5: `J = I`, `Bμ = 1` (the paper gives no value; see the module docs).
    pub fn paper() -> Self {
        Self {
            inertia: Vector3::repeat(T::one()),
            b_mu: T::one(),
        }
    }

    /// Checks the parameters (moments finite and positive with a finite inverse, `Bμ` finite).
    ///
    /// ```
    /// use macrostep::lie::RigidBody;
    /// use macrostep::ConfigError;
    /// let tiny = RigidBody { inertia: nalgebra::Vector3::repeat(5e-324_f64), b_mu: 1.0 };
    /// assert_eq!(tiny.validate(), Err(ConfigError::Overflow { name: "1/inertia" }));
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"inertia"` or `"b_mu"`;
    /// [`ConfigError::Overflow`] `{ name: "1/inertia" }` for a moment whose inverse overflows (a
    /// subnormal moment).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        for i in 0..3 {
            crate::validate::check_positive(self.inertia[i], "inertia")?;
            crate::validate::check_derived(self.inertia[i], "1/inertia")?;
        }
        crate::validate::check_finite(self.b_mu, "b_mu")?;
        Ok(*self)
    }

    /// The diagonal of the matrix inertia `J_d = ½ tr(J) I − J` (`½tr(ṘJ_dṘᵀ) = ½ΩᵀJΩ`).
    pub fn matrix_inertia(&self) -> Vector3<T> {
        let half_tr = T::lit(0.5) * (self.inertia[0] + self.inertia[1] + self.inertia[2]);
        Vector3::new(
            half_tr - self.inertia[0],
            half_tr - self.inertia[1],
            half_tr - self.inertia[2],
        )
    }

    /// `V(R) = Bμ R₃₃`.
    #[inline]
    pub fn potential(&self, r: &Matrix3<T>) -> T {
        self.b_mu * r[(2, 2)]
    }

    /// The body-frame torque of the potential, `τ_V = Bμ (Rᵀe₃) × e₃` (000 eq 4.13).
    #[inline]
    pub fn torque(&self, r: &Matrix3<T>) -> Vector3<T> {
        // (Rᵀe₃) × e₃ = (r₃₂, −r₃₁, 0) with Rᵀe₃ = third row of R.
        Vector3::new(self.b_mu * r[(2, 1)], -self.b_mu * r[(2, 0)], T::zero())
    }

    /// Energy `½ΩᵀJΩ + V(R)` of a body state. The kinetic part is finite wherever `½ΩᵀJΩ` is
    /// representable: when `ΣJᵢΩᵢ²` overflows it is formed again as `2·ΣJᵢ(Ωᵢ/2)²` (exact
    /// scalings by two, so the two agree wherever both are finite).
    pub fn energy(&self, s: &BodyState<T>) -> T {
        let two = T::lit(2.0);
        let twice = |w: &Vector3<T>| {
            self.inertia[0] * w[0] * w[0]
                + self.inertia[1] * w[1] * w[1]
                + self.inertia[2] * w[2] * w[2]
        };
        let mut kin = twice(&s.omega) / two;
        if !kin.finite() {
            kin = twice(&(s.omega / two)) * two;
        }
        kin + self.potential(&s.rotation)
    }

    /// Energy of a relaxed state with penalty stiffness `omega`:
    /// `½tr(ṘJ_dṘᵀ) + Bμ R₃₃ + ½ω²‖RᵀR − I‖²_F` (conserved by the relaxed dynamics).
    pub fn relaxed_energy(&self, s: &State<T, 9>, omega: T) -> T {
        let r = matrix_of(&s.q);
        let rd = matrix_of(&s.v);
        let jd = self.matrix_inertia();
        let half = T::lit(0.5);
        let twice = |rd: &Matrix3<T>| {
            let mut kin = T::zero();
            for j in 0..3 {
                kin += jd[j] * rd.column(j).norm_squared();
            }
            kin
        };
        // As in `energy`: `2·½ΣJ_d(Ṙ/2)²` when the sum overflows before the halving.
        let mut kin = half * twice(&rd);
        if !kin.finite() {
            kin = twice(&(rd * half)) * T::lit(2.0);
        }
        let defect = orthogonality_error(&r);
        kin + self.potential(&r) + half * omega * omega * defect * defect
    }

    /// Physical energy of a relaxed state, `½tr(ṘJ_dṘᵀ) + Bμ R₃₃` (no penalty term).
    pub fn physical_energy(&self, s: &State<T, 9>) -> T {
        self.relaxed_energy(s, T::zero())
    }
}

/// Parameters of the linearised Z&S on SO(3): penalty frequency `ω` and Z&S's `β`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct So3ZsParams<T> {
    /// Penalty frequency `ω > 0`, finite. Default `10` (000 §4.5).
    pub omega: T,
    /// `β ≥ 0`, finite. Default `0.4` (000 §4.5). Unconditional linear stability needs
    /// `β ≥ ½` (module docs).
    pub beta: T,
}

impl<T: Real> Default for So3ZsParams<T> {
    fn default() -> Self {
        Self {
            omega: T::lit(10.0),
            beta: T::lit(0.4),
        }
    }
}

impl<T: Real> So3ZsParams<T> {
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`≤ 0`) or
    /// `"beta"` (`< 0`).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        crate::validate::check_positive(self.omega, "omega")?;
        crate::validate::check_nonnegative(self.beta, "beta")?;
        Ok(*self)
    }
}

/// What the step guards of both SO(3) methods measure on a state `(vec R, vec Ṙ)` (see the
/// [module docs](self)): the energy `½tr(ṘJ_dṘᵀ) + Bμ R₃₃ + ½ω²‖RᵀR − I‖²_F`, split into its
/// kinetic and potential parts, and the orthogonality defect `‖RᵀR − I‖_F` as the constraint
/// residual.
///
/// ```
/// use macrostep::guard::Probe;
/// use macrostep::lie::{BodyState, RigidBody, So3Probe};
/// let body = RigidBody::<f64>::paper();
/// let s = BodyState::paper().to_relaxed();
/// let (k, v) = So3Probe::new(&body, 10.0).energy(&s).unwrap();
/// assert!((k + v - body.energy(&BodyState::paper())).abs() < 1e-15);
/// assert_eq!(So3Probe::new(&body, 10.0).residual(&s.q), Some(0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct So3Probe<T> {
    jd: Vector3<T>,
    b_mu: T,
    half_omega2: T,
}

impl<T: Real> So3Probe<T> {
    /// The probe of `body` with the penalty frequency `omega` (`0`: no penalty energy, the
    /// rigid body's energy on SO(3)).
    pub fn new(body: &RigidBody<T>, omega: T) -> Self {
        Self {
            jd: body.matrix_inertia(),
            b_mu: body.b_mu,
            half_omega2: T::lit(0.5) * omega * omega,
        }
    }
}

/// Not inlined: the probe's 3×3 temporaries then live in their own frame, only during the
/// guard check, instead of enlarging the step's frame (the device's stack high-water mark).
impl<T: Real> Probe<T, 9> for So3Probe<T> {
    #[inline(never)]
    fn energy(&self, s: &State<T, 9>) -> Option<(T, T)> {
        let r = mat3::cols_of(&s.q);
        let rd = mat3::cols_of(&s.v);
        let mut kin = T::zero();
        for (j, c) in rd.iter().enumerate() {
            kin += self.jd[j] * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        }
        let mut pot = self.b_mu * r[2][2];
        if self.half_omega2 != T::zero() {
            pot += self.half_omega2 * mat3::defect_squared(&r);
        }
        Some((T::lit(0.5) * kin, pot))
    }

    #[inline(never)]
    fn residual(&self, q: &SVector<T, 9>) -> Option<T> {
        Some(mat3::defect_squared(&mat3::cols_of(q)).sqrt())
    }
}

/// The start-state check of every SO(3) step: `‖RᵀR − I‖_F ≤` [`BodyState::step_tolerance`]
/// (a NaN defect is refused too).
///
/// # Errors
/// [`StepError::Precondition`] `{ kind: NotOrthogonal, .. }`.
#[inline]
pub(crate) fn check_rotation<T: Real>(r: &mat3::Cols<T>) -> Result<(), crate::StepError> {
    let defect = mat3::defect_squared(r).sqrt();
    let bound = BodyState::<T>::step_tolerance();
    if defect <= bound {
        Ok(())
    } else {
        Err(crate::StepError::exceeded(
            crate::PreconditionKind::NotOrthogonal,
            defect,
            bound,
        ))
    }
}

/// Checks a torque set by the caller.
pub(crate) fn check_torque<T: Real>(u: &Vector3<T>) -> Result<Vector3<T>, ConfigError> {
    crate::validate::check_all_finite(u.as_slice(), "torque").map(|()| *u)
}

#[cfg(test)]
mod tests;
