//! The same closed loop with RATTLE on the exact rod constraint: a Newton iteration per tick
//! whose count varies, so its worst-case step (bounded by the iteration cap) exceeds its mean.

use crate::cart_pole::{mechanism, Controlled, CART_POLE_H};
use crate::{drive, ScenarioError, Sink};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::Actuated;
use macrostep::model::System;
use macrostep::Real;

/// The builder's cart-pole ([`mechanism`]) with the exact rod constraint, RATTLE at
/// `h = 1 ms` (default Newton parameters: `tol = 1000 ε`, at most 20 iterations), the LQR force
/// set every tick: 5,000 ticks, a state every 500.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn rattle_cart_pole<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let mech = mechanism::<T>()?;
    let exact = mech.system();
    let sys = System::new(exact.mass, Actuated::new(exact.potential));
    let rattle = Rattle::new(
        sys,
        mech.constraint(),
        T::lit(CART_POLE_H),
        ConstraintNewtonParams::default(),
    )?;
    let mut tick = Controlled::new(rattle, &mech);
    drive(sink, "main", &mut tick, mech.initial_state(), 5000, 500)?;
    Ok(())
}
