//! What a new held force each tick costs a Z&S plant with kept factors: free ticks (one step,
//! the force held) against controlled ticks (`set_force` with a new command, then one step) on
//! the cart-pole and the point-mass 3-link arm of `reproduce zs-step-cost`
//! (`host_tests::experiments::zs::step_cost`), counted in device instructions.

use crate::control_cart_pole::{plant_in, Plant as CartPolePlant};
use crate::{drive, mechanism_in, ScenarioError, Sink};
use macrostep::driver::{Method, Wrapper};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::linalg::DenseKept;
use macrostep::mechanism::{LinkagePenalty, Mechanism, MechanismBuilder};
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, Real, State, StepError};

/// Ticks of each case (`t = 1 s` at `h = 1 ms`).
pub const ZS_CONTROL_COST_TICKS: u32 = 1000;
/// The recording interval of each case.
pub const ZS_CONTROL_COST_EVERY: u32 = 250;
/// Distinct commands a controlled tick cycles through (consecutive ticks always differ).
pub const ZS_CONTROL_COST_COMMANDS: usize = 7;
/// Penalty frequency of both plants' rods (rad/s).
const OMEGA: f64 = 500.0;
/// Plant step (s).
const H: f64 = 1e-3;

/// The arm's coordinates: three point masses in the plane.
const ARM_N: usize = 6;

/// The penalised arm under a held force.
type ArmSystem<T> = System<T, Actuated<T, LinkagePenalty<T, 2, ARM_N, 3>, ARM_N>, ARM_N>;

/// The arm's plant: Z&S with `β = 0.4` and kept factors on [`ArmSystem`].
pub type ZsControlArm<T> =
    ZhangSkeel<T, Actuated<T, LinkagePenalty<T, 2, ARM_N, 3>, ARM_N>, ARM_N, DenseKept<T, ARM_N>>;

/// Where [`zs_control_cost_in`] builds its plants: each part (builder, mechanism, penalised
/// system, plant) written in place. The firmware keeps it in a `static`, so none of them is on
/// its stack; each case rebuilds its plant from scratch in its plant's slot.
pub struct ZsControlCostSlots<T: Real> {
    arm_builder: Option<MechanismBuilder<T, 2, ARM_N, 3>>,
    arm_mech: Option<Mechanism<T, 2, ARM_N, 3>>,
    arm_system: Option<ArmSystem<T>>,
    arm: Option<ZsControlArm<T>>,
    cart_pole_builder: Option<MechanismBuilder<T, 2, 3, 1>>,
    cart_pole_mech: Option<Mechanism<T, 2, 3, 1>>,
    cart_pole: Option<CartPolePlant<T>>,
}

impl<T: Real> ZsControlCostSlots<T> {
    /// Every slot empty.
    pub const fn new() -> Self {
        Self {
            arm_builder: None,
            arm_mech: None,
            arm_system: None,
            arm: None,
            cart_pole_builder: None,
            cart_pole_mech: None,
            cart_pole: None,
        }
    }
}

impl<T: Real> Default for ZsControlCostSlots<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The commands of `reproduce zs-step-cost`: command `j` is
/// `uᵢ = maskᵢ (0.5 + 0.1 i) sin(j + 1)`, computed before the loop (the controller's own work is
/// not the integrator's).
pub fn zs_control_commands<T: Real, const N: usize>(
    mask: [T; N],
) -> [SVector<T, N>; ZS_CONTROL_COST_COMMANDS] {
    core::array::from_fn(|j| {
        SVector::from_fn(|i, _| {
            mask[i] * T::lit(0.5 + 0.1 * i as f64) * T::lit((j + 1) as f64).sin()
        })
    })
}

/// A controlled tick as one [`Method`]: `set_force` with the next command of a table of `P`
/// (command `k mod P` on the `k`-th tick, from 0), then the plant's proposal; the step driver
/// checks and commits it. The firmware's per-step count is the whole tick.
pub struct Commanded<'a, T: Real, I, const N: usize, const P: usize> {
    /// The plant.
    pub plant: &'a mut I,
    commands: &'a [SVector<T, N>; P],
    next: usize,
}

