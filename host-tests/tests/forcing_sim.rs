//! Held actuator forces in the stochastic impulse methods: the
//! force enters the slow kicks as the potential `V − uᵀq` of `forcing::Actuated`.
//!
//! The system: two unit masses, a stiff spring `ω = 10` on `q₀` (the fast linear part SIM flows
//! exactly) and the slow potential `V = (1 − cos q₁) + ½ κ q₀² q₁²` (a pendulum coupled to the
//! spring), driven by `u(t) = (0.3 sin t, 0.2 cos 2t)` held over each step.
//!
//! Tolerances: the energy balance `E(t) − E(0) − W(t)` (W = Σ uₖ·Δqₖ, exact work of the held
//! force) is the integration error of the piecewise-constant forced system, so it must shrink
//! at each method's order; the fitted `log₂` ratio of two steps is allowed `±0.35` (pre-asymptotic
//! constants at `h = 0.02 → 0.01`, measured 0.97 / 2.00 / 3.9).

use macrostep::forcing::{Actuate, Actuated};
use macrostep::model::{Mass, Potential};
use macrostep::nalgebra::{matrix, vector, SVector};
use macrostep::sim::{Conservative, FastParams, Sim1, Sim2, Sim4, SimSystem};
use macrostep::{Integrator, State, StepError};

const OMEGA: f64 = 10.0;
const KAPPA: f64 = 0.5;

/// `V = (1 − cos q₁) + ½ κ q₀² q₁²`.
#[derive(Clone, Copy, Debug)]
struct Slow;

impl Potential<f64, 2> for Slow {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        (1.0 - q[1].cos()) + 0.5 * KAPPA * q[0] * q[0] * q[1] * q[1]
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        vector![
            KAPPA * q[0] * q[1] * q[1],
            q[1].sin() + KAPPA * q[0] * q[0] * q[1]
        ]
    }
}

/// The stiff spring `ω` on `q₀` and the slow potential `slow`, unit masses.
fn system<P: Potential<f64, 2>>(slow: P) -> SimSystem<f64, Conservative<P>, 2> {
    SimSystem::new(
        Mass::identity(),
        matrix![OMEGA * OMEGA, 0.0; 0.0, 0.0],
        slow,
    )
}

fn start() -> State<f64, 2> {
    State::new(0.0, vector![0.05, 1.0], vector![0.0, 0.3])
}

/// Kinetic + stiff + slow energy (no force term).
fn energy(s: &State<f64, 2>) -> f64 {
    0.5 * s.v.norm_squared() + 0.5 * OMEGA * OMEGA * s.q[0] * s.q[0] + Slow.energy(&s.q)
}

fn u(t: f64) -> SVector<f64, 2> {
    vector![0.3 * t.sin(), 0.2 * (2.0 * t).cos()]
}

/// max over `[0, 10]` of `|E − E₀ − W|`, the force `u(t_k + h/2)` held over step `k`.
fn balance<I: Integrator<f64, 2> + Actuate<f64, 2>>(mut sim: I, h: f64) -> f64 {
    let mut s = start();
    let (e0, mut work, mut worst) = (energy(&s), 0.0, 0.0_f64);
    let steps = (10.0 / h).round() as usize;
    for _ in 0..steps {
        let uk = u(s.t + 0.5 * h);
        sim.set_force(&uk).unwrap();
        let q0 = s.q;
        sim.step(&mut s).unwrap();
        work += uk.dot(&(s.q - q0));
        worst = worst.max((energy(&s) - e0 - work).abs());
    }
    worst
}

fn slope(coarse: f64, fine: f64) -> f64 {
    (coarse / fine).log2()
}

#[test]
fn energy_balance_shrinks_at_each_sim_order() {
    let (sys, fast) = (system(Actuated::new(Slow)), FastParams::default());
    let s1 = |h| Sim1::new(sys, h, fast).unwrap();
    let s2 = |h| Sim2::new(sys, h, fast).unwrap();
    let s4 = |h| Sim4::new(sys, h, fast).unwrap();
    let (h, hf) = (0.02, 0.01);
    let fits = [
        ("sim1", 1, balance(s1(h), h), balance(s1(hf), hf)),
        ("sim2", 2, balance(s2(h), h), balance(s2(hf), hf)),
        ("sim4", 4, balance(s4(h), h), balance(s4(hf), hf)),
    ];
    for (name, order, coarse, fine) in fits {
        let p = slope(coarse, fine);
        println!(
            "figure forcing.energy_balance_order.{name} {p:.2} (|dE-W| {coarse:.2e} -> {fine:.2e})"
        );
        assert!(fine < 1e-2, "{name}: balance {fine:.2e}");
        assert!(
            (p - order as f64).abs() <= 0.35,
            "{name}: balance shrinks at order {p:.2}, method order {order}"
        );
    }
}

#[test]
fn zero_force_is_bit_identical_to_the_plain_slow_potential() {
    let h = 0.05;
    let fast = FastParams::default();
    let mut plain = Sim2::new(system(Slow), h, fast).unwrap();
    let mut held = Sim2::new(system(Actuated::new(Slow)), h, fast).unwrap();
    let (mut a, mut b) = (start(), start());
    for _ in 0..1000 {
        plain.step(&mut a).unwrap();
        held.set_force(&SVector::zeros()).unwrap();
        held.step(&mut b).unwrap();
    }
    assert_eq!(a, b);
}

#[test]
fn a_changed_force_is_used_by_the_next_step_and_nan_is_refused() {
    let h = 0.05;
    let (sys, fast) = (system(Actuated::new(Slow)), FastParams::default());
    let mut sim = Sim2::new(sys, h, fast).unwrap();
    let mut s = start();
    sim.step(&mut s).unwrap();
    // Sim2 caches the slow force at the end of a step: a new force must not reuse it.
    let (mut pushed, mut reference) = (s, s);
    sim.set_force(&vector![0.0, 1.0]).unwrap();
    sim.step(&mut pushed).unwrap();
    let mut fresh = Sim2::new(sys, h, fast).unwrap();
    fresh.set_force(&vector![0.0, 1.0]).unwrap();
    fresh.step(&mut reference).unwrap();
    assert_eq!(pushed, reference);

    let before = (pushed, *sim.force());
    assert_eq!(
        sim.set_force(&vector![f64::NAN, 0.0]),
        Err(StepError::NonFiniteForce)
    );
    assert_eq!((pushed, *sim.force()), before);
}
