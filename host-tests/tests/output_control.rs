//! Output control on the step driver (`macrostep::output`): until, saveat, events and a
//! stoppable observer on Z&S, RATTLE, SIM1 and a FLAVOR, measured against analytic solutions.
//!
//! The models are chosen so that the expected values are closed-form and independent of the code
//! under test:
//! - a ball under constant gravity (`V = g y`): Z&S reduces to velocity Verlet there and is exact
//!   on the quadratic trajectory, and the cubic Hermite interpolant is exact on it too, so event
//!   times and recorded states match `y₀ − g t²/2` to rounding;
//! - a harmonic oscillator as a SIM1 fast part with no slow force: SIM1 is the exact flow, so the
//!   recorded states differ from `cos ωt` by the interpolation error only (`h⁴ω⁴/384` in `q`);
//! - the rigid pendulum of 002 §5 released horizontally: it passes under the pivot at a quarter
//!   of the exact period, `K(1/√2) = Γ(1/4)²/(4√π) = 1.854 074 677 301 372` (`L = g = 1`);
//! - a harmonic oscillator under a FLAVOR over symplectic Euler (its stiff part decoupled and at
//!   rest): first order, so its bounds are first-order bounds.

use core::ops::ControlFlow;
use macrostep::flavor::Nonintrusive;
use macrostep::model::{Quadratic, Split, Zero};
use macrostep::output::{Direction, Event, Run, RunError, Stop};
use macrostep::prelude::*;
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::{LinearPotential, Pendulum};
use nalgebra::{matrix, vector};
use rand_pcg::{rand_core::SeedableRng, Pcg64};

/// A quarter period of the pendulum released at 90° (`L = g = 1`): `K(1/√2)`.
const QUARTER_PERIOD: f64 = 1.854_074_677_301_372;

/// The falling ball: gravity `G` on one coordinate.
const G: f64 = 9.81;

fn ball_zs<T: Real>(h: T) -> impl Integrator<T, 1> {
    let gravity = LinearPotential::new(vector![T::lit(G)]).unwrap();
    ZhangSkeel::new(
        System::new(Mass::identity(), gravity),
        h,
        ZsParams::default(),
    )
    .unwrap()
}

fn pendulum_rattle<T: Real>(h: T) -> impl Integrator<T, 2> {
    let p = Pendulum::<T>::paper();
    Rattle::new(p.system(), p.constraint(), h, Default::default()).unwrap()
}

/// SIM1 on `q̈ = −ω² q` (the fast part, flowed exactly; no slow force).
fn oscillator_sim1<T: Real>(omega: T, h: T) -> impl Integrator<T, 1> {
    let system = SimSystem::new(Mass::identity(), matrix![omega * omega], Zero);
    Sim1::new(system, h, FastParams::default()).unwrap()
}

/// The nonintrusive FLAVOR over symplectic Euler on `q̈₀ = −q₀` with a decoupled stiff
/// coordinate `q₁` at rest (it stays at 0).
fn oscillator_flavor<T: Real>(h: T) -> impl Integrator<T, 2> {
    let soft = Quadratic::new(matrix![T::one(), T::zero(); T::zero(), T::zero()]);
    let stiff = Quadratic::new(matrix![T::zero(), T::zero(); T::zero(), T::one()]);
    let split = Split::new(soft, stiff, T::lit(1e4));
    Nonintrusive::symplectic_euler(System::new(Mass::identity(), split), h, h * T::lit(0.01))
        .unwrap()
}

fn unit_start<T: Real, const N: usize>() -> State<T, N> {
    let mut q = SVector::zeros();
    q[0] = T::one();
    State::at_rest(q)
}

/// The number of steps of size `h` a run until `t_end` takes: `⌈t_end/h⌉`, where a remainder
/// below the clock's rounding (`8ε max(t_end, h)`, `ε` of the scalar) is no step (no sliver).
fn expected_steps(t_end: f64, h: f64, eps: f64) -> usize {
    let slack = 8.0 * eps * t_end.max(h) / h;
    (t_end / h - slack).ceil().max(0.0) as usize
}

