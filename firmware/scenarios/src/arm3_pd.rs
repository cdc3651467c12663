//! The planar 3-link arm of `tools/urdf2mech/urdf/planar_arm3.urdf` (the tool's output, emitted
//! at build time by `build.rs`) under a PD + gravity-compensation law on its joint angles at
//! 1 kHz: one Z&S step on the penalty form per tick, the joint torques through the joint motors
//! ([`Mechanism::actuation`](macrostep::mechanism::Mechanism::actuation), [`Actuate::set_force`]).

use crate::{drive, ScenarioError, Sink};
use macrostep::driver::{Method, Wrapper};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::linalg::DenseKept;
use macrostep::mechanism::LinkagePenalty;
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, Real, State, StepError};

/// The emitted module (its names and limits tables are not all used here).
#[allow(dead_code)]
mod emitted {
    include!(concat!(env!("OUT_DIR"), "/planar_arm3.rs"));
}

use emitted::planar_arm3;
pub use planar_arm3::{Ids as Arm3Ids, Mech as Arm3Mechanism, D as ARM3_D, N as ARM3_N};

/// Control period and plant step (s).
pub const ARM3_H: f64 = 1e-3;
/// Gravity (m/s², along the URDF's `−z`).
pub const ARM3_G: f64 = 9.81;
/// Penalty frequency of the joints' and bodies' rows (rad/s): `ω h = 10`. Z&S is linearly
/// implicit, so the stiff rows cost no stability, and its work per tick does not depend on `ω`;
/// the model error is what `ω` buys. Measured on the host against RATTLE at `h/10` on the exact
/// joints, same law, largest joint-angle difference over the 3 s run: `ω = 500` fails (the
/// residual guard stops the step at 72 ms: the links sag out of the penalty's reach),
/// `1000`: 1.6e-2 rad, `2000`: 6.5e-3, `5000`: 1.9e-3, `10⁴`: 6.9e-4, `3·10⁴`: 7.5e-5. In `f32`
/// the penalty force `ω² g ∇g` turns the roundoff of `g` into force noise growing as `ω²`
/// (joint-rate noise at rest 2.0e-2 rad/s at `10⁴`, 4.1e-2 at `3·10⁴`): `10⁴` balances the two.
/// RATTLE at `h` (exact joints, 3e-6 rad) would cost about three times the host CPU per tick
/// and a Newton iteration count that varies from tick to tick.
pub const ARM3_OMEGA: f64 = 10_000.0;
/// Ticks run (`t = 3 s`) and the recording interval.
pub const ARM3_TICKS: u32 = 3000;
/// See [`ARM3_TICKS`].
pub const ARM3_EVERY: u32 = 250;
/// The target joint angles (rad, the mechanism's `joint_angle`: counter-clockwise in the
/// plane, zero at the URDF's zero configuration, the arm stretched horizontally along `+x`).
/// The arm starts at rest at zero.
pub const ARM3_TARGET: [f64; 3] = [-0.7, 1.1, 0.5];
/// Proportional gains (N·m/rad): about `ωₙ ≈ 8 rad/s` on each joint's own inertia at the target.
pub const ARM3_KP: [f64; 3] = [50.0, 12.0, 1.5];
/// Derivative gains (N·m·s/rad): about critical damping with [`ARM3_KP`].
pub const ARM3_KD: [f64; 3] = [12.0, 3.0, 0.35];
/// A joint is settled when its angle error is within this (rad).
pub const ARM3_SETTLE_TOL: f64 = 1e-2;

/// The links as the gravity compensation sees them (from `planar_arm3.urdf`, the tool fused into
/// the hand): masses (kg), each COM's distance from its joint along the link (m), and the
/// distances shoulder → elbow → wrist (m). The host test
/// `arm3_pd_gravity_compensation_holds_the_arm` checks them against the emitted mechanism.
pub const ARM3_MASS: [f64; 3] = [1.2, 0.8, 0.6];
/// See [`ARM3_MASS`].
pub const ARM3_COM: [f64; 3] = [0.2, 0.15, 0.15];
/// See [`ARM3_MASS`].
pub const ARM3_LINK: [f64; 2] = [0.4, 0.3];

/// The Z&S plant of [`arm3_pd`].
pub type Arm3Plant<T> = ZhangSkeel<
    T,
    Actuated<T, LinkagePenalty<T, 2, ARM3_N, ARM3_D>, ARM3_N>,
    ARM3_N,
    DenseKept<T, ARM3_N>,
>;

