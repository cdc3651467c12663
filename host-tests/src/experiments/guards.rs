//! `reproduce guards`: what the step guards and the recovery wrapper do on a diverging
//! setting (penalised double pendulum, `DoublePendulum::paper()`, ω = 20, β = 0.4, h = 0.1,
//! started at rest from random angles), and the `f32` clock.
//!
//! "Silent garbage" is a run that ends with every step `Ok` but max `|g|` > 0.1 or `|ΔE|` > 1
//! somewhere on the way (with the guards off, Z&S and SyLiPN return hundreds of such steps: the
//! `garbage w/o guards` column). With the default guards the count must be 0.

use super::guards_overhead::Overhead;
use crate::experiments::Experiment;
use crate::report::{figure, figure_int, Output};
use crate::say;
use macrostep::driver::Method;
use macrostep::model::{Constraint, Penalty, Split, System, Zero};
use macrostep::recover::Recovering;
use macrostep::systems::{DoublePendulum, GravityPenalty};
use macrostep::zs::{Newmark, NewmarkParams, StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State, Stepper};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// What to run.
pub struct Setup {
    /// Random at-rest starts.
    pub starts: usize,
    /// Steps per run.
    pub steps: usize,
    /// Steps of the `f32` clock check.
    pub clock_steps: u64,
    /// Steps per timed run and interleaved repeats of the overhead measurement.
    pub overhead: (usize, usize),
    /// Starts and steps per run of the origin study ([`super::guards_origin`]).
    pub origin: (usize, usize),
}

impl Setup {
    /// The full setting: 1,000 starts × 1,000 steps; 10⁷ clock steps.
    pub fn paper() -> Self {
        Self {
            starts: 1000,
            steps: 1000,
            clock_steps: 10_000_000,
            overhead: (20_000, 21),
            origin: (1000, 1000),
        }
    }
    /// A CI-sized setting.
    pub fn quick() -> Self {
        Self {
            starts: 40,
            steps: 1000,
            clock_steps: 1_000_000,
            overhead: (2_000, 5),
            origin: (6, 300),
        }
    }
}

/// Outcome counts of one method over the starts.
#[derive(Clone, Debug, Default)]
pub struct MethodCounts {
    /// The method's name.
    pub name: &'static str,
    /// Runs that completed every step `Ok` within the garbage bounds.
    pub clean: usize,
    /// Runs that ended in a typed error.
    pub errors: usize,
    /// Runs with every step `Ok` but max |g| > 0.1 or |ΔE| > 1 (must be 0 with guards).
    pub silent_garbage: usize,
    /// The same count with guards off (what the guards prevent).
    pub silent_garbage_unguarded: usize,
    /// Runs the guards stopped although the unguarded run ends clean (all `Ok`, within bounds).
    pub false_alarms: usize,
    /// Of the runs that errored, how many the recovery wrapper (depth 6) carried through cleanly.
    pub recovered: usize,
}

/// What the experiment measured.
pub struct Results {
    /// Per method.
    pub methods: Vec<MethodCounts>,
    /// |t − n·h| / (n·h) of the guarded f32 clock after `clock_steps` steps of 0.1.
    pub f32_clock_rel_err: f64,
    /// The same for plain `t += h` in f32.
    pub f32_naive_rel_err: f64,
    /// Guarded ÷ unguarded step time per method.
    pub overhead: Vec<Overhead>,
    /// The origin study: per pivot height (and held force) and method.
    pub origin: Vec<super::guards_origin::Row>,
}

type Sys = System<f64, GravityPenalty<f64, 4, 2>, 4>;

/// How a run ended: `Err`, or `Ok` with its worst |g| and |ΔE|.
fn run<I: Integrator<f64, 4>>(
    mut integ: I,
    dp: &DoublePendulum<f64>,
    sys: &Sys,
    s0: State<f64, 4>,
    steps: usize,
) -> Option<(f64, f64)> {
    let mut s = s0;
    let e0 = sys.energy(&s);
    let (mut g, mut de) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        integ.step(&mut s).ok()?;
        g = g.max(dp.constraint().value(&s.q).amax());
        de = de.max((sys.energy(&s) - e0).abs());
    }
    Some((g, de))
}

