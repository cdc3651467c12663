//! `reproduce dna` (000 §4.4): the DNA model of 200 coupled angles; Z&S at h = 2 stays bounded
//! and shows the open/closed transitions of the mean angle; Verlet's step limits measured by a
//! widening bracket.

use crate::experiments::Experiment;
use crate::report::{figure, figure_int, Output};
use macrostep::baselines::VelocityVerlet;
use macrostep::systems::Dna;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use rand_core::{Rng, SeedableRng};

/// The number of angles.
pub const DNA_N: usize = 200;

/// Seeded standard normal samples (PCG64, Box–Muller).
pub fn normals(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut u = || ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
    (0..n)
        .map(|_| {
            let (u1, u2) = (u(), u());
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        })
        .collect()
}

/// The seed's DNA start with ξ from [`normals`]`(seed)`.
pub fn dna_start(seed: u64) -> State<f64, DNA_N> {
    let xi = normals(seed, DNA_N);
    Dna::<f64, DNA_N>::paper().initial_state_from_fn(|k| xi[k])
}

/// Outcome of a DNA run: bounded?, max |H − H₀|, mean-angle samples.
pub struct DnaRun {
    /// Whether the run stayed bounded: finite, `max |θ| < 1000`, and `|H − H₀| ≤ 10 (|H₀| + 1)`.
    /// (Z&S with h = 2 loses a fixed O(1) share of the energy — it damps the unresolved fast
    /// oscillations, 000 §4.4 — so the bound is on blow-up, not on accuracy.)
    pub stable: bool,
    /// max |H − H₀|.
    pub max_energy_err: f64,
    /// θ̄ after each step.
    pub mean_angle: Vec<f64>,
}

/// Runs `integ` from [`dna_start`] to `t_end`.
pub fn dna_run<I: Integrator<f64, DNA_N>>(mut integ: I, h: f64, t_end: f64, seed: u64) -> DnaRun {
    // The paper's own stability criterion below, on the raw method: at h = 2 the stiff bonds'
    // true energy swings beyond the default energy guard.
    integ
        .set_guards(macrostep::Guards::off())
        .expect("guards off is always accepted");
    let dna = Dna::<f64, DNA_N>::paper();
    let sys = dna.system();
    let mut s = dna_start(seed);
    let e0 = sys.energy(&s);
    let n = (t_end / h).round() as usize;
    let mut de = 0.0f64;
    let mut mean = Vec::with_capacity(n);
    for _ in 0..n {
        if integ.step(&mut s).is_err() {
            return DnaRun {
                stable: false,
                max_energy_err: f64::INFINITY,
                mean_angle: mean,
            };
        }
        de = de.max((sys.energy(&s) - e0).abs());
        mean.push(dna.mean_angle(&s.q));
        if s.q.amax() > 1000.0 || de > 10.0 * (e0.abs() + 1.0) {
            return DnaRun {
                stable: false,
                max_energy_err: de,
                mean_angle: mean,
            };
        }
    }
    DnaRun {
        stable: true,
        max_energy_err: de,
        mean_angle: mean,
    }
}

/// Open/closed transitions of the mean angle: crossings between the closed states near
/// `arccos 0.7 ≈ 0.795` and `2π − arccos 0.7 ≈ 5.49`, counted with hysteresis (a transition is
/// recorded when θ̄ moves from below 2 to above π + 1.2, or back).
pub fn transitions(mean: &[f64]) -> usize {
    let (lo, hi) = (2.0, std::f64::consts::PI + 1.2);
    let mut state: Option<bool> = None;
    let mut count = 0;
    for &m in mean {
        let now = if m < lo {
            Some(false)
        } else if m > hi {
            Some(true)
        } else {
            None
        };
        if let Some(n) = now {
            if state.is_some_and(|s| s != n) {
                count += 1;
            }
            state = Some(n);
        }
    }
    count
}

