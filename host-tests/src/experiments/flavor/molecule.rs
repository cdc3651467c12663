//! `reproduce flavor-molecule`: the 2-D primitive molecule (004 §2.6.4, eq 2.108, Fig 2.14):
//! ω = 500, start (1.1, 0.8) at rest, T = 100, nonintrusive FLAVOR over symplectic Euler with
//! δ = 0.01, τ = 2e-4. The thesis does not state `r₀`: `r₀ = 1` (initial stretch 0.36, bond
//! energy ≈ 1.6·10⁴) and `r₀ = 1.3` (stretch 0.06) are both run.
//! The slow angle θ in window means over 1 against DOP853; speed-up over symplectic Euler at τ.

use super::{nonintrusive_fused, nonintrusive_se, reference_samples, trajectory, window_mean};
use crate::experiments::Experiment;
use crate::fixtures::{AngleWell, Bond};
use crate::report::{figure, sci, Output, Table};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::model::{Mass, Split, System};
use macrostep::nalgebra::SVector;
use macrostep::{Integrator, State};

/// The molecule of eq 2.108 with bond rest length `r₀` and stiffness `ω`.
pub type Molecule = System<f64, Split<f64, AngleWell, Bond>, 2>;

/// What to run.
pub struct Setup {
    /// The bond rest lengths run.
    pub r0s: Vec<f64>,
    /// `ω`.
    pub omega: f64,
    /// `(δ, τ, T)`.
    pub flavor: (f64, f64, f64),
    /// The legacy steps τ of the δ/τ study.
    pub study_taus: Vec<f64>,
    /// The ratios δ/τ of the study.
    pub study_ratios: Vec<f64>,
}

impl Setup {
    /// The thesis's setting at both rest lengths.
    pub fn paper() -> Self {
        Self {
            r0s: vec![1.0, 1.3],
            omega: 500.0,
            flavor: (0.01, 2e-4, 100.0),
            study_taus: vec![2e-4, 5e-5],
            study_ratios: vec![2.0, 5.0, 10.0, 20.0, 50.0],
        }
    }

    /// `reproduce flavor-molecule --quick`: T = 10 instead of 100 for every run (reference,
    /// FLAVORs, timings, the δ/τ study); rest lengths, ω, (δ, τ) and the study grid are kept.
    pub fn quick() -> Self {
        Self {
            flavor: (0.01, 2e-4, 10.0),
            ..Self::paper()
        }
    }
}

/// The δ/τ study at one legacy step τ.
pub struct StudyRow {
    /// `τ`.
    pub tau: f64,
    /// The legacy map's own window-mean error at τ.
    pub legacy: f64,
    /// The FLAVOR's error per ratio δ/τ.
    pub flavor: Vec<(f64, f64)>,
}

/// The results at one rest length.
pub struct R0Results {
    /// `r₀`.
    pub r0: f64,
    /// The range of θ over the reference.
    pub theta_range: f64,
    /// The FLAVOR's largest window-mean error of θ.
    pub window_err: f64,
    /// Its largest pointwise error.
    pub point_err: f64,
    /// The fused FLAVOR's largest window-mean error.
    pub fused_window_err: f64,
    /// Seconds of the FLAVOR, the fused FLAVOR and symplectic Euler at τ over T.
    pub seconds: (f64, f64, f64),
    /// The δ/τ study.
    pub study: Vec<StudyRow>,
}

/// What the experiment measured: one entry per rest length.
pub struct Results {
    /// Per `r₀`.
    pub runs: Vec<R0Results>,
}

/// The molecule's slow angle `θ = atan2(y, x)`.
pub fn molecule_theta(s: &State<f64, 2>) -> f64 {
    s.q[1].atan2(s.q[0])
}

/// The largest error of `θ`'s window means (width 1, ending at `t = 1, 2, …, T`) of `traj`
/// against `reference`.
pub fn molecule_window_err(traj: &[State<f64, 2>], reference: &[State<f64, 2>], t_end: f64) -> f64 {
    (1..=(t_end as usize))
        .map(|k| {
            let t1 = k as f64;
            (window_mean(traj, t1, 1.0, molecule_theta)
                - window_mean(reference, t1, 1.0, molecule_theta))
            .abs()
        })
        .fold(0.0, f64::max)
}

