//! The nonintrusive FLAVOR over the fused symplectic Euler on the 3-DOF system 2.100 (004
//! §2.5.3), with its legacy integrator at the micro-step for the per-time cost.

use crate::{drive, ScenarioError, Sink};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::Nonintrusive;
use macrostep::systems::SpringTrimer;
use macrostep::Real;

/// System 2.100 ([`SpringTrimer`], `ω₁ = 1.1`, `ω₂ = 0.97`, start `(0.8, 0.811, 0.721)` at
/// rest) with a firmware-sized `ε = 10⁻⁴` (stiff frequency `√(λ_max/ε) ≈ 176`):
///
/// - case `flavor`: the nonintrusive FLAVOR (004 eq 2.45) over
///   [`FusedEuler`](macrostep::flavor::FusedEuler), built in one call (on step
///   drift–kick eq 2.50, off step kick–drift eq 2.49, one soft + one stiff gradient per step),
///   `δ = 0.01`, `τ = 5·10⁻⁴` (`δτω² ≈ 0.16 < 4`, stable): 1000 steps (`t = 10`), a state
///   every 100;
/// - case `legacy`: kick–drift symplectic Euler (eq 2.49) at `τ`: 2000 steps (`t = 1`), a state
///   every 200 — its instructions per step × `δ/τ = 20` is the cost of one FLAVOR step's worth
///   of time.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn flavor_trimer<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let model = SpringTrimer::<T>::new(T::lit(1e-4), [T::lit(1.1), T::lit(0.97)])?;
    let (delta, tau) = (T::lit(0.01), T::lit(5e-4));
    // Each case in its own scope: the two integrators are never live together, so their stack
    // slots may share memory.
    {
        let mut flavor = Nonintrusive::fused_euler(model.system(), delta, tau)?;
        drive(
            sink,
            "flavor",
            &mut flavor,
            model.initial_state(),
            1000,
            100,
        )?;
    }
    {
        let mut se = SymplecticEuler::new(model.system(), tau, EulerOrdering::KickDrift)?;
        drive(sink, "legacy", &mut se, model.initial_state(), 2000, 200)?;
    }
    Ok(())
}
