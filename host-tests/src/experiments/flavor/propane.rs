//! FLAVOR on the nonlinear molecular clip (004 §2.6.5, eqs 2.109–2.112, Fig 2.16): united-atom
//! propane in the plane, stiff bonds and a soft bond angle, in Cartesian coordinates.
//!
//! (The 2-D primitive molecule of §2.6.4 is `reproduce flavor-molecule`, in
//! [`super::molecule`].)

use super::{nonintrusive_fused, nonintrusive_se, reference_samples, trajectory};
use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::systems::Propane;
use macrostep::{Integrator, State};

/// The clip's slow and fast observables of one state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observables {
    /// The bond angle `θ` at the middle atom (slow).
    pub theta: f64,
    /// The orientation of the end-to-end vector `x₃ − x₁` (slow; unwrapped by the caller).
    pub phi: f64,
    /// The bond lengths (fast).
    pub r: [f64; 2],
    /// The bond energy `½K_r[(r₁ − r₀)² + (r₂ − r₀)²]` (fast).
    pub bond_energy: f64,
}

/// The observables of `s` for the model `m`.
pub fn observe(m: &Propane<f64>, s: &State<f64, 6>) -> Observables {
    let q = &s.q;
    let r = Propane::bond_lengths(q);
    let r0 = m.bonds().r0();
    Observables {
        theta: Propane::angle(q),
        phi: (q[5] - q[1]).atan2(q[4] - q[0]),
        r,
        bond_energy: 0.5 * m.k_r() * ((r[0] - r0).powi(2) + (r[1] - r0).powi(2)),
    }
}

/// Unwraps a sequence of angles in `(−π, π]` into a continuous one.
pub fn unwrap(angles: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(angles.len());
    let mut offset = 0.0;
    let mut prev: Option<f64> = None;
    for &a in angles {
        if let Some(p) = prev {
            let d = a - p;
            if d > std::f64::consts::PI {
                offset -= 2.0 * std::f64::consts::PI;
            } else if d < -std::f64::consts::PI {
                offset += 2.0 * std::f64::consts::PI;
            }
        }
        prev = Some(a);
        out.push(a + offset);
    }
    out
}

/// Window means of `f` over `(t − w, t]` at `t = w, 2w, …` from samples every `dt`.
pub fn window_means(values: &[f64], dt: f64, w: f64) -> Vec<f64> {
    let per = (w / dt).round() as usize;
    values
        .chunks_exact(per)
        .map(|c| c.iter().sum::<f64>() / per as f64)
        .collect()
}

/// Max |a − b| over two equally long series.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Runs `steps` steps of `integ` from `s0`, recording `s0` and every `every`-th state.
pub fn sampled<I: Integrator<f64, 6>>(
    integ: &mut I,
    s0: &State<f64, 6>,
    steps: usize,
    every: usize,
) -> Vec<State<f64, 6>> {
    let mut out = Vec::with_capacity(steps / every + 1);
    let mut s = *s0;
    out.push(s);
    for k in 0..steps {
        integ.step(&mut s).expect("step failed");
        if (k + 1) % every == 0 {
            out.push(s);
        }
    }
    out
}

/// The errors of a trajectory against the reference.
#[derive(Clone, Copy, Debug)]
pub struct Errors {
    /// Max |θ − θ_ref| at the trajectory's samples (rad).
    pub theta: f64,
    /// Max |φ − φ_ref| (end-to-end orientation, unwrapped; rad).
    pub phi: f64,
    /// Max |window mean of r₁, r₂ − reference's|.
    pub bond_window: f64,
    /// Max relative error of the window means of the bond energy.
    pub bond_energy_window: f64,
}

