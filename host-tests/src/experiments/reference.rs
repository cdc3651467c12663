//! `reproduce reference`: self-checks of the reference solver ([`crate::reference`], adaptive
//! DOP853) and of the rigid references ([`crate::rigid`]) against closed forms and invariants.

use crate::experiments::Experiment;
use crate::reference::{self, linspace, TIGHT};
use crate::report::{figure, sci, Output, Table};
use crate::rigid::{DoublePendulum, Pendulum};
use std::f64::consts::PI;

/// Max error in `(q, v)` of the reference solution of `q̈ = −ω² q` from `(1, 0.5)` against the
/// closed form at 40 times in `[0, t_end]`.
pub fn harmonic_error(omega: f64, t_end: f64, tol: f64) -> f64 {
    let f = move |_t: f64, y: &[f64], dy: &mut [f64]| {
        dy[0] = y[1];
        dy[1] = -omega * omega * y[0];
    };
    let times = linspace(0.0, t_end, 40);
    let ys = reference::solve(f, 0.0, &[1.0, 0.5], t_end, tol, tol, &times);
    let mut err = 0.0_f64;
    for (t, y) in times.iter().zip(&ys) {
        let (s, c) = (omega * t).sin_cos();
        let q = c + 0.5 / omega * s;
        let v = -omega * s + 0.5 * c;
        err = err.max((y[0] - q).abs()).max((y[1] - v).abs());
    }
    err
}

/// Kepler problem `r̈ = −r/|r|³` (μ = 1, semi-major axis 1, period 2π) with eccentricity `e`,
/// started at pericentre, compared with the solution of Kepler's equation `E − e sin E = t` at
/// 9 times in one period. Returns (number of outputs, max position error).
pub fn kepler_error(e: f64, tol: f64) -> (usize, f64) {
    let f = |_t: f64, y: &[f64], dy: &mut [f64]| {
        let r3 = (y[0] * y[0] + y[1] * y[1]).powf(1.5);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
    };
    let y0 = [1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()];
    let period = 2.0 * PI;
    let times = linspace(0.0, period, 8);
    let ys = reference::solve(f, 0.0, &y0, period, tol, tol, &times);
    let mut err = 0.0_f64;
    for (t, y) in times.iter().zip(&ys) {
        let mut ea = *t;
        for _ in 0..50 {
            ea -= (ea - e * ea.sin() - t) / (1.0 - e * ea.cos());
        }
        let x = ea.cos() - e;
        let yy = (1.0 - e * e).sqrt() * ea.sin();
        err = err.max((y[0] - x).abs()).max((y[1] - yy).abs());
    }
    (ys.len(), err)
}

/// Max `|E(t) − E(0)|` of the double-pendulum reference `dp` from the seed start over
/// `[0, t_end]` (sampled at `n + 1` times), and the max multiplier residual `|M q̈ + ∇V − Jᵀλ|` on
/// those samples.
pub fn double_pendulum_drift(dp: &DoublePendulum, t_end: f64, n: usize, tol: f64) -> (f64, f64) {
    let (q0, v0) = DoublePendulum::seed_initial();
    let out = dp.solve(&q0, &v0, &linspace(0.0, t_end, n), tol, tol);
    let e0 = dp.cartesian_energy(&q0, &v0);
    let drift = out
        .iter()
        .map(|s| (s.energy - e0).abs())
        .fold(0.0, f64::max);
    let resid = out
        .iter()
        .map(|s| dp.multiplier_residual(&s.y))
        .fold(0.0, f64::max);
    (drift, resid)
}

/// Pointwise self-consistency of the double-pendulum reference from the seed start: the max
/// Cartesian position difference between solves at `rtol = atol = 1e-13` and `1e-11`, at
/// `t_end` (an estimate of the reference's own error at the looser tolerance; chaos amplifies it).
pub fn double_pendulum_sensitivity(dp: &DoublePendulum, t_end: f64) -> f64 {
    let (q0, v0) = DoublePendulum::seed_initial();
    let a = dp.solve(&q0, &v0, &[t_end], 1e-13, 1e-13);
    let b = dp.solve(&q0, &v0, &[t_end], 1e-11, 1e-11);
    (0..4)
        .map(|i| (a[0].q[i] - b[0].q[i]).abs())
        .fold(0.0, f64::max)
}

/// The tolerance of the checks (the references' `TIGHT` setting); the experiment has no reduced
/// setup (it runs in well under a second).
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Relative (and absolute) tolerance of the checked solves.
    pub tol: f64,
}

impl Setup {
    /// The tolerance every experiment's reference uses.
    pub fn paper() -> Self {
        Self { tol: TIGHT.0 }
    }

