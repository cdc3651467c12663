//! The origin study of `reproduce guards`: the penalised double pendulum of the guards experiment
//! built by `MechanismBuilder` with its pivot pinned at `[0, Y]` (gravity's zero level `Y` below
//! the pivot), and the same pendulum under a random held force per run. The guards see the
//! energy `K + V`, which moves with the origin (`V = Σ m g y`) and, under a held force `u`, with
//! `−uᵀq`; what they bound must not.
//!
//! Counted per origin and method over seeded at-rest starts: runs that return an `Ok` step with
//! `|ΔE| > 1` or `|g| > 0.1` before an `Err` (garbage, must be 0); under a held force the drift is
//! `|E − E₀ − W|` with `W = Σ uᵀΔq`. At a step where the unguarded runs stay bounded
//! (`h = 0.02`, `hω = 0.4`), runs the guards stop although the unguarded run ends clean (false
//! alarms).

use crate::report::{figure, figure_int, Output};
use crate::say;
use macrostep::forcing::{Actuate, Actuated};
use macrostep::mechanism::{LinkagePenalty, MechanismBuilder};
use macrostep::model::{Constraint, System};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State, Stepper};
use nalgebra::SVector;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// The pivot heights of the study.
pub const ORIGINS: [f64; 3] = [0.0, 10.0, 1000.0];
/// The diverging step (the guards experiment's) and the bounded one.
pub const H_DIVERGING: f64 = 0.1;
/// A step at which the unguarded runs stay bounded.
pub const H_BOUNDED: f64 = 0.02;
/// The accurate reference's step (`hω = 0.02`).
pub const H_REFERENCE: f64 = 1e-3;

/// Counts of one method at one setting.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Runs with an `Ok` step beyond the garbage bounds before any `Err` (at `H_DIVERGING`).
    pub garbage: usize,
    /// Runs the guards stopped at `H_BOUNDED` although the unguarded run ends clean.
    pub false_alarms: usize,
    /// Runs that ended in an `Err` at `H_DIVERGING`.
    pub errors: usize,
    /// Of the garbage runs, those with an `Ok` step beyond the energy bound (`|ΔE| > 1`, under a
    /// held force `|E − E₀ − W| > 1`); the rest are garbage by `|g| > 0.1` alone.
    pub garbage_energy: usize,
    /// Of the garbage runs, those whose unguarded run at `H_BOUNDED` is beyond the garbage
    /// bounds too. Not an accurate reference: `H_BOUNDED` is `hω = 0.4`, and its 1,000 steps
    /// cover a fifth of the time of the run at `H_DIVERGING`.
    pub garbage_at_bounded: usize,
    /// Of the garbage runs, those whose accurate run (Z&S at `H_REFERENCE`, guards off) of the
    /// same start stays within the garbage bounds up to the first garbage step's time.
    pub garbage_reference_clean: usize,
    /// The largest `|E − E₀ − W|` of those accurate runs.
    pub reference_drift: f64,
}

/// One row: a setting (pivot height, or the held force) and a method.
#[derive(Clone, Debug)]
pub struct Row {
    /// `y<Y>` or `held_force`.
    pub setting: String,
    /// `zs` or `sylipn`.
    pub method: &'static str,
    /// What was counted.
    pub counts: Counts,
}

type Pen = System<f64, LinkagePenalty<f64, 2, 4, 2>, 4>;
type Forced = System<f64, Actuated<f64, LinkagePenalty<f64, 2, 4, 2>, 4>, 4>;

