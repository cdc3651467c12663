//! `reproduce bdf2`: RATTLE (VR) against the BDF2 baseline on the spring chain of 001 §7.3
//! (Figs 3–5): endpoint error and endpoint energy error at `t = 10` against the step (log–log,
//! with the slopes), and the energy over `[0, 100]` at `h = 0.01`.

use crate::experiments::Experiment;
use crate::plot::{emit, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::say;
use macrostep::constrained::{Bdf2, ConstraintNewtonParams, Rattle};
use macrostep::model::Constraint;
use macrostep::systems::SpringChain;
use macrostep::{Integrator, State};

/// What to run.
pub struct Setup {
    /// Steps of the error study (001 Fig 3–4 range).
    pub hs: Vec<f64>,
    /// Step of the converged reference (RATTLE).
    pub h_ref: f64,
    /// End of the error study.
    pub t_end: f64,
    /// End of the energy-over-time run at `h = 0.01` (001 Fig 5: 100).
    pub t_long: f64,
}

impl Setup {
    /// 001 §7.3: `t = 10`, `h` from 0.1 down to 0.0016, energy over `[0, 100]`.
    pub fn paper() -> Self {
        Self {
            hs: vec![0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125, 0.0015625],
            h_ref: 1e-4,
            t_end: 10.0,
            t_long: 100.0,
        }
    }
    /// A CI-sized run.
    pub fn quick() -> Self {
        Self {
            hs: vec![0.1, 0.05, 0.025, 0.0125],
            h_ref: 1e-3,
            t_end: 2.0,
            t_long: 10.0,
        }
    }
}

/// One method's rows of the study.
#[derive(Clone, Debug)]
pub struct MethodResults {
    /// Figure name of the method.
    pub name: &'static str,
    /// `max |q − q_ref|` at `t_end`, per step.
    pub error: Vec<f64>,
    /// `|E(t_end) − E₀|`, per step.
    pub energy_error: Vec<f64>,
    /// `(t, E − E₀)` at `h = 0.01` over `[0, t_long]`.
    pub energy_curve: Vec<(f64, f64)>,
    /// `max |g'(q)v|` over the long run (hidden constraint).
    pub max_hidden: f64,
}

/// The study's results.
#[derive(Clone, Debug)]
pub struct Results {
    /// The steps.
    pub hs: Vec<f64>,
    /// RATTLE, then BDF2.
    pub methods: Vec<MethodResults>,
}

fn params() -> ConstraintNewtonParams<f64> {
    ConstraintNewtonParams {
        tol: 1e-12,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    }
}

/// Runs `integ` to `t_end` with `n` steps; the endpoint, and every `(t, E − E₀, |g'v|)`.
fn run<I: Integrator<f64, 12>>(mut integ: I, n: usize) -> (State<f64, 12>, Vec<(f64, f64, f64)>) {
    let sc = SpringChain::<f64>::paper();
    let (sys, g) = (sc.system(), sc.constraint());
    let mut s = sc.initial_state();
    let e0 = sys.energy(&s);
    let mut curve = Vec::with_capacity(n);
    for _ in 0..n {
        integ.step(&mut s).expect("spring chain step");
        curve.push((s.t, sys.energy(&s) - e0, (g.jacobian(&s.q) * s.v).amax()));
    }
    (s, curve)
}

fn method<I: Integrator<f64, 12>>(
    name: &'static str,
    make: impl Fn(f64) -> I,
    setup: &Setup,
    reference: &State<f64, 12>,
) -> MethodResults {
    let (mut error, mut energy_error) = (Vec::new(), Vec::new());
    for &h in &setup.hs {
        let (s, curve) = run(make(h), (setup.t_end / h).round() as usize);
        error.push((s.q - reference.q).amax());
        energy_error.push(curve.last().map_or(0.0, |c| c.1.abs()));
    }
    let (_, long) = run(make(0.01), (setup.t_long / 0.01).round() as usize);
    MethodResults {
        name,
        error,
        energy_error,
        energy_curve: long.iter().map(|c| (c.0, c.1)).collect(),
        max_hidden: long.iter().map(|c| c.2).fold(0.0, f64::max),
    }
}

/// Runs the study.
pub fn compute(setup: &Setup) -> Results {
    let sc = SpringChain::<f64>::paper();
    let (sys, g) = (sc.system(), sc.constraint());
    let rattle = |h| Rattle::new(sys, g, h, params()).expect("valid");
    let bdf2 = |h| Bdf2::new(sys, g, h, params()).expect("valid");
    let (reference, _) = run(
        rattle(setup.h_ref),
        (setup.t_end / setup.h_ref).round() as usize,
    );
    Results {
        hs: setup.hs.clone(),
        methods: vec![
            method("rattle", rattle, setup, &reference),
            method("bdf2", bdf2, setup, &reference),
        ],
    }
}

/// Prints the tables and figures; `--plot` draws 001 Figs 3–5.
pub fn report(r: &Results, out: &Output) {
    say!(
        out,
        "001 §7.3 spring chain (6 nodes, 5 rods, κ = 1): RATTLE (VR) vs BDF2 (eqs 35–37)"
    );
    let t = Table::new(out, &["h", "err VR", "err BDF2", "|dE| VR", "|dE| BDF2"]);
    let (vr, bdf) = (&r.methods[0], &r.methods[1]);
    for (i, h) in r.hs.iter().enumerate() {
        t.row(&[
            format!("{h}"),
            sci(vr.error[i]),
            sci(bdf.error[i]),
            sci(vr.energy_error[i]),
            sci(bdf.energy_error[i]),
        ]);
    }
    // The order from the three smallest steps (the large ones are pre-asymptotic: errors O(1)).
    let k = r.hs.len().saturating_sub(3);
    let order = |e: &[f64]| crate::measure::loglog_slope(&r.hs[k..], &e[k..]);
    for m in &r.methods {
        let max_de = m.energy_curve.iter().map(|c| c.1.abs()).fold(0.0, f64::max);
        say!(
            out,
            "{}: error slope (3 smallest h) {:.3}, max |E − E0| over the long run at h = 0.01 {}, max |g'v| {}",
            m.name,
            order(&m.error),
            sci(max_de),
            sci(m.max_hidden)
        );
        figure(&format!("bdf2.spring.{}.order", m.name), order(&m.error));
        figure(
            &format!("bdf2.spring.{}.long_max_energy_err", m.name),
            max_de,
        );
        figure(
            &format!("bdf2.spring.{}.max_hidden_residual", m.name),
            m.max_hidden,
        );
    }
    let last = r.hs.len() - 1;
    figure(
        "bdf2.spring.error_ratio_bdf2_over_rattle",
        bdf.error[last] / vr.error[last],
    );
    figure(
        "bdf2.spring.energy_error_ratio_bdf2_over_rattle",
        bdf.energy_error[last] / vr.energy_error[last],
    );
    plots(r, out);
}

fn plots(r: &Results, out: &Output) {
    let curves = |f: &dyn Fn(&MethodResults) -> Vec<(f64, f64)>| -> Vec<Series> {
        r.methods
            .iter()
            .map(|m| Series {
                label: m.name.to_uppercase(),
                points: f(m),
            })
            .collect()
    };
    let vs_h = |v: &[f64]| r.hs.iter().copied().zip(v.iter().copied()).collect();
    emit(
        out,
        &Chart {
            stem: "bdf2.fig3_error".into(),
            title: "001 Fig 3: endpoint error vs step, spring chain".into(),
            x_label: "h".into(),
            y_label: "max |q - q_ref| at t_end".into(),
            log_x: true,
            log_y: true,
            series: curves(&|m| vs_h(&m.error)),
        },
    );
    emit(
        out,
        &Chart {
            stem: "bdf2.fig4_energy_error".into(),
            title: "001 Fig 4: endpoint energy error vs step".into(),
            x_label: "h".into(),
            y_label: "|E(t_end) - E0|".into(),
            log_x: true,
            log_y: true,
            series: curves(&|m| vs_h(&m.energy_error)),
        },
    );
    emit(
        out,
        &Chart {
            stem: "bdf2.fig5_energy".into(),
            title: "001 Fig 5: energy error over time, h = 0.01".into(),
            x_label: "t".into(),
            y_label: "E - E0".into(),
            log_x: false,
            log_y: false,
            series: curves(&|m| m.energy_curve.iter().step_by(10).copied().collect()),
        },
    );
}

/// `reproduce bdf2` (`--quick`: the reduced setup).
pub struct Bdf2Experiment;

impl Experiment for Bdf2Experiment {
    const NAME: &'static str = "bdf2";
    const SEED: &'static str = "001 §7.3 Figs 3–5";
    const SECONDS: f64 = 1.0;
    const ABOUT: &'static str = "001 §7.3 Figs 3–5: RATTLE vs the BDF2 baseline on the spring chain (error, energy error, energy over time)";
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
