//! SIM1 on the Fermi–Pasta–Ulam chain (004 §4.2.6, §2.6.3).

use crate::{drive, ScenarioError, Sink};
use macrostep::model::Mass;
use macrostep::sim::{Conservative, FastParams, Sim1, SimSystem};
use macrostep::systems::{Fpu, FpuSoft};
use macrostep::{ConfigError, Real};

/// The integrator [`sim_fpu`] steps.
pub type SimFpu<T> = Sim1<T, Conservative<FpuSoft<T, 6>>, 6>;

/// SIM1 (004 Integrator 4.2.1: exact stiff flow, then the soft kick) on [`Fpu::paper`]
/// (`m = 3`, `ω = 200`, 6 DOF in the rotated coordinates of eq 4.19, start `x₁ = 1`,
/// `x₄ = 1/ω`, at rest) with the macroscopic step `H = 0.01` (`ωH = 2`; Verlet needs
/// `h < 2/ω = 0.01` just to be stable and `h ≈ 1e-4` to be accurate): 2000 steps (`t = 20`), a
/// state every 200 steps. The construction diagonalises `K` with the capped Jacobi of
/// `macrostep::linalg`, so it is bounded on the device too.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn sim_fpu<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    sim_fpu_in(sink, &mut None)
}

/// [`sim_fpu`] with the integrator built in `slot`: the firmware passes a `static`, so the
/// integrator (its modal transforms and flow maps) is static RAM, not stack.
///
/// # Errors
/// As [`sim_fpu`].
pub fn sim_fpu_in<T: Real, S: Sink<T>>(
    sink: &mut S,
    slot: &mut Option<SimFpu<T>>,
) -> Result<(), ScenarioError> {
    let sim = build(slot)?;
    drive(
        sink,
        "main",
        sim,
        Fpu::<T, 6>::paper().initial_state(),
        2000,
        200,
    )?;
    Ok(())
}

/// Not inlined: the construction's temporaries live in this frame, gone before the loop runs.
#[inline(never)]
fn build<T: Real>(slot: &mut Option<SimFpu<T>>) -> Result<&mut SimFpu<T>, ConfigError> {
    Sim1::new_in(slot, system(), T::lit(0.01), FastParams::default())
}

/// The FPU chain's mass, stiff matrix and soft force (out of line: the chain's values leave
/// the stack before the construction runs).
#[inline(never)]
fn system<T: Real>() -> SimSystem<T, Conservative<FpuSoft<T, 6>>, 6> {
    let split = Fpu::<T, 6>::paper().split();
    SimSystem::new(Mass::identity(), split.stiff.k, split.soft)
}