/// Compares `traj` (samples every `dt`, from `t = 0`) with `reference` (every `dt_ref`, a
/// divisor of `dt`); fast observables in window means over `(t − w, t]`, `t = w, 2w, …`.
pub fn errors(
    m: &Propane<f64>,
    traj: &[State<f64, 6>],
    dt: f64,
    reference: &[State<f64, 6>],
    dt_ref: f64,
    w: f64,
) -> Errors {
    let stride = (dt / dt_ref).round() as usize;
    let a: Vec<Observables> = traj.iter().map(|s| observe(m, s)).collect();
    let b_at: Vec<Observables> = (0..traj.len())
        .map(|k| observe(m, &reference[k * stride]))
        .collect();
    let b_all: Vec<Observables> = reference.iter().map(|s| observe(m, s)).collect();
    let theta = max_diff(
        &a.iter().map(|o| o.theta).collect::<Vec<_>>(),
        &b_at.iter().map(|o| o.theta).collect::<Vec<_>>(),
    );
    let phi = max_diff(
        &unwrap(&a.iter().map(|o| o.phi).collect::<Vec<_>>()),
        &unwrap(&b_at.iter().map(|o| o.phi).collect::<Vec<_>>()),
    );
    // Window means over (t − w, t]: drop the t = 0 sample; the reference's windows use all its
    // samples.
    let win = |o: &[Observables], step: f64, f: &dyn Fn(&Observables) -> f64| {
        window_means(&o[1..].iter().map(f).collect::<Vec<_>>(), step, w)
    };
    let mut bond_window: f64 = 0.0;
    for i in 0..2 {
        bond_window = bond_window.max(max_diff(
            &win(&a, dt, &|o| o.r[i]),
            &win(&b_all, dt_ref, &|o| o.r[i]),
        ));
    }
    let ea = win(&a, dt, &|o| o.bond_energy);
    let eb = win(&b_all, dt_ref, &|o| o.bond_energy);
    let bond_energy_window = ea
        .iter()
        .zip(&eb)
        .map(|(x, y)| (x - y).abs() / y.abs())
        .fold(0.0, f64::max);
    Errors {
        theta,
        phi,
        bond_window,
        bond_energy_window,
    }
}

/// The thesis's FLAVOR parameters for the clip (Fig 2.16): `(τ, δ) = (0.01, 0.1)`.
pub const PAPER: (f64, f64) = (0.01, 0.1);

/// What to run for `reproduce flavor-propane`, the molecular clip of 004 §2.6.5 (Fig 2.16). Nonintrusive FLAVOR
/// over symplectic Euler (2.45, 2.49) against a DOP853 reference over T = 100 (≈ 10 periods of
/// the bond angle, which swings between 90° and 135°); symplectic Euler at step τ as in the
/// thesis; a small (τ, δ) sweep (the slow error grows with δ/τ — 6.9e-3 … 1.2e-2 at δ/τ = 5,
/// 10 and 1.3e-2 … 2.0e-2 at 20 — but is not monotone in τ at fixed δ/τ); speed-up over
/// symplectic Euler at τ (two legacy steps per FLAVOR step, so about (δ/τ)/2).
pub struct Setup {
    /// Final time.
    pub t_end: f64,
    /// Sampling of the reference.
    pub dt_ref: f64,
    /// Window of the fast observables (one slow period; ≈ 7 slowed bond periods of the FLAVOR
    /// at δ/τ = 10).
    pub window: f64,
    /// The FLAVOR sweep `(τ, δ)`.
    pub sweep: Vec<(f64, f64)>,
    /// The symplectic Euler steps.
    pub legacy: Vec<f64>,
}

impl Setup {
    /// [`PAPER`]: the thesis's `(τ, δ)` for the clip.
    pub const PAPER: (f64, f64) = PAPER;

    /// T = 100, the thesis's (τ, δ) and five neighbours.
    pub fn paper() -> Self {
        Self {
            t_end: 100.0,
            dt_ref: 0.0025,
            window: 10.0,
            sweep: vec![
                (0.01, 0.1),
                (0.01, 0.05),
                (0.005, 0.1),
                (0.005, 0.05),
                (0.0025, 0.05),
                (0.0025, 0.025),
            ],
            legacy: vec![0.01, 0.005, 0.0025],
        }
    }

    /// `reproduce flavor-propane --quick`: T = 20 instead of 100 (two windows) for every run;
    /// the reference sampling, the window and the (τ, δ) and legacy sweeps are kept.
    pub fn quick() -> Self {
        Self {
            t_end: 20.0,
            ..Self::paper()
        }
    }
}

/// What the experiment measured.
pub struct Results {
    /// Final time and window.
    pub t_end: f64,
    /// Window of the fast observables.
    pub window: f64,
    /// Sampling of the reference and its seconds.
    pub reference: (f64, f64),
    /// The reference against itself on a halved output grid.
    pub reference_check: Errors,
    /// The bond angle's range over the reference (min, max) and the mean bond energy.
    pub theta_range: (f64, f64),
    /// The mean bond energy over the reference.
    pub bond_energy_mean: f64,
    /// The FLAVOR sweep: `(τ, δ, errors)`.
    pub flavor: Vec<(f64, f64, Errors)>,
    /// Symplectic Euler: `(h, errors)`.
    pub legacy: Vec<(f64, Errors)>,
    /// The fused FLAVOR's bond-angle error at [`PAPER`].
    pub fused_theta: f64,
    /// Seconds over 10 T at [`PAPER`]: symplectic Euler at τ, FLAVOR, fused FLAVOR.
    pub seconds: (f64, f64, f64),
}