fn garbage(r: Option<(f64, f64)>) -> bool {
    matches!(r, Some((g, de)) if g > 0.1 || de > 1.0)
}

/// One method over every start: guarded, unguarded, and recovered.
fn count<I: Method<f64, 4> + Clone>(
    name: &'static str,
    integ: I,
    dp: &DoublePendulum<f64>,
    sys: &Sys,
    starts: &[State<f64, 4>],
    steps: usize,
) -> MethodCounts {
    let mut c = MethodCounts {
        name,
        ..Default::default()
    };
    let off = integ
        .clone()
        .with_guards(Guards::off())
        .expect("guards off");
    for &s0 in starts {
        let r = run(integ.clone(), dp, sys, s0, steps);
        let raw = run(off.clone(), dp, sys, s0, steps);
        if r.is_none() && raw.is_some() && !garbage(raw) {
            c.false_alarms += 1;
        }
        match r {
            None => {
                c.errors += 1;
                let rec = Recovering::new(integ.clone(), 6).expect("depth 6");
                let rr = run(rec, dp, sys, s0, steps);
                if rr.is_some() && !garbage(rr) {
                    c.recovered += 1;
                }
            }
            Some(_) if garbage(r) => c.silent_garbage += 1,
            Some(_) => c.clean += 1,
        }
        if garbage(raw) {
            c.silent_garbage_unguarded += 1;
        }
    }
    c
}

/// Runs the study.
pub fn compute(setup: &Setup) -> Results {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(20.0).expect("valid");
    let mut rng = Pcg64::seed_from_u64(12);
    let starts: Vec<State<f64, 4>> = (0..setup.starts)
        .map(|_| {
            let th = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
            let ph = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
            State::at_rest(dp.from_angles(th, ph))
        })
        .collect();
    let (h, p) = (0.1, ZsParams::default());
    // Stiff Z&Ss: gravity soft, the penalty alone stiff (its Hessian is the only one solved).
    let stiff = Penalty::new(Zero, dp.constraint(), 20.0).expect("valid");
    let split = System::new(sys.mass, Split::new(dp.system().potential, stiff, 1.0));
    let methods = vec![
        count(
            "zs",
            ZhangSkeel::new(sys, h, p).expect("valid"),
            &dp,
            &sys,
            &starts,
            setup.steps,
        ),
        count(
            "sylipn",
            Sylipn::new(sys, h, p).expect("valid"),
            &dp,
            &sys,
            &starts,
            setup.steps,
        ),
        count(
            "stiff_sylipn",
            StiffSylipn::new(split, h, p).expect("valid"),
            &dp,
            &sys,
            &starts,
            setup.steps,
        ),
        count(
            "newmark",
            Newmark::new(sys, h, NewmarkParams::with_beta(p.beta)).expect("valid"),
            &dp,
            &sys,
            &starts,
            setup.steps,
        ),
    ];
    let (clock, naive) = f32_clock(setup.clock_steps);
    Results {
        methods,
        f32_clock_rel_err: clock,
        f32_naive_rel_err: naive,
        overhead: super::guards_overhead::compute(setup.overhead.0, setup.overhead.1),
        origin: super::guards_origin::compute(setup.origin.0, setup.origin.1),
    }
}

/// The guarded clock and plain summation after `n` steps of 0.1 in f32 (free particle).
fn f32_clock(n: u64) -> (f64, f64) {
    let osc = macrostep::systems::HarmonicOscillator::<f32, 1>::isotropic(1e-3).expect("valid");
    let mut vv = macrostep::baselines::VelocityVerlet::new(osc.system(), 0.1).expect("valid");
    let mut s = State::at_rest(nalgebra::vector![0.0f32]);
    let mut naive = 0.0f32;
    for _ in 0..n {
        vv.step(&mut s).expect("clock step");
        naive += 0.1;
    }
    let exact = n as f64 * 0.1f32 as f64;
    (
        (s.t as f64 - exact).abs() / exact,
        (naive as f64 - exact).abs() / exact,
    )
}

