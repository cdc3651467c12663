//! The energy guards hold wherever the origin is: the penalised double pendulum built by
//! `MechanismBuilder` with its pivot pinned at `[0, Y]` (gravity's zero level `Y` below the
//! pivot), and the same pendulum under a held force, whose potential `V − uᵀq` depends on the
//! origin of `q`. Every `Ok` a diverging run returns stays within `|ΔE| ≤ 1` and `|g| ≤ 0.1`
//! (`|E − E₀ − W| ≤ 1` under a force, `W` the work of the force) before the run ends in an error.

use macrostep::driver::Method;
use macrostep::forcing::{Actuate, Actuated};
use macrostep::mechanism::{LinkagePenalty, MechanismBuilder};
use macrostep::model::{Constraint, System};
use macrostep::systems::{DoublePendulum, GravityPenalty};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, Real, State};
use nalgebra::{vector, SVector};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

type Pen<T> = System<T, LinkagePenalty<T, 2, 4, 2>, 4>;

/// `DoublePendulum::paper()` (unit masses, rods 1 and √2, g = 1) with the pivot pinned at
/// `[0, y]`, penalised at ω = 20, started at rest at angles `(θ, φ)`.
fn pendulum<T: Real>(y: T, theta: T, phi: T) -> (Pen<T>, State<T, 4>) {
    let dp = DoublePendulum::<T>::paper();
    let q = dp.from_angles(theta, phi);
    let mut b = MechanismBuilder::<T, 2, 4, 2>::new().unwrap();
    let n1 = b.node(T::one(), [q[0], q[1] + y]).unwrap();
    let n2 = b.node(T::one(), [q[2], q[3] + y]).unwrap();
    b.pin(n1, [T::zero(), y]).unwrap();
    b.rod(n1, n2).unwrap();
    b.gravity(T::one()).unwrap();
    let mech = b.build().unwrap();
    (mech.penalised(T::lit(20.0)).unwrap(), mech.initial_state())
}

/// Steps `integ` from `s0` until an error or `steps` steps; returns the first `Ok` step whose
/// energy drift exceeds 1 or whose constraint violation exceeds 0.1, as `(step, |ΔE|, |g|)`.
fn first_garbage<T: Real, I: Integrator<T, 4>>(
    mut integ: I,
    sys: &Pen<T>,
    s0: State<T, 4>,
    steps: usize,
) -> Option<(usize, f64, f64)> {
    let mut s = s0;
    let e0 = sys.energy(&s).to_f64();
    for k in 0..steps {
        if integ.step(&mut s).is_err() {
            return None;
        }
        let de = (sys.energy(&s).to_f64() - e0).abs();
        let g = sys.potential.constraint.value(&s.q).amax().to_f64();
        if de > 1.0 || g > 0.1 {
            return Some((k + 1, de, g));
        }
    }
    None
}

/// The runs of `method` over `starts` seeded at-rest starts with the pivot at `[0, y]` that
/// return garbage before an error.
fn garbage_runs<T: Real, I: Method<T, 4> + Integrator<T, 4>>(
    y: f64,
    starts: usize,
    method: impl Fn(Pen<T>) -> I,
) -> Vec<(usize, usize, f64, f64)> {
    let mut rng = Pcg64::seed_from_u64(26);
    let mut bad = Vec::new();
    for run in 0..starts {
        let th = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let ph = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let (sys, s0) = pendulum(T::lit(y), T::lit(th), T::lit(ph));
        if let Some((k, de, g)) = first_garbage(method(sys), &sys, s0, 1000) {
            bad.push((run, k, de, g));
        }
    }
    bad
}

fn zs<T: Real>(sys: Pen<T>) -> ZhangSkeel<T, LinkagePenalty<T, 2, 4, 2>, 4> {
    ZhangSkeel::new(sys, T::lit(0.1), ZsParams::default()).unwrap()
}