/// `steps` steps of a fresh `make()` from `s0`, without recording (a closure to time).
fn run<'a, I: Integrator<f64, 2>>(
    make: impl Fn() -> I + 'a,
    s0: &'a State<f64, 2>,
    steps: usize,
) -> impl FnMut() + 'a {
    move || {
        let mut s = *s0;
        make().integrate(&mut s, steps).unwrap();
        std::hint::black_box(s);
    }
}

fn compute_r0(setup: &Setup, r0: f64) -> R0Results {
    let omega = setup.omega;
    let (delta, tau, t_end) = setup.flavor;
    let system = System::new(
        Mass::identity(),
        Split::new(AngleWell, Bond { r0 }, omega * omega),
    );
    let s0 = State::new(0.0, SVector::from([1.1, 0.8]), SVector::zeros());
    let dt = 1e-3;
    let steps = (t_end / delta).round() as usize;
    let reference = reference_samples(&system, &s0, t_end, dt);
    let traj = trajectory(&mut nonintrusive_se(system, delta, tau), &s0, steps);
    let theta = molecule_theta;
    let window_err = molecule_window_err(&traj, &reference, t_end);
    let point_err = traj
        .iter()
        .map(|s| (theta(s) - theta(&reference[(s.t / dt).round() as usize])).abs())
        .fold(0.0, f64::max);
    let theta_range = reference
        .iter()
        .map(theta)
        .fold(f64::NEG_INFINITY, f64::max)
        - reference.iter().map(theta).fold(f64::INFINITY, f64::min);
    // The fused FLAVOR (one soft + one stiff gradient per step): accuracy and speed-up.
    let traj = trajectory(&mut nonintrusive_fused(system, delta, tau), &s0, steps);
    let fused_window_err = molecule_window_err(&traj, &reference, t_end);
    // Thread CPU seconds of the three runs, timed against each other in interleaved rounds.
    let se = || SymplecticEuler::new(system, tau, EulerOrdering::KickDrift).unwrap();
    let t = crate::timing::compare(
        &mut [
            &mut run(|| nonintrusive_se(system, delta, tau), &s0, steps),
            &mut run(se, &s0, (t_end / tau).round() as usize),
            &mut run(|| nonintrusive_fused(system, delta, tau), &s0, steps),
        ],
        &crate::timing::Timing::rounds(5),
    );
    let (t_f, t_se, t_fused) = (t[0].median, t[1].median, t[2].median);
    R0Results {
        r0,
        theta_range,
        window_err,
        point_err,
        fused_window_err,
        seconds: (t_f, t_fused, t_se),
        study: ratio_study(setup, &system, &s0, &reference, dt, t_end),
    }
}

/// Where the molecule's window-mean error comes from: the legacy map at `τ` against the
/// reference (its own error), and the FLAVOR at `δ = Rτ` for several `R`, at the thesis's
/// `τ = 2·10⁻⁴` (`τω = 0.1`) and at `τ = 5·10⁻⁵`.
fn ratio_study(
    setup: &Setup,
    system: &Molecule,
    s0: &State<f64, 2>,
    reference: &[State<f64, 2>],
    dt: f64,
    t_end: f64,
) -> Vec<StudyRow> {
    let mut rows = vec![];
    for &tau in &setup.study_taus {
        // The legacy map at τ, sampled on the reference grid.
        let mut se = SymplecticEuler::new(*system, tau, EulerOrdering::KickDrift).unwrap();
        let per = (dt / tau).round() as usize;
        let mut s = *s0;
        let mut legacy = vec![s];
        for _ in 0..(t_end / dt).round() as usize {
            se.integrate(&mut s, per).unwrap();
            legacy.push(s);
        }
        let flavor = setup
            .study_ratios
            .iter()
            .map(|&ratio| {
                let delta = ratio * tau;
                let steps = (t_end / delta).round() as usize;
                let traj = trajectory(&mut nonintrusive_se(*system, delta, tau), s0, steps);
                (ratio, molecule_window_err(&traj, reference, t_end))
            })
            .collect();
        rows.push(StudyRow {
            tau,
            legacy: molecule_window_err(&legacy, reference, t_end),
            flavor,
        });
    }
    rows
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    Results {
        runs: setup.r0s.iter().map(|&r0| compute_r0(setup, r0)).collect(),
    }
}

