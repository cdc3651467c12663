//! Constrained mechanics with Lagrange multipliers (001, 002 §3, 000 §3).
//!
//! The equations of motion are the differential–algebraic system (001 eqs 3–5, 000 eq 1.6)
//!
//! ```text
//! q̇ = v,   M v̇ = −∇V(q) + g'(q)ᵀ λ,   g(q) = 0   (hidden constraint g'(q) v = 0),
//! ```
//!
//! with `g: ℝᴺ → ℝᴰ` a [`Constraint`](crate::model::Constraint). **Sign convention:** the
//! constraint force is `+g'(q)ᵀλ`, as in 001 (eqs 16, 25) and 000 (eqs 1.6, 1.9). Reich (002
//! eq 36) writes `−Gᵀλ`; his multiplier is the negative of ours. With this convention the
//! multiplier recovered from a penalty run (000 eq 1.8), `λ ≈ −⟨ω² g(q^ω)⟩`, is directly
//! comparable to the one RATTLE reports ([`MultiplierWindow`]), *provided the same `g` is used*
//! (a squared-distance `|d|² − L²` and a distance `|d| − L` constraint have multipliers differing
//! by the factor `2L`).
//!
//! Methods:
//! - [`Rattle`] — RATTLE = VR (001 eqs 24–28): position and hidden velocity constraint at every
//!   mesh point; symplectic on the solution manifold, symmetric, order 2.
//! - [`Shake`] — SHAKE in velocity form = VS (001 eqs 15–18): the same positions as RATTLE, mesh
//!   velocities `(q_{n+1} − q_{n−1})/2h` that violate the hidden constraint by a bounded amount.
//! - [`Reich4`] — Reich's constrained composition (002 §3.2 eq 27): three constrained Verlet
//!   stages with Yoshida's coefficients and one projection onto the hidden constraint; order 4,
//!   symplectic on the solution manifold.
//! - [`Bdf2`] — the second-order backward differentiation formula (001 eqs 35–37), implicit in
//!   both `∇V` and `g`: the nonsymplectic, dissipative baseline of 001 §7.
//! - [`MultiplierWindow`] — online recovery of `λ(t)` from a penalty simulation (000 eq 1.8),
//!   a fixed-capacity sliding window usable on a device.
//!
//! ## Nonlinear solves
//! The position constraint `g(q_{n+1}) = 0` is solved for the multipliers by Newton's method on
//! the `D` unknowns, with the exact Jacobian `g'(q(λ)) · c M⁻¹ g'(q_n)ᵀ` (a fixed-size `D × D`
//! system, solved by Gaussian elimination with partial pivoting and a relative pivot threshold).
//! The velocity constraint is linear and solved exactly with `g' M⁻¹ g'ᵀ`. [`ConstraintNewtonParams`] sets
//! the tolerance on `‖g‖∞`, the iteration cap and what to do with a start off the manifold. Newton
//! always starts from `λ = 0`, so a step is a pure function of the state (reproducible,
//! reversible to the tolerance, and usable in finite-difference measurements).
//!
//! ## Starting off the manifold
//! A state with `‖g(q)‖∞ > manifold_tol` (or, for RATTLE and Reich, `‖g'(q)v‖∞ > manifold_tol`)
//! is either rejected with [`StepError::Precondition`](crate::StepError::Precondition)
//! ([`OffManifold::Reject`], the default) or projected first ([`OffManifold::Project`]): `q` is
//! moved along `M⁻¹g'(q)ᵀμ` onto `g = 0` (Newton) and `v` is projected `M`-orthogonally onto
//! `g'(q)v = 0`. The choice is explicit; each method also has a public `project` to do it once.

//! ## What is measured (host-tests/tests/constrained.rs, `reproduce reich | vs-vr | multiplier | chain`)
//! - order: log–log slope of the error against the rigid references in generalised coordinates
//!   (pendulum, double pendulum): 2 for SHAKE/RATTLE, 4 for [`Reich4`];
//! - symplecticity on the manifold: the restriction of `dq ∧ dp` to the tangent space of the
//!   solution manifold, by central differences along a tangent basis of projected perturbations
//!   (`host-tests/src/manifold.rs` explains the construction), for RATTLE and [`Reich4`];
//! - energy without drift over 10⁵ RATTLE steps, reversibility `Φ₋ₕ∘Φₕ = id`, VS = VR positions;
//! - 002 Tables 1–2 (Yoshida row) within 5 %; the multiplier window against RATTLE's `λ`.
//!
//! [`Reich4`] does not report multipliers: its stage multipliers absorb the neighbouring stages'
//! end kicks (Reich's cancellation argument) and are not approximations of `λ(t)`.

mod bdf2;
mod kernel;
mod method;
mod multiplier;
mod rattle;
mod reich;
mod shake;

pub use bdf2::{Bdf2, Bdf2Scheme};
pub use method::{Constrained, ConstrainedScheme, ConstraintProbe, HeldForce, KeepsMultipliers};
pub use multiplier::MultiplierWindow;
pub use rattle::{Rattle, RattleScheme};
pub use reich::{Reich4, ReichScheme, Stage};
pub use shake::{Shake, ShakeScheme};

use crate::{ConfigError, Real};
use nalgebra::SVector;

