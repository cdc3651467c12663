//! Reich's constrained composition to fourth order (002 §3.2, eq 27).

use super::kernel::Kernel;
use super::method::{Constrained, ConstrainedScheme, HeldForce, Sealed};
use super::ConstraintNewtonParams;
use crate::compose::Scheme;
use crate::driver::Method;
use crate::model::{Constraint, Potential, System};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// The second-order stage [`Reich4`] composes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stage {
    /// Reich's eq 26: `Φ_h = Ψ_h ∘ exp((h/2) D_{gᵀΛ})` — a constraint kick with `Λ` such that
    /// `g = 0` after the Verlet step `Ψ_h`, *without* projecting the velocity; one projection onto
    /// `g'v = 0` ends the composed step (eq 27). One Newton solve per stage.
    #[default]
    Reich,
    /// Full RATTLE steps (scheme 24 with Verlet) as stages, each ending with the velocity
    /// projection; the composition of symplectic symmetric maps of the manifold. A Newton solve
    /// and a linear solve per stage.
    Rattle,
}

/// Reich's fourth-order constrained composition (002 §3.2 eq 27) with Yoshida's coefficients
/// `c₁ = 1/(2 − 2^{1/3})`, `c₂ = −2^{1/3}/(2 − 2^{1/3})` (`2c₁ + c₂ = 1`, `2c₁³ + c₂³ = 0`):
///
/// ```text
/// Φ_h = Ψ_h ∘ exp((h/2) D_{gᵀΛ}):   v' = v + (h/2) M⁻¹g'(q)ᵀΛ, then velocity Verlet,
///                                   Λ such that g(q_{n+1}) = 0                (26)
/// step = P ∘ Φ_{c₁h} ∘ Φ_{c₂h} ∘ Φ_{c₁h},  P: v ↦ v + M⁻¹g'(q)ᵀμ with g'(q)v = 0   (27)
/// ```
///
/// With [`Stage::Rattle`] the stages are full RATTLE steps instead (projecting after each). The
/// two variants give the same result up to the Newton tolerance: a velocity projection followed
/// by a kick along `M⁻¹g'(q)ᵀ` at the same `q` reaches the same affine set `v + M⁻¹g'(q)ᵀℝᴰ` as
/// the kick alone, and `Λ` is fixed by `g = 0` (the tests check it). This is Reich's cancellation
/// argument in the proof of Theorem 3.3, and it makes the composition symmetric: it is a
/// palindromic composition of symmetric RATTLE steps.
///
/// The coefficients are those of [`Scheme::TripleJump`] for a second-order base method (one
/// definition, in [`compose`](crate::compose)). With [`Stage::Rattle`] the method is the same
/// map as [`SymmetricComposition`](crate::compose::SymmetricComposition) of
/// [`Rattle`](super::Rattle) with the triple jump (a host test checks the two agree); this type
/// exists for Reich's one-projection form (eq 27) and for a device build that wants one concrete
/// type.
///
/// Properties: order 4 (Theorem 3.3 of 002); symplectic on the solution manifold; symmetric;
/// constraint
/// preserving (`g = 0` after every stage, `g'v = 0` at the end); three gradients and three Newton
/// solves per step. The negative middle stage `c₂ ≈ −1.70` makes the local error constant large
/// (002 §6), which is why its Table 1 phase error is 10–1000× that of other 4th-order methods.
///
/// # Errors
/// As [`Rattle`](super::Rattle). The state is unchanged on error.
///
/// ```
/// use macrostep::constrained::{ConstraintNewtonParams, Reich4, Stage};
/// use macrostep::model::Constraint;
/// use macrostep::systems::Pendulum;
/// use macrostep::Integrator;
///
/// let p = Pendulum::<f64>::paper();
/// let h = 0.04 * p.period(core::f64::consts::FRAC_PI_2);
/// let mut y4 = Reich4::new(p.system(), p.constraint(), h, Stage::Reich, ConstraintNewtonParams::default()).unwrap();
/// let mut s = p.initial_state();
/// y4.integrate(&mut s, 25).unwrap(); // one period
/// assert!(p.constraint().value(&s.q)[0].abs() < 1e-12);
/// assert!((p.constraint().jacobian(&s.q) * s.v)[0].abs() < 1e-12);
/// ```
pub type Reich4<T, P, G, const N: usize, const D: usize> =
    Constrained<T, P, G, ReichScheme<T>, N, D>;

