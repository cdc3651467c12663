//! The linearised Z&S on SO(3) for the magnetised rigid body (000 §4.5, Figs 9–10).

use crate::{drive, ScenarioError, Sink};
use macrostep::lie::{BodyState, LinearizedZs2, RigidBody, So3ZsParams};
use macrostep::{ConfigError, Real};

/// The integrator [`so3_attitude`] steps.
pub type So3Attitude<T> = LinearizedZs2<T>;

/// The trapezoidal linearised Z&S (000 eqs 4.14–4.15, one 9×9 symmetric solve per step) on the
/// paper's magnetised body (`J = I`, `Bμ = 1`) with `ω = 10`, `β = 0.4`, `h = 0.1`, from
/// `R(0) = I`, `Ω(0) = (1, 0.2, 0.1)`: 500 steps (`t = 50`), a state every 50 steps. The state
/// is the relaxed `(vec R, vec Ṙ)` in `ℝ⁹ × ℝ⁹`.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn so3_attitude<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    so3_attitude_in(sink, &mut None)
}

/// [`so3_attitude`] with the integrator built in `slot`: the firmware passes a `static`, so the
/// integrator and its 9×9 workspace are static RAM, not stack.
///
/// # Errors
/// As [`so3_attitude`].
pub fn so3_attitude_in<T: Real, S: Sink<T>>(
    sink: &mut S,
    slot: &mut Option<So3Attitude<T>>,
) -> Result<(), ScenarioError> {
    let zs = build(slot)?;
    drive(
        sink,
        "main",
        zs,
        BodyState::<T>::paper().to_relaxed(),
        500,
        50,
    )?;
    Ok(())
}

/// Not inlined: the integrator is built in this frame, gone before the loop runs.
#[inline(never)]
fn build<T: Real>(slot: &mut Option<So3Attitude<T>>) -> Result<&mut So3Attitude<T>, ConfigError> {
    let zs = LinearizedZs2::new(RigidBody::paper(), T::lit(0.1), So3ZsParams::default())?;
    Ok(slot.insert(zs))
}
