//! Bad input: construction errors and step errors that leave the state untouched.

use super::*;

#[test]
fn bad_matrices_are_rejected_at_construction() {
    let k = stiff_k();
    let m = Mass::<f64, 3>::identity();
    let not_psd = matrix![1.0, 0.0, 0.0; 0.0, -4.0, 0.0; 0.0, 0.0, 1.0];
    assert_eq!(
        Sim1::new(SimSystem::new(m, not_psd, Zero), 0.1, FastParams::default()).unwrap_err(),
        ConfigError::NotPositiveDefinite { name: "stiffness" }
    );
    let asym = matrix![1.0, 0.5, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 1.0];
    assert_eq!(
        Sim2::new(SimSystem::new(m, asym, Zero), 0.1, FastParams::default()).unwrap_err(),
        ConfigError::NotSymmetric { name: "stiffness" }
    );
    let nan = Matrix3::from_element(f64::NAN);
    assert_eq!(
        Sim2::new(SimSystem::new(m, nan, Zero), 0.1, FastParams::default()).unwrap_err(),
        ConfigError::NonFinite { name: "stiffness" }
    );
    let noncommuting = FastParams {
        friction: Friction::Matrix(matrix![1.0, 0.0, 0.0; 0.0, 2.0, 0.0; 0.0, 0.0, 3.0]),
        ..FastParams::default()
    };
    assert_eq!(
        Sim1::new(SimSystem::new(m, k, Zero), 0.1, noncommuting).unwrap_err(),
        ConfigError::Inconsistent {
            name: "friction commutes with stiffness"
        }
    );
}

#[test]
fn bad_step_and_noise_parameters_are_rejected_at_construction() {
    let k = stiff_k();
    let m = Mass::<f64, 3>::identity();
    for h in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert_eq!(
            Sim1::new(SimSystem::new(m, k, Zero), h, FastParams::default()).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Sim2::new(SimSystem::new(m, k, Zero), h, FastParams::default()).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Sim4::new(SimSystem::new(m, k, Zero), h, FastParams::default()).unwrap_err(),
            ConfigError::StepSize
        );
    }
    assert_eq!(
        Sim1::new(
            SimSystem::new(m, k, Zero),
            0.1,
            FastParams::langevin(0.1, -1.0)
        )
        .unwrap_err(),
        ConfigError::OutOfRange {
            name: "noise",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Sim1::new(
            SimSystem::new(m, k, Zero),
            0.1,
            FastParams::langevin(-0.1, 1.0)
        )
        .unwrap_err(),
        ConfigError::OutOfRange {
            name: "friction",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Sim1::new(
            SimSystem::new(m, k, Zero),
            0.1,
            FastParams::thermal(0.1, 0.0)
        )
        .unwrap_err(),
        ConfigError::OutOfRange {
            name: "inverse_temperature",
            bound: "> 0"
        }
    );
    assert_eq!(
        Sim1::new(
            SimSystem::new(m, k, Zero),
            0.1,
            FastParams {
                friction: Friction::Matrix(Matrix3::identity()),
                noise: Noise::Thermal {
                    inverse_temperature: 1.0
                }
            },
        )
        .unwrap_err(),
        ConfigError::Inconsistent {
            name: "thermal noise needs scalar friction"
        }
    );
    assert_eq!(
        Sim4::new(
            SimSystem::new(m, k, Zero),
            0.1,
            FastParams::langevin(0.1, 1.0)
        )
        .unwrap_err(),
        ConfigError::Inconsistent {
            name: "fourth-order SIM needs σ = 0"
        }
    );
}

#[test]
fn step_errors_leave_state_untouched() {
    let k = stiff_k();
    let m = Mass::<f64, 3>::identity();
    // Noisy system through the deterministic interface: precondition error.
    let mut noisy = Sim1::new(
        SimSystem::new(m, k, Zero),
        0.1,
        FastParams::langevin(0.1, 1.0),
    )
    .unwrap();
    let s0 = soft_system_states();
    let mut s = s0;
    assert_eq!(
        noisy.step(&mut s),
        Err(StepError::precondition(PreconditionKind::Noisy))
    );
    assert_eq!(s, s0);
    // Non-finite input.
    let mut sim = Sim2::new(SimSystem::new(m, k, Soft), 0.1, FastParams::default()).unwrap();
    let mut bad = State::new(0.0, vector![f64::NAN, 0.0, 0.0], Vector3::zeros());
    let copy = bad;
    assert_eq!(sim.step(&mut bad), Err(StepError::NonFiniteState));
    assert!(bad.q[0].is_nan() && bad.v == copy.v);
    // Blow-up: a huge soft force overflows; state unchanged.
    let mut big = State::new(0.0, vector![1e120, 0.0, 0.0], Vector3::zeros());
    let before = big;
    assert_eq!(sim.step(&mut big), Err(StepError::NonFiniteResult));
    assert_eq!(big, before);
    let mut rng = Pcg32::seed_from_u64(3);
    let mut big2 = before;
    let mut noisy2 = Sim2::new(
        SimSystem::new(m, k, Soft),
        0.1,
        FastParams::langevin(0.1, 1.0),
    )
    .unwrap();
    assert_eq!(
        macrostep::StochasticIntegrator::step_noisy(&mut noisy2, &mut big2, &mut rng),
        Err(StepError::NonFiniteResult)
    );
    assert_eq!(big2, before);
}
