//! Forces from outside the potential: actuator forces held over a step, time-dependent forcing,
//! linear damping, and the reaction forces of constraints.
//!
//! A digital controller computes a generalised force `u` every tick and holds it until the next
//! (zero-order hold). This module makes every deterministic family take such a force without
//! touching its step code, and keeps the step guards meaningful while `u` changes every tick.
//!
//! | item | what it does |
//! |---|---|
//! | [`Actuated`] | a potential wrapper `V(q) − uᵀq` with a settable held force `u` |
//! | [`Actuate`] | `set_force(u)` on an integrator: no restart of the guards' run, work accounted |
//! | [`Driven`] | a force function `f(t, q)` sampled at the step's midpoint and held over the step |
//! | [`Damped`] | linear damping `M v̇ = −C v` by its exact flow, Strang-composed with any method |
//! | [`reaction`] | the force each constraint exerts, from multipliers or from a penalty |
//!
//! ## Why a potential: the discrete Lagrange–d'Alembert principle
//! Marsden & West (2001 §3.2) force a variational integrator by adding discrete forces
//! `f⁻, f⁺` to the discrete Euler–Lagrange equations. For a force `u` held constant over the
//! step, the trapezoidal (and midpoint) quadratures give `f⁻ = f⁺ = (h/2) u`, which is exactly
//! what the linear potential `−uᵀq` contributes to a discrete Lagrangian built with the same
//! quadrature. So **during a step with held `u`, every method integrates the conservative
//! system with potential `V − uᵀq`**: variational methods stay variational, symplectic ones are
//! "forced-symplectic" (the map of each step is symplectic, 000 Thm 2.12 for Z&S with `V − uᵀq`),
//! and the Hessian and third derivative of the potential are unchanged, so the Z&S linear solve
//! and its cost are unchanged. The modified energy `K + V − uᵀq` is what each step conserves to
//! the method's order; hence the **energy balance** `E₁ − E₀ = uᵀ(q₁ − q₀)` (mechanical energy
//! `E = K + V`, work `W = uᵀΔq`, exact for a held force) holds to the method's order per step.
//!
//! **Sign convention.** `u` is the generalised force *applied to* the system, in the units of
//! `∇V` (newtons for Cartesian coordinates, N·m for angles): `M q̈ = −∇V(q) + u`. A positive
//! `u[i]` accelerates `q[i]` upwards and does positive work when `q[i]` grows. (MuJoCo's
//! `qfrc_applied` and rapier's `add_force` use the same sign.)
//!
//! ## Setting `u` every tick without losing the guards
//! Changing the potential through an integrator's `system_mut()` clears its caches and starts a
//! new guard run (the energy reference is re-taken), which would make the energy guard useless
//! in a control loop. [`Actuate::set_force`] instead (a) refuses a non-finite `u` with
//! [`StepError::NonFiniteForce`], leaving everything as it
//! was; (b) clears the method's first-same-as-last cache only when `u` actually changed (the
//! cached `f` was computed with the old `u`: one extra force evaluation — one gradient for
//! Verlet, one linear solve for Z&S — on every tick where `u` changes); and (c) tells the guard
//! memory the energy the change added at the last committed state, `ΔE = −(u_new − u_old)ᵀq`
//! ([`Watch::account`](crate::guard::Watch::account)). By summation by parts the run guard then
//! bounds exactly `|E − E_ref − W|` with `W = Σₖ uₖᵀ(q_{k+1} − q_k)` the work of the held forces:
//! it stays two-sided and meaningful, and refuses a step that gains or loses energy the forces
//! did not supply. The energy scale `S` of the run is unchanged by `set_force`.
//!
//! ## A force that depends on time (and position)
//! [`Driven`] wraps any [`Actuate`] method and, before each step of signed size `h` from
//! `(t, q, v)`, holds `u = f(t + h/2, q + (h/2) v)` over the step. For a force of `t` only this is
//! the DLA principle with the midpoint rule in time: the map is symplectic (forced-symplectic)
//! and symmetric in the extended phase space (`Φ₋ₕ` from `t + h` samples the same midpoint), so
//! its order is `min(ORDER, 2)` and a symmetric composition of `Driven<base>` (each stage samples
//! its own midpoint) reaches the composition's order. `Driven` around a composition (or around
//! [`Reich4`](crate::constrained::Reich4)) holds one `u` over the whole macro step and is second
//! order: its `ORDER` says so. A force that depends on `q` is sampled at the predicted midpoint:
//! still second order, no longer symplectic or exactly symmetric (`f(t, q)` is not a gradient).
//! One rule for every family keeps the step code untouched and matches what the controller
//! path (a held `u`) does.
//!
//! ## Damping
//! Two ways, both for `C` symmetric positive semi-definite (a matrix or per-link dashpots
//! assembled into one), both bit-identical to the undamped method for `C = 0`:
//!
//! - [`Damped`] adds `−C v` to *any* method by the Strang splitting `D(h/2) ∘ Φₕ ∘ D(h/2)`
//!   with `D(τ)` the *exact* flow `v ↦ exp(−M⁻¹C τ) v` of `M v̇ = −C v` (precomputed for the
//!   configured step from the generalised eigenproblem `C x = λ M x`): the step code of the
//!   method is untouched, the cost is two `N × N` products per step, the kick is unconditionally
//!   stable for any `C ≥ 0` (a stiff dashpot is exact, not merely damped), and the composition
//!   is second order and symmetric. Each kick takes kinetic energy out monotonically (exactly:
//!   `½vᵀMv` of `exp(−M⁻¹Cτ)v` is non-increasing in `τ`). Around an exact-constraint method
//!   (RATTLE, Reich's composition) the kick is the exact flow of the damping restricted to the
//!   tangent space of the constraints at the kick's position, so the velocity stays tangent for
//!   any `C` and `M` (one projector and one eigendecomposition per kick).
//! - [`DampedZs`](crate::zs::DampedZs) puts the damping *inside* the one linear solve of the
//!   Z&S family: `(M + βh² Hess V + ½hC) a = −∇V − C v_{k−½}` (the trapezoidal discrete
//!   Lagrange–d'Alembert damping force; derivation, `γ = ½`, order and symmetry in
//!   [`crate::zs::damped`]). No extra factorisation; second order; symmetric for Z&Ss and stiff
//!   Z&Ss.
//!
//! **Is the energy monotone?** The dashpots only take energy out, but the discrete mechanical
//! energy `E = K + V` of a step is the conservative method's energy plus its error, and a penalty
//! method's energy error oscillates at `O(h²)` with its stiff mode. Near a turning point of the
//! slow motion `v ≈ 0`, so one step's dissipation `h vᵀCv` falls below that oscillation and `E`
//! can rise for a step — with either way of damping: the split does not change the conservative
//! method's error and the in-solve damping does not either (it changes the force by `O(hC)`).
//! What holds is: *the energy of a damped penalty run decreases monotonically when averaged over
//! a period of its stiff mode, and step by step when the damping is strong enough or the
//! constraint exact (RATTLE)*; a per-step guarantee at light damping would need a method that
//! conserves `E` exactly, which none of these does. The measurements behind this (per step and
//! per period, over the damping `c`, on the damped double pendulum, `reproduce forcing`):
//! `docs/forcing.md` in the repository.
//!
//! **Guards with damping.** [`DampedZs`](crate::zs::DampedZs) reports the trapezoidal
//! dissipation of each step, `½h(vₖᵀCvₖ + vₖ₊₁ᵀCvₖ₊₁)`, to its guard memory; for [`Damped`],
//! each kick's kinetic-energy change is reported to the inner method's
//! guard memory ([`Watch::account`](crate::guard::Watch::account)), so the run guard bounds
//! `|E − E_ref − W + D|` with `D` the energy the dashpots took: two-sided, and blind neither to
//! a method that gains energy nor to one that loses more than the dashpots took.
//!
//! ## Reaction forces
//! See [`reaction`]: RATTLE and SHAKE report `g'(q)ᵀλ` per constraint ([`reaction::forces`]),
//! penalty methods `−ωᵢ² gᵢ ∇gᵢ` pointwise and the two-scale window average of 000 eq 1.8.

