use super::*;
use crate::StepError;
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

/// A free particle: `K = ½v²`, `V = 0`.
struct Free;
impl Probe<f64, 1> for Free {
    fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
        Some((0.5 * s.v[0] * s.v[0], 0.0))
    }
    fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
        None
    }
}

/// Energy out of nothing from rest (`V` unchanged, the drift is all of `S`) passes the first
/// steps of a run under the start-up allowance and is refused once the allowance is below it;
/// with the plant's scale as a floor the same steps pass, and a step far above the floor is
/// refused again.
#[test]
fn the_energy_scale_floors_a_start_at_rest() {
    let rest = State::new(0.0, vector![0.0], vector![0.0]);
    let steps = [0.045, 0.1, 0.15, 0.2].map(|v| State::new(0.0, vector![0.0], vector![v]));
    let run = |guards: Guards<f64>| {
        let mut w = Watch::<f64, 1>::new(guards).unwrap();
        let mut s = rest;
        steps
            .iter()
            .take_while(|next| w.commit(&mut s, next, 0.1, 0.0, &Free).is_ok())
            .count()
    };
    // Drift `S` at step `n` is refused once `S > 2S/n`: at the third step.
    assert_eq!(run(Guards::default()), 2);
    let floor = Guards {
        energy_scale: Some(1.0),
        ..Guards::default()
    };
    assert_eq!(run(floor), 4);
    // Above the floor the run's own scale counts again: 0.2 of K = 2 is refused.
    let mut w = Watch::<f64, 1>::new(floor).unwrap();
    let mut s = rest;
    for next in &steps {
        w.commit(&mut s, next, 0.1, 0.0, &Free).unwrap();
    }
    let far = State::new(0.5, vector![0.0], vector![2.0]);
    assert!(w.commit(&mut s, &far, 0.1, 0.0, &Free).is_err());
}

/// A harmonic oscillator `V = ½q² + a·q + c`: the level `c` and the slope `a` (gravity's zero
/// level, a held force) move `V` but not the dynamics the states below come from.
struct Offset<T> {
    slope: T,
    level: T,
}
impl<T: Real> Probe<T, 1> for Offset<T> {
    fn energy(&self, s: &State<T, 1>) -> Option<(T, T)> {
        let (q, v) = (s.q[0], s.v[0]);
        let half = T::lit(0.5);
        Some((half * v * v, half * q * q + self.slope * q + self.level))
    }
    fn residual(&self, _: &SVector<T, 1>) -> Option<T> {
        None
    }
}

/// Symplectic Euler for `q̈ = −q − a` from rest at `q₀` with step `h`, the states the watch is
/// asked to commit, each with its energy error growing by `growth` per step (a diverging run
/// when `growth > 1`): which step the guard refuses.
fn refused_at<T: Real>(slope: f64, level: f64, q0: f64, h: f64, growth: f64) -> Option<usize> {
    let p = Offset {
        slope: T::lit(slope),
        level: T::lit(level),
    };
    let mut w = Watch::<T, 1>::new(Guards::default()).unwrap();
    let mut s = State::new(T::zero(), vector![T::lit(q0)], vector![T::zero()]);
    let (mut q, mut v, mut amp) = (q0, 0.0, 1.0);
    for k in 0..200 {
        v -= h * (q + slope);
        q += h * v;
        amp *= growth;
        // The energy error of the proposal: a velocity stretched by `amp`.
        let next = State::new(T::zero(), vector![T::lit(q)], vector![T::lit(v * amp)]);
        if w.commit(&mut s, &next, T::lit(h), T::zero(), &p).is_err() {
            return Some(k + 1);
        }
    }
    None
}

/// What is refused does not depend on the level of `V` or on a linear term in it, in `f64` and
/// in `f32`: clean runs pass at every offset, a diverging one is refused at the same step.
#[test]
fn the_scale_is_blind_to_the_origin_of_the_potential() {
    for (slope, q0) in [(0.0, 1.0), (-3.0, 4.0), (2.0, 0.5)] {
        for level in [0.0, 10.0, 1e3, -1e3, 1e5] {
            // Clean: symplectic Euler at h = 0.05 (energy error ~h/2 of the energy).
            assert_eq!(refused_at::<f64>(slope, level, q0, 0.05, 1.0), None);
            // Diverging: the velocity grows by 30 % per step.
            let base = refused_at::<f64>(slope, 0.0, q0, 0.05, 1.3);
            assert!(base.is_some() && base < Some(20), "{base:?}");
            assert_eq!(refused_at::<f64>(slope, level, q0, 0.05, 1.3), base);
            if level.abs() <= 1e3 {
                assert_eq!(refused_at::<f32>(slope, level, q0, 0.05, 1.0), None);
                assert_eq!(refused_at::<f32>(slope, level, q0, 0.05, 1.3), base);
            }
        }
    }
}