/// Prints the table and the figures.
pub fn report(r: &Results, out: &Output) {
    say!(out, "diverging setting: penalised double pendulum ω = 20, β = 0.4, h = 0.1, random at-rest starts");
    say!(
        out,
        "{:<14} {:>6} {:>7} {:>15} {:>20} {:>10} {:>13}",
        "method",
        "clean",
        "errors",
        "silent garbage",
        "garbage w/o guards",
        "recovered",
        "false alarms"
    );
    for m in &r.methods {
        say!(
            out,
            "{:<14} {:>6} {:>7} {:>15} {:>20} {:>10} {:>13}",
            m.name,
            m.clean,
            m.errors,
            m.silent_garbage,
            m.silent_garbage_unguarded,
            m.recovered,
            m.false_alarms
        );
    }
    let count = |f: fn(&MethodCounts) -> usize| r.methods.iter().map(f).sum::<usize>() as i64;
    say!(
        out,
        "f32 clock after the steps: guarded rel err {:.2e}, plain t += h {:.2e}",
        r.f32_clock_rel_err,
        r.f32_naive_rel_err
    );
    figure_int(
        "guards.dp_random_starts.silent_garbage",
        count(|m| m.silent_garbage),
    );
    figure_int(
        "guards.dp_random_starts.silent_garbage_unguarded",
        count(|m| m.silent_garbage_unguarded),
    );
    figure_int("guards.dp_random_starts.recovered", count(|m| m.recovered));
    figure_int(
        "guards.dp_random_starts.false_alarms",
        count(|m| m.false_alarms),
    );
    for m in &r.methods {
        figure_int(
            &format!("guards.dp_random_starts.{}.errors", m.name),
            m.errors as i64,
        );
        figure_int(
            &format!("guards.dp_random_starts.{}.recovered", m.name),
            m.recovered as i64,
        );
    }
    figure("guards.f32_clock_rel_err", r.f32_clock_rel_err);
    figure("guards.f32_naive_clock_rel_err", r.f32_naive_rel_err);
    report_overhead(&r.overhead, out);
    super::guards_origin::report(&r.origin, out);
}

/// The overhead table; `guards.overhead` is the Z&S ratio (the headline figure).
fn report_overhead(o: &[Overhead], out: &Output) {
    say!(
        out,
        "guard overhead (median of interleaved repeats, double pendulum, same trajectory):"
    );
    say!(
        out,
        "{:<8} {:>14} {:>16} {:>22}",
        "method",
        "ns/step (off)",
        "default ÷ off",
        "residual only ÷ off"
    );
    for m in o {
        say!(
            out,
            "{:<8} {:>14.1} {:>16.3} {:>22.3}",
            m.name,
            m.ns_unguarded,
            m.ratio,
            m.ratio_residual_only
        );
    }
    if let Some(zs) = o.iter().find(|m| m.name == "zs") {
        figure("guards.overhead", zs.ratio);
    }
    for m in o {
        figure(&format!("guards.overhead.{}", m.name), m.ratio);
        figure(
            &format!("guards.overhead.{}.residual_only", m.name),
            m.ratio_residual_only,
        );
    }
}

/// `reproduce guards` (`--quick`: the reduced setup).
pub struct GuardsExperiment;

impl Experiment for GuardsExperiment {
    const NAME: &'static str = "guards";
    const SEED: &'static str = "000 §4.1 (random at-rest starts)";
    const SECONDS: f64 = 2.0;
    const ABOUT: &'static str =
        "step guards on a diverging double pendulum (silent garbage, recovery) and the f32 clock";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