mod actuated;
mod damped;
mod driven;
pub mod reaction;

pub use actuated::Actuated;
pub(crate) use damped::check_damping;
pub use damped::Damped;
pub use driven::Driven;

use crate::guard::Watch;
use crate::{Real, StepError};
use nalgebra::SVector;

/// An integrator whose potential carries a held force `u` ([`Actuated`]), settable every tick
/// without restarting the guards' run (see the [module docs](self)).
pub trait Actuate<T: Real, const N: usize> {
    /// The force held over the next steps.
    fn force(&self) -> &SVector<T, N>;

    /// Holds `u` over the next steps (until the next call).
    ///
    /// # Errors
    /// [`StepError::NonFiniteForce`] when `u` holds a NaN or an infinity; the integrator and its
    /// force are then unchanged.
    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError>;
}

/// Sets `u` on `act` and accounts the energy change at the last committed state in `watch`;
/// returns whether `u` changed (the caller then clears its first-same-as-last cache).
#[inline]
pub(crate) fn set_held<T: Real, P, const N: usize>(
    act: &mut Actuated<T, P, N>,
    watch: &mut Watch<T, N>,
    u: &SVector<T, N>,
) -> Result<bool, StepError> {
    if !crate::linalg::all_finite(u.as_slice()) {
        return Err(StepError::NonFiniteForce);
    }
    if holds(&act.u, u) {
        return Ok(false);
    }
    let du = u - act.force();
    watch.account(|last| -du.dot(&last.q));
    for i in 0..N {
        act.u[i] = u[i];
    }
    Ok(true)
}

