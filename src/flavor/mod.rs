//! FLAVORs: flow-averaging integrators over a legacy one-step map (004 Ch. 2).
//!
//! A FLAVOR takes a *legacy* one-step map `Φ_h^α` whose stiffness `α` can be switched — on
//! (`α = 1/ε`, or whatever value the model was built with) and off (`α = 0`) — and composes a
//! short step of the full system with a long step of the soft system:
//!
//! ```text
//! Θ_δ = Φ⁰_{δ−τ} ∘ Φ^{1/ε}_τ                                   (004 eqs 2.8, 2.34, 2.45)
//! Φ_H = (Φ⁰_{H/M−τ} ∘ Φ^{1/ε}_τ)^M,   δ = H/M                   (004 eq 2.10)
//! ```
//!
//! with a micro-step `τ ≪ ε` (first-order stiff ODEs) or `τ ≪ √ε` (mechanical systems) and a
//! meso-step `δ` that resolves only the slow time scale. The stiff dynamics advances by `τ` per
//! step of length `δ`: the fast clock is slowed by `τ/δ` and the slow variables see the average
//! of the fast ones (F-convergence, Theorem 2.1.1). The FLAVOR inherits the legacy map's
//! structure: symplectic if `Φ` is (Theorem 2.2.2), quasi-/conformally symplectic with
//! Ornstein–Uhlenbeck friction (Theorem 2.4.1), time-reversible in the symmetric form built from
//! `Φ` and its adjoint `Φ*` (Theorem 2.2.3).
//!
//! # The pieces
//! - The common stacks in one call, `τ` given once: [`Nonintrusive::symplectic_euler`],
//!   [`Nonintrusive::fused_euler`], [`Nonintrusive::verlet`], [`Symmetric::symplectic_euler`]
//!   from `(system, δ, τ)`; their types are [`SymplecticEulerFlavor`], [`FusedEulerFlavor`],
//!   [`VerletFlavor`], [`SymmetricEulerFlavor`].
//! - The FLAVORs over a legacy map, each built from the map and validated [`Params`]:
//!   [`Nonintrusive`] (eq 2.45 / 2.34, the SDE FLAVOR eq 2.77 when the legacy map is random, and
//!   the M-sample macro-step of eq 2.10), [`Symmetric`] (symplectic and time-reversible,
//!   eq 2.47), [`LangevinSoft`] / [`LangevinStiff`] (soft friction and noise, eqs 2.88, 2.90, or
//!   stiff, eqs 2.89, 2.91) and [`Metropolis`] (the Metropolis-adjusted FLAVOR of §2.4.6 over a
//!   symmetric one). [`Artificial`] (eqs 2.51–2.53, freezing linear stiff coordinates during the
//!   long step) is built from the split system itself.
//! - The legacy maps: [`Switched`] makes one of any one-step [`Method`](crate::driver::Method)
//!   over a [`Split`](crate::model::Split) (symplectic Euler eq 2.49 with its adjoint eq 2.50,
//!   velocity Verlet, or anything else through a stiffness setter); [`ExplicitEuler`] for stiff
//!   ODEs ([`StiffOde`], eq 2.104), [`EulerMaruyama`] for stiff SDEs ([`StiffSde`], eq 2.64),
//!   [`ForcedEuler`] for mechanical systems with time-dependent stiff forcing ([`SplitForce`],
//!   eqs 2.114/2.115), [`FusedEuler`] (symplectic Euler drift–kick with the stiffness on,
//!   kick–drift with it off: its nonintrusive FLAVOR step costs one legacy step). [`Legacy`]
//!   steps a legacy map alone, stiffness on: the single-scale integrator a FLAVOR's speed-up is
//!   measured against.
//! - [`Params`] and [`advice`]: validation (`0 < τ < δ`) and the rule of thumb for choosing
//!   `τ`, `δ` from `ε`, with the linear stability check of Theorem 2.5.1.
//!
//! The names are aliases of a few generic bodies that carry their shared methods ([`Flavor`]
//! for [`Nonintrusive`] and [`Symmetric`], [`LangevinFlavor`], [`OdeEuler`] for the ODE and SDE
//! maps, [`EulerMap`] for [`ForcedEuler`] and [`FusedEuler`]); the strategy parameters that tell
//! the forms apart, and the trait the legacy maps implement, are not part of the documented
//! surface.
//!
//! # Stepping and the guards
//! Every FLAVOR is an integrator of its own and steps through the step driver
//! ([`crate::driver`]): [`Nonintrusive`], [`Symmetric`] and [`Artificial`] are
//! [`Integrator`](crate::Integrator)s, [`LangevinSoft`], [`LangevinStiff`] and [`Metropolis`] are
//! [`StochasticIntegrator`](crate::StochasticIntegrator)s. The driver checks the input, keeps the
//! compensated clock (after `n` steps `t = t₀ + n·δ` to one rounding, whatever the sub-steps
//! add up to), applies the guards and commits; the FLAVOR owns the guard memory
//! ([`Stepper::guards`](crate::Stepper::guards), [`Stepper::set_guards`](crate::Stepper::set_guards)).
//! A legacy map is not an integrator: its sub-steps advance the FLAVOR's working state and check
//! nothing ([`Legacy`] steps one alone through the driver).
//!
//! The guards of a FLAVOR bound no energy and no constraint residual
//! ([`NoProbe`](crate::guard::NoProbe)); they check finiteness, the clock and, when it is on,
//! the velocity jump of a step ([`Guards::velocity_step`](crate::Guards::velocity_step)). A
//! FLAVOR does not conserve the energy `K + V + αU` of the stiff system: it runs the stiff
//! dynamics on the slowed clock, so the stiff potential `αU` swings through the energy the fast
//! oscillation carries. From the paper's starting states the default run guard
//! (`|ΔE| ≤ 0.25·S`) is exceeded within the first steps, for the nonintrusive and the symmetric
//! form alike: on system 2.93 (`ω = 100`, start `(0.8, 0.811)` at rest, `δ = 10⁻²`, `τ = 10⁻⁴`)
//! `|ΔE|` reaches `0.65·S` (the stiff spring's share of the energy), on system 2.100
//! (`SpringTrimer::paper`, `δ = 10⁻²`, `τ = 10⁻⁵…10⁻⁴`) `1.0·S` to `2.1·S`, on the FPU chain
//! (`Fpu::paper`) `0.38·S`, on the two-spring system of §4.2.5 (`TwoSpring::paper`) `0.42·S`;
//! only propane's clip stays within (`0.1·S`).
//! What a FLAVOR nearly conserves is the effective energy `H̄ = K + V + (τ/δ)·αU` (see
//! [`Metropolis`]); on the same runs it moves by less than `0.05·S`.
//!
//! # First-order ODEs and SDEs: the state
//! The driver steps a mechanical [`State`] `(t, q, v)`. A FLAVOR over a first-order ODE or SDE
//! ([`ExplicitEuler`], [`EulerMaruyama`]) steps the same type: the ODE's state `u ∈ ℝᴰ` is the
//! position `q` of a `State<T, D>`, and `v` is not used — the maps carry it unchanged, so a run
//! started with `v = 0` ([`State::at_rest`]) keeps it zero and the velocity guard sees no jump.
//! One state type for every FLAVOR gives the ODE FLAVORs the driver's input checks, clock and
//! contract with no second code path, and `u` is read as `s.q`.
//!
//! # Time-dependent forcing: the τ clock (eq 2.115)
//! A stiff term that depends on time must see the *fast* clock, which a FLAVOR advances by `τ`
//! per step of length `δ`: during the stiff sub-step of the step that starts at time `t` the
//! legacy map evaluates its stiff forcing at the fast-clock time `t·τ/δ` (Kapitza:
//! `ω² sin(2πω nτ)` instead of `sin(2πω nδ)`). Soft terms use the real time.
//! In real time the slow variables then see the forcing at the slowed frequency `Ωτ/δ`, so
//! `δ/τ` is bounded by the averaging, not only by stability: `Ωτ/δ ≫ ω_slow` (on Kapitza's
//! pendulum `δ/τ ≲ 10`, which rules out the thesis's `δ = 0.002`; see [`advice`] and
//! [`advice::check_forcing`]).
//!
//! # Stability (Theorem 2.5.1, and what it leaves out)
//! On the linear system 2.93 the nonintrusive FLAVOR over symplectic Euler is stable iff
//! `δ < 2` *provided* `τω² ≪ 1`; in general the fastest stiff mode (frequency `ω`) is stable only
//! if `δ·τ·ω² < 4` (the one-step matrix of a stiff oscillator under `Φ⁰_{δ−τ}∘Φ^ω_τ` has trace
//! `2 − δτω²` and determinant 1). The thesis's Fig 2.4 parameters (`ε = 10⁻⁶`, `δ = 10⁻²`,
//! `τ = 5·10⁻⁴` on eq 2.100, `ω² = λ_max/ε ≈ 3.1·10⁶`) give `δτω² ≈ 16`: unstable. Stable choices
//! there need `δτ < 4/ω² ≈ 1.3·10⁻⁶`, e.g. `τ = 10⁻⁴, δ = 10⁻²`. The artificial FLAVOR freezes the
//! stiff coordinates during the long step and needs only `τω < 2` (and `δ < 2√2` on 2.93).
//! [`advice::check`] reports both bounds.
//!
//! For a *nonlinear* stiff potential the bound applies to the local frequency, which grows with
//! the amplitude: with a stiff quartic `y⁴/(4ε)` the FLAVOR is stable only while
//! `3y²·δτ/ε < 4`. Under noise the amplitude wanders, so the thesis's Langevin parameters blow up
//! (§2.6.8: `τ = 10⁻³` is unstable for `|y| > 0.036`, reached at temperature 1.25; §2.6.9:
//! `τ = 10⁻⁴` for `|y| > 0.115` at temperature 5); `reproduce flavor-langevin` uses `τ = 10⁻⁴`
//! (§2.6.8) and `τ = 5·10⁻⁴, δ = 10⁻³` (§2.6.9).
//!
//! # The fast marginal
//! A FLAVOR samples the fast variables from the invariant law of the *slowed* stiff dynamics
//! (stiff potential times `τ/δ`), not the true one (the thesis says so in §2.6.8). With a stiff
//! quartic `ω⁴y⁴/4` at temperature `T` that makes `E[y²]` `√(δ/τ)` times too large. A slow
//! observable feels that through its coupling to the fast one: in §2.6.9 the slow `x` sees the
//! stiffness `2⟨e^y⟩`, and `E[(x − y)²]` at the zero crossing of `x` (`t ≈ 10`) is ≈ `E[y²]`.
//! At the thesis's `ω = 100` and `δ/τ = 100` both are many standard errors of a 400-path
//! ensemble off (the thesis's Fig 2.21, 50 paths, does not resolve it); at `δ/τ = 100` the
//! absolute bias in `E[x]` falls about 5× from `ω = 100` to `ω = 300` but the ensemble's spread
//! shrinks with it, so it stays resolved. `reproduce flavor-langevin` shows the bias against
//! `δ/τ` and `ω`, and uses `δ/τ = 2` for its headline.
//!
//! # Choosing the form
//! The symmetric FLAVOR needs the legacy map's adjoint; asking for it on a map without one is a
//! [`ConfigError::Inconsistent`] `{ name: NEEDS_ADJOINT }` returned by the constructor (a run-time
//! check, so one generic wrapper can hold maps with and without an adjoint).