fn sylipn<T: Real>(sys: Pen<T>) -> Sylipn<T, LinkagePenalty<T, 2, 4, 2>, 4> {
    Sylipn::new(sys, T::lit(0.1), ZsParams::default()).unwrap()
}

/// ω = 20, h = 0.1 (hω = 2: the diverging setting of the guards experiment), 100 random at-rest
/// starts per origin. With the scale `K + |V|` a pivot at `Y = 10` let most diverging runs
/// return `Ok` steps with `|ΔE|` up to 4.6 before the residual guard fired.
/// (Under a single bound `0.2·S` energetic runs, `S ≈ 5–6`, returned one `Ok` step with `|ΔE|`
/// 1.01–1.14 before the divergence was refused, at every `Y` alike; the bound tightens while the
/// rods are stretched.)
#[test]
fn a_pivot_away_from_the_origin_gives_no_silent_garbage() {
    for y in [0.0, 10.0, 1000.0, -1000.0] {
        let bad = garbage_runs::<f64, _>(y, 100, zs);
        assert!(bad.is_empty(), "Z&S, pivot at y = {y}: {bad:?}");
        let bad = garbage_runs::<f64, _>(y, 100, sylipn);
        assert!(bad.is_empty(), "SyLiPN, pivot at y = {y}: {bad:?}");
    }
}

/// What is garbage does not depend on where the pivot is: over 100 seeded at-rest starts the
/// runs that return an `Ok` step with `|ΔE| > 1` or `|g| > 0.1` before an error, and the step
/// where they do, are the same with the pivot at `Y = 10, 1000, −1000` as at `Y = 0`, for Z&S and
/// SyLiPN. (With the scale `K₀ + |V₀|` a pivot at `Y = 10` let most diverging runs through.)
#[test]
fn the_garbage_runs_are_the_same_wherever_the_pivot_is() {
    let at = |y: f64, zs_method: bool| -> Vec<(usize, usize)> {
        let runs = if zs_method {
            garbage_runs::<f64, _>(y, 100, zs)
        } else {
            garbage_runs::<f64, _>(y, 100, sylipn)
        };
        runs.iter().map(|&(run, k, _, _)| (run, k)).collect()
    };
    for method in [true, false] {
        let origin = at(0.0, method);
        assert!(origin.is_empty(), "{origin:?}");
        for y in [10.0, 1000.0, -1000.0] {
            assert_eq!(at(y, method), origin, "pivot at y = {y}, Z&S: {method}");
        }
    }
}

/// The same in `f32`: the energies at `Y = 1000` are ~10³ while the drift that matters is ~1.
#[test]
fn a_pivot_away_from_the_origin_gives_no_silent_garbage_in_f32() {
    for y in [10.0, 1000.0] {
        let bad = garbage_runs::<f32, _>(y, 40, zs);
        assert!(bad.is_empty(), "Z&S f32, pivot at y = {y}: {bad:?}");
        let bad = garbage_runs::<f32, _>(y, 40, sylipn);
        assert!(bad.is_empty(), "SyLiPN f32, pivot at y = {y}: {bad:?}");
    }
}

type Forced = System<f64, Actuated<f64, GravityPenalty<f64, 4, 2>, 4>, 4>;

/// Steps a forced method from `s0` under the held force `u` until an error or `steps` steps;
/// returns the worst `|E − E₀ − W|` over the `Ok` steps (`E` the mechanical energy, `W = Σ uᵀΔq`).
fn worst_forced_drift<I: Integrator<f64, 4> + Actuate<f64, 4>>(
    mut integ: I,
    sys: &System<f64, GravityPenalty<f64, 4, 2>, 4>,
    s0: State<f64, 4>,
    u: SVector<f64, 4>,
    steps: usize,
) -> (f64, usize) {
    integ.set_force(&u).unwrap();
    let mut s = s0;
    let e0 = sys.energy(&s);
    let (mut w, mut worst) = (0.0, 0.0f64);
    for k in 0..steps {
        let q = s.q;
        if integ.step(&mut s).is_err() {
            return (worst, k);
        }
        w += u.dot(&(s.q - q));
        worst = worst.max((sys.energy(&s) - e0 - w).abs());
    }
    (worst, steps)
}

