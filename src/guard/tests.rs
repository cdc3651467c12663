use super::*;
use nalgebra::vector;

#[test]
fn guards_validate() {
    assert!(Guards::<f64>::default().validate().is_ok());
    assert!(Guards::<f32>::off().validate().is_ok());
    // Each scale must be finite and positive: zero is out of range, a non-finite value named.
    type Field = fn(&mut Guards<f64>) -> &mut Option<f64>;
    let scales: [(Field, &str); 2] = [
        (|g| &mut g.residual, "guards.residual"),
        (|g| &mut g.energy_scale, "guards.energy_scale"),
    ];
    for (field, name) in scales {
        for (bad, err) in [
            (0.0, ConfigError::OutOfRange { name, bound: "> 0" }),
            (f64::NAN, ConfigError::NonFinite { name }),
            (f64::INFINITY, ConfigError::NonFinite { name }),
        ] {
            let mut g = Guards::<f64>::default();
            *field(&mut g) = Some(bad);
            assert_eq!(g.validate(), Err(err), "{name} = {bad}");
        }
    }
    let mut g = Guards::<f64>::off();
    g.velocity_step = Some(-1.0);
    assert!(g.validate().is_err());
}

/// At rest at `V = 0` the scale is the floor: a step to `K = 1e-3` is judged against it.
#[test]
fn the_energy_scale_floors_a_start_at_rest() {
    struct Osc;
    impl Probe<f64, 1> for Osc {
        fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
            Some((0.5 * s.v[0] * s.v[0], 0.0))
        }
        fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
            None
        }
    }
    let rest = State::new(0.0, vector![0.0], vector![0.0]);
    let next = State::new(0.1, vector![0.0], vector![0.045]);
    let mut s = rest;
    let mut w = Watch::<f64, 1>::new(Guards::default());
    assert!(w.commit(&mut s, &next, 0.1, 0.0, &Osc).is_err());
    assert_eq!(s, rest);
    let mut w = Watch::<f64, 1>::new(Guards {
        energy_scale: Some(1.0),
        ..Guards::default()
    });
    w.commit(&mut s, &next, 0.1, 0.0, &Osc).unwrap();
    // Above the floor the run's own scale counts again: 0.2 of K = 2 is refused.
    let far = State::new(0.2, vector![0.0], vector![2.0]);
    assert!(w.commit(&mut s, &far, 0.1, 0.0, &Osc).is_err());
}

/// Energies `(K, V)`: the start's potential overflowed, the result's is finite.
struct Overflowed;
impl Probe<f64, 1> for Overflowed {
    fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
        Some((0.0, if s.t == 0.0 { f64::INFINITY } else { 1.0 }))
    }
    fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
        None
    }
}

#[test]
fn a_start_with_overflowed_energy_is_refused_not_passed() {
    let mut w = Watch::<f64, 1>::new(Guards::default());
    let mut s = State::new(0.0, vector![1.0], vector![0.0]);
    let next = State::new(0.1, vector![1.0], vector![0.0]);
    assert_eq!(
        w.commit(&mut s, &next, 0.1, 0.0, &Overflowed),
        Err(StepError::Diverged {
            guard: Guard::EnergyRun
        })
    );
    assert_eq!(s.t, 0.0);
}

#[test]
fn clock_is_compensated_and_refuses_to_stall() {
    let mut w = Watch::<f32, 1>::new(Guards::off());
    let mut s = State::new(0.0f32, vector![0.0], vector![0.0]);
    for _ in 0..1_000_000 {
        let next = s;
        w.commit(&mut s, &next, 0.1, 0.0, &NoProbe).unwrap();
    }
    assert!((s.t - 100_000.0).abs() <= 100_000.0 * 1e-6, "t = {}", s.t);
    // At 2²² the spacing of f32 is 0.5: a step of 0.1 cannot advance the clock.
    let mut s = State::new(4_194_304.0f32, vector![0.0], vector![0.0]);
    let before = s;
    let next = s;
    assert_eq!(
        w.commit(&mut s, &next, 0.1, 0.0, &NoProbe),
        Err(StepError::ClockStalled)
    );
    assert_eq!(s, before);
}
