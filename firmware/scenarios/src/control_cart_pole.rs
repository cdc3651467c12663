//! Closed-loop cart-pole at 1 kHz: LQR + one Z&S step on the penalty form per tick (issue 13).

use crate::cart_pole::{mechanism, Controlled, CART_POLE_H};
use crate::{drive, ScenarioError, Sink};
use macrostep::forcing::Actuated;
use macrostep::model::System;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::Real;

/// The builder's cart-pole ([`mechanism`]) penalised with `ω = 500`, Z&S with `β = 0.4`,
/// `h = 1 ms`, the LQR force set with `set_force` every tick (so every tick also re-evaluates
/// the force at its start: the same work each tick): 5,000 ticks (`t = 5 s`, settled at ≈ 3 s),
/// a state every 500.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn control_cart_pole<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let mech = mechanism::<T>()?;
    let pen = mech.penalised(T::lit(500.0))?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let zs = ZhangSkeel::new(sys, T::lit(CART_POLE_H), ZsParams::with_beta(T::lit(0.4)))?;
    let mut tick = Controlled::new(zs, mech);
    drive(sink, "main", &mut tick, mech.initial_state(), 5000, 500)?;
    Ok(())
}
