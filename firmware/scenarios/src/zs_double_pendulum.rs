//! Z&S on the penalised double pendulum (000 §4.1, Fig. 1 row 6).

use crate::{drive, ScenarioError, Sink};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::Real;

/// Z&S (000 eq 1.3, dense 4×4 solve) on [`DoublePendulum::paper`] penalised with `ω = 20`,
/// `β = 0.4`, `h = 0.1` (000 §4.1: `m₁ = m₂ = g = L₁ = 1`, `L₂ = √2`, start `(0, −1, 1, −2)` at
/// rest): 500 steps (`t = 50`, the span of Fig. 1), a state every 50 steps.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn zs_double_pendulum<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let dp = DoublePendulum::<T>::paper();
    let system = dp.penalised(T::lit(20.0))?;
    // The integrator used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut built = ZhangSkeel::new(system, T::lit(0.1), ZsParams::with_beta(T::lit(0.4)));
    let zs = match &mut built {
        Ok(zs) => zs,
        Err(e) => return Err((*e).into()),
    };
    drive(sink, "main", zs, dp.initial_state(), 500, 50)?;
    Ok(())
}
