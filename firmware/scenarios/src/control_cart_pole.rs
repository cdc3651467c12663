//! Closed-loop cart-pole at 1 kHz: LQR + one Z&S step on the penalty form per tick.

use crate::cart_pole::{mechanism, Controlled, CART_POLE_H};
use crate::{drive, ScenarioError, Sink};
use macrostep::forcing::Actuated;
use macrostep::linalg::DenseKept;
use macrostep::mechanism::{LinkagePenalty, Mechanism};
use macrostep::model::System;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Real, State};

/// The plant of [`control_cart_pole`].
type Plant<T> = ZhangSkeel<T, Actuated<T, LinkagePenalty<T, 2, 3, 1>, 3>, 3, DenseKept<T, 3>>;
/// The closed loop of [`control_cart_pole`].
type Loop<'m, T> = Controlled<'m, T, Plant<T>>;

/// The builder's cart-pole ([`mechanism`]) penalised with `ω = 500`, Z&S with `β = 0.4`,
/// `h = 1 ms`, the LQR force set with `set_force` every tick. The solve keeps its factors
/// ([`DenseKept`]), so a new force refreshes the cached start-of-step force with two triangular
/// solves instead of a second assembly and factorisation: one factorisation per tick, the same
/// work every tick. 5,000 ticks (`t = 5 s`, settled at ≈ 3 s), a state every 500.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn control_cart_pole<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    // Each value used in place (`&mut` into its `Result`): moving it out would copy it, and the
    // frame would hold it twice.
    let built = mechanism::<T>();
    let mech = match &built {
        Ok(m) => m,
        Err(e) => return Err((*e).into()),
    };
    let mut looped = build(mech);
    let (tick, start) = match &mut looped {
        Ok(x) => x,
        Err(e) => return Err(*e),
    };
    drive(sink, "main", tick, *start, 5000, 500)?;
    Ok(())
}

/// The loop and its start state. Not inlined, and neither is [`plant`] nor [`mechanism`]: the
/// intermediate values (builder, penalised system, integrator, their `Result`s) live in frames
/// that are gone before the loop runs (the 2 KiB stack budget; measured per change, see
/// `firmware/README.md`).
#[inline(never)]
fn build<T: Real>(
    mech: &Mechanism<T, 2, 3, 1>,
) -> Result<(Loop<'_, T>, State<T, 3>), ScenarioError> {
    Ok((Controlled::new(plant(mech)?, mech), mech.initial_state()))
}

/// Penalised with `ω = 500`, `Actuated`, Z&S with `β = 0.4` and kept factors.
#[inline(never)]
fn plant<T: Real>(mech: &Mechanism<T, 2, 3, 1>) -> Result<Plant<T>, ConfigError> {
    let pen = mech.penalised(T::lit(500.0))?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let (h, params) = (T::lit(CART_POLE_H), ZsParams::with_beta(T::lit(0.4)));
    ZhangSkeel::with_solver(sys, h, params, DenseKept::new())
}
