//! The cost of the step guards: guarded ÷ unguarded time per step of the same integrator on the
//! same trajectory (the penalised double pendulum of 000 §4.1 from its paper start), at equal
//! step: thread CPU time, medians of interleaved rotated rounds ([`crate::timing`]) so every
//! side sees the same machine load. The criterion group
//! `guards/overhead` (`benches/guards.rs`) measures the same pairs.

use crate::timing::{compare, Timing};
use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{ConstraintNewtonParams as RattleNewton, Rattle};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State};

/// Guarded ÷ unguarded step time of one method (and with only the residual guard on).
#[derive(Clone, Copy, Debug)]
pub struct Overhead {
    /// The method's figure name.
    pub name: &'static str,
    /// Median unguarded time per step, ns.
    pub ns_unguarded: f64,
    /// Default guards ÷ unguarded.
    pub ratio: f64,
    /// Residual guard only (energy guards off) ÷ unguarded.
    pub ratio_residual_only: f64,
}

/// The default guards without the energy guards: what a caller pays for the residual check
/// and the clock alone.
pub fn residual_only() -> Guards<f64> {
    Guards {
        energy_run: None,
        energy_step: None,
        ..Guards::default()
    }
}

/// `steps` steps from `s0` (the run restarts from `s0` when a step fails, which the paper
/// start at these steps never does).
fn run<I: Integrator<f64, 4>>(integ: &mut I, s0: &State<f64, 4>, steps: usize) {
    let mut s = *s0;
    for _ in 0..steps {
        if integ.step(&mut s).is_err() {
            s = *s0;
        }
    }
    std::hint::black_box(s);
}

/// Times the three guard settings of `integ` against each other in `reps` rounds.
fn measure<I: Integrator<f64, 4> + Clone>(
    name: &'static str,
    integ: I,
    s0: &State<f64, 4>,
    steps: usize,
    reps: usize,
) -> Overhead {
    let mut on = integ.clone();
    let mut off = integ.clone().with_guards(Guards::off()).expect("valid");
    let mut res = integ.with_guards(residual_only()).expect("valid");
    let t = compare(
        &mut [
            &mut || run(&mut on, s0, steps),
            &mut || run(&mut off, s0, steps),
            &mut || run(&mut res, s0, steps),
        ],
        &Timing::rounds(reps),
    );
    let (a, b, c) = (t[0].median, t[1].median, t[2].median);
    Overhead {
        name,
        ns_unguarded: b / steps as f64 * 1e9,
        ratio: a / b,
        ratio_residual_only: c / b,
    }
}

/// Overheads of velocity Verlet, Z&S, SyLiPN (penalised, ω = 20) and RATTLE (exact rods).
pub fn compute(steps: usize, reps: usize) -> Vec<Overhead> {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(20.0).expect("valid");
    let s0 = dp.initial_state();
    let p = ZsParams::default();
    let rattle =
        Rattle::new(dp.system(), dp.constraint(), 0.01, RattleNewton::default()).expect("valid");
    vec![
        measure(
            "verlet",
            VelocityVerlet::new(sys, 0.005).expect("valid"),
            &s0,
            steps,
            reps,
        ),
        measure(
            "zs",
            ZhangSkeel::new(sys, 0.03, p).expect("valid"),
            &s0,
            steps,
            reps,
        ),
        measure(
            "sylipn",
            Sylipn::new(sys, 0.03, p).expect("valid"),
            &s0,
            steps,
            reps,
        ),
        measure("rattle", rattle, &s0, steps, reps),
    ]
}
