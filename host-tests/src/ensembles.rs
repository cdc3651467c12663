//! Monte Carlo ensembles shared by `reproduce flavor-langevin` and `tests/flavor_langevin.rs`:
//! the Langevin FLAVORs of 004 §2.6.8 (slow noise, [`slow_noise`]) and §2.6.9 (fast noise,
//! [`fast_noise`]) against GLA, the Metropolis-adjusted FLAVOR of §2.4.6 ([`metropolis`]), and
//! the ensemble moments and z-statistics that compare them ([`moments`]).
//!
//! The experiment runs them at its setup's sizes and seeds; the tests run cheaper versions.

pub mod fast_noise;
pub mod metropolis;
pub mod moments;
pub mod slow_noise;
