//! The cart-pole shared by `control_cart_pole`, `ekf_cart_pole` and `rattle_cart_pole`: the
//! mechanism, the host-computed LQR gains `rattle_cart_pole` uses and the closed loop as one [`Method`](macrostep::driver::Method) (so the firmware's per-step instruction
//! count is the whole tick: observe, control, actuation, `set_force`, one plant step).

use macrostep::driver::{Method, Wrapper};
use macrostep::forcing::Actuate;
use macrostep::mechanism::{Mechanism, MechanismBuilder};
use macrostep::nalgebra::SVector;
use macrostep::{ConfigError, Real, State, StepError};

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
    let (l, tilt) = (T::lit(0.5), T::lit(0.2));
    // The builder used in place (`&mut` into its `Result`): moving it out would copy it, and
    // the frame would hold it twice.
    let mut fresh = MechanismBuilder::<T, 2, 3, 1>::new();
    let b = match &mut fresh {
        Ok(b) => b,
        Err(e) => return Err(*e),
    };
    let z = T::zero();
    let cart = b.rail_node(T::one(), [z, z], [T::one(), z], z)?;
    let tip = b.node(T::lit(0.1), [l * tilt.sin(), l * tilt.cos()])?;
    b.rod(tip, cart)?;
    b.gravity(T::lit(9.81))?;
    b.force_actuator(cart, [T::one(), z])?;
    b.build()
}

/// A plant integrator under LQR control: each step observes `(s, θ, ṡ, θ̇)`, sets the held
/// force `F = −K x` on the cart, and takes one plant step. It borrows the mechanism (for
/// [`Mechanism::actuation`]) rather than holding a copy: one copy less on the device's stack.
pub struct Controlled<'m, T: Real, I> {
    /// The plant.
    pub plant: I,
    mechanism: &'m Mechanism<T, 2, 3, 1>,
    gains: [T; 4],
    u: SVector<T, 3>,
}

impl<'m, T: Real, I> Controlled<'m, T, I> {
    /// The loop around `plant` with the gains [`CART_POLE_GAINS`].
    pub fn new(plant: I, mechanism: &'m Mechanism<T, 2, 3, 1>) -> Self {
        Self::with_gains(plant, mechanism, CART_POLE_GAINS.map(T::lit))
    }

    /// The loop around `plant` with the gains `gains` (`F = −K (s, θ, ṡ, θ̇)`).
    pub fn with_gains(plant: I, mechanism: &'m Mechanism<T, 2, 3, 1>, gains: [T; 4]) -> Self {
        Self {
            plant,
            mechanism,
            gains,
            u: SVector::zeros(),
        }
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
        &self.plant
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.plant
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
        self.mechanism
            .actuation(&[f], &state.q, &mut self.u)
            .map_err(|_| StepError::NonFiniteForce)?;
        self.plant.set_force(&self.u)?;
        self.plant.propose(state, h, next)
    }
}
