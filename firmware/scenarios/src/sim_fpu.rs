//! SIM1 on the Fermi–Pasta–Ulam chain (004 §4.2.6, §2.6.3).

use crate::{drive, ScenarioError, Sink};
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::Fpu;
use macrostep::Real;

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
    let fpu = Fpu::<T, 6>::paper();
    let split = fpu.split();
    let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    let mut sim = Sim1::new(system, T::lit(0.01), FastParams::default())?;
    drive(sink, "main", &mut sim, fpu.initial_state(), 2000, 200)?;
    Ok(())
}