/// Thread CPU time over `span` at [`PAPER`], no recording, best of 5: symplectic Euler at τ, the
/// FLAVOR, the fused FLAVOR.
fn timings(m: &Propane<f64>, span: f64) -> (f64, f64, f64) {
    let (tau, delta) = PAPER;
    let s0 = m.initial_state();
    let steps = (span / delta).round() as usize;
    let (mut t_se, mut t_f, mut t_fused) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        let mut se = SymplecticEuler::new(m.system(), tau, EulerOrdering::KickDrift).unwrap();
        let mut s = s0;
        let c = crate::timing::CpuClock::start();
        se.integrate(&mut s, (span / tau).round() as usize).unwrap();
        t_se = t_se.min(c.elapsed_secs());
        std::hint::black_box(s);
        let mut f = nonintrusive_se(m.system(), delta, tau);
        let mut s = s0;
        let c = crate::timing::CpuClock::start();
        f.integrate(&mut s, steps).unwrap();
        t_f = t_f.min(c.elapsed_secs());
        std::hint::black_box(s);
        let mut f = nonintrusive_fused(m.system(), delta, tau);
        let mut s = s0;
        let c = crate::timing::CpuClock::start();
        f.integrate(&mut s, steps).unwrap();
        t_fused = t_fused.min(c.elapsed_secs());
        std::hint::black_box(s);
    }
    (t_se, t_f, t_fused)
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let m = Propane::<f64>::paper();
    let s0 = m.initial_state();
    let (t_end, dt_ref, w) = (setup.t_end, setup.dt_ref, setup.window);
    let clock = crate::timing::CpuClock::start();
    let reference = reference_samples(&m.system(), &s0, t_end, dt_ref);
    let ref_seconds = clock.elapsed_secs();
    // Check the reference by halving its output grid (every output time is a DOP853 step end,
    // so at this sampling the grid, not the tolerance, sets DOP853's steps).
    let fine = reference_samples(&m.system(), &s0, t_end, dt_ref / 2.0);
    let halved: Vec<State<f64, 6>> = fine.iter().step_by(2).copied().collect();
    let reference_check = errors(&m, &halved, dt_ref, &reference, dt_ref, w);
    let obs: Vec<Observables> = reference.iter().map(|s| observe(&m, s)).collect();
    let theta_range = obs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), o| {
            (l.min(o.theta), h.max(o.theta))
        });
    let bond_energy_mean = obs.iter().map(|o| o.bond_energy).sum::<f64>() / obs.len() as f64;
    let flavor = setup
        .sweep
        .iter()
        .map(|&(tau, delta)| {
            let mut f = nonintrusive_se(m.system(), delta, tau);
            let traj = trajectory(&mut f, &s0, (t_end / delta).round() as usize);
            (tau, delta, errors(&m, &traj, delta, &reference, dt_ref, w))
        })
        .collect();
    let legacy = setup
        .legacy
        .iter()
        .map(|&h| {
            let mut se = SymplecticEuler::new(m.system(), h, EulerOrdering::KickDrift).unwrap();
            let every = (dt_ref / h).round().max(1.0) as usize;
            let traj = sampled(&mut se, &s0, (t_end / h).round() as usize, every);
            (
                h,
                errors(&m, &traj, h * every as f64, &reference, dt_ref, w),
            )
        })
        .collect();
    // The fused FLAVOR (`FusedEuler`: one soft and one stiff gradient per FLAVOR step) on the
    // same setting, for its accuracy at the thesis's parameters.
    let (tau, delta) = PAPER;
    let mut f = nonintrusive_fused(m.system(), delta, tau);
    let traj = trajectory(&mut f, &s0, (t_end / delta).round() as usize);
    let fused_theta = errors(&m, &traj, delta, &reference, dt_ref, w).theta;
    Results {
        t_end,
        window: w,
        reference: (dt_ref, ref_seconds),
        reference_check,
        theta_range,
        bond_energy_mean,
        flavor,
        legacy,
        fused_theta,
        // The same span 10 T, so the runs last milliseconds.
        seconds: timings(&m, 10.0 * t_end),
    }
}