/// A held force on the stiff pendulum (ω = 2341.6975, h = 0.021042, β = 0.29952): with the scale
/// `K + |V − uᵀq|` one step returned `Ok` with `E − E₀ − W = 2.69` (the same step without the
/// force drifts by 0.045). Every `Ok` must now stay within a drift of 1.
#[test]
fn a_held_force_does_not_widen_the_energy_guard() {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(2341.6975).unwrap();
    let forced: Forced = System::new(sys.mass, Actuated::new(sys.potential));
    let s0 = State::at_rest(dp.from_angles(-2.29755, 2.76607));
    let u = vector![3.53, -4.41, -1.59, -3.71];
    let (h, p) = (0.021042, ZsParams::with_beta(0.29952));
    let (worst, steps) =
        worst_forced_drift(ZhangSkeel::new(forced, h, p).unwrap(), &sys, s0, u, 1000);
    assert!(
        worst <= 1.0,
        "Z&S: |E − E₀ − W| = {worst} within {steps} Ok steps"
    );
    let (worst, steps) = worst_forced_drift(Sylipn::new(forced, h, p).unwrap(), &sys, s0, u, 1000);
    assert!(
        worst <= 1.0,
        "SyLiPN: |E − E₀ − W| = {worst} within {steps} Ok steps"
    );
}

/// The guards see only energy differences: a run's accept/refuse sequence is the same with the
/// pivot at `Y = 0` and at `Y = 10` as long as no step lies within round-off of a bound. Compared
/// over 20 starts at a step where runs stay bounded (h = 0.02) and at the diverging h = 0.1.
#[test]
fn moving_the_origin_does_not_change_what_is_refused() {
    let mut rng = Pcg64::seed_from_u64(7);
    for h in [0.02, 0.1] {
        for _ in 0..20 {
            let th = rng.random_range(-3.0..3.0);
            let ph = rng.random_range(-3.0..3.0);
            let steps = |y: f64| {
                let (sys, mut s) = pendulum(y, th, ph);
                let mut integ = ZhangSkeel::new(sys, h, ZsParams::default()).unwrap();
                (0..400).take_while(|_| integ.step(&mut s).is_ok()).count()
            };
            assert_eq!(steps(0.0), steps(10.0), "h = {h}, angles ({th}, {ph})");
        }
    }
}

/// The worst `|E − E₀ − W|` over the `Ok` steps of `integ` from `s0` (1,000 steps or until an
/// error) under the held force `u` it was given.
fn held_drift<I: Integrator<f64, 4>>(
    mut integ: I,
    sys: &Pen<f64>,
    s0: State<f64, 4>,
    u: &SVector<f64, 4>,
) -> f64 {
    let (mut s, e0) = (s0, sys.energy(&s0));
    let (mut w, mut worst) = (0.0, 0.0f64);
    for _ in 0..1000 {
        let q = s.q;
        if integ.step(&mut s).is_err() {
            break;
        }
        w += u.dot(&(s.q - q));
        worst = worst.max((sys.energy(&s) - e0 - w).abs());
    }
    worst
}

type ForcedPen = System<f64, Actuated<f64, LinkagePenalty<f64, 2, 4, 2>, 4>, 4>;

