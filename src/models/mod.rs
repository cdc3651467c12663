//! Built-in models with the seeds' parameters and initial conditions as named constructors.
//!
//! Shared by tests, benchmarks and firmware. Each model gives its [`System`](crate::model::System)
//! (mass and potential, with exact derivatives) and, where the seed states one, its initial state.

mod harmonic;

pub use harmonic::HarmonicOscillator;