pub mod advice;
mod artificial;
mod euler_map;
mod euler_maruyama;
mod explicit_euler;
mod forced_euler;
mod form;
mod fused_euler;
mod langevin;
mod legacy;
mod metropolis;
mod nonintrusive;
mod params;
mod stacks;
mod switched;
mod symmetric;

pub use artificial::Artificial;
pub use euler_map::EulerMap;
pub use euler_maruyama::{EulerMaruyama, StiffSde};
pub use explicit_euler::{ExplicitEuler, OdeEuler, StiffOde};
pub use forced_euler::{ForcedEuler, SplitForce};
pub use form::Flavor;
pub use fused_euler::FusedEuler;
pub use langevin::{LangevinFlavor, LangevinSoft, LangevinStiff};
pub use legacy::Legacy;
pub use metropolis::{Metropolis, MetropolisNoise};
pub use nonintrusive::Nonintrusive;
pub use params::Params;
pub use stacks::{
    FusedEulerFlavor, SymmetricEulerFlavor, SymplecticEulerFlavor, SymplecticEulerMap,
    VerletFlavor, VerletMap,
};
pub use switched::{AdjointStep, Switched};
pub use symmetric::Symmetric;

// Named in the definitions of the types above (their strategy parameters, and the trait the
// legacy maps implement), never written by a user: reachable, not documented.
#[doc(hidden)]
pub use euler_map::EulerKick;
#[doc(hidden)]
pub use euler_maruyama::MaruyamaScheme;
#[doc(hidden)]
pub use explicit_euler::{ExplicitScheme, OdeIncrement};
#[doc(hidden)]
pub use forced_euler::ForcedKick;
#[doc(hidden)]
pub use form::{FlavorForm, NonintrusiveForm, SymmetricForm};
#[doc(hidden)]
pub use fused_euler::FusedKick;
#[doc(hidden)]
pub use langevin::{FrictionPlacement, SoftFriction, StiffFriction};