/// Largest `h` in a bracket whose upper end fails `ok`: the bracket is widened until it does,
/// then bisected 14 times.
fn largest_passing(mut lo: f64, mut hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    while ok(hi) && hi < 64.0 {
        (lo, hi) = (hi, 2.0 * hi);
    }
    for _ in 0..14 {
        let mid = 0.5 * (lo + hi);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Verlet's step limits on the DNA run: `(strict, bounded, linear)`. Strict: the energy error
/// stays within 10 % of `|H₀|` over the run (an accuracy-based limit, what "near the stability
/// limit" means for a run one would use); bounded: the run merely does not blow up (the loose
/// [`DnaRun::stable`]); linear: `2/ω_max` of `M⁻¹ Hess V` at the start.
fn verlet_limits(t_end: f64, seed: u64) -> (f64, f64, f64) {
    let sys = Dna::<f64, DNA_N>::paper().system();
    let run = |h: f64| dna_run(VelocityVerlet::new(sys, h).expect("valid"), h, t_end, seed);
    let e0 = sys.energy(&dna_start(seed)).abs();
    let strict = largest_passing(0.05, 1.0, |h| {
        let r = run(h);
        r.stable && r.max_energy_err <= 0.1 * e0
    });
    let bounded = largest_passing(0.05, 1.0, |h| run(h).stable);
    use macrostep::model::Hessian;
    let k = sys.potential.hessian(&dna_start(seed).q);
    let dk = nalgebra::DMatrix::from_fn(DNA_N, DNA_N, |i, j| k[(i, j)]);
    let w2 = dk.symmetric_eigenvalues().max();
    (strict, bounded, 2.0 / w2.sqrt())
}

/// What to run.
pub struct Setup {
    /// Seed of the start.
    pub seed: u64,
    /// Final time.
    pub t_end: f64,
}

impl Setup {
    /// Seed 2015, T = 2000.
    pub fn paper() -> Self {
        Self {
            seed: 2015,
            t_end: 2000.0,
        }
    }

    /// Seed 2015, T = 200: the same claims on a tenth of the run (tests, `--quick`).
    pub fn quick() -> Self {
        Self {
            seed: 2015,
            t_end: 200.0,
        }
    }
}

/// What the experiment measured.
pub struct Results {
    /// Final time.
    pub t_end: f64,
    /// Z&S (β = 0.3) at h = 2, and its seconds.
    pub zs: (DnaRun, f64),
    /// Verlet at h = 0.2, and its seconds.
    pub verlet: (DnaRun, f64),
    /// Verlet's step limits `(strict, bounded, linear)`.
    pub verlet_limits: (f64, f64, f64),
}

/// Runs the experiment on a thread with a 256 MiB stack: the 200×200 Hessian and its factor
/// live on the stack.
pub fn compute(setup: &Setup) -> Results {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, || compute_on_this_thread(setup))
            .expect("spawn")
            .join()
            .expect("dna experiment panicked")
    })
}

/// [`compute`] on the calling thread, which needs a stack of about 256 MiB.
fn compute_on_this_thread(setup: &Setup) -> Results {
    let (seed, t_end) = (setup.seed, setup.t_end);
    let sys = Dna::<f64, DNA_N>::paper().system();
    let zs = ZhangSkeel::new(sys, 2.0, ZsParams::with_beta(0.3)).expect("valid");
    let start = crate::timing::CpuClock::start();
    let r = dna_run(zs, 2.0, t_end, seed);
    let zs_time = start.elapsed_secs();
    let verlet_limits = verlet_limits(t_end, seed);
    let vv = VelocityVerlet::new(sys, 0.2).expect("valid");
    let start = crate::timing::CpuClock::start();
    let rv = dna_run(vv, 0.2, t_end, seed);
    let vv_time = start.elapsed_secs();
    Results {
        t_end,
        zs: (r, zs_time),
        verlet: (rv, vv_time),
        verlet_limits,
    }
}

