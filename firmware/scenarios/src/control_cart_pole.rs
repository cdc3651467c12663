//! Closed-loop cart-pole at 1 kHz: LQR + one Z&S step on the penalty form per tick, the gain
//! computed at start-up from the Z&S linearisation at the upright.

use crate::cart_pole::{mechanism_in, unit_force, Controlled, CART_POLE_H};
use crate::cart_pole_lqr::{lqr_gain, LqrWeights};
use crate::{drive, ScenarioError, Sink};
use macrostep::forcing::Actuated;
use macrostep::linalg::DenseKept;
use macrostep::mechanism::{LinkagePenalty, Mechanism, MechanismBuilder};
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, State};

/// The plant of [`control_cart_pole`].
pub(crate) type Plant<T> =
    ZhangSkeel<T, Actuated<T, LinkagePenalty<T, 2, 3, 1>, 3>, 3, DenseKept<T, 3>>;

/// The builder's cart-pole ([`mechanism`](crate::mechanism)) penalised with `ω = 500`, Z&S with `β = 0.4`,
/// `h = 1 ms`, the LQR force set with `set_force` every tick. The solve keeps its factors
/// ([`DenseKept`]), so a new force refreshes the cached start-of-step force with two triangular
/// solves instead of a second assembly and factorisation: one factorisation per tick, the same
/// work every tick. 5,000 ticks (`t = 5 s`, settled at ≈ 3 s), a state every 500.
///
/// The gain `K` comes first, computed at start-up ([`Sink::startup`]) by [`lqr_gain`] from the
/// Z&S linearisation of the frozen-mass cart-pole at the upright with the weights
/// [`LqrWeights::cart_pole`], and is recorded as `x main 0 k <i>`.
///
/// # Errors
/// A configuration, control or step error (none is expected).
pub fn control_cart_pole<T: ConstReal, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let h = T::lit(CART_POLE_H);
    let gain = sink.startup("main", || lqr_gain(h, &LqrWeights::cart_pole()))?;
    sink.values("main", "k", &gain);
    run(sink, gain)
}

/// The closed loop with the gain `gain`. Not inlined: its frame (the plant) is not under the
/// start-up computation's (the 2 KiB stack budget). The frame holds the plant and the loop's
/// few words; the mechanism lives only in [`install`]'s frame, gone before the loop runs.
#[inline(never)]
fn run<T: ConstReal, S: Sink<T>>(sink: &mut S, gain: [T; 4]) -> Result<(), ScenarioError> {
    let mut slot = Slot::Builder(None);
    let (plant, unit, start) = install(&mut slot)?;
    let mut tick = Controlled::with_gains(plant, unit, gain);
    drive(sink, "main", &mut tick, start, 5000, 500)?;
    Ok(())
}

/// The memory the loop's plant is built in: first the mechanism's builder, then, once the
/// mechanism is built, the plant (the builder's bytes are not kept beside the plant's).
enum Slot<T: ConstReal> {
    Builder(Option<MechanismBuilder<T, 2, 3, 1>>),
    Plant(Option<Plant<T>>),
}

/// The plant built in place in `slot`, the actuator's constant map ([`unit_force`]) and the
/// start state. Not inlined: the mechanism lives in this frame only.
#[inline(never)]
#[allow(clippy::type_complexity)]
fn install<T: ConstReal>(
    slot: &mut Slot<T>,
) -> Result<(&mut Plant<T>, SVector<T, 3>, State<T, 3>), ScenarioError> {
    let mut built = None;
    *slot = Slot::Builder(None);
    let mech = match slot {
        Slot::Builder(b) => mechanism_in::<T>(b, &mut built)?,
        Slot::Plant(_) => return Err(INCONSISTENT.into()),
    };
    *slot = Slot::Plant(None);
    let plant = match slot {
        Slot::Plant(p) => plant_in(mech, p)?,
        Slot::Builder(_) => return Err(INCONSISTENT.into()),
    };
    Ok((plant, unit_force(mech)?, mech.initial_state()))
}

/// A slot found in the wrong state (cannot happen: [`install`] sets it first).
const INCONSISTENT: ConfigError = ConfigError::Inconsistent {
    name: "plant built in its slot",
};

/// The plant of `mech` built in place in `slot`: penalised with `ω = 500` under a held force
/// (`Actuated`), the system written into a slot of this frame
/// ([`Mechanism::penalised_actuated_in`]), Z&S with `β = 0.4` and kept factors into `slot`
/// ([`ZhangSkeel::new_in`], the same integrator as [`ZhangSkeel::with_solver`] on that system,
/// bit for bit). Not inlined: the system's slot is gone before the loop runs.
///
/// # Errors
/// A [`ConfigError`] of the penalty or the integrator (none expected); `slot` is then `None`.
#[inline(never)]
pub(crate) fn plant_in<'s, T: ConstReal>(
    mech: &Mechanism<T, 2, 3, 1>,
    slot: &'s mut Option<Plant<T>>,
) -> Result<&'s mut Plant<T>, ConfigError> {
    let mut sys = None;
    let sys = mech.penalised_actuated_in(&mut sys, T::lit(500.0))?;
    let (h, params) = (T::lit(CART_POLE_H), ZsParams::with_beta(T::lit(0.4)));
    ZhangSkeel::new_in(slot, sys, h, params, DenseKept::new())
}