/// Once the start-up allowance is over, a step that doubles the velocity of a clean run is
/// refused whatever the run's level of `V`, and the state is untouched.
#[test]
fn a_late_jump_is_refused_at_any_level() {
    for level in [0.0, -50.0, 1e4] {
        let p = Offset { slope: 0.0, level };
        let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
        let mut s = State::new(0.0, vector![1.0], vector![0.0]);
        let (mut q, mut v) = (1.0, 0.0);
        for _ in 0..50 {
            v -= 0.05 * q;
            q += 0.05 * v;
            w.commit(
                &mut s,
                &State::new(0.0, vector![q], vector![v]),
                0.05,
                0.0,
                &p,
            )
            .unwrap();
        }
        let jump = State::new(0.0, vector![q], vector![2.0 * v]);
        let before = s;
        assert_eq!(
            w.commit(&mut s, &jump, 0.05, 0.0, &p),
            Err(StepError::Diverged {
                guard: Guard::EnergyRun
            }),
            "level {level}"
        );
        assert_eq!(s, before);
    }
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
    let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
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
    let mut w = Watch::<f32, 1>::new(Guards::off()).unwrap();
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

/// A particle with `V = q` and a constraint residual set from outside, step by step.
struct Stretched(core::cell::Cell<f64>);
impl Probe<f64, 1> for Stretched {
    fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
        Some((0.5 * s.v[0] * s.v[0], s.q[0]))
    }
    fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
        Some(self.0.get())
    }
}

/// Twenty steps from `q = 1` at rest moving `q` and `v` so that `S = 1` (`K` reaches 1) with
/// `E` constant, at the residual `during` (and `start` at the start); then `last` with the
/// residual `res`. The watch's result of `last` (the state untouched when refused).
fn after_twenty(
    guards: Guards<f64>,
    (start, during, res): (f64, f64, f64),
    last: impl Fn(&State<f64, 1>) -> State<f64, 1>,
) -> Result<(), StepError> {
    let p = Stretched(core::cell::Cell::new(start));
    let mut w = Watch::<f64, 1>::new(guards).unwrap();
    let mut s = State::new(0.0, vector![1.0], vector![0.0]);
    for k in 1..=20 {
        let v = (k as f64 / 20.0).sqrt() * 2f64.sqrt();
        let next = State::new(0.0, vector![1.0 - 0.5 * v * v], vector![v]);
        w.commit(&mut s, &next, 0.1, 0.0, &p).unwrap();
        p.0.set(during);
    }
    p.0.set(res);
    let before = s;
    let next = last(&s);
    let r = w.commit(&mut s, &next, 0.1, 0.0, &p);
    if r.is_err() {
        assert_eq!(s, before);
    }
    r
}

const REFUSED: Result<(), StepError> = Err(StepError::Diverged {
    guard: Guard::EnergyRun,
});

/// The run guard's bound is `0.25·S` while the residual is below `0.31` of its bound and
/// `0.075·S` above: a drift of `0.2·S` passes an unstretched mechanism and is refused on a
/// stretched one (with the state untouched); with the residual guard off nothing is tightened.
#[test]
fn a_stretched_mechanism_tightens_the_run_bound() {
    let up = |drift: f64| move |s: &State<f64, 1>| State::new(0.0, vector![s.q[0] + drift], s.v);
    let run = |guards, res, drift| after_twenty(guards, (0.0, 0.0, res), up(drift));
    let d = Guards::default();
    for res in [0.0, 0.03, 0.0309] {
        assert_eq!(run(d, res, 0.2), Ok(()), "residual {res}");
        assert_eq!(run(d, res, 0.26), REFUSED, "residual {res}");
    }
    for res in [0.0311, 0.05, 0.09] {
        assert_eq!(run(d, res, 0.07), Ok(()), "residual {res}");
        assert_eq!(run(d, res, 0.08), REFUSED, "residual {res}");
    }
    let no_residual = Guards {
        residual: None,
        ..d
    };
    assert_eq!(run(no_residual, 0.09, 0.2), Ok(()));
    // A run that started as stretched as it is (a start off its constraint) is not tightened.
    assert_eq!(after_twenty(d, (0.09, 0.09, 0.09), up(0.2)), Ok(()));
}

