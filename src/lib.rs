#![doc = include_str!("lib.md")]
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod autodiff;
pub mod baselines;
pub mod circuit;
pub mod compose;
pub mod constrained;
pub mod control;
pub mod convert;
pub mod driver;
pub mod error;
pub mod flavor;
pub mod forcing;
pub mod guard;
pub mod integrator;
pub mod langevin;
pub mod lie;
pub mod linalg;
pub mod linearise;
pub mod mechanism;
pub mod model;
pub mod output;
pub mod prelude;
pub mod recover;
mod scalar;
mod sealed;
pub mod sim;
mod state;
pub mod systems;
pub mod validate;
pub mod zs;

pub use error::{ConfigError, PreconditionKind, StepError};
pub use guard::{Guard, Guards};
pub use integrator::{Integrator, Stepper, StochasticIntegrator};
pub use scalar::{ConstReal, Real};
pub use state::State;

/// Re-export of the nalgebra version the API is written in.
pub use nalgebra;

/// The repository README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