/// The gravity torque `∂V/∂θ` on each joint at the relative joint angles `th` (N·m): with the
/// absolute link angles `φₖ = θ₁ + … + θₖ`, `∂V/∂φ₁ = g cos φ₁ (m₁c₁ + (m₂ + m₃) L₁)`,
/// `∂V/∂φ₂ = g cos φ₂ (m₂c₂ + m₃L₂)`, `∂V/∂φ₃ = g cos φ₃ m₃c₃`, and `∂V/∂θₖ = Σ_{j ≥ k} ∂V/∂φⱼ`.
pub fn arm3_gravity_torque<T: Real>(th: [T; 3]) -> [T; 3] {
    let (m, c, l, g) = (
        ARM3_MASS.map(T::lit),
        ARM3_COM.map(T::lit),
        ARM3_LINK.map(T::lit),
        T::lit(ARM3_G),
    );
    let (p1, p2) = (th[0], th[0] + th[1]);
    let p3 = p2 + th[2];
    let d1 = g * p1.cos() * (m[0] * c[0] + (m[1] + m[2]) * l[0]);
    let d2 = g * p2.cos() * (m[1] * c[1] + m[2] * l[1]);
    let d3 = g * p3.cos() * (m[2] * c[2]);
    [d1 + d2 + d3, d2 + d3, d3]
}

/// Where [`Arm3Pd::build_in`] builds the arm: the builder (then the penalised system, which
/// takes its place), the mechanism and the plant, each written in place. A device keeps it in a
/// `static`, so none of them (kilobytes each in `f32`: mechanism 6.3, plant 5.2, builder 2.9)
/// is on its stack.
///
/// Nothing of the construction passes through the stack whole: each part is written into its
/// slot, never assembled on the stack, and the firmware's high-water mark (1,972 B on
/// the Cortex-M4F, `f32`) is within the 2 KiB budget.
pub struct Arm3Slots<T: Real> {
    scratch: Scratch<T>,
    mech: Option<Arm3Mechanism<T>>,
    plant: Option<Arm3Plant<T>>,
}

/// The builder until the mechanism is built, then the plant's system until the plant is.
enum Scratch<T: Real> {
    Builder(Option<planar_arm3::Builder<T>>),
    System(Option<Arm3System<T>>),
}

/// The system of [`Arm3Plant`]: the penalised arm under the motors' held force.
type Arm3System<T> = System<T, Actuated<T, LinkagePenalty<T, 2, ARM3_N, ARM3_D>, ARM3_N>, ARM3_N>;

impl<T: ConstReal> Arm3Slots<T> {
    /// Every slot empty.
    pub const fn new() -> Self {
        Self {
            scratch: Scratch::Builder(None),
            mech: None,
            plant: None,
        }
    }
}

impl<T: ConstReal> Default for Arm3Slots<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The arm and its PD + gravity-compensation loop as one [`Method`]: each tick reads the joint
/// angles and rates, sets the motor torques
/// `τ = clamp(G(θ) + Kp (θ* − θ) − Kd θ̇, ±effort)` (effort from the URDF's `<limit>`), and takes
/// one plant step. The mechanism and the plant live in [`Arm3Slots`] (a device's `static`).
pub struct Arm3Pd<'a, T: Real> {
    /// The plant.
    pub plant: &'a mut Arm3Plant<T>,
    /// The emitted mechanism.
    pub mech: &'a Arm3Mechanism<T>,
    /// The builder's ids (joints, motors).
    pub ids: Arm3Ids,
    u: SVector<T, ARM3_N>,
    /// The last time a tick observed a joint error above [`ARM3_SETTLE_TOL`].
    unsettled: T,
}

impl<'a, T: ConstReal> Arm3Pd<'a, T> {
    /// Builds the arm in `slots`, in place: the emitted `planar_arm3::build_in` with `g = 9.81`
    /// (builder and mechanism in their slots), the mechanism penalised with [`ARM3_OMEGA`]
    /// under a held force in the builder's place, then Z&S with `β = 0.4` and kept factors on
    /// it ([`ZhangSkeel::new_in`]). The same arm as [`arm3_plant`] on `planar_arm3::build`, bit
    /// for bit. Not inlined: the construction's frames are gone before the loop runs.
    ///
    /// # Errors
    /// A [`ConfigError`] from the builder or the plant (none is expected).
    #[inline(never)]
    pub fn build_in(slots: &'a mut Arm3Slots<T>) -> Result<Self, ConfigError> {
        let Arm3Slots {
            scratch,
            mech,
            plant,
        } = slots;
        *plant = None;
        *scratch = Scratch::Builder(None);
        let ids = match scratch {
            Scratch::Builder(b) => planar_arm3::build_in(T::lit(ARM3_G), b, mech)?.1,
            Scratch::System(_) => return Err(INCONSISTENT),
        };
        let mech = mech.as_ref().ok_or(INCONSISTENT)?;
        *scratch = Scratch::System(None);
        let system = match scratch {
            Scratch::System(s) => system_in(mech, s)?,
            Scratch::Builder(_) => return Err(INCONSISTENT),
        };
        let (h, params) = (T::lit(ARM3_H), ZsParams::with_beta(T::lit(0.4)));
        let plant = ZhangSkeel::new_in(plant, system, h, params, DenseKept::new())?;
        Ok(Self::new(plant, mech, ids))
    }
}