use crate::validate::check_nonnegative;
use crate::{ConfigError, PreconditionKind, Real, State, StepError};

/// Which part of the vector field a legacy step integrates.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stiffness<T> {
    /// The full system, stiff part on (`α = 1/ε`). `clock` is the fast-clock time at which
    /// time-dependent stiff terms are evaluated at the start of the step (eq 2.115).
    On {
        /// Fast-clock time at the start of the sub-step.
        clock: T,
    },
    /// The soft system only (`α = 0`).
    Off,
}

/// A legacy one-step map `Φ_h^α` whose stiffness can be switched on or off (004 eq 2.7 / 2.43).
///
/// A legacy map is what a FLAVOR is built from, not an integrator of its own: a step advances a
/// working state `x` in place — `x.q`, `x.v` and the time `x.t` (by a plain `x.t + h`, which the
/// sub-steps of a FLAVOR step read for their time-dependent terms) — and returns the energy the
/// sub-step exchanged with the outside (the work of a held force; zero for a conservative map).
/// It checks nothing and commits nothing: the FLAVOR built on it steps through the step driver
/// ([`crate::driver`]), which checks the input, keeps the clock, bounds the result by the guards
/// and commits it; on an error or a refused result the working state is discarded ([`Legacy`]
/// steps a map alone, stiffness on, through the driver the same way). A map that
/// has an adjoint `Φ*_h = (Φ_{−h})⁻¹` (eq 2.46) says so with [`LegacyMap::has_adjoint`] and
/// implements [`LegacyMap::step_adjoint`]; the symmetric FLAVORs need it and check it when they
/// are built.
///
/// Mechanical maps advance `(q, v)`; the first-order ODE and SDE maps ([`OdeEuler`]) advance the
/// ODE's state in `x.q` and leave `x.v` as it is (see the [module docs](self)).
///
/// A step never panics.
#[doc(hidden)]
pub trait LegacyMap<T: Real, const N: usize> {
    /// Whether the map is symplectic (with the stiffness on or off).
    const SYMPLECTIC: bool;

