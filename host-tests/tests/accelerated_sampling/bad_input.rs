//! Bad input: construction errors, and failed steps that leave the state and the schedule
//! untouched.

use super::*;

#[test]
fn bad_configuration_is_rejected() {
    let sys = system::<f64>();
    let sched = constant_temperature(0.1).unwrap();
    let new = |f, h| {
        AnnealTuneGla::new(
            sys,
            h,
            AnnealTuneParams {
                friction: f,
                schedule: sched,
            },
        )
        .err()
    };
    let oor = |name, bound| Some(ConfigError::OutOfRange { name, bound });
    assert_eq!(new(tuned(0.0), 0.0), Some(ConfigError::StepSize));
    assert_eq!(new(tuned(0.0), f64::NAN), Some(ConfigError::StepSize));
    assert_eq!(
        new(FrictionRule::Fixed(-1.0), 0.01),
        oor("friction", ">= 0")
    );
    assert_eq!(
        new(FrictionRule::Fixed(f64::INFINITY), 0.01),
        Some(ConfigError::NonFinite { name: "friction" })
    );
    assert_eq!(new(tuned(-0.1), 0.01), oor("alpha", ">= 0"));
    assert_eq!(
        new(tuned(f64::NAN), 0.01),
        Some(ConfigError::NonFinite { name: "alpha" })
    );
    let kf = |k| FrictionRule::Tuned {
        alpha: 0.0,
        hessian_fraction: k,
    };
    assert_eq!(new(kf(0.0), 0.01), oor("hessian_fraction", "> 0"));
    assert_eq!(
        new(kf(f64::NAN), 0.01),
        Some(ConfigError::NonFinite {
            name: "hessian_fraction"
        })
    );
    assert_eq!(
        Schedule::new(Cooling::InverseLinear { initial: 0.05 }, 0.1, 10).err(),
        oor("initial", "> t_final")
    );
    assert_eq!(
        Schedule::<f64>::new(Cooling::Constant, -0.1, 10).err(),
        oor("temperature", "> 0")
    );
    assert_eq!(
        Schedule::<f64>::new(Cooling::Constant, 0.1, 0).err(),
        oor("steps", ">= 1")
    );
}

fn assert_untouched<P: Hessian<f64, 1>>(
    m: &mut AnnealTuneGla<f64, P, 1>,
    s: State<f64, 1>,
    want: StepError,
) {
    let mut t = s;
    let taken = m.steps_taken();
    let mut rng = Pcg32::seed_from_u64(5);
    assert_eq!(m.step_noisy(&mut t, &mut rng), Err(want));
    assert_eq!(t.q[0].to_bits(), s.q[0].to_bits());
    assert_eq!(t.v[0].to_bits(), s.v[0].to_bits());
    assert_eq!(t.t.to_bits(), s.t.to_bits());
    assert_eq!(
        m.steps_taken(),
        taken,
        "the schedule does not advance on a failed step"
    );
}

#[test]
fn failed_steps_leave_state_and_schedule_untouched() {
    let sched = Schedule::new(Cooling::InverseLinear { initial: 1.0 }, 0.1, 100).unwrap();
    let mut m = AnnealTuneGla::new(
        system(),
        H,
        AnnealTuneParams {
            friction: tuned(0.0),
            schedule: sched,
        },
    )
    .unwrap();
    let mut rng = Pcg32::seed_from_u64(2);
    let mut s = State::at_rest(vector![Q0]);
    m.integrate_noisy(&mut s, 10, &mut rng).unwrap();
    assert_eq!(m.steps_taken(), 10);
    // Non-finite input.
    assert_untouched(
        &mut m,
        State::new(0.1, vector![f64::NAN], vector![0.0]),
        StepError::NonFiniteState,
    );
    // The Hessian at q = 0 (on the fixed atom) is infinite.
    assert_untouched(
        &mut m,
        State::at_rest(vector![0.0]),
        StepError::NonFiniteResult,
    );
    // A step whose force overflows: deep inside the wall (fixed friction: no Hessian involved).
    // Zero friction draws no noise, so the drift cannot carry q out of the wall.
    let mut g = AnnealTuneGla::new(
        system(),
        H,
        AnnealTuneParams {
            friction: FrictionRule::Fixed(0.0),
            schedule: sched,
        },
    )
    .unwrap();
    assert_untouched(
        &mut g,
        State::at_rest(vector![1e-30]),
        StepError::NonFiniteResult,
    );
    // After the failures the run continues on schedule.
    m.step_noisy(&mut s, &mut rng).unwrap();
    assert_eq!(m.steps_taken(), 11);
}