impl<'a, T: Real, I, const N: usize, const P: usize> Commanded<'a, T, I, N, P> {
    /// The ticks of `plant` under `commands`, starting with the first (a table of at least one
    /// command: checked at compile time).
    pub fn new(plant: &'a mut I, commands: &'a [SVector<T, N>; P]) -> Self {
        const { assert!(P > 0, "a table of at least one command") };
        Self {
            plant,
            commands,
            next: 0,
        }
    }
}

/// The plant's step size and guard memory: the tick is committed under the plant's guards.
impl<T: Real, I, const N: usize, const P: usize> Wrapper for Commanded<'_, T, I, N, P> {
    type Inner = I;

    fn inner(&self) -> &I {
        self.plant
    }

    fn inner_mut(&mut self) -> &mut I {
        self.plant
    }
}

/// One tick: the next command held, the plant's proposal. The state is unchanged on any error.
impl<T: Real, I: Method<T, N> + Actuate<T, N>, const N: usize, const P: usize> Method<T, N>
    for Commanded<'_, T, I, N, P>
{
    const ORDER: u32 = I::ORDER;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        self.plant.set_force(&self.commands[self.next % P])?;
        self.next = self.next.wrapping_add(1);
        self.plant.propose(state, h, next)
    }
}

/// Free, held and controlled Z&S ticks with kept factors ([`DenseKept`]) on the two plants of
/// `reproduce zs-step-cost`, each case [`ZS_CONTROL_COST_TICKS`] ticks from the host
/// experiment's start on a freshly built plant, a state every [`ZS_CONTROL_COST_EVERY`]:
///
/// - `cart_pole_free`, `cart_pole_held`, `cart_pole_controlled`: the cart-pole of
///   [`mechanism`](crate::mechanism) (the tip 0.2 rad from upright, at rest) penalised with
///   `ω = 500`, `β = 0.4`, `h = 1 ms`, the commands on the cart only (mask `(1, 0, 0)`).
/// - `arm_free`, `arm_held`, `arm_controlled`: three point masses 1.0 / 0.7 / 0.4 kg on rods
///   0.5 / 0.4 / 0.3 m from a ground pin, started horizontal at rest, gravity 9.81, the same
///   penalty and step, the commands on all six coordinates.
///
/// A free case (`*_free`) holds the first command, set once before the loop, and steps; a
/// controlled case (`*_controlled`) sets command `k mod 7` ([`zs_control_commands`]) before the
/// `k`-th step, inside the counted tick ([`Commanded`]). With kept factors a new force costs
/// two triangular solves and the third-derivative term, not a second factorisation; the mean
/// instructions per tick, controlled over free, is compared with 1.25 by the xtask tests that
/// read this scenario's golden output. A held case (`*_held`) ticks like a controlled one
/// through a table of the first command alone: the wrapper and `set_force` with an unchanged
/// force (its checks run to the end, where a new force leaves the comparison at the first
/// differing entry), no refresh.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn zs_control_cost<T: ConstReal, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    zs_control_cost_in(sink, &mut ZsControlCostSlots::new())
}

/// [`zs_control_cost`] with the plants built in `slots`: the firmware passes a `static`, so
/// the builders, mechanisms and plants are static RAM, not stack.
///
/// # Errors
/// As [`zs_control_cost`].
pub fn zs_control_cost_in<T: ConstReal, S: Sink<T>>(
    sink: &mut S,
    slots: &mut ZsControlCostSlots<T>,
) -> Result<(), ScenarioError> {
    let z = T::zero();
    let cart = zs_control_commands([T::one(), z, z]);
    for (case, tick) in [
        ("cart_pole_free", Tick::Free),
        ("cart_pole_held", Tick::Held),
        ("cart_pole_controlled", Tick::Controlled),
    ] {
        let (plant, start) = cart_pole_in(slots)?;
        run(sink, case, plant, start, &cart, tick)?;
    }
    let arm = zs_control_commands([T::one(); ARM_N]);
    for (case, tick) in [
        ("arm_free", Tick::Free),
        ("arm_held", Tick::Held),
        ("arm_controlled", Tick::Controlled),
    ] {
        let (plant, start) = arm_in(slots)?;
        run(sink, case, plant, start, &arm, tick)?;
    }
    Ok(())
}

