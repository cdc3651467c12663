//! Positive semi-definiteness checks judge matrices with entries near the top of the scalar's
//! range: the indefinite `K = [[1, 0, −b], [0, 1, 0], [−b, 0, 1]]` (eigenvalue `1 − b`) is
//! refused as a SIM stiffness and as a damping matrix for every `b`, including those whose
//! squares overflow (from `b ≈ 1.3e154` in `f64`, `1.8e19` in `f32`).

use macrostep::baselines::VelocityVerlet;
use macrostep::forcing::Damped;
use macrostep::model::{Mass, Zero};
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::HarmonicOscillator;
use macrostep::zs::{DampedZs, Sylipn, ZsParams};
use macrostep::ConfigError;
use nalgebra::{matrix, Matrix3};

fn indefinite(b: f64) -> Matrix3<f64> {
    matrix![1.0, 0.0, -b; 0.0, 1.0, 0.0; -b, 0.0, 1.0]
}

const HUGE: [f64; 5] = [1e150, 1e154, 1e200, 1e300, 1.7e308];

#[test]
fn sim_refuses_an_indefinite_stiffness_of_any_size() {
    for b in HUGE {
        let system = SimSystem::new(Mass::identity(), indefinite(b), Zero);
        let err = Sim1::new(system, 0.1, FastParams::default()).unwrap_err();
        assert_eq!(
            err,
            ConfigError::NotPositiveDefinite { name: "stiffness" },
            "b = {b}"
        );
    }
}

#[test]
fn damping_splits_refuse_an_indefinite_matrix_of_any_size() {
    let osc = HarmonicOscillator::<f64, 3>::isotropic(1.0).unwrap();
    for b in HUGE {
        let zss = Sylipn::new(osc.system(), 0.01, ZsParams::default()).unwrap();
        let err = DampedZs::new(zss, indefinite(b)).unwrap_err();
        assert_eq!(
            err,
            ConfigError::NotPositiveDefinite { name: "damping" },
            "b = {b}"
        );
        let vv = VelocityVerlet::new(osc.system(), 0.01).unwrap();
        let err = Damped::new(vv, Mass::identity(), indefinite(b)).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::NotPositiveDefinite { name: "damping" }
                    | ConfigError::NonFinite { name: "damping" }
            ),
            "b = {b}: {err:?}"
        );
    }
}
