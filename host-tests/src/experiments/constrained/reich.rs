//! `reproduce reich`: Reich's 4th-order constrained Yoshida composition vs RATTLE on the
//! pendulum (002 §5, Tables 1–2).

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Reich4, Stage};
use macrostep::model::Potential;
use macrostep::model::System;
use macrostep::systems::Pendulum;
use macrostep::{Integrator, State};

/// The published "Yoshida" row of 002 Tables 1–2.
const REICH_YOSHIDA: [(&str, f64); 5] = [
    ("h0.04T.py_T", 0.077),
    ("h0.04T.py_2T", 0.15),
    ("h0.04T.py_4T", 0.31),
    ("h0.04T.max_dH", 0.015),
    ("h0.004T.max_dH", 0.86e-6),
];

/// `|p_y|` at `T, 2T, 4T` and `max |H − H₀|` over `[0, 4T]` (sampled at every step) for `k`
/// steps per period.
fn pendulum_run<I: Integrator<f64, 2>, P: Potential<f64, 2>>(
    integ: &mut I,
    sys: &System<f64, P, 2>,
    s0: State<f64, 2>,
    k: usize,
) -> ([f64; 3], f64) {
    let mut s = s0;
    let e0 = sys.energy(&s);
    let mut max_dh = 0.0_f64;
    let mut py = [0.0; 3];
    for n in 1..=4 * k {
        integ.step(&mut s).expect("pendulum step");
        max_dh = max_dh.max((sys.energy(&s) - e0).abs());
        match n / k {
            1 if n % k == 0 => py[0] = s.v[1].abs(),
            2 if n % k == 0 => py[1] = s.v[1].abs(),
            4 if n % k == 0 => py[2] = s.v[1].abs(),
            _ => {}
        }
    }
    (py, max_dh)
}

/// What to run.
pub struct Setup {
    /// The pendulum's period `T` (m = g = L = 1, from q = (1, 0) at rest).
    pub period: f64,
    /// The step sizes as `(label, k)`: `h = T / k`, labelled `h = <label>` in the figure names.
    /// `k = 25` is 002's `h = 0.04T`, the row whose `|p_y|` values the paper publishes.
    pub steps: Vec<(&'static str, usize)>,
}

impl Setup {
    /// 002 Tables 1–2: `h = 0.04T` and `h = 0.004T` over `[0, 4T]`.
    pub fn paper() -> Self {
        Self {
            period: 7.416298709,
            steps: vec![("0.04T", 25), ("0.004T", 250)],
        }
    }

    /// The paper setup: it runs in milliseconds, nothing to reduce.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// One step size: `|p_y|` at `T, 2T, 4T` and `max |H − H₀|` for both methods.
pub struct Row {
    /// The step label (`0.04T`).
    pub label: &'static str,
    /// Steps per period.
    pub k: usize,
    /// Reich's Yoshida composition (002 eq 27): `|p_y|` at `T, 2T, 4T`.
    pub yoshida_py: [f64; 3],
    /// Its `max |H − H₀|`.
    pub yoshida_dh: f64,
    /// RATTLE: `|p_y|` at `T, 2T, 4T`.
    pub rattle_py: [f64; 3],
    /// Its `max |H − H₀|`.
    pub rattle_dh: f64,
}

/// What the experiment measured.
pub struct Results {
    /// The period `T`.
    pub period: f64,
    /// One row per step size, in the order of [`Setup::steps`].
    pub rows: Vec<Row>,
}

/// Runs both methods at every step size.
pub fn compute(setup: &Setup) -> Results {
    let p = Pendulum::<f64>::paper();
    let sys = p.system();
    let params = ConstraintNewtonParams::default();
    let rows = setup
        .steps
        .iter()
        .map(|&(label, k)| {
            let h = setup.period / k as f64;
            let mut y4 = Reich4::new(sys, p.constraint(), h, Stage::Reich, params).expect("Reich4");
            let (yoshida_py, yoshida_dh) = pendulum_run(&mut y4, &sys, p.initial_state(), k);
            let mut ra = Rattle::new(sys, p.constraint(), h, params).expect("Rattle");
            let (rattle_py, rattle_dh) = pendulum_run(&mut ra, &sys, p.initial_state(), k);
            Row {
                label,
                k,
                yoshida_py,
                yoshida_dh,
                rattle_py,
                rattle_dh,
            }
        })
        .collect();
    Results {
        period: setup.period,
        rows,
    }
}

/// Prints the table, the `figure` lines and the ratios to the published Yoshida row.
pub fn report(r: &Results, out: &Output) {
    let period = r.period;
    crate::say!(
        out,
        "Reich 002 §5: pendulum m = g = L = 1 from q = (1, 0) at rest, T = {period}"
    );
    crate::say!(
        out,
        "Yoshida = Reich eq 27 (three constrained Verlet stages, c1 = 1/(2−2^(1/3)), one"
    );
    crate::say!(
        out,
        "velocity projection); RATTLE = scheme 24 with Verlet. Energy error sampled every step."
    );
    let table = Table::new(
        out,
        &[
            "method",
            "h",
            "|p_y(T)|",
            "|p_y(2T)|",
            "|p_y(4T)|",
            "max|dH|",
            "paper",
        ],
    );
    let mut measured = Vec::new();
    for row in &r.rows {
        let (label, k) = (row.label, row.k);
        let (py, dh) = (row.yoshida_py, row.yoshida_dh);
        let (pr, dr) = (row.rattle_py, row.rattle_dh);
        let paper = if k == 25 {
            ".77e-1 .15 .31 | .15e-1"
        } else {
            "— | .86e-6"
        };
        table.row(&[
            "Yoshida".into(),
            label.into(),
            sci(py[0]),
            sci(py[1]),
            sci(py[2]),
            sci(dh),
            paper.into(),
        ]);
        table.row(&[
            "RATTLE".into(),
            label.into(),
            sci(pr[0]),
            sci(pr[1]),
            sci(pr[2]),
            sci(dr),
            "—".into(),
        ]);
        if k == 25 {
            figure("reich.yoshida.h0.04T.py_T", py[0]);
            figure("reich.yoshida.h0.04T.py_2T", py[1]);
            figure("reich.yoshida.h0.04T.py_4T", py[2]);
            measured.extend_from_slice(&[py[0], py[1], py[2]]);
            figure("reich.rattle.h0.04T.py_T", pr[0]);
            figure("reich.rattle.h0.04T.py_2T", pr[1]);
            figure("reich.rattle.h0.04T.py_4T", pr[2]);
        }
        figure(&format!("reich.yoshida.h{label}.max_dH"), dh);
        figure(&format!("reich.rattle.h{label}.max_dH"), dr);
        measured.push(dh);
    }
    crate::say!(out);
    crate::say!(out, "ratio measured / published (Yoshida row):");
    for ((name, paper), m) in REICH_YOSHIDA.iter().zip(&measured) {
        crate::say!(out, "  {name:>16}: {:.4}", m / paper);
        figure(&format!("reich.yoshida.{name}.ratio"), m / paper);
    }
}

/// `reproduce reich`: 002 §5, Tables 1–2.
pub struct ReichExperiment;

impl Experiment for ReichExperiment {
    const NAME: &'static str = "reich";
    const SEED: &'static str = "002 §5 Tables 1–2";
    const SECONDS: f64 = 0.0;
    const ABOUT: &'static str =
        "002 §5 Tables 1–2: Reich's 4th-order constrained Yoshida composition vs RATTLE, pendulum";
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