/// Prints the mean-angle samples and the `figure` lines.
pub fn report(res: &Results, out: &Output) {
    let ((r, zs_time), (rv, vv_time)) = (&res.zs, &res.verlet);
    let tr = transitions(&r.mean_angle);
    crate::say!(
        out,
        "Z&S beta = 0.3, h = 2, T = {}: stable {}, max |H - H0| {:.3e}, {} mean-angle transitions, {:.2} s",
        res.t_end, r.stable, r.max_energy_err, tr, zs_time
    );
    for (k, m) in r.mean_angle.iter().enumerate().step_by(50) {
        crate::say!(
            out,
            "  t = {:>6.0}  mean angle {:.4}",
            (k + 1) as f64 * 2.0,
            m
        );
    }
    crate::say!(
        out,
        "Verlet h = 0.2: stable {}, max |H - H0| {:.3e}, {} transitions, {:.2} s",
        rv.stable,
        rv.max_energy_err,
        transitions(&rv.mean_angle),
        vv_time,
    );
    let (strict, bounded, linear) = res.verlet_limits;
    crate::say!(
        out,
        "Verlet step limits (the paper: h = 0.2 is near Verlet's limit): energy within 10 % of |H0| over T up to h = {strict:.4}; bounded (no blow-up) up to h = {bounded:.4}; linear 2/omega_max at the start {linear:.4}"
    );
    figure("dna.zs.h2.stable", if r.stable { 1.0 } else { 0.0 });
    figure("dna.verlet.h_limit", strict);
    figure("dna.verlet.h_limit_bounded", bounded);
    figure("dna.verlet.h_linear_limit", linear);
    figure_int("dna.zs.transitions", tr as i64);
    figure_int("dna.verlet.transitions", transitions(&rv.mean_angle) as i64);
    fig8(res, out);
}

/// 000 Fig 8: the mean angle θ̄ over time by Velocity Verlet (the benchmark) and Z&S, with the
/// two closed (metastable) states.
fn fig8(res: &Results, out: &Output) {
    use crate::plot::{emit, Chart, Series};
    let curve = |run: &DnaRun, h: f64| {
        run.mean_angle
            .iter()
            .enumerate()
            .map(|(k, &m)| ((k + 1) as f64 * h, m))
            .collect()
    };
    let closed = f64::acos(0.7);
    let level = |label: &str, y: f64| Series::new(label, vec![(0.0, y), (res.t_end, y)]);
    emit(
        out,
        &Chart {
            stem: format!("{}.fig8_mean_angle", DnaExperiment::NAME),
            title: format!("000 Fig 8: DNA (N = {DNA_N} base pairs), mean angle over time"),
            x_label: "time t [s]".into(),
            y_label: "mean angle Σθₖ/N [rad]".into(),
            log_x: false,
            log_y: false,
            series: vec![
                Series::new(
                    "Velocity Verlet, h = 0.2 (benchmark)",
                    curve(&res.verlet.0, 0.2),
                ),
                Series::new("Z&S (000 eq 1.3), β = 0.3, h = 2", curve(&res.zs.0, 2.0)),
                level("closed state arccos 0.7", closed),
                level(
                    "closed state 2π − arccos 0.7",
                    2.0 * std::f64::consts::PI - closed,
                ),
            ],
        },
    );
}

/// `reproduce dna`.
pub struct DnaExperiment;

impl Experiment for DnaExperiment {
    const NAME: &'static str = "dna";
    const SEED: &'static str = "000 §4.4 Fig 8";
    const SECONDS: f64 = 6.8;
    const ABOUT: &'static str =
        "000 §4.4: DNA model, Z&S h = 2 vs Verlet stability limit, mean-angle transitions";
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

#[cfg(test)]
mod tests {
    use super::largest_passing;

    #[test]
    fn bracket_widens_past_its_first_upper_end_and_bisects() {
        let inside = largest_passing(0.05, 1.0, |h| h < 0.3);
        assert!((inside - 0.3).abs() < 1e-4 && inside < 0.3, "{inside}");
        // A bracket fixed at [0.05, 1] would return ~0.98 here: its upper end never fails.
        let beyond = largest_passing(0.05, 1.0, |h| h < 3.0);
        assert!((beyond - 3.0).abs() < 1e-3 && beyond < 3.0, "{beyond}");
    }
}