/// While stretched, a step is judged against the scale before it: a step that doubles the
/// kinetic energy (`S` 1 → 2) with a drift of `0.12` (`0.06` of the new scale, `0.12` of the
/// old) is refused on a stretched mechanism and passes an unstretched one; a mechanism that
/// stays stretched while its scale grows is judged against a scale that grows by at most 10 % a step.
#[test]
fn a_stretched_step_does_not_vouch_for_itself_with_the_scale_it_grows() {
    let jump = |s: &State<f64, 1>| {
        let e = 0.5 * s.v[0] * s.v[0] + s.q[0];
        State::new(0.0, vector![e + 0.12 - 2.0], vector![2.0])
    };
    let d = Guards::default();
    assert_eq!(after_twenty(d, (0.0, 0.0, 0.0), jump), Ok(()));
    assert_eq!(after_twenty(d, (0.0, 0.0, 0.05), jump), REFUSED);
    // Stretched from the third step on while `K` climbs to 1 with `E` up by `0.06·K` (within
    // `0.075·S` of the grown scale): the tier's scale cannot follow `S` (0.1 at step 2, then
    // +0.05 a step), and the third step is refused; unstretched, the run goes on.
    let climb = |stretched_from: usize| {
        let p = Stretched(core::cell::Cell::new(0.0));
        let mut w = Watch::<f64, 1>::new(d).unwrap();
        let mut s = State::new(0.0, vector![1.0], vector![0.0]);
        for k in 1..=20 {
            p.0.set(if k >= stretched_from { 0.05 } else { 0.0 });
            let v = (k as f64 / 20.0).sqrt() * 2f64.sqrt();
            let next = State::new(0.0, vector![1.0 - 0.47 * v * v], vector![v]);
            if w.commit(&mut s, &next, 0.1, 0.0, &p).is_err() {
                return Some(k);
            }
        }
        None
    };
    assert_eq!(climb(3), Some(3));
    assert_eq!(climb(21), None);
}

/// The stretched tier starts at the third step of a run: a start whose velocity is not tangent
/// to its constraint stretches it over its first steps.
#[test]
fn the_stretched_tier_starts_at_the_third_step() {
    // From `q = 1` at rest: step 1 exchanges `V` for `K = 1` (`S = 1`), then `E` up by `0.2·S`.
    let run = |stretched_at: usize| {
        let p = Stretched(core::cell::Cell::new(0.0));
        let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
        let mut s = State::new(0.0, vector![1.0], vector![0.0]);
        let v = 2f64.sqrt();
        let steps = [vector![0.0], vector![0.0], vector![0.2]];
        for (k, q) in steps.iter().take(stretched_at).enumerate() {
            p.0.set(if k + 1 == stretched_at { 0.05 } else { 0.0 });
            w.commit(&mut s, &State::new(0.0, *q, vector![v]), 0.1, 0.0, &p)?;
        }
        Ok::<(), StepError>(())
    };
    assert_eq!(run(3), REFUSED);
    // The same drift at the second step (`[0.0, 0.2]` as its last two steps), stretched there.
    let second = || {
        let p = Stretched(core::cell::Cell::new(0.0));
        let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
        let mut s = State::new(0.0, vector![1.0], vector![0.0]);
        let v = 2f64.sqrt();
        w.commit(
            &mut s,
            &State::new(0.0, vector![0.0], vector![v]),
            0.1,
            0.0,
            &p,
        )?;
        p.0.set(0.05);
        w.commit(
            &mut s,
            &State::new(0.0, vector![0.2], vector![v]),
            0.1,
            0.0,
            &p,
        )
    };
    assert_eq!(second(), Ok(()));
}