/// The factor `K` of the velocity-jump bound every constrained step checks:
/// `‖v₁ − v₀‖∞ ≤ K (‖v₀‖∞ + |h|(‖a₀‖∞ + ‖a₁‖∞)) + √ε (1 + ‖v₀‖∞)`, with `a₀`, `a₁` the
/// accelerations of the potential at both ends. A larger jump can only come from closing a
/// start residual `r` over a step so small that `r/h` dominates (e.g. `step_by(1e-100)` from a
/// start within the manifold tolerance), and is refused with
/// [`StepError::Precondition`](crate::StepError::Precondition); an ordinary constraint impulse,
/// `h·v²/L` for a rod of length `L`, is below it while the step moves the body less than `K`
/// rod lengths.
pub const MAX_CORRECTION: f64 = 10.0;

/// What a step does with a start off the constraint manifold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OffManifold {
    /// Return [`StepError::Precondition`](crate::StepError::Precondition), state untouched.
    #[default]
    Reject,
    /// Project the start onto the manifold (position, then velocity) before stepping.
    Project,
}

/// Parameters of the multiplier solves, shared by [`Shake`], [`Rattle`] and [`Reich4`].
///
/// Plain public fields with [`Default`]; validated by each method's `new`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstraintNewtonParams<T> {
    /// Newton stops when `‖g(q_{n+1})‖∞ ≤ tol` (absolute, in the units of `g`), or when
    /// `‖g(q_{n+1})‖∞` is within the round-off of evaluating `g` there,
    /// `8 ε ‖g'(q)‖_max ‖q‖∞`, if that is larger (a `tol` below round-off cannot be reached:
    /// iterating on round-off produces multipliers of size `r/h²` that cancel to garbage
    /// velocities over a tiny step). Default `1000 ε` (`2.2e-13` for `f64`, `1.2e-4` for
    /// `f32`). Scale it with `g` for large coordinates (a squared-distance constraint at
    /// `|q| ~ 20` has roundoff `~ 400 ε`).
    pub tol: T,
    /// At most this many Newton updates per solve; more is [`StepError::NotConverged`](crate::StepError::NotConverged). Default 20.
    pub max_iter: u32,
    /// A start with `‖g(q)‖∞` (or `‖g'(q)v‖∞`, where checked) above this is off the manifold.
    /// Must be `≥ tol`. Default `10⁴ ε` (`2.2e-12` for `f64`, `1.2e-3` for `f32`).
    pub manifold_tol: T,
    /// What to do with a start off the manifold.
    pub off_manifold: OffManifold,
    /// Start Newton from the previous step's end multiplier instead of `λ = 0` (default
    /// `false`). Helps when the multipliers are large and the step is big (a whipping chain);
    /// the result then depends on the previous step at the level of `tol`, so the step is no
    /// longer a pure function of the state (finite-difference measurements want `false`).
    pub warm_start: bool,
}

impl<T: Real> Default for ConstraintNewtonParams<T> {
    fn default() -> Self {
        let eps = T::default_epsilon();
        Self {
            tol: eps * T::lit(1e3),
            max_iter: 20,
            manifold_tol: eps * T::lit(1e4),
            off_manifold: OffManifold::Reject,
            warm_start: false,
        }
    }
}

impl<T: Real> ConstraintNewtonParams<T> {
    /// Checks the parameters and returns them.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"tol"` and
    /// `"manifold_tol"` (must be positive), [`ConfigError::OutOfRange`] for `"max_iter"` (≥ 1),
    /// [`ConfigError::Inconsistent`] `"tol <= manifold_tol"` (a step's own result must count as
    /// on the manifold).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        for (x, name) in [(self.tol, "tol"), (self.manifold_tol, "manifold_tol")] {
            if !x.finite() {
                return Err(ConfigError::NonFinite { name });
            }
            if x <= T::zero() {
                return Err(ConfigError::OutOfRange { name, bound: "> 0" });
            }
        }
        if self.max_iter == 0 {
            return Err(ConfigError::OutOfRange {
                name: "max_iter",
                bound: ">= 1",
            });
        }
        // A step ends with ‖g‖∞ ≤ tol; the next step must accept that as on the manifold.
        if self.manifold_tol < self.tol {
            return Err(ConfigError::Inconsistent {
                name: "tol <= manifold_tol",
            });
        }
        Ok(*self)
    }
}

/// The Lagrange multipliers of the last successful step (constraint forces `g'(q)ᵀλ`).
///
/// For [`Rattle`], `start` is `λ⁽ʳ⁾ₙ` (the position multiplier acting at `q_n`, 001 eq 25) and
/// `end` is `λ⁽ᵛ⁾ₙ₊₁` (the velocity multiplier acting at `q_{n+1}`, eq 27). Each approximates
/// the exact `λ(t)` at its end of the step to `O(h)`; the mean `½(λ⁽ᵛ⁾ₙ + λ⁽ʳ⁾ₙ)` at the same
/// mesh point is VS's multiplier and is `O(h²)` (001 §4). For [`Shake`], `start = λₙ` and
/// `end = λₙ₊₁` of eqs 16 and 18, each `O(h²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multipliers<T: Real, const D: usize> {
    /// The multiplier acting at the start of the step.
    pub start: SVector<T, D>,
    /// The multiplier acting at the end of the step.
    pub end: SVector<T, D>,
}

impl<T: Real, const D: usize> Default for Multipliers<T, D> {
    fn default() -> Self {
        Self {
            start: SVector::zeros(),
            end: SVector::zeros(),
        }
    }
}