    /// The order of the map with the stiffness on, stepped alone ([`Legacy`]).
    const ORDER: u32;

    /// Whether the map with the stiffness on is symmetric (`Φ_{−h} ∘ Φ_h = id`).
    const SYMMETRIC: bool;

    /// One step `Φ_h^α` of signed length `h` with the stiffness switched as given, in place;
    /// returns the energy exchanged with the outside.
    ///
    /// # Errors
    /// The map's own failures (a singular solve, a Newton iteration that does not converge, a
    /// backward step of a random map); `x` is then meaningless.
    fn step(&mut self, x: &mut State<T, N>, h: T, stiffness: Stiffness<T>) -> Result<T, StepError>;

    /// Whether [`LegacyMap::step_adjoint`] is available.
    fn has_adjoint(&self) -> bool {
        false
    }

    /// One step of the adjoint map `Φ_h^{α,*}`, in place, as [`LegacyMap::step`].
    ///
    /// # Errors
    /// [`StepError::Precondition`] when the map has no adjoint (the default); otherwise the
    /// map's own failures.
    fn step_adjoint(
        &mut self,
        _x: &mut State<T, N>,
        _h: T,
        _stiffness: Stiffness<T>,
    ) -> Result<T, StepError> {
        Err(StepError::precondition(PreconditionKind::NoAdjoint))
    }

