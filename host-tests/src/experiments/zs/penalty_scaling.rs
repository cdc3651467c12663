//! `reproduce penalty-scaling` (000 Thm 1.3 / Rem A.3 / Fig 2a): the constraint violation of
//! Z&S on the penalised double pendulum is `O(ω⁻²)`, so `ω² max|g|` stays bounded.

use super::{dp_penalised, dp_start};
use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::model::Constraint;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::Integrator;

/// `ω² max_t ‖g(q(t))‖∞` over [0, T] for Z&S (β = 0.4, h = 0.1/ω) on the penalised pendulum.
pub fn omega2_max_g(omega: f64, t_end: f64) -> f64 {
    let sys = dp_penalised(omega);
    let h = 0.1 / omega;
    let mut zs = ZhangSkeel::new(sys, h, ZsParams::with_beta(0.4)).expect("valid");
    let mut s = dp_start();
    let n = (t_end / h).round() as usize;
    let mut g = 0.0f64;
    for _ in 0..n {
        zs.step(&mut s).expect("stable");
        g = g.max(sys.potential.constraint.value(&s.q).amax());
    }
    omega * omega * g
}

/// What to run.
pub struct Setup {
    /// The stiffnesses ω.
    pub omegas: Vec<f64>,
    /// Final time.
    pub t_end: f64,
}

impl Setup {
    /// ω = 10 … 320, T = 50.
    pub fn paper() -> Self {
        Self {
            omegas: vec![10.0, 20.0, 40.0, 80.0, 160.0, 320.0],
            t_end: 50.0,
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured: `(ω, ω² max|g|)`.
pub struct Results {
    /// Per ω.
    pub rows: Vec<(f64, f64)>,
    /// Final time of the runs.
    pub t_end: f64,
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    Results {
        rows: setup
            .omegas
            .iter()
            .map(|&omega| (omega, omega2_max_g(omega, setup.t_end)))
            .collect(),
        t_end: setup.t_end,
    }
}

/// Prints the table, the chart (`--plot`, `--csv`) and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(out, &["omega", "h", "omega^2 max|g|"]);
    for &(omega, v) in &r.rows {
        t.row(&[format!("{omega}"), sci(0.1 / omega), sci(v)]);
        figure(&format!("penalty-scaling.omega{omega}.omega2_max_g"), v);
    }
    chart(r, out);
}

/// 000 Fig 2a: `ω² max|g|` against ω. Both axes logarithmic, so that the `O(ω⁻²)` scaling of
/// the constraint violation shows as a horizontal line (any other power would be a sloped one).
fn chart(r: &Results, out: &Output) {
    crate::plot::emit(
        out,
        &crate::plot::Chart {
            stem: "penalty-scaling.omega2_max_g".into(),
            title: format!(
                "000 Fig 2a: ω² max|g(q(t))| over t ≤ {} is bounded in ω (double pendulum)",
                r.t_end
            ),
            x_label: "penalty stiffness ω (log scale)".into(),
            y_label: "ω² · max over t of ‖g(q(t))‖∞, g = |rod|² − L² (log scale)".into(),
            log_x: true,
            log_y: true,
            series: vec![crate::plot::Series {
                label: "Z&S, β = 0.4, h = 0.1/ω".into(),
                points: r.rows.clone(),
            }],
        },
    );
}

/// `reproduce penalty-scaling`.
pub struct PenaltyScalingExperiment;

impl Experiment for PenaltyScalingExperiment {
    const NAME: &'static str = "penalty-scaling";
    const SEED: &'static str = "000 Thm 1.3, Fig 2a";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "000 Thm 1.3 / Rem A.3 / Fig 2a: omega^2 max|g| bounded for the penalised double pendulum";
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
