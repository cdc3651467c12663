//! Closed-loop cart-pole at 1 kHz: LQR + one Z&S step on the penalty form per tick, the gain
//! computed at start-up from the Z&S linearisation at the upright.

use crate::cart_pole::{mechanism, Controlled, CART_POLE_H};
use crate::cart_pole_lqr::{lqr_gain, LqrWeights};
use crate::{drive, ScenarioError, Sink};
use macrostep::forcing::Actuated;
use macrostep::linalg::DenseKept;
use macrostep::mechanism::{LinkagePenalty, Mechanism};
use macrostep::model::System;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Real};

/// The plant of [`control_cart_pole`].
pub(crate) type Plant<T> =
    ZhangSkeel<T, Actuated<T, LinkagePenalty<T, 2, 3, 1>, 3>, 3, DenseKept<T, 3>>;
/// The closed loop of [`control_cart_pole`].
type Loop<'m, T> = Controlled<'m, T, Plant<T>>;

/// The builder's cart-pole ([`mechanism`]) penalised with `ω = 500`, Z&S with `β = 0.4`,
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
pub fn control_cart_pole<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let h = T::lit(CART_POLE_H);
    let gain = sink.startup("main", || lqr_gain(h, &LqrWeights::cart_pole()))?;
    sink.values("main", "k", &gain);
    run(sink, gain)
}

/// The closed loop with the gain `gain`. Not inlined: its frame (the mechanism) is not under
/// the start-up computation's (the 2 KiB stack budget).
#[inline(never)]
fn run<T: Real, S: Sink<T>>(sink: &mut S, gain: [T; 4]) -> Result<(), ScenarioError> {
    // The mechanism used in place (`&` into its `Result`): moving it out would copy it, and the
    // frame would hold it twice.
    let built = mechanism::<T>();
    let mech = match &built {
        Ok(m) => m,
        Err(e) => return Err((*e).into()),
    };
    closed_loop(sink, mech, gain)
}

/// The loop around `mech`, driven. Not inlined: the loop's frame is not under the
/// mechanism's construction ([`mechanism`] and its builder), only under the built mechanism.
#[inline(never)]
fn closed_loop<T: Real, S: Sink<T>>(
    sink: &mut S,
    mech: &Mechanism<T, 2, 3, 1>,
    gain: [T; 4],
) -> Result<(), ScenarioError> {
    let mut looped = build(mech, gain);
    let tick = match &mut looped {
        Ok(x) => x,
        Err(e) => return Err(*e),
    };
    drive(sink, "main", tick, mech.initial_state(), 5000, 500)?;
    Ok(())
}

/// The loop (its start state is `mech.initial_state()`). Not inlined, and neither is [`plant`] nor [`mechanism`]: the
/// intermediate values (builder, penalised system, integrator, their `Result`s) live in frames
/// that are gone before the loop runs (the 2 KiB stack budget; measured per change, see
/// `firmware/README.md`).
#[inline(never)]
fn build<T: Real>(
    mech: &Mechanism<T, 2, 3, 1>,
    gain: [T; 4],
) -> Result<Loop<'_, T>, ScenarioError> {
    let plant = plant(mech)?;
    Ok(Controlled::with_gains(plant, mech, gain))
}

/// Penalised with `ω = 500`, `Actuated`, Z&S with `β = 0.4` and kept factors.
#[inline(never)]
pub(crate) fn plant<T: Real>(mech: &Mechanism<T, 2, 3, 1>) -> Result<Plant<T>, ConfigError> {
    let pen = mech.penalised(T::lit(500.0))?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let (h, params) = (T::lit(CART_POLE_H), ZsParams::with_beta(T::lit(0.4)));
    ZhangSkeel::with_solver(sys, h, params, DenseKept::new())
}