/// A quiet run (kinetic energy never above a quarter of its scale: a plant at rest ringing a
/// stiff mode that its method slows) may show an energy deficit up to its scale at any step;
/// a run that moved more, or a surplus, is held to the start-up allowance and `r·S`.
#[test]
fn a_quiet_run_may_show_a_deficit_up_to_its_scale() {
    // From `q = 1` at rest, `n` steps to `q = low` with kinetic energy `k`, then `high`.
    let run = |k: f64, low: f64, high: Option<f64>, n: usize| {
        let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
        let mut s = State::new(0.0, vector![1.0], vector![0.0]);
        let v = (2.0 * k).sqrt();
        for i in 1..=n {
            let q = match high {
                Some(h) if i == n => h,
                _ => low,
            };
            if w.commit(
                &mut s,
                &State::new(0.0, vector![q], vector![v]),
                0.1,
                0.0,
                &Free2,
            )
            .is_err()
            {
                return Some(i);
            }
        }
        None
    };
    // `V` 1 → 0.2 with `K = 0.05`: `S = 0.8`, a deficit of `0.75 = 0.94·S` at every step.
    assert_eq!(run(0.05, 0.2, None, 20), None);
    // With `K = 0.3 > S/4`: a deficit of `0.5` is beyond the start-up allowance at step 4.
    assert_eq!(run(0.3, 0.2, None, 20), Some(4));
    // A surplus of `0.65 = 0.46·S` (`V` up to 1.6, `S = 1.4`) is refused after the start-up.
    assert_eq!(run(0.05, 0.2, Some(1.6), 20), Some(20));
    assert_eq!(run(0.05, 0.2, Some(0.2), 20), None);
}

/// A particle with `V = q` and no constraint.
struct Free2;
impl Probe<f64, 1> for Free2 {
    fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
        Some((0.5 * s.v[0] * s.v[0], s.q[0]))
    }
    fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
        None
    }
}

/// A free particle under a held force `u` (`V = −u·q`, changed through [`Watch::account`]).
struct Pushed(f64);
impl Probe<f64, 1> for Pushed {
    fn energy(&self, s: &State<f64, 1>) -> Option<(f64, f64)> {
        Some((0.5 * s.v[0] * s.v[0], -self.0 * s.q[0]))
    }
    fn residual(&self, _: &SVector<f64, 1>) -> Option<f64> {
        None
    }
}

/// A held force so large that `uᵀq` swamps the kinetic energy a step creates (the step moves
/// `v` but not `q`: energy without work) is refused, state untouched; the same step under a
/// natural force change is judged (refused by its drift, and a step with the work done passes).
#[test]
fn a_run_whose_energies_cannot_be_told_apart_is_refused() {
    let run = |u: f64, next_v: f64, next_q: f64| {
        let mut w = Watch::<f64, 1>::new(Guards::default()).unwrap();
        let mut s = State::new(0.0, vector![7.4], vector![1.0]);
        let mut p = Pushed(0.0);
        for k in 1..=10 {
            let next = State::new(0.0, vector![7.4 + 0.01 * f64::from(k)], vector![1.0]);
            w.commit(&mut s, &next, 0.01, 0.0, &p).unwrap();
        }
        w.account(|last| -u * last.q[0]);
        p.0 = u;
        let before = s;
        let next = State::new(0.0, vector![s.q[0] + next_q], vector![next_v]);
        let r = w.commit(&mut s, &next, 0.01, 0.0, &p);
        if r.is_err() {
            assert_eq!(s, before);
        }
        r
    };
    let refused = Err(StepError::Diverged {
        guard: Guard::EnergyRun,
    });
    // `K` from 0.5 to 4.2e280 while `q` stays put: `|uᵀq| ≈ 7.5e300` hides it in `E`.
    assert_eq!(run(1e300, 2.9e140, 0.0), refused);
    // A natural force: the same kind of step (no work, `K` doubled) is refused by its drift ...
    assert_eq!(run(3.0, 2f64.sqrt(), 0.0), refused);
    // ... and a step whose work pays for its kinetic energy passes.
    assert_eq!(run(3.0, 2f64.sqrt(), 0.5 / 3.0), Ok(()));
}

#[test]
fn the_watch_is_compact_and_gives_an_option_its_niche() {
    use core::mem::size_of;
    // Five bounds, the last state, eleven scalars of the run, and three words: what the watch
    // is (no `Option` per guard) in `f32` for a two-dimensional state.
    assert!(size_of::<Watch<f32, 2>>() <= (5 + 5 + 11 + 3) * 4);
    // `Option<integrator>` slots are written in place: their tag lives in the watch.
    assert_eq!(
        size_of::<Option<Watch<f32, 2>>>(),
        size_of::<Watch<f32, 2>>()
    );
    assert_eq!(
        size_of::<Option<Watch<f64, 4>>>(),
        size_of::<Watch<f64, 4>>()
    );
}