/// `DoublePendulum::paper()` (unit masses, rods 1 and √2, g = 1) pinned at `[0, y]`, penalised
/// at ω = 20, at rest at angles `(θ, φ)`.
pub fn pendulum(y: f64, theta: f64, phi: f64) -> (Pen, State<f64, 4>) {
    let q = DoublePendulum::<f64>::paper().from_angles(theta, phi);
    let mut b = MechanismBuilder::<f64, 2, 4, 2>::new().expect("valid");
    let n1 = b.node(1.0, [q[0], q[1] + y]).expect("valid");
    let n2 = b.node(1.0, [q[2], q[3] + y]).expect("valid");
    b.pin(n1, [0.0, y]).expect("valid");
    b.rod(n1, n2).expect("valid");
    b.gravity(1.0).expect("valid");
    let mech = b.build().expect("valid");
    (mech.penalised(20.0).expect("valid"), mech.initial_state())
}

/// How a run went: whether it ended in an `Err`, and its worst `Ok` drift and residual before.
struct Outcome {
    err: bool,
    de: f64,
    g: f64,
    /// The number of steps up to the first garbage step.
    first_garbage: Option<usize>,
}

impl Outcome {
    fn garbage(&self) -> bool {
        self.de > 1.0 || self.g > 0.1
    }
}

/// Steps `integ` from `s0` under the held force `u` (zero: no force) until an `Err` or `steps`.
fn run<I: Integrator<f64, 4>>(
    mut integ: I,
    sys: &Pen,
    s0: State<f64, 4>,
    u: &SVector<f64, 4>,
    steps: usize,
) -> Outcome {
    let mut s = s0;
    let e0 = sys.energy(&s);
    let mut o = Outcome {
        err: false,
        de: 0.0,
        g: 0.0,
        first_garbage: None,
    };
    let mut w = 0.0;
    for k in 1..=steps {
        let q = s.q;
        if integ.step(&mut s).is_err() {
            o.err = true;
            return o;
        }
        w += u.dot(&(s.q - q));
        o.de = o.de.max((sys.energy(&s) - e0 - w).abs());
        o.g = o.g.max(sys.potential.constraint.value(&s.q).amax());
        if o.first_garbage.is_none() && o.garbage() {
            o.first_garbage = Some(k);
        }
    }
    o
}

/// A method on the forced pendulum at step `h` with `guards`, the force set.
fn method(
    name: &str,
    sys: &Pen,
    h: f64,
    guards: Guards<f64>,
    u: &SVector<f64, 4>,
) -> Box<dyn FnOnce(State<f64, 4>, usize) -> Outcome> {
    let forced: Forced = System::new(sys.mass, Actuated::new(sys.potential));
    let (sys, u) = (*sys, *u);
    let p = ZsParams::default();
    if name == "zs" {
        let mut m = ZhangSkeel::new(forced, h, p).expect("valid");
        m.set_guards(guards).expect("valid");
        m.set_force(&u).expect("finite");
        Box::new(move |s0, steps| run(m, &sys, s0, &u, steps))
    } else {
        let mut m = Sylipn::new(forced, h, p).expect("valid");
        m.set_guards(guards).expect("valid");
        m.set_force(&u).expect("finite");
        Box::new(move |s0, steps| run(m, &sys, s0, &u, steps))
    }
}

/// One setting (pivot `y`, random held forces of components up to `force` when `force > 0`)
/// and one method over `starts` seeded starts of `steps` steps.
fn counts(name: &'static str, y: f64, force: f64, starts: usize, steps: usize) -> Counts {
    let mut rng = Pcg64::seed_from_u64(26);
    let mut c = Counts::default();
    for _ in 0..starts {
        let th = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let ph = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let mut u = SVector::<f64, 4>::zeros();
        if force > 0.0 {
            u = u.map(|_| rng.random_range(-force..force));
        }
        let (sys, s0) = pendulum(y, th, ph);
        let r = method(name, &sys, H_DIVERGING, Guards::default(), &u)(s0, steps);
        c.errors += usize::from(r.err);
        c.garbage += usize::from(r.garbage());
        c.garbage_energy += usize::from(r.de > 1.0);
        if let Some(k) = r.first_garbage {
            let raw = method(name, &sys, H_BOUNDED, Guards::off(), &u)(s0, steps);
            c.garbage_at_bounded += usize::from(raw.garbage());
            // The accurate run over the same time: `k` steps of `H_DIVERGING`.
            let fine = (k as f64 * H_DIVERGING / H_REFERENCE).round() as usize;
            let reference = method("zs", &sys, H_REFERENCE, Guards::off(), &u)(s0, fine);
            c.garbage_reference_clean += usize::from(!reference.err && !reference.garbage());
            c.reference_drift = c.reference_drift.max(reference.de);
        }
        let r = method(name, &sys, H_BOUNDED, Guards::default(), &u)(s0, steps);
        if r.err {
            let raw = method(name, &sys, H_BOUNDED, Guards::off(), &u)(s0, steps);
            c.false_alarms += usize::from(!raw.err && !raw.garbage());
        }
    }
    c
}

