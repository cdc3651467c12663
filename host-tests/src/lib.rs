//! Host-side verification of `macrostep`: reference solvers, measurement helpers and the
//! paper reproductions behind the `reproduce` binary.
//!
//! # Modules other tests build on
//! - [`reference`](mod@reference): the independent reference ODE solver (adaptive DOP853 from the
//!   `differential-equations` crate, hidden behind [`reference::solve`]); `reference::TIGHT`
//!   gives ~1e-10 global accuracy; [`reference::solve_system`] for a `macrostep::model::System`.
//! - [`rigid`]: rigid-constraint references in generalised coordinates — [`rigid::Pendulum`]
//!   (θ) and [`rigid::DoublePendulum`] (θ, φ; seed 000 §4.1) — with Cartesian positions,
//!   velocities, accelerations, energies and the constraint multipliers λ of `M q̈ = −∇V + Jᵀλ`.
//! - [`measure`]: property measurements (log–log order slope, symplecticity defect in `(q, M v)`,
//!   reversibility, energy-drift slope).
//! - [`fixtures`]: the small models that tests and experiments share: hand-written nonlinear
//!   potentials (pendulum, Morse, Hénon–Heiles) generic over the scalar, each with its own `f64`
//!   right-hand side for the reference solver, and 004's FLAVOR example systems ([`toy`] is the
//!   same potentials under a second path).
//! - [`ensembles`]: the Monte Carlo ensembles of the Langevin FLAVORs, shared by
//!   `reproduce flavor-langevin` and its tests.
//! - [`report`]: `figure` lines, tables, progress and the [`Output`](report::Output) a report
//!   writes to; [`experiments`]: the [`Experiment`](experiments::Experiment) trait and the
//!   registry `reproduce <name>` reads; [`plot`] and [`csv`]: the `--plot` and `--csv` outputs.
//! - [`for_scalars!`] and [`Tolerance`]: run a generic test for `f32` and `f64`.

pub mod contract;
pub mod csv;
pub mod ensemble_runner;
pub mod ensembles;
pub mod experiments;
pub mod fixtures;
pub mod manifold;
pub mod measure;
pub mod plot;
pub mod record;
pub mod reference;
pub mod report;
pub mod rigid;
pub mod timing;
pub mod toy;
pub mod zs_support;

/// Runs a generic test function once for `f32` and once for `f64`, as two `#[test]`s in a module
/// named after the function.
///
/// ```text
/// fn energy_bounded<T: macrostep::Real + host_tests::Tolerance>() { /* … */ }
/// host_tests::for_scalars!(energy_bounded);
/// ```
#[macro_export]
macro_rules! for_scalars {
    ($($name:ident),+ $(,)?) => {
        $(
            mod $name {
                #[test]
                fn f32() {
                    super::$name::<f32>();
                }
                #[test]
                fn f64() {
                    super::$name::<f64>();
                }
            }
        )+
    };
}

/// Per-scalar tolerances, one table with the reason for each entry.
pub trait Tolerance: macrostep::Real {
    /// Unit roundoff of the type.
    const EPS: f64;
    /// Relative agreement expected between two mathematically identical evaluations that round
    /// differently (e.g. a no_std integrator vs a dynamic-size reimplementation): a few hundred
    /// roundoffs, enough for 10³ steps of a stable method.
    const SAME_MATH: f64;
}

impl Tolerance for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    // 1.2e-7 × ~1000: f32 accumulates roundoff linearly over 10³ steps of a stable method.
    const SAME_MATH: f64 = 1e-4;
}

impl Tolerance for f64 {
    const EPS: f64 = f64::EPSILON;
    // 2.2e-16 × ~5000: accumulated roundoff over 10³ steps, well below any method error.
    const SAME_MATH: f64 = 1e-12;
}