    /// One nonintrusive FLAVOR step `Φ⁰_{h−τ} ∘ Φ^α_τ` (eq 2.45) of signed length `h` with
    /// micro-step `tau`, the stiff sub-step on the fast clock `clock`, in place; returns the
    /// energy exchanged over both sub-steps.
    ///
    /// The default is the two [`LegacyMap::step`] calls. A map may override it with a fused
    /// evaluation of the same composition (equal up to rounding), as [`FusedEuler`] does to share
    /// one soft-force evaluation between the two sub-steps.
    ///
    /// # Errors
    /// As [`LegacyMap::step`].
    fn flavor_step(&mut self, x: &mut State<T, N>, h: T, tau: T, clock: T) -> Result<T, StepError> {
        two_sub_steps(self, x, h, tau, clock)
    }
}

/// The default [`LegacyMap::flavor_step`]: `Φ⁰_{h−τ} ∘ Φ^α_τ` as two [`LegacyMap::step`] calls.
#[inline]
pub(crate) fn two_sub_steps<T: Real, L: LegacyMap<T, N> + ?Sized, const N: usize>(
    map: &mut L,
    x: &mut State<T, N>,
    h: T,
    tau: T,
    clock: T,
) -> Result<T, StepError> {
    let stiff = map.step(x, tau, Stiffness::On { clock })?;
    let soft = map.step(x, h - tau, Stiffness::Off)?;
    Ok(stiff + soft)
}

/// The rule a legacy map without an adjoint violates when a symmetric FLAVOR is built on it:
/// the `name` of the [`ConfigError::Inconsistent`] returned.
pub const NEEDS_ADJOINT: &str = "symmetric FLAVOR needs a legacy map with an adjoint";

/// The deterministic core of the symmetric FLAVORs (004 eq 2.47, also inside 2.90/2.91):
/// `Φ^{α,*}_{τ/2} ∘ Φ^{0,*}_{(h−τ)/2} ∘ Φ^0_{(h−τ)/2} ∘ Φ^α_{τ/2}` (rightmost first), the stiff
/// sub-steps on the fast clock starting at `clock`. Advances the working state `x` in place and
/// returns the energy exchanged over the four sub-steps.
#[inline]
pub(crate) fn symmetric_core<T: Real, L: LegacyMap<T, N>, const N: usize>(
    legacy: &mut L,
    x: &mut State<T, N>,
    h: T,
    tau: T,
    clock: T,
) -> Result<T, StepError> {
    let half = T::lit(0.5);
    let (ht, hs) = (tau * half, (h - tau) * half);
    let mut exchanged = legacy.step(x, ht, Stiffness::On { clock })?;
    exchanged += legacy.step(x, hs, Stiffness::Off)?;
    exchanged += legacy.step_adjoint(x, hs, Stiffness::Off)?;
    exchanged += legacy.step_adjoint(x, ht, Stiffness::On { clock: clock + ht })?;
    Ok(exchanged)
}

/// The exact OU flow of the *velocities* for `dpᵢ = −α cᵢ pᵢ dt + √α σᵢ dWᵢ` with a diagonal
/// mass (`vᵢ = pᵢ/mᵢ`: friction `α cᵢ`, noise `√α σᵢ/mᵢ`) over a step `h`.
pub(crate) fn velocity_ou<T: Real, const N: usize>(
    mass: &crate::model::Mass<T, N>,
    friction: &nalgebra::SVector<T, N>,
    noise: &nalgebra::SVector<T, N>,
    alpha: T,
    h: T,
) -> Result<crate::langevin::DiagonalOu<T, N>, ConfigError> {
    check_nonnegative(alpha, "alpha")?;
    let m = mass.as_diagonal().ok_or(ConfigError::Inconsistent {
        name: "Langevin FLAVOR needs a diagonal mass",
    })?;
    let root = alpha.sqrt();
    crate::langevin::DiagonalOu::new(friction * alpha, noise.component_div(&m) * root, h)
}
