//! The experiments behind `reproduce <name>`. Each is a type implementing [`Experiment`]: its
//! setups, a `compute` that returns its results and a `report` that prints a human table and
//! `figure` lines.
//!
//! Add an experiment by implementing [`Experiment`] in a module of this folder, one
//! [`entry`] in [`EXPERIMENTS`] (the single registration table) and its figure names in
//! `host-tests/figures.txt`. Names are stable once published: add, don't rename.

pub mod accelerated_sampling;
pub mod arm_peers;
pub mod autodiff;
pub mod baselines;
pub mod bdf2;
pub mod bodies;
pub mod cart_pole;
pub mod chain_peers;
pub mod constrained;
pub mod convert;
mod experiment;
pub mod flavor;
pub mod forcing;
pub mod forcing_methods;
pub mod guards;
pub mod guards_origin;
pub mod guards_overhead;
pub mod lc_circuit;
pub mod linearise;
pub mod lj;
pub mod peers;
pub mod quasi_quadratic;
pub mod reference;
pub mod sim;
pub mod so3;
pub mod urdf_arms;
pub mod water;
pub mod work_precision;
pub mod zs;

pub use experiment::{entry, run, Entry, Experiment, Scale};

/// Every experiment, in the order `reproduce list` prints them.
pub const EXPERIMENTS: &[Entry] = &[
    entry::<guards::GuardsExperiment>(),
    entry::<reference::ReferenceExperiment>(),
    entry::<baselines::BaselinesExperiment>(),
    entry::<constrained::reich::ReichExperiment>(),
    entry::<constrained::vs_vr::VsVrExperiment>(),
    entry::<bdf2::Bdf2Experiment>(),
    entry::<convert::ConvertExperiment>(),
    entry::<lj::LjExperiment>(),
    entry::<constrained::multiplier::MultiplierExperiment>(),
    entry::<constrained::chain::ChainExperiment>(),
    entry::<flavor::stability::FlavorStabilityExperiment>(),
    entry::<flavor::three_dof::Flavor3DofExperiment>(),
    entry::<flavor::vdp::VdpExperiment>(),
    entry::<flavor::kapitza::KapitzaExperiment>(),
    entry::<flavor::langevin::FlavorLangevinExperiment>(),
    entry::<flavor::fpu::FlavorFpuExperiment>(),
    entry::<flavor::molecule::FlavorMoleculeExperiment>(),
    entry::<flavor::propane::FlavorPropaneExperiment>(),
    entry::<zs::stability::ZsStabilityExperiment>(),
    entry::<zs::order::ZsOrderExperiment>(),
    entry::<zs::symplectic::ZsSymplecticExperiment>(),
    entry::<zs::penalty_scaling::PenaltyScalingExperiment>(),
    entry::<zs::double_pendulum::DoublePendulumExperiment>(),
    entry::<zs::dna::DnaExperiment>(),
    entry::<zs::chain_cost::ZsChainCostExperiment>(),
    entry::<zs::step_cost::ZsStepCostExperiment>(),
    entry::<sim::fpu::FpuSimExperiment>(),
    entry::<sim::uniform::SimUniformExperiment>(),
    entry::<sim::langevin::SimLangevinExperiment>(),
    entry::<sim::stiff_friction::SimStiffFrictionExperiment>(),
    entry::<autodiff::AutodiffExperiment>(),
    entry::<so3::So3Experiment>(),
    entry::<work_precision::WorkPrecisionExperiment>(),
    entry::<work_precision::omega::WorkPrecisionOmegaExperiment>(),
    entry::<work_precision::remedies::WorkPrecisionRemediesExperiment>(),
    entry::<chain_peers::ChainPeersExperiment>(),
    entry::<arm_peers::ArmPeersExperiment>(),
    entry::<forcing::ForcingExperiment>(),
    entry::<quasi_quadratic::QuasiQuadraticExperiment>(),
    entry::<lc_circuit::LcCircuitExperiment>(),
    entry::<cart_pole::CartPoleExperiment>(),
    entry::<bodies::BodiesExperiment>(),
    entry::<linearise::LineariseExperiment>(),
    entry::<accelerated_sampling::AcceleratedSamplingExperiment>(),
    entry::<water::WaterExperiment>(),
    entry::<urdf_arms::UrdfArmsExperiment>(),
];

/// Looks an experiment up by name.
pub fn find(name: &str) -> Option<&'static Entry> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}
