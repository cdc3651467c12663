//! The fixed scenarios the macrostep firmware runs, generic over the scalar.
//!
//! Each scenario builds its integrator and initial state and drives it through a [`Sink`]: the
//! firmware's sink prints every recorded state (as `f32` bit patterns and decimals) and counts
//! the instructions of each step; the host parity test's sink collects the same states in `f32`
//! and `f64`. Sharing this crate guarantees that both sides run the very same construction and
//! step sequence, so the firmware's golden output can be compared bit for bit.
//!
//! A scenario is named `<family>_<model>` like the firmware binary that runs it; [`NAMES`]
//! lists them for the host test.

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use macrostep::control::ControlError;
use macrostep::{ConfigError, ConstReal, Integrator, Real, State, StepError};

mod arm3_pd;
mod cart_pole;
mod cart_pole_lqr;
mod control_cart_pole;
mod ekf_cart_pole;
mod flavor_trimer;
mod rattle_cart_pole;
mod sim_fpu;
mod so3_attitude;
mod sylipn_chain;
mod verlet_double_pendulum;
mod verlet_oscillator;
mod zs_control_cost;
mod zs_double_pendulum;

pub use arm3_pd::{
    arm3_gravity_torque, arm3_mechanism, arm3_pd, arm3_pd_in, arm3_plant, Arm3Ids, Arm3Mechanism,
    Arm3Pd, Arm3Plant, Arm3Slots, ARM3_COM, ARM3_D, ARM3_EVERY, ARM3_G, ARM3_H, ARM3_KD, ARM3_KP,
    ARM3_LINK, ARM3_MASS, ARM3_N, ARM3_OMEGA, ARM3_SETTLE_TOL, ARM3_TARGET, ARM3_TICKS,
};
pub use cart_pole::{
    mechanism, mechanism_in, unit_force, Controlled, CART_POLE_GAINS, CART_POLE_H,
};
pub use cart_pole_lqr::{frozen_model, lqr_gain, sin_cos, FrozenModel, LqrWeights, Upright};
pub use control_cart_pole::control_cart_pole;
pub use ekf_cart_pole::{
    ekf_cart_pole, record_summary, EkfCartPole, EKF_BAND, EKF_EVERY, EKF_PROCESS_V, EKF_RMS_FROM,
    EKF_SEED, EKF_SIGMA, EKF_TICKS,
};
pub use flavor_trimer::flavor_trimer;
pub use rattle_cart_pole::rattle_cart_pole;
pub use sim_fpu::{sim_fpu, sim_fpu_in, SimFpu};
pub use so3_attitude::{so3_attitude, so3_attitude_in, So3Attitude};
pub use sylipn_chain::{sylipn_chain, sylipn_chain_in, SylipnChain, SylipnChainSlots};
pub use verlet_double_pendulum::verlet_double_pendulum;
pub use verlet_oscillator::verlet_oscillator;
pub use zs_control_cost::{
    zs_control_commands, zs_control_cost, zs_control_cost_in, Commanded, ZsControlArm,
    ZsControlCostSlots, ZS_CONTROL_COST_COMMANDS, ZS_CONTROL_COST_EVERY, ZS_CONTROL_COST_TICKS,
};
pub use zs_double_pendulum::zs_double_pendulum;

/// Every scenario, by the name of the firmware binary that runs it.
pub const NAMES: &[&str] = &[
    "arm3_pd",
    "control_cart_pole",
    "ekf_cart_pole",
    "flavor_trimer",
    "sim_fpu",
    "so3_attitude",
    "sylipn_chain",
    "verlet_double_pendulum",
    "verlet_oscillator",
    "zs_double_pendulum",
    "rattle_cart_pole",
    "zs_control_cost",
];

/// Runs the scenario called `name` (one of [`NAMES`]) into `sink`; `None` for an unknown name.
///
/// The firmware binaries call their scenario function directly (so each links only its own);
/// this is for the host.
pub fn run<T: ConstReal, S: Sink<T>>(
    name: &str,
    sink: &mut S,
) -> Option<Result<(), ScenarioError>> {
    Some(match name {
        "arm3_pd" => arm3_pd(sink),
        "control_cart_pole" => control_cart_pole(sink),
        "ekf_cart_pole" => ekf_cart_pole(sink),
        "rattle_cart_pole" => rattle_cart_pole(sink),
        "flavor_trimer" => flavor_trimer(sink),
        "sim_fpu" => sim_fpu(sink),
        "so3_attitude" => so3_attitude(sink),
        "sylipn_chain" => sylipn_chain(sink),
        "verlet_double_pendulum" => verlet_double_pendulum(sink),
        "verlet_oscillator" => verlet_oscillator(sink),
        "zs_double_pendulum" => zs_double_pendulum(sink),
        "zs_control_cost" => zs_control_cost(sink),
        _ => return None,
    })
}

/// How a scenario failed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScenarioError {
    /// Building the model or the integrator failed.
    Config(ConfigError),
    /// A step failed (the state is the one before that step).
    Step(StepError),
    /// A control computation failed (an LQR gain, a filter step).
    Control(ControlError),
}

impl From<ControlError> for ScenarioError {
    fn from(e: ControlError) -> Self {
        Self::Control(e)
    }
}

impl From<ConfigError> for ScenarioError {
    fn from(e: ConfigError) -> Self {
        Self::Config(e)
    }
}

impl From<StepError> for ScenarioError {
    fn from(e: StepError) -> Self {
        Self::Step(e)
    }
}

/// Where a scenario's run goes: the states it records and the steps it takes.
pub trait Sink<T: Real> {
    /// A case (one model size or configuration) starts: `steps` steps, a state every `every`.
    fn begin(&mut self, case: &'static str, steps: u32, every: u32);
    /// The state after `step` steps (`step = 0`: the initial state).
    fn record<const N: usize>(&mut self, case: &'static str, step: u32, state: &State<T, N>);
    /// Values the scenario computed (e.g. a gain), recorded like a state's: `x <case> 0 <name> <i>`.
    fn values(&mut self, case: &'static str, name: &'static str, xs: &[T]) {
        let _ = (case, name, xs);
    }
    /// Runs the scenario's start-up computation `f` (e.g. a Riccati solve). The firmware counts
    /// its instructions; the default just runs it.
    fn startup<R>(&mut self, case: &'static str, f: impl FnOnce() -> R) -> R {
        let _ = case;
        f()
    }
    /// Takes one step. The firmware wraps it in an instruction count; the default just steps.
    ///
    /// # Errors
    /// The integrator's step error.
    fn step<I: Integrator<T, N>, const N: usize>(
        &mut self,
        integrator: &mut I,
        state: &mut State<T, N>,
    ) -> Result<(), StepError> {
        integrator.step(state)
    }
    /// The case is finished.
    fn end(&mut self, case: &'static str) {
        let _ = case;
    }
}

/// Runs `steps` steps of `integrator` from `state`, recording the initial state and every
/// `every`-th state.
///
/// # Errors
/// The first step error.
pub fn drive<T, I, S, const N: usize>(
    sink: &mut S,
    case: &'static str,
    integrator: &mut I,
    mut state: State<T, N>,
    steps: u32,
    every: u32,
) -> Result<State<T, N>, ScenarioError>
where
    T: Real,
    I: Integrator<T, N>,
    S: Sink<T>,
{
    let every = every.max(1);
    sink.begin(case, steps, every);
    sink.record(case, 0, &state);
    for k in 1..=steps {
        sink.step(integrator, &mut state)?;
        if k % every == 0 {
            sink.record(case, k, &state);
        }
    }
    sink.end(case);
    Ok(state)
}
