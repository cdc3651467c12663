//! `reproduce vdp`: the nonintrusive FLAVOR (2.105) on the hidden Van der Pol oscillator 2.101
//! (004 §2.6.1, Fig 2.6): its relaxation period against forward Euler at the thesis's step and an
//! accurate reference, and the speed-up.

/// The period measures the vdp experiment and its tests share.
pub use crate::measure::{crossings, mean_period};

use crate::experiments::Experiment;
use crate::fixtures::HiddenVdp;
use crate::report::{figure, sci, Output, Table};
use macrostep::flavor::{ExplicitEuler, Legacy, Nonintrusive, Params};
use macrostep::nalgebra::SVector;
use macrostep::{Integrator, State};

/// What to run.
pub struct Setup {
    /// `ε`.
    pub eps: f64,
    /// The FLAVOR's `(δ, τ)`.
    pub flavor: (f64, f64),
    /// Final time in units of `1/ε`.
    pub periods: f64,
    /// Output samples of the reference over T.
    pub ref_samples: usize,
}

impl Setup {
    /// The thesis's setting: ε = 10⁻³, δ = 0.01, τ = 5·10⁻⁵, T = 5/ε.
    pub fn paper() -> Self {
        Self {
            eps: 1e-3,
            flavor: (0.01, 5e-5),
            periods: 5.0,
            ref_samples: 500_000,
        }
    }

    /// `reproduce vdp --quick`: ε = 2.5·10⁻³ instead of 10⁻³ (same δ, τ and T = 5/ε, so about
    /// the same number of relaxation periods): forward Euler at 0.05ε takes 6.25x fewer steps,
    /// the FLAVOR 2.5x fewer; the reference is sampled 10⁵ times instead of 5·10⁵.
    pub fn quick() -> Self {
        Self {
            eps: 2.5e-3,
            ref_samples: 100_000,
            ..Self::paper()
        }
    }
}

/// A method's period estimate and cost.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Steps over T.
    pub steps: usize,
    /// Mean period.
    pub period: f64,
    /// Thread CPU seconds.
    pub seconds: f64,
}

/// What the experiment measured.
pub struct Results {
    /// `ε`.
    pub eps: f64,
    /// DOP853 on the Cartesian form (2.102).
    pub period_ref: f64,
    /// Forward Euler at `h = 0.05 ε` (the thesis's benchmark).
    pub euler: Run,
    /// The FLAVOR.
    pub flavor: Run,
}

fn y_of(u: &SVector<f64, 2>) -> f64 {
    u[0] * u[1].cos()
}

/// Start (x, y) = (1, 1): r = √2, θ = π/4 (x = r sin θ, y = r cos θ).
fn start() -> SVector<f64, 2> {
    SVector::from([2f64.sqrt(), std::f64::consts::FRAC_PI_4])
}

fn flavor_run(eps: f64, delta: f64, tau: f64, t_end: f64) -> Run {
    let mut flavor = Nonintrusive::new(
        ExplicitEuler::new(HiddenVdp { eps }, 1.0 / eps).unwrap(),
        Params::new(delta, tau).unwrap(),
    )
    .unwrap();
    let steps = (t_end / delta).round() as usize;
    let mut s = State::at_rest(start());
    let mut samples = Vec::with_capacity(steps + 1);
    let clock = crate::timing::CpuClock::start();
    samples.push((0.0, y_of(&s.q)));
    for _ in 0..steps {
        flavor.step(&mut s).expect("FLAVOR step");
        samples.push((s.t, y_of(&s.q)));
    }
    let seconds = clock.elapsed_secs();
    Run {
        steps,
        period: mean_period(&crossings(&samples)),
        seconds,
    }
}

/// Forward Euler at h = 0.05 ε, the same legacy map with the stiffness on, stepped through the
/// driver like the FLAVOR it is compared with.
fn euler_run(eps: f64, t_end: f64) -> Run {
    let h = 0.05 * eps;
    let map = ExplicitEuler::new(HiddenVdp { eps }, 1.0 / eps).unwrap();
    let mut fe = Legacy::new(map, h).unwrap();
    let steps = (t_end / h).round() as usize;
    let mut s = State::at_rest(start());
    let mut samples = Vec::with_capacity(steps / 20 + 2);
    let clock = crate::timing::CpuClock::start();
    samples.push((0.0, y_of(&s.q)));
    for k in 0..steps {
        fe.step(&mut s).expect("forward Euler step");
        if (k + 1) % 20 == 0 {
            samples.push((s.t, y_of(&s.q)));
        }
    }
    let seconds = clock.elapsed_secs();
    Run {
        steps,
        period: mean_period(&crossings(&samples)),
        seconds,
    }
}

/// The period of an accurate reference on the Cartesian form (2.102), `samples` outputs over T.
fn reference_period(eps: f64, t_end: f64, samples: usize) -> f64 {
    HiddenVdp { eps }.reference_period(t_end, samples)
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let eps = setup.eps;
    let t_end = setup.periods / eps;
    let (delta, tau) = setup.flavor;
    let flavor = flavor_run(eps, delta, tau, t_end);
    let euler = euler_run(eps, t_end);
    Results {
        eps,
        period_ref: reference_period(eps, t_end, setup.ref_samples),
        euler,
        flavor,
    }
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let (p_ref, fe, fl) = (r.period_ref, r.euler, r.flavor);
    let table = Table::new(
        out,
        &["method", "steps", "period", "rel_err_vs_ref", "seconds"],
    );
    table.row(&[
        "reference".into(),
        "DOP853".into(),
        format!("{p_ref:.3}"),
        "0".into(),
        "-".into(),
    ]);
    table.row(&[
        "fwd Euler".into(),
        fe.steps.to_string(),
        format!("{:.3}", fe.period),
        sci((fe.period - p_ref).abs() / p_ref),
        format!("{:.3}", fe.seconds),
    ]);
    table.row(&[
        "FLAVOR".into(),
        fl.steps.to_string(),
        format!("{:.3}", fl.period),
        sci((fl.period - p_ref).abs() / p_ref),
        format!("{:.4}", fl.seconds),
    ]);
    let asymptotic = (3.0 - 2.0 * 2f64.ln()) / r.eps;
    crate::say!(
        out,
        "asymptotic relaxation period (3 − 2 ln 2)/ε = {asymptotic:.1}"
    );
    figure("vdp.period_ref", p_ref);
    figure("vdp.period_flavor", fl.period);
    figure("vdp.period_rel_err", (fl.period - p_ref).abs() / p_ref);
    figure(
        "vdp.period_rel_err_vs_euler",
        (fl.period - fe.period).abs() / fe.period,
    );
    figure("vdp.step_ratio", fe.steps as f64 / fl.steps as f64);
    // Not at equal accuracy: forward Euler runs at the resolved step 0.05ε. Both names print the
    // same value: `vdp.speedup` is a published name (names are stable), the second says what
    // it is.
    figure("vdp.speedup", fe.seconds / fl.seconds);
    figure("vdp.speedup_vs_euler_resolved", fe.seconds / fl.seconds);
}

/// `reproduce vdp`.
pub struct VdpExperiment;

impl Experiment for VdpExperiment {
    const NAME: &'static str = "vdp";
    const SEED: &'static str = "004 §2.6.1";
    const SECONDS: f64 = 43.0;
    const ABOUT: &'static str =
        "nonintrusive FLAVOR on the hidden Van der Pol oscillator 2.101 (004 §2.6.1)";
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