fn report_r0(r: &R0Results, out: &Output) {
    let (t_f, t_fused, t_se) = r.seconds;
    crate::say!(
        out,
        "fused FLAVOR: window-mean error max {:.3e}, {t_fused:.4} s, speed-up {:.1}",
        r.fused_window_err,
        t_se / t_fused
    );
    crate::say!(
        out,
        "theta range {:.3}; window-mean (width 1) error max {:.3e}; pointwise \
         {:.3e}; symplectic Euler at tau {t_se:.3} s, FLAVOR {t_f:.4} s (delta/tau = 50)",
        r.theta_range,
        r.window_err,
        r.point_err
    );
    crate::say!(out, "  (r0 = {})", r.r0);
    let tag = if r.r0 == 1.0 { "" } else { ".r0_1.3" };
    figure(
        &format!("flavor-molecule{tag}.theta_window_err_max"),
        r.window_err,
    );
    figure(&format!("flavor-molecule{tag}.theta_err_max"), r.point_err);
    // Not at equal accuracy: the legacy map runs at the micro-step τ. Both names print the
    // same value: `…speedup` is a published name (names are stable), the second says what it is.
    figure(&format!("flavor-molecule{tag}.speedup"), t_se / t_f);
    figure(
        &format!("flavor-molecule{tag}.speedup_vs_legacy_at_tau"),
        t_se / t_f,
    );
    figure(
        &format!("flavor-molecule{tag}.fused.theta_window_err_max"),
        r.fused_window_err,
    );
    figure(
        &format!("flavor-molecule{tag}.fused.speedup"),
        t_se / t_fused,
    );
    figure(
        &format!("flavor-molecule{tag}.fused.speedup_vs_legacy_at_tau"),
        t_se / t_fused,
    );
    let table = Table::new(out, &["tau", "delta/tau", "legacy err", "FLAVOR err"]);
    for row in &r.study {
        for &(ratio, e) in &row.flavor {
            table.row(&[sci(row.tau), format!("{ratio:.0}"), sci(row.legacy), sci(e)]);
            if ratio == 50.0 && row.tau == 5e-5 {
                figure(
                    &format!("flavor-molecule{tag}.tau5e-5.theta_window_err_max"),
                    e,
                );
            }
        }
        if row.tau == 2e-4 {
            figure(
                &format!("flavor-molecule{tag}.legacy.theta_window_err_max"),
                row.legacy,
            );
        }
    }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    for run in &r.runs {
        report_r0(run, out);
    }
    crate::say!(
        out,
        "\nreading: with r0 = 1 the start (1.1, 0.8) stretches the bond by 36 % (bond energy \
         1.6e4 against an angle well of depth 1), and the FLAVOR's window-mean error at the \
         thesis's tau = 2e-4 grows about linearly with delta/tau (0.02 at 2, 0.59 at 50) while \
         symplectic Euler at tau is within 1e-2: the averaging is not converged at tau·omega = \
         0.1 with this amplitude. At fixed delta/tau the error falls steeply with tau (about \
         tau^2.6: 0.59 -> 0.016 at delta/tau = 50 from tau = 2e-4 to 5e-5), so tau = 5e-5, \
         delta = 2.5e-3 is the stable accurate choice there. With r0 = 1.3 (stretch 6 %) the \
         thesis's parameters are accurate to 8e-3. The thesis does not give r0."
    );
}

/// `reproduce flavor-molecule`.
pub struct FlavorMoleculeExperiment;

impl Experiment for FlavorMoleculeExperiment {
    const NAME: &'static str = "flavor-molecule";
    const SEED: &'static str = "004 §2.6.4";
    const SECONDS: f64 = 16.0;
    const ABOUT: &'static str =
        "nonintrusive FLAVOR on the 2-D primitive molecule 2.108 (004 §2.6.4)";
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