impl<'a, T: Real> Arm3Pd<'a, T> {
    /// The loop on the plant `plant` of the mechanism `mech` (the builder's `ids`), with no
    /// force commanded yet.
    pub fn new(plant: &'a mut Arm3Plant<T>, mech: &'a Arm3Mechanism<T>, ids: Arm3Ids) -> Self {
        Self {
            plant,
            mech,
            ids,
            u: SVector::zeros(),
            unsettled: T::zero(),
        }
    }

    /// The joint angles and rates at `s`, each joint read once
    /// ([`Mechanism::joint_state`](macrostep::mechanism::Mechanism::joint_state); a missing
    /// joint reads as zero: the ids are the builder's own).
    pub fn joints(&self, s: &State<T, ARM3_N>) -> ([T; 3], [T; 3]) {
        let z = (T::zero(), T::zero());
        let read = self
            .ids
            .joints
            .map(|j| self.mech.joint_state(j, &s.q, &s.v).unwrap_or(z));
        (read.map(|x| x.0), read.map(|x| x.1))
    }

    /// The joint torques the law commands at `s` (N·m, per joint).
    pub fn torques(&self, s: &State<T, ARM3_N>) -> [T; 3] {
        let (th, om) = self.joints(s);
        law(th, om)
    }

    /// `θ − θ*` at `s` (rad).
    pub fn errors(&self, s: &State<T, ARM3_N>) -> [T; 3] {
        errors(self.joints(s).0)
    }

    /// The settle time (s): the end of the last tick that started with a joint error above
    /// [`ARM3_SETTLE_TOL`].
    pub fn settle_time(&self) -> T {
        self.unsettled
    }
}

impl<T: Real> Wrapper for Arm3Pd<'_, T> {
    type Inner = Arm3Plant<T>;

    fn inner(&self) -> &Arm3Plant<T> {
        self.plant
    }

    fn inner_mut(&mut self) -> &mut Arm3Plant<T> {
        self.plant
    }
}

/// One tick: the joints read once each, the law, the motors' generalised force, the held force,
/// the plant's proposal; the step driver checks and commits it. The state is unchanged on any error.
impl<T: Real> Method<T, ARM3_N> for Arm3Pd<'_, T> {
    const ORDER: u32 = <Arm3Plant<T> as Method<T, ARM3_N>>::ORDER;
    const SYMPLECTIC: bool = <Arm3Plant<T> as Method<T, ARM3_N>>::SYMPLECTIC;
    const SYMMETRIC: bool = <Arm3Plant<T> as Method<T, ARM3_N>>::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<T, ARM3_N>,
        h: T,
        next: &mut State<T, ARM3_N>,
    ) -> Result<T, StepError> {
        let (tau, unsettled) = self.read(state);
        self.command(tau, state)?;
        if unsettled {
            self.unsettled = state.t + h;
        }
        self.plant.propose(state, h, next)
    }
}

impl<T: Real> Arm3Pd<'_, T> {
    /// The motors' generalised force for the joint torques `tau` at `state`, held on the plant.
    /// Not inlined: its temporaries (the commands, the actuation's checked copy of `u`) are gone
    /// before the plant's proposal, the deepest frame chain of the tick.
    #[inline(never)]
    fn command(&mut self, tau: [T; 3], state: &State<T, ARM3_N>) -> Result<(), StepError> {
        let mut commands = [T::zero(); 3];
        for (k, &m) in self.ids.motors.iter().enumerate() {
            if let Some(c) = commands.get_mut(m) {
                *c = tau[k];
            }
        }
        self.mech
            .actuation(&commands, &state.q, &mut self.u)
            .map_err(|_| StepError::NonFiniteForce)?;
        self.plant.set_force(&self.u)
    }

    /// The torques the law commands at `state` and whether a joint error is above
    /// [`ARM3_SETTLE_TOL`], from one reading of the joints. Not inlined, and a sibling of
    /// [`Arm3Pd::command`] rather than its callee: the readout's frames (the joint geometry, the
    /// law's `cos`) are gone before the motors' generalised force is formed.
    #[inline(never)]
    fn read(&self, state: &State<T, ARM3_N>) -> ([T; 3], bool) {
        let (th, om) = self.joints(state);
        let unsettled = errors(th).iter().any(|e| e.abs() > T::lit(ARM3_SETTLE_TOL));
        (law(th, om), unsettled)
    }
}

