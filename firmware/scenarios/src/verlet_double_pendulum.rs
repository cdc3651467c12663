//! Velocity Verlet on the penalised double pendulum: the explicit baseline Z&S is measured
//! against (000 §4.1, Fig. 1 row 3).

use crate::{drive, ScenarioError, Sink};
use macrostep::baselines::VelocityVerlet;
use macrostep::systems::DoublePendulum;
use macrostep::Real;

/// Velocity Verlet on [`DoublePendulum::paper`] penalised with `ω = 20`, at the step stability
/// allows, `h = 0.1/ω = 0.005` (000 Fig. 1 row 3): 10 000 steps (`t = 50`), a state every
/// 1000 steps. Its instructions per step × 20 is the cost of one Z&S step's worth of time.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn verlet_double_pendulum<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let dp = DoublePendulum::<T>::paper();
    // The integrator used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut built = VelocityVerlet::new(dp.penalised(T::lit(20.0))?, T::lit(0.005));
    let vv = match &mut built {
        Ok(vv) => vv,
        Err(e) => return Err((*e).into()),
    };
    drive(sink, "main", vv, dp.initial_state(), 10_000, 1000)?;
    Ok(())
}
