//! The cart-pole shared by `control_cart_pole`, `ekf_cart_pole` and `rattle_cart_pole`: the
//! mechanism, the host-computed LQR gains `rattle_cart_pole` uses and the closed loop as one [`Method`](macrostep::driver::Method) (so the firmware's per-step instruction
//! count is the whole tick: observe, control, actuation, `set_force`, one plant step).

use macrostep::driver::{Method, Wrapper};
use macrostep::forcing::Actuate;
use macrostep::mechanism::{Mechanism, MechanismBuilder};
use macrostep::nalgebra::SVector;
use macrostep::{ConfigError, ConstReal, Real, State, StepError};

/// The LQR gains `K` (`F = −K (s, θ, ṡ, θ̇)`) from the discrete Riccati equation at `h = 1 ms`
/// (`host_tests::experiments::cart_pole::lqr_gains`, `Q = diag(10, 100, 1, 1)`, `R = 0.1`),
/// stored as constants; `host-tests` checks them against its solution. `rattle_cart_pole` uses
/// them; `control_cart_pole` and `ekf_cart_pole` compute their gain at start-up
/// ([`lqr_gain`](crate::lqr_gain)).
pub const CART_POLE_GAINS: [f64; 4] = [
    -9.911148201491004,
    -71.665349390716,
    -11.525064072046533,
    -14.64154276982787,
];

/// Control period and plant step (s).
pub const CART_POLE_H: f64 = 1e-3;

/// Cart 1 kg on a horizontal rail through the origin (one coordinate `s`), tip 0.1 kg on a
/// 0.5 m rod tilted 0.2 rad from upright, `g = 9.81`, a horizontal force actuator on the cart:
/// `q = (s, x_tip, y_tip)`.
///
/// Not inlined: the builder lives in this frame only (the cart-pole scenarios' 2 KiB stack
/// budget).
///
/// # Errors
/// None expected (literal, valid parameters).
#[inline(never)]
pub fn mechanism<T: Real>() -> Result<Mechanism<T, 2, 3, 1>, ConfigError> {
    // The builder used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut fresh = MechanismBuilder::<T, 2, 3, 1>::new();
    let b = match &mut fresh {
        Ok(b) => b,
        Err(e) => return Err(*e),
    };
    describe(b)?;
    b.build()
}

/// [`mechanism`] built in place: the builder in `builder` ([`MechanismBuilder::new_in`]), the
/// mechanism in `slot` ([`MechanismBuilder::build_in`]); the same mechanism, bit for bit, with
/// neither passing through the stack. The builder is not needed afterwards: its slot can hold
/// something else (`control_cart_pole` builds its plant there).
///
/// # Errors
/// As [`mechanism`]; `slot` is then `None`.
#[inline(never)]
pub fn mechanism_in<'m, T: ConstReal>(
    builder: &mut Option<MechanismBuilder<T, 2, 3, 1>>,
    slot: &'m mut Option<Mechanism<T, 2, 3, 1>>,
) -> Result<&'m Mechanism<T, 2, 3, 1>, ConfigError> {
    *slot = None;
    let b = MechanismBuilder::<T, 2, 3, 1>::new_in(builder)?;
    describe(b)?;
    b.build_in(slot).map(|m| &*m)
}

/// The cart-pole's nodes, rod, gravity and actuator, added to `b`.
#[inline(always)]
fn describe<T: Real>(b: &mut MechanismBuilder<T, 2, 3, 1>) -> Result<(), ConfigError> {
    let (l, tilt) = (T::lit(0.5), T::lit(0.2));
    let z = T::zero();
    let cart = b.rail_node(T::one(), [z, z], [T::one(), z], z)?;
    let tip = b.node(T::lit(0.1), [l * tilt.sin(), l * tilt.cos()])?;
    b.rod(tip, cart)?;
    b.gravity(T::lit(9.81))?;
    b.force_actuator(cart, [T::one(), z])?;
    Ok(())
}

/// The generalised force of a unit command on the cart-pole's one actuator, a force on the
/// cart ([`Mechanism::actuation`] at `mech`'s start): a force actuator's map is constant, so a
/// command `F` acts as `F` times this column at every `q`.
///
/// Not inlined: its temporaries are not in its caller's frame.
///
/// # Errors
/// As [`Mechanism::actuation`] (none expected: one actuator, a finite command).
#[inline(never)]
pub fn unit_force<T: Real>(mech: &Mechanism<T, 2, 3, 1>) -> Result<SVector<T, 3>, ConfigError> {
    let mut unit = SVector::zeros();
    mech.actuation(&[T::one()], &mech.initial_state().q, &mut unit)?;
    Ok(unit)
}

/// A plant integrator under LQR control: each step observes `(s, θ, ṡ, θ̇)`, sets the held
/// force `F = −K x` on the cart, and takes one plant step. It borrows the plant (built in place
/// where the caller keeps it) and holds the actuator's constant map ([`unit_force`]) instead of
/// the mechanism: neither the plant nor the mechanism is copied onto the loop's stack, and the
/// mechanism's frame is gone before the loop runs.
pub struct Controlled<'p, T: Real, I> {
    /// The plant.
    pub plant: &'p mut I,
    unit: SVector<T, 3>,
    gains: [T; 4],
}

impl<'p, T: Real, I> Controlled<'p, T, I> {
    /// The loop around `plant` with the gains [`CART_POLE_GAINS`]; `unit` is the generalised
    /// force of a unit command ([`unit_force`]).
    pub fn new(plant: &'p mut I, unit: SVector<T, 3>) -> Self {
        Self::with_gains(plant, unit, CART_POLE_GAINS.map(T::lit))
    }

    /// The loop around `plant` with the gains `gains` (`F = −K (s, θ, ṡ, θ̇)`).
    pub fn with_gains(plant: &'p mut I, unit: SVector<T, 3>, gains: [T; 4]) -> Self {
        Self { plant, unit, gains }
    }

    /// `F = −K x` at `s`.
    #[inline]
    fn control(&self, s: &State<T, 3>) -> T {
        let (dx, dy) = (s.q[1] - s.q[0], s.q[2]);
        let (dvx, dvy) = (s.v[1] - s.v[0], s.v[2]);
        let theta = dx.atan2(dy);
        let omega = (dvx * dy - dx * dvy) / (dx * dx + dy * dy);
        let k = &self.gains;
        -(k[0] * s.q[0] + k[1] * theta + k[2] * s.v[0] + k[3] * omega)
    }
}

/// The plant's step size and guard memory: the tick is committed under the plant's guards.
impl<T: Real, I> Wrapper for Controlled<'_, T, I> {
    type Inner = I;

    fn inner(&self) -> &I {
        self.plant
    }

    fn inner_mut(&mut self) -> &mut I {
        self.plant
    }
}

/// One tick: the control law, the actuation, the held force, the plant's proposal; the step
/// driver checks and commits it. A non-finite force is [`StepError::NonFiniteForce`]; the state
/// is unchanged on any error.
impl<T: Real, I: Method<T, 3> + Actuate<T, 3>> Method<T, 3> for Controlled<'_, T, I> {
    const ORDER: u32 = I::ORDER;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<T, 3>,
        h: T,
        next: &mut State<T, 3>,
    ) -> Result<T, StepError> {
        let f = self.control(state);
        if !f.finite() {
            return Err(StepError::NonFiniteForce);
        }
        self.plant.set_force(&(self.unit * f))?;
        self.plant.propose(state, h, next)
    }
}
