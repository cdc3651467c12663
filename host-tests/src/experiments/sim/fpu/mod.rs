//! `reproduce fpu-sim` (004 §4.2.6, Fig 4.3): SIM1 and SIM2 on the FPU chain (ω = 200,
//! T = 5ω) against a Verlet–Richardson reference of the stiff-spring energies `I_j`.
//!
//! The stiff-energy exchange is chaotic: past t ≈ 300 no reference converges (Richardson
//! extrapolation of non-converging data even gives negative energies), so the `I_j` are compared,
//! and the reference's `I_j` printed, only on the window where its error estimate is small; the
//! adiabatic invariant ΣI on the whole run.

use crate::reference;
use macrostep::baselines::VelocityVerlet;
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, Sim2, SimSystem};
use macrostep::systems::Fpu;
use macrostep::{Integrator, State};

mod report;

/// Stiff-spring energies `I_j` (j = 1..3) and their sum, sampled every `every` time units.
#[derive(Clone, Debug)]
pub struct FpuSeries {
    /// Output times.
    pub t: Vec<f64>,
    /// `I_j` at each output time.
    pub ij: Vec<[f64; 3]>,
}

impl FpuSeries {
    /// `Σ_j I_j` at output `k`.
    pub fn sum(&self, k: usize) -> f64 {
        self.ij[k].iter().sum()
    }
}

fn record(fpu: &Fpu<f64, 6>, s: &State<f64, 6>, out: &mut FpuSeries) {
    out.t.push(s.t);
    let mut e = [0.0; 3];
    for (j, x) in e.iter_mut().enumerate() {
        *x = fpu.stiff_spring_energy(s, j).unwrap_or(f64::NAN);
    }
    out.ij.push(e);
}

/// Runs an integrator on the paper's FPU (`m = 3`, `ω`) to `t_end`, recording `I_j` every
/// `every` (a multiple of the step). Returns the series and the thread CPU seconds of the run.
pub fn fpu_run<I: Integrator<f64, 6>>(
    fpu: &Fpu<f64, 6>,
    integ: &mut I,
    t_end: f64,
    every: f64,
) -> (FpuSeries, f64) {
    let h = integ.step_size();
    let per = (every / h).round() as usize;
    let outputs = (t_end / every).round() as usize;
    let mut s = fpu.initial_state();
    let mut out = FpuSeries {
        t: Vec::new(),
        ij: Vec::new(),
    };
    record(fpu, &s, &mut out);
    let t0 = crate::timing::thread_cpu_seconds();
    for k in 1..=outputs {
        if integ.integrate(&mut s, per).is_err() {
            break;
        }
        // Remove accumulated time rounding from the label.
        s.t = k as f64 * every;
        record(fpu, &s, &mut out);
    }
    (out, crate::timing::thread_cpu_seconds() - t0)
}

/// The SIM1 / SIM2 integrators on the FPU chain with step `h`.
pub fn fpu_sim1(fpu: &Fpu<f64, 6>, h: f64) -> impl Integrator<f64, 6> {
    let split = fpu.split();
    let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    Sim1::new(system, h, FastParams::default()).expect("valid FPU SIM1")
}

/// SIM2 on the FPU chain.
pub fn fpu_sim2(fpu: &Fpu<f64, 6>, h: f64) -> impl Integrator<f64, 6> {
    let split = fpu.split();
    let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    Sim2::new(system, h, FastParams::default()).expect("valid FPU SIM2")
}

/// Max over outputs `k < upto` of `|ΣI(k) − ΣI_ref(k)|` and of `max_j |I_j(k) − I_j,ref(k)|`.
pub fn fpu_errors(run: &FpuSeries, reference: &FpuSeries, upto: usize) -> (f64, f64) {
    let n = run.t.len().min(reference.t.len()).min(upto);
    let mut e_sum: f64 = 0.0;
    let mut e_j: f64 = 0.0;
    for k in 0..n {
        e_sum = e_sum.max((run.sum(k) - reference.sum(k)).abs());
        for j in 0..3 {
            e_j = e_j.max((run.ij[k][j] - reference.ij[k][j]).abs());
        }
    }
    if run.t.len() < reference.t.len().min(upto) {
        (f64::INFINITY, f64::INFINITY)
    } else {
        (e_sum, e_j)
    }
}