/// Runs until each of several horizons (on and off the grid) from a fresh integrator and checks
/// the landing is bit-exact and the step count `⌈t_end/h⌉`; then chains two runs.
fn lands_exactly<T: Real, const N: usize, I: Integrator<T, N>>(
    mut make: impl FnMut() -> I,
    start: State<T, N>,
) {
    let h = make().step_size();
    for t_end in [0.0137, 0.05, 0.5, 1.0, 1.2345, 2.999, 7.3] {
        let t_end = T::lit(t_end);
        let (mut integ, mut s) = (make(), start);
        let out = integ.run(&mut s, Run::until(t_end)).unwrap();
        assert_eq!(s.t, t_end, "bit-exact landing");
        assert_eq!(out.stop, Stop::End);
        let eps = T::default_epsilon().to_f64();
        assert_eq!(
            out.steps,
            expected_steps(t_end.to_f64(), h.to_f64(), eps),
            "t_end {t_end:?}"
        );
        assert!(s.is_finite());
    }
    // A second run continues from the first one's end and lands too.
    let (mut integ, mut s) = (make(), start);
    assert_eq!(
        integ.run(&mut s, Run::until(T::lit(1.2345))).unwrap().stop,
        Stop::End
    );
    let out = integ.run(&mut s, Run::until(T::lit(2.5))).unwrap();
    assert_eq!((s.t, out.stop), (T::lit(2.5), Stop::End));
}