    /// As [`Setup::paper`].
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the self-checks measure.
#[derive(Clone, Debug)]
pub struct Results {
    /// Table rows `(check, tolerance, error)`.
    pub rows: Vec<(String, String, f64)>,
    /// Harmonic oscillator error at the setup's tolerance.
    pub harmonic_error: f64,
    /// Kepler orbit error at the setup's tolerance.
    pub kepler_error: f64,
    /// Closed-form period of the pendulum released horizontally.
    pub period_closed: f64,
    /// The reference solver's period.
    pub period_measured: f64,
    /// `(energy drift, DAE residual)` of the double pendulum to `t = 100`, physical gravity.
    pub dp: (f64, f64),
    /// The same with the seed's printed gravity sign.
    pub dp_printed_sign: (f64, f64),
    /// Sensitivity (1e-11 vs 1e-13 solves) at t = 20 and 50, physical gravity.
    pub sensitivity: [f64; 2],
    /// Sensitivity at t = 50 with the printed sign.
    pub sensitivity_printed_sign_t50: f64,
}

/// The solver's own checks: a harmonic oscillator and a Kepler orbit at three tolerances.
fn solver_rows(rows: &mut Vec<(String, String, f64)>) {
    for tol in [1e-9, 1e-11, 1e-13] {
        rows.push((
            "harmonic w=2 t<=20".into(),
            sci(tol),
            harmonic_error(2.0, 20.0, tol),
        ));
    }
    for tol in [1e-9, 1e-11, 1e-13] {
        rows.push(("Kepler e=0.5".into(), sci(tol), kepler_error(0.5, tol).1));
    }
}

/// The double pendulum's sensitivity: solves at 1e-11 and 1e-13 apart, physical and
/// printed-sign gravity.
fn sensitivity_rows(rows: &mut Vec<(String, String, f64)>) {
    for t in [10.0, 20.0, 50.0, 100.0] {
        rows.push((
            format!("dbl pend 1e-11 vs 1e-13 t={t}"),
            "-".into(),
            double_pendulum_sensitivity(&DoublePendulum::seed(), t),
        ));
        rows.push((
            format!("printed-sign 1e-11 vs 1e-13 t={t}"),
            "-".into(),
            double_pendulum_sensitivity(&DoublePendulum::seed_printed_sign(), t),
        ));
    }
}

/// Runs every check.
pub fn compute(setup: &Setup) -> Results {
    let rtol = setup.tol;
    let mut rows = Vec::new();
    solver_rows(&mut rows);
    let p = Pendulum::default();
    let th0 = p.from_cartesian(&[1.0, 0.0], &[0.0, 0.0])[0];
    let period_closed = p.period(th0);
    let period_measured = p.measured_period(th0, rtol, rtol);
    let t = sci(rtol);
    rows.push((
        "pendulum period".into(),
        t.clone(),
        (period_measured - period_closed).abs(),
    ));
    let dp = double_pendulum_drift(&DoublePendulum::seed(), 100.0, 200, rtol);
    rows.push(("double pendulum |dE| t<=100".into(), t.clone(), dp.0));
    rows.push(("double pendulum DAE residual".into(), t.clone(), dp.1));
    let dp_printed_sign =
        double_pendulum_drift(&DoublePendulum::seed_printed_sign(), 100.0, 200, rtol);
    rows.push((
        "printed-sign dbl pend |dE|".into(),
        t.clone(),
        dp_printed_sign.0,
    ));
    rows.push((
        "printed-sign dbl pend residual".into(),
        t,
        dp_printed_sign.1,
    ));
    sensitivity_rows(&mut rows);
    Results {
        rows,
        harmonic_error: harmonic_error(2.0, 20.0, rtol),
        kepler_error: kepler_error(0.5, rtol).1,
        period_closed,
        period_measured,
        dp,
        dp_printed_sign,
        sensitivity: [20.0, 50.0].map(|t| double_pendulum_sensitivity(&DoublePendulum::seed(), t)),
        sensitivity_printed_sign_t50: double_pendulum_sensitivity(
            &DoublePendulum::seed_printed_sign(),
            50.0,
        ),
    }
}

/// Prints the table and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let table = Table::new(out, &["check", "tolerance", "error"]);
    for (check, tol, err) in &r.rows {
        table.row(&[check.clone(), tol.clone(), sci(*err)]);
    }
    let (closed, measured) = (r.period_closed, r.period_measured);
    crate::say!(out);
    crate::say!(out, "pendulum period: closed form {closed:.12}, reference {measured:.12}, seed 002 §5 7.416298709");
    figure("reference.harmonic.error", r.harmonic_error);
    figure("reference.kepler.error", r.kepler_error);
    figure("reference.pendulum.period", measured);
    figure("reference.pendulum.period_error", (measured - closed).abs());
    figure(
        "reference.pendulum.period_vs_seed",
        (closed - 7.416298709).abs(),
    );
    figure("reference.double_pendulum.energy_drift", r.dp.0);
    figure("reference.double_pendulum.dae_residual", r.dp.1);
    figure(
        "reference.double_pendulum_printed_sign.energy_drift",
        r.dp_printed_sign.0,
    );
    figure(
        "reference.double_pendulum.sensitivity_t20",
        r.sensitivity[0],
    );
    figure(
        "reference.double_pendulum.sensitivity_t50",
        r.sensitivity[1],
    );
    figure(
        "reference.double_pendulum_printed_sign.sensitivity_t50",
        r.sensitivity_printed_sign_t50,
    );
}

/// `reproduce reference`.
pub struct ReferenceExperiment;

impl Experiment for ReferenceExperiment {
    const NAME: &'static str = "reference";
    const SEED: &'static str = "(self-check)";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "self-checks of the DOP853 reference solver and the rigid pendulum references";
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
