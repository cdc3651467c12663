//! Friction- and temperature-accelerated GLA (004 Ch 6, eq 6.6): reduction to GLA, the sampled
//! invariant measure, the deterministic order, faster equilibration on the chapter's problem,
//! and the error paths.
//!
//! Statistical tolerances: every Monte Carlo comparison is against an exact value (closed form
//! or quadrature, never the code under test) with a bound of 5 standard errors estimated from
//! independent paths (a false alarm has probability ≈ 6·10⁻⁷ per comparison for a Gaussian
//! estimator; the runs are seeded, so a pass is reproducible). GLA's own `O(h)` bias of the
//! invariant measure is below the standard errors at the steps used (checked by the same tests:
//! a visible bias would fail them).

use host_tests::experiments::accelerated_sampling::{compute, Results, Setup};
use host_tests::fixtures::lj_well::{exact, system, LjWell, BETA, H, Q0};
use host_tests::measure::loglog_slope;
use host_tests::reference;
use macrostep::langevin::{
    constant_temperature, AnnealTuneGla, AnnealTuneParams, Cooling, FrictionRule, Gla, GlaParams,
    Schedule, StochasticIntegrator,
};
use macrostep::model::{Hessian, Mass, Potential, Quadratic, System};
use macrostep::Stepper;
use macrostep::{ConfigError, Real, State, StepError};
use nalgebra::{matrix, vector, Matrix2, SMatrix, SVector};
use rand::SeedableRng;
use rand_pcg::Pcg32;

fn tuned(alpha: f64) -> FrictionRule<f64> {
    FrictionRule::tuned(alpha)
}

macro_rules! both_scalars {
    ($name:ident, $body:ident) => {
        mod $name {
            #[test]
            fn f32() {
                super::$body::<f32>();
            }
            #[test]
            fn f64() {
                super::$body::<f64>();
            }
        }
    };
}

mod bad_input;
mod exactness;
mod sampling;
