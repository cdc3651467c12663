//! The toy potentials of [`crate::fixtures`] under a second path, for code written against
//! `host_tests::toy`.

pub use crate::fixtures::{hh_mass, HenonHeiles, Morse, PendulumPotential};