/// The reference, its check and the error table.
fn report_table(r: &Results, out: &Output) {
    let m = Propane::<f64>::paper();
    let (dt_ref, ref_seconds) = r.reference;
    crate::say!(
        out,
        "reference: DOP853 rtol = atol = 1e-11, every {dt_ref} ({ref_seconds:.1} s)"
    );
    let ref_err = r.reference_check;
    crate::say!(
        out,
        "reference check (output grid halved): theta {:.1e}, phi {:.1e}, r windows {:.1e}",
        ref_err.theta,
        ref_err.phi,
        ref_err.bond_window
    );
    figure("propane.ref_theta_err", ref_err.theta);
    let (lo, hi) = r.theta_range;
    crate::say!(
        out,
        "bond angle between {:.1} and {:.1} deg; mean bond energy {:.4}; bond frequency \
         bound {:.1} (period >= {:.3})",
        lo.to_degrees(),
        hi.to_degrees(),
        r.bond_energy_mean,
        m.bond_frequency_bound(),
        2.0 * std::f64::consts::PI / m.bond_frequency_bound()
    );
    crate::say!(
        out,
        "\nerrors over T = {}: theta and phi pointwise (rad), bond lengths and bond energy in \
         window means over {}",
        r.t_end,
        r.window
    );
    let table = Table::new(
        out,
        &[
            "method",
            "tau",
            "delta",
            "delta/tau",
            "theta",
            "phi",
            "r_window",
            "Eb_win_rel",
        ],
    );
    let errs = |e: &Errors| {
        [
            sci(e.theta),
            sci(e.phi),
            sci(e.bond_window),
            sci(e.bond_energy_window),
        ]
    };
    for (tau, delta, e) in &r.flavor {
        let mut row = vec![
            "FLAVOR".into(),
            format!("{tau}"),
            format!("{delta}"),
            format!("{:.0}", delta / tau),
        ];
        row.extend(errs(e));
        table.row(&row);
    }
    for (h, e) in &r.legacy {
        let mut row = vec![
            "sympl. Euler".into(),
            format!("{h}"),
            "-".into(),
            "-".into(),
        ];
        row.extend(errs(e));
        table.row(&row);
    }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    report_table(r, out);
    let (tau, delta) = PAPER;
    let e = r
        .flavor
        .iter()
        .find(|row| (row.0, row.1) == PAPER)
        .expect("paper row")
        .2;
    let l = r
        .legacy
        .iter()
        .rfind(|row| row.0 == PAPER.0)
        .expect("legacy row")
        .1;
    let swing = r.theta_range.1 - r.theta_range.0;
    let (t_se, t_f, t_fused) = r.seconds;
    crate::say!(
        out,
        "\nthesis setting tau = {tau}, delta = {delta}: bond angle within {:.2e} rad ({:.2} % of \
         its {:.1} deg swing; symplectic Euler at tau: {:.2e}), orientation within {:.2e} rad, \
         bond-length window means within {:.1e}; the bond energy's window means are off by up to \
         {:.0} % (symplectic Euler at tau itself: {:.0} %; at hw = 0.4 its bond energy is \
         biased, and the FLAVOR adds the slowed vibration's sampling error). Thread CPU time over \
         10 T: symplectic Euler at tau {t_se:.4} s, FLAVOR {t_f:.5} s.",
        e.theta,
        100.0 * e.theta / swing,
        swing.to_degrees(),
        l.theta,
        e.phi,
        e.bond_window,
        100.0 * e.bond_energy_window,
        100.0 * l.bond_energy_window
    );
    figure("propane.tau", tau);
    figure("propane.delta", delta);
    figure("propane.theta_err_max", e.theta);
    figure("propane.theta_err_rel_swing", e.theta / swing);
    figure("propane.phi_err_max", e.phi);
    figure("propane.bond_window_err_max", e.bond_window);
    figure("propane.bond_energy_window_rel_err", e.bond_energy_window);
    figure("propane.legacy_theta_err_max", l.theta);
    figure("propane.step_ratio", delta / tau);
    // Not at equal accuracy: the legacy map runs at the micro-step τ. Both names print the
    // same value: `propane.speedup` is a published name (names are stable), the second says
    // what it is.
    figure("propane.speedup", t_se / t_f);
    figure("propane.speedup_vs_legacy_at_tau", t_se / t_f);
    crate::say!(
        out,
        "fused FLAVOR (FusedEuler, one legacy step's gradients per FLAVOR step): bond angle \
         within {:.2e} rad, {t_fused:.5} s over 10 T",
        r.fused_theta
    );
    figure("propane.fused.theta_err_max", r.fused_theta);
    figure("propane.fused.speedup", t_se / t_fused);
    figure("propane.fused.speedup_vs_legacy_at_tau", t_se / t_fused);
}

/// `reproduce flavor-propane`.
pub struct FlavorPropaneExperiment;

impl Experiment for FlavorPropaneExperiment {
    const NAME: &'static str = "flavor-propane";
    const SEED: &'static str = "004 §2.6.5";
    const SECONDS: f64 = 3.6;
    const ABOUT: &'static str =
        "nonintrusive FLAVOR on the united-atom propane clip 2.109–2.112 (004 §2.6.5)";
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