/// As [`set_held`], writing `δu = u − u_old` into `du` when `u` changed (nothing written
/// otherwise): the linearly implicit methods refresh their cached force from it in place.
#[inline]
pub(crate) fn set_held_into<T: Real, P, const N: usize>(
    act: &mut Actuated<T, P, N>,
    watch: &mut Watch<T, N>,
    u: &SVector<T, N>,
    du: &mut SVector<T, N>,
) -> Result<bool, StepError> {
    if !crate::linalg::all_finite(u.as_slice()) {
        return Err(StepError::NonFiniteForce);
    }
    if holds(&act.u, u) {
        return Ok(false);
    }
    for i in 0..N {
        du[i] = u[i] - act.u[i];
        act.u[i] = u[i];
    }
    watch.account(|last| -du.dot(&last.q));
    Ok(true)
}

/// Whether the held force `held` is `u`, component for component (`+0 = −0`). A plain loop
/// without a branch: on a Cortex-M4F at opt-level "s" nalgebra's `==` is an iterator loop of
/// about 35 instructions a component, and a controller calls this every tick.
#[inline]
fn holds<T: Real, const N: usize>(held: &SVector<T, N>, u: &SVector<T, N>) -> bool {
    let mut same = true;
    for i in 0..N {
        same &= held[i] == u[i];
    }
    same
}

/// Implements [`Actuate`] for an integrator with fields `system` (potential `Actuated`) and
/// `watch`; `$clear` (optional) clears its cache.
macro_rules! actuate_impl {
    ($self:ident) => {
        fn force(&self) -> &nalgebra::SVector<T, N> {
            self.system.potential.force()
        }
        fn set_force(&mut $self, u: &nalgebra::SVector<T, N>) -> Result<(), crate::StepError> {
            crate::forcing::set_held(&mut $self.system.potential, &mut $self.watch, u)?;
            Ok(())
        }
    };
    ($self:ident, $clear:expr) => {
        fn force(&self) -> &nalgebra::SVector<T, N> {
            self.system.potential.force()
        }
        fn set_force(&mut $self, u: &nalgebra::SVector<T, N>) -> Result<(), crate::StepError> {
            if crate::forcing::set_held(&mut $self.system.potential, &mut $self.watch, u)? {
                $clear;
            }
            Ok(())
        }
    };
}
pub(crate) use actuate_impl;