/// Reich's composed step (the [`ConstrainedScheme`] of [`Reich4`]): the stage variant and the
/// composition coefficients.
#[derive(Clone, Copy, Debug)]
pub struct ReichScheme<T: Real> {
    stage: Stage,
    c: [T; 3],
}

/// Yoshida's 4th-order triple-jump coefficients `(c₁, c₂, c₁)`: [`Scheme::TripleJump`] over
/// a base method of order 2.
fn yoshida<T: Real>() -> [T; 3] {
    let (c, _) = Scheme::TripleJump.gammas(2);
    [T::lit(c[0]), T::lit(c[1]), T::lit(c[2])]
}

impl<T, P, G, const N: usize, const D: usize> Reich4<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    /// The composed method with step `h` and the given stage.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for a bad `h`; the errors of [`ConstraintNewtonParams::validate`].
    pub fn new(
        system: System<T, P, N>,
        constraint: G,
        h: T,
        stage: Stage,
        params: ConstraintNewtonParams<T>,
    ) -> Result<Self, ConfigError> {
        let scheme = ReichScheme {
            stage,
            c: yoshida(),
        };
        Self::build(system, constraint, h, params, scheme)
    }

    /// The stage variant.
    pub fn stage(&self) -> Stage {
        self.scheme.stage
    }

    /// The composition coefficients `(c₁, c₂, c₁)`.
    pub fn coefficients(&self) -> [T; 3] {
        self.scheme.c
    }

    /// Eq 26: kick with `Λ` then velocity Verlet, `g = 0` at the end; no velocity projection.
    fn stage_step(&self, s: &State<T, N>, h: T) -> Result<State<T, N>, StepError> {
        let g = &self.constraint;
        let half = h * self.kernel.half;
        let a0 = self.system.acceleration(&s.q);
        let w = s.v + a0 * half;
        let b0 = Kernel::minv_jt(&self.system.mass, &g.jacobian(&s.q));
        let (q, lam) =
            self.kernel
                .position_solve(g, &(s.q + w * h), &b0, half * h, SVector::zeros())?;
        let a1 = self.system.acceleration(&q);
        let v = w + b0 * (lam * half) + a1 * half;
        Kernel::check_jump(&s.v, &v, &a0, &a1, h)?;
        Ok(State { t: s.t + h, q, v })
    }
}

impl<T: Real> Sealed for ReichScheme<T> {}

impl<T: Real> HeldForce for ReichScheme<T> {}

impl<T: Real, const N: usize> ConstrainedScheme<T, N> for ReichScheme<T> {
    const HIDDEN: bool = true;
}

impl<T, P, G, const N: usize, const D: usize> Method<T, N> for Reich4<T, P, G, N, D>
where
    T: Real,
    P: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    const ORDER: u32 = 4;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let g = &self.constraint;
        let mass = &self.system.mass;
        let mut s = self.kernel.start(g, mass, state, true)?;
        for &c in &self.scheme.c {
            s = self.stage_step(&s, h * c)?;
            if self.scheme.stage == Stage::Rattle {
                s.v = self.kernel.velocity_project_end(g, mass, &s.q, &s.v)?.0;
            }
        }
        if self.scheme.stage == Stage::Reich {
            s.v = self.kernel.velocity_project_end(g, mass, &s.q, &s.v)?.0;
        }
        next.q = s.q;
        next.v = s.v;
        Ok(T::zero())
    }
}
