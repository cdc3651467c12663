//! Built-in models with the seeds' parameters and initial conditions as named constructors.
//!
//! Shared by tests, benchmarks and firmware. Each model validates its parameters (`new`, returning
//! [`ConfigError`](crate::ConfigError)), has a named constructor `paper()` (or a descriptive name when a seed has
//! several set-ups) with the seed's parameters, gives its [`System`](crate::model::System) (mass
//! and potential, with exact gradient, Hessian and third-derivative contraction) or its soft +
//! stiff [`Split`](crate::model::Split), and its initial state.
//!
//! | model | seed | form |
//! |---|---|---|
//! | [`HarmonicOscillator`] | 000 Thm 2.5 | quadratic |
//! | [`Pendulum`] | 002 §5 | constraint (+ penalty) |
//! | [`DoublePendulum`] | 000 §4.1 | constraints (+ penalty, one or two ω) |
//! | [`Chain`] | 000 §4.2, 004 §5.4.3 | `n` constraints (+ penalty), banded Hessian |
//! | [`Fpu`] | 004 §2.6.3, §4.2.6 (eq 4.18–4.19) | split: quartic soft + `ω²` stiff |
//! | [`Dna`] | 000 §4.4 (eq 4.9) | periodic chain, tridiagonal + corners Hessian |
//! | [`SpringTrimer`] | 004 §2.5.3 (eq 2.100) | split: `x⁴` soft + `ε⁻¹` stiff |
//! | [`Kapitza`] | 004 §2.6.6 (eqs 2.113–2.115) | time-dependent forcing |
//! | [`Propane`] | 004 §2.6.5 (eqs 2.109–2.112) | split: bond angle soft + `K_r` bonds stiff, 2-D |
//! | [`TwoSpring`] | 004 §4.2.5 | split + Langevin friction/noise data |
//!
//! Shared machinery: [`LinearPotential`] (gravity), [`QuarticBond`] (soft quartic springs), [`Distances`] / [`PlanarDistances`] (rods
//! between nodes or to anchors in squared-distance form, exact [`Constraint`](crate::model::Constraint)).
//!
//! Every potential keeps its energy formula in its `Potential::energy` method, written out in
//! its doc comment, so it can be re-implemented generically (e.g. for automatic differentiation).

mod chain;
mod distance;
mod dna;
mod double_pendulum;
mod fpu;
mod harmonic;
mod kapitza;
mod linear;
mod pendulum;
mod propane;
mod quartic;
mod spring_chain;
mod trimer;
mod two_spring;

pub use chain::Chain;
pub use distance::{Distances, Endpoint, Link, PlanarDistances};
pub use dna::{Dna, DnaPotential};
pub use double_pendulum::DoublePendulum;
pub use fpu::{Fpu, FpuSoft};
pub use harmonic::HarmonicOscillator;
pub use kapitza::{CosinePotential, Kapitza};
pub use linear::LinearPotential;
pub use pendulum::Pendulum;
pub use propane::{BondAngle, BondPair, Propane};
pub use quartic::QuarticBond;
pub use spring_chain::SpringChain;
pub use trimer::SpringTrimer;
pub use two_spring::{LangevinParams, TwoSpring};

use crate::model::Penalty;

/// The checks the models' constructors use (also through `super::`).
pub(crate) use crate::validate::{check_nonnegative, check_positive};

/// The penalised potential of the planar constrained models: gravity plus `½ Σ ωᵢ² gᵢ²` over
/// distance constraints (000 eq 1.7).
pub type GravityPenalty<T, const N: usize, const D: usize> =
    Penalty<T, LinearPotential<T, N>, PlanarDistances<T, N, D>, D>;
