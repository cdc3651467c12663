//! Zhang–Skeel family reproductions (000 §2, §4.1, §4.4; 004 Ch. 5), one file per `reproduce`
//! experiment: `zs-stability` (Thm 2.5), `zs-order` (Cor 2.8, Rem 2.11), `zs-symplectic`
//! (Thm 2.12, 2.4, Rem 2.14), `penalty-scaling` (Thm 1.3 / Rem A.3, Fig 2a), `double-pendulum`
//! (Fig 1), `dna` (§4.4, Fig 8), `zs-chain-cost` (§4.3 last paragraphs, 004 §5.4.1: linear cost
//! in n), `zs-step-cost` (a step against Verlet's, a controlled tick against a free one).
//!
//! This module holds the models several of them share: Hénon–Heiles and the penalised double
//! pendulum. The double pendulum here hangs below its pivot (gravity towards −y), the convention
//! of the rigid reference in [`crate::rigid`]; see [`dp_penalised`].

pub mod chain_cost;
pub mod dna;
pub mod double_pendulum;
pub mod order;
pub mod penalty_scaling;
pub mod stability;
pub mod step_cost;
pub mod symplectic;

/// The Hénon–Heiles systems the experiments and tests share.
pub use crate::fixtures::{hh, hh_split, hh_start, HhSplit};

use crate::rigid::DoublePendulum as RigidDp;
use macrostep::model::System;
use macrostep::systems::DoublePendulum;
use macrostep::State;

/// The penalised double pendulum potential used here.
pub type DpPenalty = macrostep::systems::GravityPenalty<f64, 4, 2>;

/// The penalised double pendulum of 000 §4.1 (`systems::DoublePendulum::paper().penalised(ω)`,
/// gravity towards `−y`, the convention of the rigid reference [`crate::rigid`]).
pub fn dp_penalised(omega: f64) -> System<f64, DpPenalty, 4> {
    DoublePendulum::<f64>::paper()
        .penalised(omega)
        .expect("valid omega")
}

/// The seed's start, at rest.
pub fn dp_start() -> State<f64, 4> {
    DoublePendulum::<f64>::paper().initial_state()
}

/// Rigid reference positions at `times` (generalised coordinates, DOP853 at tolerance 1e-12).
pub fn dp_reference(times: &[f64]) -> Vec<[f64; 4]> {
    let dp = RigidDp::seed();
    let (q0, v0) = RigidDp::seed_initial();
    dp.solve(&q0, &v0, times, 1e-12, 1e-12)
        .into_iter()
        .map(|s| s.q)
        .collect()
}
