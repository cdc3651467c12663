//! The SIM reproductions (004 §4.2), one file per `reproduce` experiment: `fpu-sim` (§4.2.6,
//! Fig. 4.3), `sim-uniform` (Theorem 4.2.2), `sim-langevin` (§4.2.5, Fig. 4.2) and
//! `sim-stiff-friction` (Remark 4.2.5).

pub mod fpu;
pub mod langevin;
pub mod stiff_friction;
pub mod uniform;

/// SIM1 and SIM2 on the FPU chain, which other experiments (work–precision) time.
pub use fpu::{fpu_sim1, fpu_sim2};
