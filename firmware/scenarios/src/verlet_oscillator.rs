//! Velocity Verlet on a 2-D harmonic oscillator: the pipeline's smallest scenario.

use crate::{drive, ScenarioError, Sink};
use macrostep::baselines::VelocityVerlet;
use macrostep::nalgebra::SVector;
use macrostep::systems::HarmonicOscillator;
use macrostep::Real;

/// Velocity Verlet, `h = 0.1`, on `q̈ᵢ = −ωᵢ² qᵢ` with `ω = (1, 3)`, from `q = (1, 1)` at rest:
/// 200 steps (`t = 20`), a state every 20 steps.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn verlet_oscillator<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let osc = HarmonicOscillator::new(SVector::<T, 2>::new(T::lit(1.0), T::lit(3.0)))?;
    // The integrator used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut built = VelocityVerlet::new(osc.system(), T::lit(0.1));
    let vv = match &mut built {
        Ok(vv) => vv,
        Err(e) => return Err((*e).into()),
    };
    drive(sink, "main", vv, osc.initial_state(), 200, 20)?;
    Ok(())
}