/// The runs of the held-force study of `reproduce guards` (the pendulum at rest at random
/// angles under a random held force, components in `[−5, 5]`, up to five times the weight; Z&S
/// and SyLiPN at the diverging `h = 0.1`) among the first `starts` seeded starts that return an
/// `Ok` step with `|E − E₀ − W| > 1` before the run is refused: `(start, method, drift)`.
fn held_force_energy_garbage(starts: usize) -> Vec<(usize, &'static str, f64)> {
    let mut rng = Pcg64::seed_from_u64(26);
    let mut bad = Vec::new();
    for run in 0..starts {
        let th = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let ph = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let u = SVector::<f64, 4>::zeros().map(|_| rng.random_range(-5.0..5.0));
        let (sys, s0) = pendulum::<f64>(0.0, th, ph);
        let forced: ForcedPen = System::new(sys.mass, Actuated::new(sys.potential));
        let p = ZsParams::default();
        let mut zs = ZhangSkeel::new(forced, 0.1, p).unwrap();
        let mut sy = Sylipn::new(forced, 0.1, p).unwrap();
        zs.set_force(&u).unwrap();
        sy.set_force(&u).unwrap();
        let (dz, ds) = (held_drift(zs, &sys, s0, &u), held_drift(sy, &sys, s0, &u));
        for (name, d) in [("Z&S", dz), ("SyLiPN", ds)] {
            if d > 1.0 {
                bad.push((run, name, d));
            }
        }
    }
    bad
}

/// The first 100 starts of the held-force study: no `Ok` step drifts by `|E − E₀ − W| > 1`
/// before the run is refused. (With the stretched tier at `0.1·S` above a residual of `0.033`,
/// 6 of these 200 runs returned such a step, drifts 1.05–1.4, where the run's scale — the range
/// of `V − uᵀq` the force drives — is 10–30.)
#[test]
fn a_random_held_force_gives_no_energy_garbage() {
    let bad = held_force_energy_garbage(100);
    assert!(bad.is_empty(), "{bad:?}");
}

/// The whole held-force study (1,000 starts, Z&S and SyLiPN).
#[test]
fn the_whole_held_force_study_gives_no_energy_garbage() {
    let bad = held_force_energy_garbage(1000);
    assert!(bad.is_empty(), "{} runs: {bad:?}", bad.len());
}

/// Z&S at `h = 0.01` (ω = 20) from the paper's positions with a velocity that is not tangent to
/// the rods (`[0.5, 0, −0.3, 0.2]`): an accurate run, but its start rings the rods' stiff modes,
/// whose energy Z&S misstates by a fraction of itself, and the run's own scale is only its
/// kinetic energy (`S = 0.19`): the drift reaches `0.27·S` (`|ΔE| = 0.05`) at the 15th step
/// and the step is refused, rods at 1.6 %, below the stretched tier. Unguarded, the drift swings
/// between 0 and `0.272·S` with the ringing (every 4–5 steps) and does not grow over 1,000
/// steps; the start-up allowance carries its peaks at steps 2 and 6, not the one at step 15. The scale `K₀ + |V₀|`
/// counted the pivot's height (3) and let the run through; the plant's energy scale
/// (`Guards::energy_scale`, `forcing.rs`) is what lets it through now.
#[test]
#[ignore = "known false alarm of the origin-free scale (src/guard.rs): a clean Z&S run at h = 0.01 from the paper start with a velocity that rings the stiff rods is refused at step 15 (drift 0.268·S, S = 0.191, rods at 1.6 %); unguarded, its drift swings between 0 and 0.272·S every 4–5 steps over 1,000 steps without growing (final |ΔE| = 0.004); with Guards::energy_scale it completes"]
fn a_start_that_rings_the_stiff_rods_runs_through() {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(20.0).unwrap();
    let mut zs = ZhangSkeel::new(sys, 0.01, ZsParams::default()).unwrap();
    let mut s = dp.initial_state();
    s.v = vector![0.5, 0.0, -0.3, 0.2];
    let e0 = sys.energy(&s);
    for k in 0..1000 {
        zs.step(&mut s)
            .unwrap_or_else(|e| panic!("step {k}: {e:?}"));
    }
    assert!((sys.energy(&s) - e0).abs() < 0.1);
}