/// What to run.
pub struct Setup {
    /// The chain (`m = 3`, ω = 200).
    pub fpu: Fpu<f64, 6>,
    /// Final time in units of `ω`.
    pub t_over_omega: f64,
    /// Output spacing.
    pub every: f64,
    /// The Verlet reference step (also run at h/2 and h/4).
    pub h_ref: f64,
    /// The SIMs run: `("sim1" | "sim2", H)`.
    pub sims: Vec<(&'static str, f64)>,
    /// Interleaved rounds of the thread-CPU-time comparison of the reference-grade Verlet run
    /// and the SIM runs (medians).
    pub timing_reps: usize,
}

impl Setup {
    /// The thesis's setting: T = 5ω, SIM1 and SIM2 at H = 0.01 and 0.05.
    pub fn paper() -> Self {
        Self {
            fpu: Fpu::paper(),
            t_over_omega: 5.0,
            every: 10.0,
            h_ref: 1e-4,
            sims: vec![
                ("sim1", 0.01),
                ("sim1", 0.05),
                ("sim2", 0.01),
                ("sim2", 0.05),
            ],
            timing_reps: 5,
        }
    }
    /// The same runs, timed in one round.
    pub fn quick() -> Self {
        Self {
            timing_reps: 1,
            ..Self::paper()
        }
    }
}

/// One SIM run.
pub struct SimRun {
    /// `"sim1"` or `"sim2"`.
    pub name: &'static str,
    /// `H`.
    pub h: f64,
    /// Its energies.
    pub series: FpuSeries,
    /// Thread CPU seconds of the run (median over the rounds).
    pub cpu: f64,
    /// Max error of ΣI over the whole run.
    pub err_sum: f64,
    /// Max error of the `I_j` over the trusted window.
    pub err_j: f64,
}

/// What the experiment measured.
pub struct Results {
    /// `ω`.
    pub omega: f64,
    /// `T`.
    pub t_end: f64,
    /// Output spacing.
    pub every: f64,
    /// Verlet reference step.
    pub h_ref: f64,
    /// Thread CPU seconds of Verlet at `h_ref` over T (median over the rounds).
    pub cpu_ref: f64,
    /// The reference `(4·I(h/4) − I(h/2))/3`.
    pub richardson: FpuSeries,
    /// Its error estimate per output, `max_j |I_j(h/4) − I_j(h/2)|/3`.
    pub est_err: Vec<f64>,
    /// `max |I(h) − I(h/2)|` over the run.
    pub h_check: f64,
    /// The SIM runs.
    pub runs: Vec<SimRun>,
    /// Number of leading outputs on which the reference is trusted.
    pub trusted: usize,
    /// The last trusted output time.
    pub t_trusted: f64,
    /// Max `|I_j|` difference from DOP853 (rtol = atol = 1e-12) on the trusted window.
    pub vs_dop: f64,
}

/// Verlet at `h`, `h/2`, `h/4`: the Richardson reference, its error estimate, the `h`-vs-`h/2`
/// check.
fn verlet_reference(setup: &Setup, t_end: f64) -> (FpuSeries, Vec<f64>, f64) {
    let (fpu, every, h_ref) = (&setup.fpu, setup.every, setup.h_ref);
    let run = |h: f64| {
        let mut vv = VelocityVerlet::new(fpu.system(), h).expect("verlet");
        fpu_run(fpu, &mut vv, t_end, every)
    };
    let (r1, _) = run(h_ref);
    let (r2, _) = run(h_ref / 2.0);
    let (r4, _) = run(h_ref / 4.0);
    // Reference = Richardson (4·r4 − r2)/3; its error is estimated by |r4 − r2|·(1/3) (the h/4
    // run's own error) — conservative for the extrapolated value.
    let max_j = |a: &[f64; 3], b: &[f64; 3], div: f64| {
        (0..3)
            .map(|j| (a[j] - b[j]).abs() / div)
            .fold(0.0, f64::max)
    };
    let richardson = FpuSeries {
        t: r4.t.clone(),
        ij: r4
            .ij
            .iter()
            .zip(&r2.ij)
            .map(|(a, b)| [0, 1, 2].map(|j| (4.0 * a[j] - b[j]) / 3.0))
            .collect(),
    };
    let est_err = (0..r4.t.len())
        .map(|k| max_j(&r4.ij[k], &r2.ij[k], 3.0))
        .collect();
    let h_check = (0..r1.t.len())
        .map(|k| max_j(&r1.ij[k], &r2.ij[k], 1.0))
        .fold(0.0, f64::max);
    (richardson, est_err, h_check)
}

/// The SIM runs (their series; the costs come from [`costs`]).
fn sim_runs(setup: &Setup, t_end: f64) -> Vec<SimRun> {
    let fpu = &setup.fpu;
    setup
        .sims
        .iter()
        .map(|&(name, h)| SimRun {
            name,
            h,
            series: sim_run(fpu, name, h, t_end, setup.every).0,
            cpu: f64::NAN,
            err_sum: f64::NAN,
            err_j: f64::NAN,
        })
        .collect()
}

/// One SIM run (`"sim1"` or `"sim2"`) to `t_end`: its series and CPU seconds.
fn sim_run(fpu: &Fpu<f64, 6>, name: &str, h: f64, t_end: f64, every: f64) -> (FpuSeries, f64) {
    if name == "sim1" {
        fpu_run(fpu, &mut fpu_sim1(fpu, h), t_end, every)
    } else {
        fpu_run(fpu, &mut fpu_sim2(fpu, h), t_end, every)
    }
}

/// Thread CPU seconds of the reference-grade Verlet run and of each SIM run, timed against each
/// other in `timing_reps` interleaved rotated rounds (medians, `crate::timing::compare`).
fn costs(setup: &Setup, t_end: f64) -> (f64, Vec<f64>) {
    let (fpu, every) = (&setup.fpu, setup.every);
    let mut verlet = || {
        let mut vv = VelocityVerlet::new(fpu.system(), setup.h_ref).expect("verlet");
        std::hint::black_box(fpu_run(fpu, &mut vv, t_end, every));
    };
    let mut sims: Vec<Box<dyn FnMut() + '_>> = setup
        .sims
        .iter()
        .map(|&(name, h)| {
            Box::new(move || _ = std::hint::black_box(sim_run(fpu, name, h, t_end, every)))
                as Box<dyn FnMut()>
        })
        .collect();
    let mut all: Vec<&mut dyn FnMut()> = vec![&mut verlet];
    all.extend(sims.iter_mut().map(|f| f.as_mut() as &mut dyn FnMut()));
    let m = crate::timing::compare(&mut all, &crate::timing::Timing::rounds(setup.timing_reps));
    (m[0].median, m[1..].iter().map(|m| m.median).collect())
}

/// Trusted window: the leading outputs where the reference error estimate stays below 1e-3
/// (and below a tenth of the SIM1 H = 0.01 error at that output, so the comparison measures
/// SIM, not the reference).
fn trusted_outputs(richardson: &FpuSeries, est_err: &[f64], sim1: &FpuSeries) -> usize {
    let mut trusted = 0;
    for (k, &est) in est_err.iter().enumerate() {
        let sim_err = (0..3)
            .map(|j| (sim1.ij[k][j] - richardson.ij[k][j]).abs())
            .fold(0.0, f64::max);
        if est <= 1e-3 && (est <= 0.1 * sim_err || sim_err < 1e-3) {
            trusted = k + 1;
        } else {
            break;
        }
    }
    trusted
}

/// Independent check of the trusted part against DOP853 (rtol = atol = 1e-12).
fn vs_dop853(fpu: &Fpu<f64, 6>, richardson: &FpuSeries, trusted: usize) -> f64 {
    let dop = reference::solve_system(
        &fpu.system(),
        &fpu.initial_state(),
        &richardson.t[..trusted.max(1)],
        1e-12,
        1e-12,
    );
    dop.iter()
        .enumerate()
        .map(|(k, st)| {
            (0..3)
                .map(|j| {
                    (fpu.stiff_spring_energy(st, j).unwrap_or(f64::NAN) - richardson.ij[k][j]).abs()
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let omega = setup.fpu.omega();
    let t_end = setup.t_over_omega * omega;
    let (richardson, est_err, h_check) = verlet_reference(setup, t_end);
    let mut runs = sim_runs(setup, t_end);
    let (cpu_ref, cpu_sims) = costs(setup, t_end);
    for (run, cpu) in runs.iter_mut().zip(cpu_sims) {
        run.cpu = cpu;
    }
    let trusted = trusted_outputs(&richardson, &est_err, &runs[0].series);
    for run in &mut runs {
        run.err_sum = fpu_errors(&run.series, &richardson, usize::MAX).0;
        run.err_j = fpu_errors(&run.series, &richardson, trusted).1;
    }
    Results {
        omega,
        t_end,
        every: setup.every,
        h_ref: setup.h_ref,
        cpu_ref,
        t_trusted: richardson.t[trusted.saturating_sub(1)],
        vs_dop: vs_dop853(&setup.fpu, &richardson, trusted),
        richardson,
        est_err,
        h_check,
        runs,
        trusted,
    }
}

/// `reproduce fpu-sim` (`--quick`: the costs timed in one round).
pub struct FpuSimExperiment;
