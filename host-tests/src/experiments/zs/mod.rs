//! Zhang–Skeel family reproductions (000 §2, §4.1, §4.4; 004 Ch. 5), one file per `reproduce`
//! experiment: `zs-stability` (Thm 2.5), `zs-order` (Cor 2.8, Rem 2.11), `zs-symplectic`
//! (Thm 2.12, 2.4, Rem 2.14), `penalty-scaling` (Thm 1.3 / Rem A.3, Fig 2a), `double-pendulum`
//! (Fig 1), `dna` (§4.4, Fig 8), `zs-chain-cost` (§4.3 last paragraphs, 004 §5.4.1: linear cost
//! in n).
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
pub mod symplectic;

use crate::fixtures::HenonHeiles;
use crate::rigid::DoublePendulum as RigidDp;
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::systems::DoublePendulum;
use macrostep::State;
use nalgebra::{matrix, vector};

/// Hénon–Heiles with unit masses.
pub fn hh() -> System<f64, HenonHeiles, 2> {
    System::new(Mass::identity(), HenonHeiles)
}

/// The start of every Hénon–Heiles run (energy ≈ 0.08, regular motion).
pub fn hh_start() -> State<f64, 2> {
    State::new(0.0, vector![0.3, -0.2], vector![0.1, 0.25])
}

/// Hénon–Heiles plus the stiff spring `½·100·(x² + 4y²)`, split for the stiff Z&Ss.
pub type HhSplit = Split<f64, HenonHeiles, Quadratic<f64, 2>>;

/// [`HhSplit`] with unit masses.
pub fn hh_split() -> System<f64, HhSplit, 2> {
    System::new(
        Mass::identity(),
        Split::new(
            HenonHeiles,
            Quadratic::new(matrix![1.0, 0.0; 0.0, 4.0]),
            100.0,
        ),
    )
}

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