/// The torques `τ = clamp(G(θ) + Kp (θ* − θ) − Kd θ̇, ±effort)` at the joint angles `th` and
/// rates `om` (see [`Arm3Pd`]).
fn law<T: Real>(th: [T; 3], om: [T; 3]) -> [T; 3] {
    let grav = arm3_gravity_torque(th);
    core::array::from_fn(|k| {
        let tau = grav[k] + T::lit(ARM3_KP[k]) * (T::lit(ARM3_TARGET[k]) - th[k])
            - T::lit(ARM3_KD[k]) * om[k];
        let cap = T::lit(planar_arm3::JOINT_LIMITS[k][2]);
        tau.max(-cap).min(cap)
    })
}

/// `θ − θ*` at the joint angles `th` (rad).
fn errors<T: Real>(th: [T; 3]) -> [T; 3] {
    core::array::from_fn(|k| th[k] - T::lit(ARM3_TARGET[k]))
}

/// The arm (built by value by the emitted `planar_arm3::build` with `g = 9.81`) penalised with
/// [`ARM3_OMEGA`], Z&S with `β = 0.4` and kept factors (one factorisation per tick),
/// `h = 1 ms`, driven from rest at the zero configuration to [`ARM3_TARGET`] by the PD +
/// gravity-compensation law of [`Arm3Pd`]: [`ARM3_TICKS`] ticks, a state every [`ARM3_EVERY`].
/// After the run it records the final joint errors `θ − θ*` (rad) as `x main 0 joint_error <k>`
/// and the settle time (s, [`Arm3Pd::settle_time`]) as `x main 0 settle_time 0`.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn arm3_pd<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    let (mech, ids) = arm3_mechanism::<T>()?;
    let mut plant = arm3_plant(&mech)?;
    run_arm(sink, Arm3Pd::new(&mut plant, &mech, ids))
}

/// [`arm3_pd`] with the arm built in place in `slots` ([`Arm3Pd::build_in`]) rather than by
/// value: the firmware passes a `static`, so the builder, the mechanism and the integrator (its
/// matrices) are static RAM, not stack. The host parity test compares its output (on the
/// device) with [`arm3_pd`]'s (on the host), bit for bit.
///
/// # Errors
/// As [`arm3_pd`].
pub fn arm3_pd_in<T: ConstReal, S: Sink<T>>(
    sink: &mut S,
    slots: &mut Arm3Slots<T>,
) -> Result<(), ScenarioError> {
    run_arm(sink, Arm3Pd::build_in(slots)?)
}

/// Drives `arm` through the run of [`arm3_pd`] and records its results.
fn run_arm<T: Real, S: Sink<T>>(sink: &mut S, mut arm: Arm3Pd<'_, T>) -> Result<(), ScenarioError> {
    let start = arm.mech.initial_state();
    let end = drive(sink, "main", &mut arm, start, ARM3_TICKS, ARM3_EVERY)?;
    sink.values("main", "joint_error", &arm.errors(&end));
    sink.values("main", "settle_time", &[arm.settle_time()]);
    Ok(())
}

/// The plant's system into `slot`, as in [`arm3_plant`], built there
/// ([`Mechanism::penalised_actuated_in`](macrostep::mechanism::Mechanism::penalised_actuated_in)).
#[inline(never)]
fn system_in<'s, T: ConstReal>(
    mech: &Arm3Mechanism<T>,
    slot: &'s mut Option<Arm3System<T>>,
) -> Result<&'s Arm3System<T>, ConfigError> {
    mech.penalised_actuated_in(slot, T::lit(ARM3_OMEGA))
        .map(|s| &*s)
}

/// A slot found in the wrong state (cannot happen: [`Arm3Pd::build_in`] sets each one first).
const INCONSISTENT: ConfigError = ConfigError::Inconsistent {
    name: "arm built in its slots",
};

/// The arm by value: the emitted `planar_arm3::build` with `g = 9.81` (the reference
/// [`Arm3Pd::build_in`] is checked against on the host).
///
/// # Errors
/// The builder's (none is expected).
pub fn arm3_mechanism<T: Real>() -> Result<(Arm3Mechanism<T>, Arm3Ids), ConfigError> {
    planar_arm3::build::<T>(T::lit(ARM3_G))
}

/// The plant by value: [`ARM3_OMEGA`], `Actuated`, Z&S with `β = 0.4` and kept factors (the
/// reference [`Arm3Pd::build_in`] is checked against on the host).
///
/// # Errors
/// As [`ZhangSkeel::with_solver`].
pub fn arm3_plant<T: Real>(mech: &Arm3Mechanism<T>) -> Result<Arm3Plant<T>, ConfigError> {
    let pen = mech.penalised(T::lit(ARM3_OMEGA))?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let (h, params) = (T::lit(ARM3_H), ZsParams::with_beta(T::lit(0.4)));
    ZhangSkeel::with_solver(sys, h, params, DenseKept::new())
}
