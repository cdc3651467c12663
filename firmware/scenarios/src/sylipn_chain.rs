//! Z&Ss (SyLiPN) on chains of pendula with the banded solve (000 §4.2).

use crate::{drive, ScenarioError, Sink};
use macrostep::linalg::Banded;
use macrostep::systems::Chain;
use macrostep::zs::{Sylipn, ZsParams};
use macrostep::Real;

/// Stored diagonals of the chain's Hessian band: half-bandwidth [`Chain::HALF_BANDWIDTH`] = 3.
const W: usize = 4;

fn chain<T: Real, S: Sink<T>, const N: usize, const D: usize>(
    sink: &mut S,
    case: &'static str,
) -> Result<(), ScenarioError> {
    let chain = Chain::<T, N, D>::slanted();
    let system = chain.penalised(T::lit(20.0))?;
    let mut zss = Sylipn::with_solver(
        system,
        T::lit(0.05),
        ZsParams::with_beta(T::lit(0.4)),
        Banded::<W>,
    )?;
    drive(sink, case, &mut zss, chain.initial_state(), 200, 50)?;
    Ok(())
}

/// Z&Ss (000 eq 2.7) with the banded `LDLᵀ` solve on [`Chain::slanted`] (000 §4.2, Fig. 3:
/// `Lᵢ = √5`, start `xᵢ = i`, `yᵢ = −2i` at rest, `ω = 20`, `β = 0.4`, `h = 0.05`) for
/// `n = 5` (case `n5`) and `n = 10` (case `n10`, the seed's size): 200 steps each (`t = 10`),
/// a state every 50 steps. The two instruction counts show the linear cost in `n`.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn sylipn_chain<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    chain::<T, S, 10, 5>(sink, "n5")?;
    chain::<T, S, 20, 10>(sink, "n10")
}