macro_rules! for_scalars {
    ($($name:ident: $body:ident;)*) => {
        mod f32_tests { use super::*; $( #[test] fn $name() { $body::<f32>(); } )* }
        mod f64_tests { use super::*; $( #[test] fn $name() { $body::<f64>(); } )* }
    };
}

fn until_lands<T: Real>() {
    let h = T::lit(0.05);
    lands_exactly(|| ball_zs(h), State::at_rest(vector![T::lit(100.0)]));
    lands_exactly(
        || pendulum_rattle(h),
        Pendulum::<T>::paper().initial_state(),
    );
    lands_exactly(|| oscillator_sim1(T::lit(3.0), h), unit_start());
    lands_exactly(|| oscillator_flavor(h), unit_start());
}

/// Breaks after `k` steps; the state is bit-identical to `k` plain steps.
fn stops_after<T: Real, const N: usize, I: Integrator<T, N>>(
    mut make: impl FnMut() -> I,
    start: State<T, N>,
) {
    let k = 7;
    let (mut integ, mut s, mut seen) = (make(), start, 0);
    let observer = |_: &State<T, N>| {
        seen += 1;
        if seen == k {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let out = integ
        .run(&mut s, Run::until(T::lit(100.0)).observe(observer))
        .unwrap();
    assert_eq!((out.stop, out.steps), (Stop::Observer, k));
    let (mut plain, mut p) = (make(), start);
    plain.integrate(&mut p, k).unwrap();
    assert_eq!(s, p);
}

fn observer_stops<T: Real>() {
    let h = T::lit(0.05);
    stops_after(|| ball_zs(h), State::at_rest(vector![T::lit(100.0)]));
    stops_after(
        || pendulum_rattle(h),
        Pendulum::<T>::paper().initial_state(),
    );
    stops_after(|| oscillator_sim1(T::lit(3.0), h), unit_start());
    stops_after(|| oscillator_flavor(h), unit_start());
}

/// A ball dropped from 1 m bouncing with restitution `e = 0.8` (a velocity reset at each
/// impact) until `T = 3`: every impact at its analytic time, every step `Ok` under the default
/// guards (the energy lost at an impact, 36 %, would trip the 20 % run guard if the reset did not
/// start a new run), the clock landing on `T`.
fn bounce<T: Real>() {
    let (e, t_end) = (0.8, 3.0);
    // Analytic impacts: t₁ = √(2/g), then flights of 2 eᵏ v₁ / g.
    let v1 = (2.0 * G).sqrt();
    let mut impacts = vec![v1 / G];
    let mut speed = e * v1;
    while impacts.last().unwrap() + 2.0 * speed / G < t_end {
        impacts.push(impacts.last().unwrap() + 2.0 * speed / G);
        speed *= e;
    }
    let mut zs = ball_zs(T::lit(0.01));
    assert_eq!(zs.guards(), Guards::default());
    let mut s = State::at_rest(vector![T::one()]);
    let mut seen = Vec::new();
    let floor = Event::new(
        |s: &State<T, 1>| s.q[0],
        |s: &mut State<T, 1>| {
            seen.push((s.t.to_f64(), s.q[0].to_f64(), s.v[0].to_f64()));
            s.v[0] = -s.v[0] * T::lit(e);
            ControlFlow::Continue(())
        },
        Direction::Falling,
        T::lit(1e-12),
    );
    let out = zs
        .run(&mut s, Run::until(T::lit(t_end)).event(floor))
        .unwrap();
    assert_eq!(
        (out.stop, out.events, s.t),
        (Stop::End, impacts.len(), T::lit(t_end))
    );
    // f64: rounding only (the method and the interpolant are exact on this trajectory); f32:
    // rounding of times near 1 over ~300 steps and a root on a cubic with ~1e-7 relative values.
    let tol = if T::lit(1.0 + 1e-10) == T::one() {
        2e-4
    } else {
        1e-9
    };
    assert_eq!(seen.len(), impacts.len());
    let worst = seen
        .iter()
        .zip(&impacts)
        .map(|(s, e)| (s.0 - e).abs())
        .fold(0.0, f64::max);
    println!(
        "bounce {}: {} impacts, worst impact-time error {worst:e}",
        core::any::type_name::<T>(),
        impacts.len()
    );
    for (k, (&(t, y, _), &exact)) in seen.iter().zip(&impacts).enumerate() {
        assert!((t - exact).abs() < tol, "impact {k}: {t} vs {exact}");
        assert!(y.abs() < tol * 10.0, "impact {k}: y = {y}");
    }
    // The speed at impact k is eᵏ √(2g).
    let v_first = seen[0].2;
    assert!((v_first + v1).abs() < tol * 100.0, "{v_first}");
    assert!(s.is_finite() && s.q[0] >= T::lit(-tol));
}

for_scalars! {
    until_lands_bit_exactly: until_lands;
    observer_stop_is_plain_stepping: observer_stops;
    bounce_by_velocity_reset: bounce;
}

/// SIM1 is the exact flow of `q̈ = −ω² q`: states recorded between steps are the Hermite
/// interpolant of exact end values, within `h⁴ω⁴/384` of `cos ωt` in `q` and
/// `(√3/216) h³ω⁴` in `v` (the bounds of cubic Hermite interpolation and of its derivative, for
/// `|q⁗| ≤ ω⁴`); on step ends they are the steps' states.
#[test]
fn saveat_sim1_against_the_analytic_oscillator() {
    let (omega, h) = (3.0_f64, 0.1);
    let mut sim = oscillator_sim1(omega, h);
    let mut s = unit_start::<f64, 1>();
    let times: Vec<f64> = (0..40).map(|k| 0.037 + 0.173 * k as f64).collect();
    let mut saved = Vec::new();
    let run = Run::until(7.0).save_at(&times, |s: &State<f64, 1>| saved.push(*s));
    let out = sim.run(&mut s, run).unwrap();
    assert_eq!((out.saved, saved.len()), (40, 40));
    let q_bound = h.powi(4) * omega.powi(4) / 384.0 + 1e-12;
    let v_bound = 3f64.sqrt() / 216.0 * h.powi(3) * omega.powi(4) + 1e-12;
    let (mut q_err, mut v_err) = (0.0_f64, 0.0_f64);
    for (rec, &t) in saved.iter().zip(&times) {
        assert_eq!(rec.t, t);
        q_err = q_err.max((rec.q[0] - (omega * t).cos()).abs());
        v_err = v_err.max((rec.v[0] + omega * (omega * t).sin()).abs());
    }
    println!(
        "saveat SIM1: q error {q_err:e} (bound {q_bound:e}), v error {v_err:e} (bound {v_bound:e})"
    );
    assert!(q_err <= q_bound, "q error {q_err:e} > {q_bound:e}");
    assert!(v_err <= v_bound, "v error {v_err:e} > {v_bound:e}");
    // The interpolation is not trivially exact: the error is a visible share of the bound.
    assert!(q_err > q_bound / 20.0, "q error {q_err:e}");
}

/// On step ends (times read off a plain run's clock) and at the start, the recorded states are
/// the run's own states, bit for bit (RATTLE).
#[test]
fn saveat_on_the_grid_records_the_steps_rattle() {
    let h = 0.05_f64;
    let mut plain = pendulum_rattle(h);
    let mut p = Pendulum::<f64>::paper().initial_state();
    let mut grid = vec![p];
    for _ in 0..30 {
        plain.step(&mut p).unwrap();
        grid.push(p);
    }
    let times: Vec<f64> = grid.iter().step_by(3).map(|s| s.t).collect();
    let mut saved = Vec::new();
    let mut rattle = pendulum_rattle(h);
    let mut s = Pendulum::<f64>::paper().initial_state();
    let run = Run::until(1.5).save_at(&times, |s: &State<f64, 2>| saved.push(*s));
    let out = rattle.run(&mut s, run).unwrap();
    assert_eq!(out.saved, times.len());
    let expected: Vec<State<f64, 2>> = grid.iter().step_by(3).copied().collect();
    assert_eq!(saved, expected);
}

/// Z&S on the falling ball: recorded states match `y₀ − g t²/2`, `−g t` (f64 and f32) to
/// rounding: in `q` one rounding of `|q| ≈ 50` per step over 67 steps, with a factor 2
/// (`140 · 50 ε`), and in `v` the rounding of the interpolant's difference
/// `(q_b − q_a)/h`, `|q| ε / h ≈ 1700 ε` at `q ≈ 50`, `h = 0.03` (a bound of `2000 ε`).
#[test]
fn saveat_zs_against_the_analytic_fall() {
    fn check<T: Real>(tol: f64) {
        let mut zs = ball_zs(T::lit(0.03));
        let mut s = State::at_rest(vector![T::lit(50.0)]);
        let times: Vec<T> = (1..25).map(|k| T::lit(0.0771 * k as f64)).collect();
        let mut saved = Vec::new();
        let run = Run::until(T::lit(2.0)).save_at(&times, |s: &State<T, 1>| saved.push(*s));
        assert_eq!(zs.run(&mut s, run).unwrap().saved, 24);
        for r in &saved {
            let t = r.t.to_f64();
            let q = r.q[0].to_f64();
            assert!(
                (q - (50.0 - G * t * t / 2.0)).abs() < tol * 50.0 * 140.0,
                "{t} {q}"
            );
            assert!((r.v[0].to_f64() + G * t).abs() < tol * 2000.0, "{t}");
        }
    }
    check::<f64>(1e-15);
    check::<f32>(f32::EPSILON as f64);
}

/// The FLAVOR (first order) on `q̈ = −q`: recorded states within a first-order bound of
/// `cos t`. Symplectic Euler's error on the oscillator is an `O(h)` distortion of the orbit plus
/// an `O(h² t)` phase drift; at `h = 0.01`, `t ≤ 3` the bound `h` covers both (the Hermite error,
/// `h⁴/384`, is negligible).
#[test]
fn saveat_flavor_against_the_analytic_oscillator() {
    let h = 0.01_f64;
    let mut flavor = oscillator_flavor(h);
    let mut s = unit_start::<f64, 2>();
    let times: Vec<f64> = (1..29).map(|k| 0.1037 * k as f64).collect();
    let mut saved = Vec::new();
    let run = Run::until(3.0).save_at(&times, |s: &State<f64, 2>| saved.push(*s));
    assert_eq!(flavor.run(&mut s, run).unwrap().saved, 28);
    let err = saved
        .iter()
        .map(|r| (r.q[0] - r.t.cos()).abs())
        .fold(0.0, f64::max);
    println!("saveat FLAVOR: q error {err:e} (bound h = {h})");
    assert!(err < h, "{err}");
    assert!(saved.iter().all(|r| r.q[1] == 0.0));
}

/// The first pass of the pendulum under the pivot (`x` falling through 0), by RATTLE at two step
/// sizes: the located time is within `2e-5` of the analytic `K(1/√2)` at `h = 0.005`, and its
/// error shrinks fourfold when `h` halves — it is RATTLE's second-order error, not the
/// locator's (located to `1e-12`).
#[test]
fn event_rattle_pendulum_at_the_analytic_quarter_period() {
    let located = |h: f64| {
        let mut rattle = pendulum_rattle(h);
        let mut s = Pendulum::<f64>::paper().initial_state();
        let bottom = Event::new(
            |s: &State<f64, 2>| s.q[0],
            |_: &mut State<f64, 2>| ControlFlow::Break(()),
            Direction::Falling,
            1e-12,
        );
        let out = rattle.run(&mut s, Run::until(10.0).event(bottom)).unwrap();
        assert_eq!((out.stop, out.events), (Stop::Event, 1));
        assert_eq!(s.t, out.last_event.unwrap());
        // The state is RATTLE's step to the event: on the constraint, at x ≈ 0.
        assert!(
            (s.q.norm() - 1.0).abs() < 1e-10 && s.q[0].abs() < 1e-6,
            "{:?}",
            s.q
        );
        s.t - QUARTER_PERIOD
    };
    let (e1, e2) = (located(0.01), located(0.005));
    println!(
        "event RATTLE: error at h = 0.01 {e1:e}, at h = 0.005 {e2:e}, ratio {}",
        e1 / e2
    );
    assert!(e2.abs() < 2e-5, "{e1:e} {e2:e}");
    let ratio = e1 / e2;
    assert!((3.5..4.5).contains(&ratio), "{e1:e} / {e2:e} = {ratio}");
}

/// SIM1 (exact flow): `q = cos ωt` falls through 0 at `π/(2ω)`; the located time is within the
/// tolerance plus the interpolant's error `h⁴ω⁴/384 / ω`, and the state at the event is the
/// exact flow's there.
#[test]
fn event_sim1_at_the_analytic_crossing() {
    let (omega, h, tol) = (3.0_f64, 0.1, 1e-12);
    let mut sim = oscillator_sim1(omega, h);
    let mut s = unit_start::<f64, 1>();
    let zero = Event::new(
        |s: &State<f64, 1>| s.q[0],
        |_: &mut State<f64, 1>| ControlFlow::Break(()),
        Direction::Falling,
        tol,
    );
    let out = sim.run(&mut s, Run::until(5.0).event(zero)).unwrap();
    assert_eq!(out.stop, Stop::Event);
    let exact = core::f64::consts::PI / (2.0 * omega);
    let bound = tol + h.powi(4) * omega.powi(3) / 384.0;
    println!("event SIM1: error {:e} (bound {bound:e})", s.t - exact);
    assert!((s.t - exact).abs() <= bound, "{} vs {exact}", s.t);
    assert!((s.q[0] - (omega * s.t).cos()).abs() < 1e-13);
    assert!((s.v[0] + omega * (omega * s.t).sin()).abs() < 1e-12);
}

/// The FLAVOR (first order): `q₀` falls through 0 within `h` of `π/2`; counting every crossing
/// (`Either`, action `Continue` without a change) finds each once: `⌊(T − π/2)/π⌋ + 1`.
#[test]
fn event_flavor_crossings_counted_once() {
    let h = 0.01_f64;
    let mut flavor = oscillator_flavor(h);
    let mut s = unit_start::<f64, 2>();
    let mut times = Vec::new();
    let zero = Event::new(
        |s: &State<f64, 2>| s.q[0],
        |s: &mut State<f64, 2>| {
            times.push(s.t);
            ControlFlow::Continue(())
        },
        Direction::Either,
        1e-10,
    );
    let out = flavor.run(&mut s, Run::until(20.0).event(zero)).unwrap();
    let pi = core::f64::consts::PI;
    let expected = ((20.0 - pi / 2.0) / pi).floor() as usize + 1;
    assert_eq!((out.events, times.len(), s.t), (expected, expected, 20.0));
    for (k, t) in times.iter().enumerate() {
        let exact = pi / 2.0 + k as f64 * pi;
        assert!((t - exact).abs() < h, "crossing {k}: {t} vs {exact}");
    }
}

/// A stochastic SIM1 (Langevin): `until` stops on the grid (`GridEnd` off it, `End` on it), the
/// run is the plain stepping with the same seed, and an event stops at the interpolated state.
#[test]
fn stochastic_until_and_event_sim1() {
    let system = SimSystem::new(Mass::identity(), matrix![9.0_f64], Zero);
    let make = || Sim1::new(system, 0.1, FastParams::langevin(0.5, 0.3)).unwrap();
    let start = unit_start::<f64, 1>();
    let (mut sim, mut s, mut rng) = (make(), start, Pcg64::seed_from_u64(3));
    let out = sim.run_noisy(&mut s, Run::until(1.05), &mut rng).unwrap();
    assert_eq!((out.stop, out.steps), (Stop::GridEnd, 10));
    let (mut plain, mut p, mut prng) = (make(), start, Pcg64::seed_from_u64(3));
    plain.integrate_noisy(&mut p, 10, &mut prng).unwrap();
    assert_eq!(s, p);
    let out = sim.run_noisy(&mut s, Run::until(2.0), &mut rng).unwrap();
    assert_eq!((out.stop, out.steps), (Stop::End, 10));
    assert!((s.t - 2.0).abs() < 1e-14);
    // An event: the state is the interpolant at the located crossing (|q| within the tolerance
    // times the speed there).
    let zero = Event::new(
        |s: &State<f64, 1>| s.q[0],
        |_: &mut State<f64, 1>| ControlFlow::Break(()),
        Direction::Either,
        1e-12,
    );
    let (mut sim, mut s) = (make(), start);
    let out = sim
        .run_noisy(&mut s, Run::until(10.0).event(zero), &mut rng)
        .unwrap();
    assert_eq!(out.stop, Stop::Event);
    assert_eq!(Some(s.t), out.last_event);
    assert!(
        s.q[0].abs() <= 1e-12 * (s.v[0].abs() + 1.0) * 10.0,
        "{:?}",
        s
    );
}

/// Bad runs are refused before the first step, the state untouched.
#[test]
fn bad_runs_are_refused_up_front() {
    let mut zs = ball_zs(0.01_f64);
    let start = State::at_rest(vector![1.0]);
    let mut s = start;
    let before = |e: RunError, name: &str| matches!(e, RunError::Config(ConfigError::OutOfRange { name: n, .. } | ConfigError::NonFinite { name: n }) if n == name);
    assert!(before(
        zs.run(&mut s, Run::until(f64::NAN)).unwrap_err(),
        "t_end"
    ));
    s.t = 1.0;
    assert!(before(
        zs.run(&mut s, Run::until(0.5)).unwrap_err(),
        "t_end"
    ));
    let unsorted = [1.2, 1.1];
    let run = Run::until(2.0).save_at(&unsorted, |_: &State<f64, 1>| {});
    assert!(before(zs.run(&mut s, run).unwrap_err(), "times"));
    let run = Run::until(2.0).save_every(0, |_: &State<f64, 1>| {});
    assert!(before(zs.run(&mut s, run).unwrap_err(), "every"));
    let ev = Event::new(
        |s: &State<f64, 1>| s.q[0],
        |_: &mut State<f64, 1>| ControlFlow::Continue(()),
        Direction::Either,
        0.0,
    );
    assert!(before(
        zs.run(&mut s, Run::until(2.0).event(ev)).unwrap_err(),
        "tolerance"
    ));
    assert_eq!(s, State { t: 1.0, ..start });
}

/// A run whose step fails returns the step error with the last good state, which was observed.
#[test]
fn a_failed_step_ends_the_run_with_the_last_good_state() {
    // Velocity Verlet above its stability limit h = 2/ω (ω = 100).
    let spring = System::new(Mass::identity(), Quadratic::new(matrix![1.0e4_f64]));
    let mut verlet = VelocityVerlet::new(spring, 0.03).unwrap();
    let mut s = State::at_rest(vector![1.0]);
    let mut last_seen = s;
    let run = Run::until(100.0).observe(|s: &State<f64, 1>| {
        last_seen = *s;
        ControlFlow::Continue(())
    });
    let err = verlet.run(&mut s, run).unwrap_err();
    assert!(matches!(err, RunError::Step(_)), "{err:?}");
    assert!(s.is_finite());
    assert_eq!(s, last_seen);
}