/// How a case ticks.
#[derive(Clone, Copy)]
enum Tick {
    /// The plant's step, the first command held (set once before the loop).
    Free,
    /// A [`Commanded`] tick through a table of the first command alone: the wrapper and
    /// `set_force` with the force the plant already holds (its finiteness check and a full
    /// comparison with the held force), no refresh.
    Held,
    /// A [`Commanded`] tick through the table: a new force every tick.
    Controlled,
}

/// One case on `plant` from `start` with the commands `commands`, ticking as `tick` says.
#[inline(never)]
fn run<T: Real, S: Sink<T>, I, const N: usize>(
    sink: &mut S,
    case: &'static str,
    plant: &mut I,
    start: State<T, N>,
    commands: &[SVector<T, N>; ZS_CONTROL_COST_COMMANDS],
    tick: Tick,
) -> Result<(), ScenarioError>
where
    I: Method<T, N> + Actuate<T, N>,
{
    let (ticks, every) = (ZS_CONTROL_COST_TICKS, ZS_CONTROL_COST_EVERY);
    match tick {
        Tick::Free => {
            plant.set_force(&commands[0])?;
            drive(sink, case, plant, start, ticks, every)?;
        }
        Tick::Held => {
            let first = [commands[0]];
            let mut held = Commanded::new(plant, &first);
            drive(sink, case, &mut held, start, ticks, every)?;
        }
        Tick::Controlled => {
            let mut controlled = Commanded::new(plant, commands);
            drive(sink, case, &mut controlled, start, ticks, every)?;
        }
    }
    Ok(())
}

/// The cart-pole plant built afresh in its slots ([`mechanism_in`], then `control_cart_pole`'s
/// plant: `ω = 500`, `β = 0.4`, kept factors) and its start. Not inlined: the construction's
/// frames are gone before the loop runs.
#[inline(never)]
fn cart_pole_in<T: ConstReal>(
    slots: &mut ZsControlCostSlots<T>,
) -> Result<(&mut CartPolePlant<T>, State<T, 3>), ConfigError> {
    let ZsControlCostSlots {
        cart_pole_builder,
        cart_pole_mech,
        cart_pole,
        ..
    } = slots;
    let mech = mechanism_in::<T>(cart_pole_builder, cart_pole_mech)?;
    Ok((plant_in(mech, cart_pole)?, mech.initial_state()))
}

/// The arm plant built afresh in its slots (builder, mechanism, penalised system with
/// `ω = 500` under a held force, Z&S with `β = 0.4` and kept factors) and its start. Not
/// inlined: the construction's frames are gone before the loop runs.
#[inline(never)]
fn arm_in<T: ConstReal>(
    slots: &mut ZsControlCostSlots<T>,
) -> Result<(&mut ZsControlArm<T>, State<T, ARM_N>), ConfigError> {
    let ZsControlCostSlots {
        arm_builder,
        arm_mech,
        arm_system,
        arm,
        ..
    } = slots;
    *arm = None;
    let b = MechanismBuilder::new_in(arm_builder)?;
    describe_arm(b)?;
    let mech = b.build_in(arm_mech)?;
    let sys = mech.penalised_actuated_in(arm_system, T::lit(OMEGA))?;
    let (h, params) = (T::lit(H), ZsParams::with_beta(T::lit(0.4)));
    let plant = ZhangSkeel::new_in(arm, sys, h, params, DenseKept::new())?;
    Ok((plant, mech.initial_state()))
}

/// The arm's nodes, pin, rods and gravity, added to `b` (as `step_cost::arm` on the host).
#[inline(always)]
fn describe_arm<T: Real>(b: &mut MechanismBuilder<T, 2, ARM_N, 3>) -> Result<(), ConfigError> {
    let z = T::zero();
    let n0 = b.node(T::one(), [T::lit(0.5), z])?;
    let n1 = b.node(T::lit(0.7), [T::lit(0.9), z])?;
    let n2 = b.node(T::lit(0.4), [T::lit(1.2), z])?;
    b.pin(n0, [z, z])?;
    b.rod(n1, n0)?;
    b.rod(n2, n1)?;
    b.gravity(T::lit(9.81))?;
    Ok(())
}
