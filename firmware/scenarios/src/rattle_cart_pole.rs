//! The same closed loop with RATTLE on the exact rod constraint: a Newton iteration per tick
//! whose count varies, so its worst-case step (bounded by the iteration cap) exceeds its mean.

use crate::cart_pole::{mechanism, unit_force, Controlled, CART_POLE_H};
use crate::{drive, ScenarioError, Sink};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::Actuated;
use macrostep::mechanism::{Linkage, Mechanism};
use macrostep::model::System;
use macrostep::{ConfigError, Real};

/// The plant of [`rattle_cart_pole`].
type Plant<T> =
    Rattle<T, Actuated<T, macrostep::systems::LinearPotential<T, 3>, 3>, Linkage<T, 2, 3, 1>, 3, 1>;

/// The builder's cart-pole ([`mechanism`]) with the exact rod constraint, RATTLE at
/// `h = 1 ms` (default Newton parameters: `tol = 1000 ε`, at most 20 iterations), the LQR force
/// set every tick: 5,000 ticks, a state every 500.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn rattle_cart_pole<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    // The mechanism used in place (`&` into its `Result`): moving it out would copy it.
    let built = mechanism::<T>();
    let mech = match &built {
        Ok(m) => m,
        Err(e) => return Err((*e).into()),
    };
    closed_loop(sink, mech)
}

/// The closed loop around `mech`, driven. Not inlined, and neither is [`build`]: the loop's
/// frame is not under the mechanism's construction, nor the RATTLE set-up's temporaries under
/// the loop (the 2 KiB stack budget).
#[inline(never)]
fn closed_loop<T: Real, S: Sink<T>>(
    sink: &mut S,
    mech: &Mechanism<T, 2, 3, 1>,
) -> Result<(), ScenarioError> {
    // The plant used in place (`&mut` into its `Result`): moving it out would copy it.
    let mut built = build(mech);
    let plant = match &mut built {
        Ok(x) => x,
        Err(e) => return Err((*e).into()),
    };
    let mut tick = Controlled::new(plant, unit_force(mech)?);
    drive(sink, "main", &mut tick, mech.initial_state(), 5000, 500)?;
    Ok(())
}

/// RATTLE on the exact rod constraint of `mech`, the plant of the LQR loop.
#[inline(never)]
fn build<T: Real>(mech: &Mechanism<T, 2, 3, 1>) -> Result<Plant<T>, ConfigError> {
    let exact = mech.system();
    let sys = System::new(exact.mass, Actuated::new(exact.potential));
    Rattle::new(
        sys,
        mech.constraint(),
        T::lit(CART_POLE_H),
        ConstraintNewtonParams::default(),
    )
}