/// Runs the study: every origin and the held force (pivot at the origin, components of `u` in
/// `[−5, 5]`), Z&S and SyLiPN.
pub fn compute(starts: usize, steps: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let settings = ORIGINS.iter().map(|&y| (format!("y{y}"), y, 0.0)).chain([(
        "held_force".to_string(),
        0.0,
        5.0,
    )]);
    for (setting, y, force) in settings {
        for name in ["zs", "sylipn"] {
            rows.push(Row {
                setting: setting.clone(),
                method: name,
                counts: counts(name, y, force, starts, steps),
            });
        }
    }
    rows
}

/// Prints the table and the figures `guards.origin.y<Y>.*`, `guards.held_force.*`.
pub fn report(rows: &[Row], out: &Output) {
    say!(
        out,
        "origin study: the pendulum pinned at [0, Y] (and at the origin under a random held force), h = {H_DIVERGING} (garbage, errors) and h = {H_BOUNDED} (false alarms)"
    );
    say!(
        out,
        "{:<12} {:<8} {:>8} {:>8} {:>13} {:>8} {:>10}",
        "setting",
        "method",
        "garbage",
        "errors",
        "false alarms",
        "|ΔE| > 1",
        "also h=0.02"
    );
    for r in rows {
        say!(
            out,
            "{:<12} {:<8} {:>8} {:>8} {:>13} {:>8} {:>10}",
            r.setting,
            r.method,
            r.counts.garbage,
            r.counts.errors,
            r.counts.false_alarms,
            r.counts.garbage_energy,
            r.counts.garbage_at_bounded
        );
    }
    let mut settings: Vec<&str> = rows.iter().map(|r| r.setting.as_str()).collect();
    settings.dedup();
    for setting in settings {
        let prefix = if setting == "held_force" {
            "guards.held_force".to_string()
        } else {
            format!("guards.origin.{setting}")
        };
        let of = |f: fn(&Counts) -> usize| {
            rows.iter()
                .filter(|r| r.setting == setting)
                .map(|r| f(&r.counts))
                .sum::<usize>() as i64
        };
        figure_int(&format!("{prefix}.garbage_runs"), of(|c| c.garbage));
        figure_int(&format!("{prefix}.false_alarms"), of(|c| c.false_alarms));
        figure_int(
            &format!("{prefix}.energy_garbage_runs"),
            of(|c| c.garbage_energy),
        );
        figure_int(
            &format!("{prefix}.garbage_runs_also_at_bounded_step"),
            of(|c| c.garbage_at_bounded),
        );
        figure_int(
            &format!("{prefix}.garbage_runs_reference_clean"),
            of(|c| c.garbage_reference_clean),
        );
        let drift = rows
            .iter()
            .filter(|r| r.setting == setting)
            .map(|r| r.counts.reference_drift)
            .fold(0.0, f64::max);
        figure(&format!("{prefix}.garbage_reference_max_drift"), drift);
        for r in rows.iter().filter(|r| r.setting == setting) {
            figure_int(
                &format!("{prefix}.{}.garbage_runs", r.method),
                r.counts.garbage as i64,
            );
        }
    }
}
