//! The SIM reproductions (004 §4.2): `fpu-sim` (§4.2.6, Fig. 4.3), `sim-uniform` (Theorem 4.2.2),
//! `sim-langevin` (§4.2.5, Fig. 4.2) and `sim-stiff-friction` (Remark 4.2.5).
//!
//! The measurement functions are public so `tests/sim_experiments.rs` runs cheaper versions.

use crate::reference;
use crate::report::progress;
use crate::report::{figure, sci, Table};
use indicatif::ProgressIterator;
use macrostep::baselines::VelocityVerlet;
use macrostep::model::Mass;
use macrostep::models::Fpu;
use macrostep::sim::{FastParams, Sim1, Sim2, Sim4};
use macrostep::{Integrator, State};
use std::time::Instant;

// ============================================================================ fpu-sim

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
/// `every` (a multiple of the step). Returns the series and the CPU seconds.
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
    let t0 = Instant::now();
    for k in 1..=outputs {
        if integ.integrate(&mut s, per).is_err() {
            break;
        }
        // Remove accumulated time rounding from the label.
        s.t = k as f64 * every;
        record(fpu, &s, &mut out);
    }
    (out, t0.elapsed().as_secs_f64())
}

/// The SIM1 / SIM2 integrators on the FPU chain with step `h`.
pub fn fpu_sim1(fpu: &Fpu<f64, 6>, h: f64) -> impl Integrator<f64, 6> {
    let split = fpu.split();
    Sim1::new(
        Mass::identity(),
        FastParams::hamiltonian(split.stiff.k),
        split.soft,
        h,
    )
    .expect("valid FPU SIM1")
}

/// SIM2 on the FPU chain.
pub fn fpu_sim2(fpu: &Fpu<f64, 6>, h: f64) -> impl Integrator<f64, 6> {
    let split = fpu.split();
    Sim2::new(
        Mass::identity(),
        FastParams::hamiltonian(split.stiff.k),
        split.soft,
        h,
    )
    .expect("valid FPU SIM2")
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

/// `reproduce fpu-sim`.
pub fn run_fpu() {
    let fpu = Fpu::<f64, 6>::paper();
    let omega = fpu.omega();
    let t_end = 5.0 * omega;
    let every = 10.0;
    crate::say!("FPU m = 3, ω = {omega}, T = 5ω = {t_end}; outputs every {every}");
    // Reference: velocity Verlet h = 1e-4, checked by h/2 and h/4.
    let h_ref = 1e-4;
    let mut vv = VelocityVerlet::new(fpu.system(), h_ref).expect("verlet");
    let (r1, cpu_ref) = fpu_run(&fpu, &mut vv, t_end, every);
    let mut vv2 = VelocityVerlet::new(fpu.system(), h_ref / 2.0).expect("verlet");
    let (r2, cpu2) = fpu_run(&fpu, &mut vv2, t_end, every);
    let mut vv4 = VelocityVerlet::new(fpu.system(), h_ref / 4.0).expect("verlet");
    let (r4, cpu4) = fpu_run(&fpu, &mut vv4, t_end, every);
    // The machine is shared: the h = 1e-4 cost is the least of the three runs scaled to h.
    let cpu_ref = cpu_ref.min(cpu2 / 2.0).min(cpu4 / 4.0);
    // Reference = Richardson (4·r4 − r2)/3; its error is estimated by |r4 − r2|·(1/3) (the h/4
    // run's own error) — conservative for the extrapolated value.
    let richardson = FpuSeries {
        t: r4.t.clone(),
        ij: r4
            .ij
            .iter()
            .zip(&r2.ij)
            .map(|(a, b)| [0, 1, 2].map(|j| (4.0 * a[j] - b[j]) / 3.0))
            .collect(),
    };
    let est_err: Vec<f64> = (0..r4.t.len())
        .map(|k| {
            (0..3)
                .map(|j| (r4.ij[k][j] - r2.ij[k][j]).abs() / 3.0)
                .fold(0.0, f64::max)
        })
        .collect();
    let h_check: Vec<f64> = (0..r1.t.len())
        .map(|k| {
            (0..3)
                .map(|j| (r1.ij[k][j] - r2.ij[k][j]).abs())
                .fold(0.0, f64::max)
        })
        .collect();

    let sims: Vec<(&str, f64)> = vec![
        ("sim1", 0.01),
        ("sim1", 0.05),
        ("sim2", 0.01),
        ("sim2", 0.05),
    ];
    let mut runs = Vec::new();
    for &(name, h) in &sims {
        // Best of 10 for the timing (shared machine).
        let mut best = f64::INFINITY;
        let mut series = None;
        for _ in 0..10 {
            let (s, cpu) = if name == "sim1" {
                fpu_run(&fpu, &mut fpu_sim1(&fpu, h), t_end, every)
            } else {
                fpu_run(&fpu, &mut fpu_sim2(&fpu, h), t_end, every)
            };
            best = best.min(cpu);
            series = Some(s);
        }
        runs.push((name, h, series.expect("ran"), best));
    }
    // Trusted window: the reference error estimate stays below 1e-3 (and below a tenth of the
    // SIM1 H = 0.01 error at that output, so the comparison measures SIM, not the reference).
    let sim1_001 = &runs[0].2;
    let mut trusted = 0;
    for (k, &est) in est_err.iter().enumerate() {
        let sim_err = (0..3)
            .map(|j| (sim1_001.ij[k][j] - richardson.ij[k][j]).abs())
            .fold(0.0, f64::max);
        if est <= 1e-3 && (est <= 0.1 * sim_err || sim_err < 1e-3) {
            trusted = k + 1;
        } else {
            break;
        }
    }
    let t_trusted = richardson.t[trusted.saturating_sub(1)];
    // Independent check of the trusted part against DOP853 (rtol = atol = 1e-12).
    let dop = reference::solve_system(
        &fpu.system(),
        &fpu.initial_state(),
        &richardson.t[..trusted.max(1)],
        1e-12,
        1e-12,
    );
    let vs_dop = dop
        .iter()
        .enumerate()
        .map(|(k, st)| {
            (0..3)
                .map(|j| {
                    (fpu.stiff_spring_energy(st, j).unwrap_or(f64::NAN) - richardson.ij[k][j]).abs()
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    crate::say!(
        "Verlet–Richardson reference vs DOP853 (1e-12) on t ≤ {t_trusted}: max |ΔI_j| = {}. \
         Beyond ≈ 300 neither reference converges (the stiff-energy exchange is sensitive: \
         DOP853 at rtol 1e-11/1e-12/1e-13 gives I₁(500) = 0.088/0.075/0.093), so I_j errors are \
         measured on the trusted window only; ΣI (an adiabatic invariant) on the whole run.",
        sci(vs_dop)
    );
    crate::say!(
        "reference: Verlet h = {h_ref:e} (CPU {cpu_ref:.2} s), Richardson with h/2, h/4; \
         |I(h) − I(h/2)| max {}; estimated reference error max {} ; trusted to t = {t_trusted}",
        sci(h_check.iter().copied().fold(0.0, f64::max)),
        sci(est_err.iter().copied().fold(0.0, f64::max))
    );
    let tab = Table::new(&[
        "t", "I1 ref", "I2 ref", "I3 ref", "ΣI ref", "I1 SIM1", "I2 SIM1", "I3 SIM1", "ref err",
    ]);
    for k in (0..richardson.t.len()).step_by(10) {
        let r = &richardson.ij[k];
        let s = &sim1_001.ij[k];
        tab.row(&[
            format!("{}", richardson.t[k]),
            format!("{:.5}", r[0]),
            format!("{:.5}", r[1]),
            format!("{:.5}", r[2]),
            format!("{:.6}", richardson.sum(k)),
            format!("{:.5}", s[0]),
            format!("{:.5}", s[1]),
            format!("{:.5}", s[2]),
            sci(est_err[k]),
        ]);
    }
    crate::say!();
    let tab = Table::new(&[
        "method",
        "H",
        "max err ΣI",
        "max err I_j",
        "CPU s",
        "speedup",
    ]);
    for (name, h, series, cpu) in &runs {
        let (e_sum_all, _) = fpu_errors(series, &richardson, usize::MAX);
        let (_, e_j) = fpu_errors(series, &richardson, trusted);
        let speedup = cpu_ref / cpu;
        tab.row(&[
            name.to_string(),
            format!("{h}"),
            sci(e_sum_all),
            sci(e_j),
            format!("{cpu:.4}"),
            format!("{speedup:.0}"),
        ]);
        let prefix = if *name == "sim1" {
            String::from("fpu-sim")
        } else {
            format!("fpu-sim.{name}")
        };
        figure(&format!("{prefix}.H{h}.max_err_Isum"), e_sum_all);
        figure(&format!("{prefix}.H{h}.max_err_Ij"), e_j);
        if *name == "sim1" && *h == 0.01 {
            figure("fpu-sim.speedup", speedup);
        }
    }
    figure("fpu-sim.reference_trusted_until", t_trusted);
    figure("fpu-sim.reference_vs_dop853", vs_dop);
    figure(
        "fpu-sim.reference_err_est",
        est_err[..trusted.max(1)]
            .iter()
            .copied()
            .fold(0.0, f64::max),
    );
}

// ============================================================================ sim-uniform

/// Which SIM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// SIM1.
    Sim1,
    /// SIM2.
    Sim2,
    /// SIM4.
    Sim4,
    /// Velocity Verlet on the full potential.
    Verlet,
}

/// Final `max |q(T) − q_ref(T)|` of a method with step `h` on the FPU chain with frequency `ω`
/// (start: [`Fpu::initial_state`], stiff energy ½), against DOP853; `∞` if it blew up.
pub fn uniform_error(omega: f64, which: Which, h: f64, t_end: f64, q_ref: &State<f64, 6>) -> f64 {
    let fpu = Fpu::<f64, 6>::new(omega).expect("fpu");
    let split = fpu.split();
    let fast = FastParams::hamiltonian(split.stiff.k);
    let n = (t_end / h).round() as usize;
    let mut s = fpu.initial_state();
    let ok = match which {
        Which::Sim1 => Sim1::new(Mass::identity(), fast, split.soft, h)
            .expect("sim1")
            .integrate(&mut s, n),
        Which::Sim2 => Sim2::new(Mass::identity(), fast, split.soft, h)
            .expect("sim2")
            .integrate(&mut s, n),
        Which::Sim4 => Sim4::new(Mass::identity(), fast, split.soft, h)
            .expect("sim4")
            .integrate(&mut s, n),
        Which::Verlet => VelocityVerlet::new(fpu.system(), h)
            .expect("vv")
            .integrate(&mut s, n),
    };
    let e = (s.q - q_ref.q).amax();
    if ok.is_err() || !e.is_finite() || e > 1e6 {
        f64::INFINITY
    } else {
        e
    }
}

/// The DOP853 reference `q(T)` for the FPU chain with frequency `ω`.
pub fn fpu_reference(omega: f64, t_end: f64) -> State<f64, 6> {
    let fpu = Fpu::<f64, 6>::new(omega).expect("fpu");
    reference::solve_system(&fpu.system(), &fpu.initial_state(), &[t_end], 1e-13, 1e-13)
        .pop()
        .expect("reference")
}

/// `reproduce sim-uniform`.
pub fn run_uniform() {
    let t_end = 1.0;
    let h = 0.01;
    crate::say!("FPU chain (m = 3, smooth quartic soft springs), T = {t_end}, fixed H = {h}");
    let tab = Table::new(&[
        "ω",
        "ωH",
        "SIM1 err q",
        "SIM2 err q",
        "SIM4 err q",
        "Verlet err q",
    ]);
    for omega in [50.0, 100.0, 200.0, 400.0] {
        let r = fpu_reference(omega, t_end);
        let e: Vec<f64> = [Which::Sim1, Which::Sim2, Which::Sim4, Which::Verlet]
            .iter()
            .map(|&w| uniform_error(omega, w, h, t_end, &r))
            .collect();
        tab.row(&[
            format!("{omega}"),
            format!("{}", omega * h),
            sci(e[0]),
            sci(e[1]),
            sci(e[2]),
            sci(e[3]),
        ]);
        figure(&format!("sim-uniform.omega{omega}.err_q"), e[0]);
        figure(&format!("sim-uniform.omega{omega}.verlet_err_q"), e[3]);
    }
    // Orders in the regime H ≪ 1/ω.
    let omega = 50.0;
    let r = fpu_reference(omega, t_end);
    crate::say!("\norders at ω = {omega}, H ≪ 1/ω:");
    let tab = Table::new(&["method", "H values", "errors", "slope"]);
    for (which, hs) in [
        (Which::Sim1, [1.0 / 400.0, 1.0 / 800.0, 1.0 / 1600.0]),
        (Which::Sim2, [1.0 / 400.0, 1.0 / 800.0, 1.0 / 1600.0]),
        (Which::Sim4, [1.0 / 100.0, 1.0 / 200.0, 1.0 / 400.0]),
    ] {
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| uniform_error(omega, which, h, t_end, &r))
            .collect();
        let slope = crate::measure::loglog_slope(&hs, &errs);
        tab.row(&[
            format!("{which:?}"),
            format!("{:.1e}..{:.1e}", hs[0], hs[2]),
            errs.iter().map(|e| sci(*e)).collect::<Vec<_>>().join(" "),
            format!("{slope:.2}"),
        ]);
        figure(
            &format!("sim-uniform.slope.{}", format!("{which:?}").to_lowercase()),
            slope,
        );
    }
}

// ============================================================================ sim-langevin

use macrostep::langevin::{Gla, Ou, StochasticIntegrator};
use macrostep::models::TwoSpring;
use macrostep::nalgebra::Vector2;
use macrostep::sim::Increment;
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// Running sums of a per-path quantity: mean and standard error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acc {
    n: f64,
    s: f64,
    s2: f64,
}

impl Acc {
    /// Adds one path's value.
    pub fn add(&mut self, x: f64) {
        self.n += 1.0;
        self.s += x;
        self.s2 += x * x;
    }
    /// Sample mean.
    pub fn mean(&self) -> f64 {
        self.s / self.n
    }
    /// Standard error of the mean.
    pub fn se(&self) -> f64 {
        let m = self.mean();
        ((self.s2 / self.n - m * m).max(0.0) / (self.n - 1.0)).sqrt()
    }
}

/// The four moments `x, y, x², y²` of a state.
fn moments(s: &State<f64, 2>) -> [f64; 4] {
    [s.q[0], s.q[1], s.q[0] * s.q[0], s.q[1] * s.q[1]]
}

/// Moment names.
pub const MOMENTS: [&str; 4] = ["E[x]", "E[y]", "E[x²]", "E[y²]"];

/// Setup of the `sim-langevin` study: the GLA grid `h = H_res/188 ≈ 0.1/ω` carries both SIM
/// steps, `H_res = 6π/ω` (three full stiff periods, `sin ωH = 0`, Fig. 4.2a) and
/// `H_nr = 100 h` (`ωH ≈ 10.03`, non-resonant).
#[derive(Clone, Copy, Debug)]
pub struct LangevinSetup {
    /// Trajectories.
    pub paths: usize,
    /// Number of GLA steps of size `h` (`T = steps·h`).
    pub steps: usize,
    /// Whether to start the stiff spring stretched as in Fig. 4.2 (`x(0) = 0.8/ω`,
    /// `y(0) = 1.1 + x(0)`); `false` is the control start `x(0) = 0`, `y(0) = 1.1` (same soft
    /// stretch, no coherent stiff oscillation).
    pub stiff_start: bool,
}

impl LangevinSetup {
    /// The start of the study.
    pub fn initial_state(&self) -> State<f64, 2> {
        let mut s = TwoSpring::<f64>::paper().initial_state();
        if !self.stiff_start {
            s.q[1] -= s.q[0];
            s.q[0] = 0.0;
        }
        s
    }
}

/// Per-output statistics of one SIM step size.
#[derive(Clone, Debug)]
pub struct SimStats {
    /// SIM step `H`.
    pub h: f64,
    /// Whether the SIM uses the mollified kick (eq 4.8).
    pub mollified: bool,
    /// Bias correction: `false` = halving `2X(H/2) − X(H)`; `true` = the resonant family
    /// `τ = H/3 = 2π/ω`: quadratic extrapolation `3X(τ) − 3X(2τ) + X(3τ)` from three full-period
    /// steps (all with `sin ωH = 0`), on one Brownian path.
    pub family: bool,
    /// GLA steps (size `h`) per output.
    pub every: usize,
    /// Output times.
    pub t: Vec<f64>,
    /// SIM at `H`: per output, per moment.
    pub raw: Vec<[Acc; 4]>,
    /// Bias-corrected SIM per path (see `family`; same Brownian path).
    pub corrected: Vec<[Acc; 4]>,
    /// GLA at `h`, Richardson reference `(4X(h/8) − X(h/4))/3` per path, at the same times.
    pub gla_h: Vec<[Acc; 4]>,
    /// The GLA reference.
    pub gla_ref: Vec<[Acc; 4]>,
    /// SIM at `H` with the stiff allowances — impulse kick ([`KickFilter`]) on `x`, aliasing
    /// ([`AliasFilter`]) on `y` — per output, per moment.
    pub raw_kick: Vec<[Acc; 4]>,
    /// As `corrected`, with the stiff allowances applied to every level before the soft-bias
    /// extrapolation (all allowances).
    pub corrected_kick: Vec<[Acc; 4]>,
    /// Per path at `H`: the allowance itself, `x̃ − x` and `x̃² − x²`.
    pub kick_bias: Vec<[Acc; 2]>,
    /// Per path at `H`: the aliasing allowance ([`AliasFilter`]), `ỹ − y` and `ỹ² − y²`.
    pub alias_bias: Vec<[Acc; 2]>,
    /// Per path at `H`: the slow force on `x`, `y³` (see [`KickFilter`]).
    pub force: Vec<Acc>,
    /// Per path: the coarser Richardson value `(4X(h/4) − X(h/2))/3` minus the reference
    /// `(4X(h/8) − X(h/4))/3` (a check that the reference is converged).
    pub gla_ref_check: Vec<[Acc; 4]>,
}

/// The impulse-kick allowance for the stiff coordinate `x` of the two-spring system.
///
/// `x` is a damped linear oscillator (`λ = ω²`, friction `γ`) driven by the soft force
/// `F(t) = (y − x)³` and the noise. Given the force samples `F_k = F(q_k)` of a SIM path, the
/// SIM's response to them is the impulse sum `r_n = Σ_k B₁₂((n−k)H)·w·F_k` (kick weight `w = H`,
/// or `B₁₂(H)` for the mollified kick; SIM1 flow-then-kick never kicks with `F₀`); the exact
/// oscillator's response to the same force, linearly interpolated between the samples, is the
/// convolution `u_n = ∫₀^{t_n} G(t_n − s) F̂(s) ds` (`G = B₁₂`), propagated exactly per step via
/// the particular solution of `u'' + γu' + λu = a + b s`. `x̃ = x + (u − r)` replaces the
/// impulse quadrature by the exact convolution: what remains of the SIM's bias is the soft
/// (smooth in `H`) one. The filter acts on the slow part of the force only, `F_slow = y³`
/// (`F` with the stiff coordinate at rest): the part linear in the fast `x`, `−3(y − x)²x`, is
/// the parametric frequency shift `3(y − x)²/(2ω)` of the stiff mode, which the kicked SIM map
/// reproduces at non-resonant `ωH` (its eigenphase moves by `H·3(y − x)²/(2ω)` per step) and
/// cannot reproduce at full-period `H` (`B₁₂(H) = 0`); it stays SIM's own.
#[derive(Clone, Copy, Debug)]
pub struct KickFilter {
    b: macrostep::nalgebra::Matrix2<f64>,
    lam: f64,
    gam: f64,
    h: f64,
    w: f64,
    r: Vector2<f64>,
    u: Vector2<f64>,
    f_prev: f64,
}

impl KickFilter {
    /// Stiff mode `λ`, `γ`; SIM step `h`; plain or mollified kick; `F₀ = F(q(0))`.
    pub fn new(lam: f64, gam: f64, h: f64, mollified: bool, f0: f64) -> Self {
        let b = macrostep::sim::mode_map(lam, gam, h);
        Self {
            b,
            lam,
            gam,
            h,
            w: if mollified { b[(0, 1)] } else { h },
            r: Vector2::zeros(),
            u: Vector2::zeros(),
            f_prev: f0,
        }
    }

    /// Advances both responses by one SIM step; `f_new` is the force at the new grid point.
    pub fn step(&mut self, f_new: f64) {
        self.r = self.b * self.r;
        self.r[1] += self.w * f_new;
        let slope = (f_new - self.f_prev) / self.h;
        let beta = slope / self.lam;
        let alpha = (self.f_prev - self.gam * beta) / self.lam;
        self.u = self.b * (self.u - Vector2::new(alpha, beta))
            + Vector2::new(alpha + beta * self.h, beta);
        self.f_prev = f_new;
    }

    /// `u − r`: the displacement of `x` the impulse kicks miss.
    pub fn correction(&self) -> f64 {
        self.u[0] - self.r[0]
    }
}

/// The slow part of the soft force on `x` (`−∂V_soft/∂x = (y − x)³`): the force with the stiff
/// coordinate at rest, `y³` (see [`KickFilter`]).
fn slow_force_x(s: &State<f64, 2>) -> f64 {
    s.q[1].powi(3)
}

/// The aliasing allowance for the soft coordinate `y` of the two-spring system.
///
/// The start `x(0) = 0.8/ω` excites a coherent stiff oscillation
/// `x_coh(t) = x(0)·B₁₁(t)` (`≈ x(0) e^{−ct/2} cos ωt`). The exact dynamics averages it out of
/// the force on `y`, `F_y = −(y − x)³`, to first order; SIM's kick samples it at the grid points,
/// at the same phase every step when `ωH ∈ 2πℤ` (a constant-sign force error
/// `δF_n = −3(y_n − x_n)²·x_coh(t_n)`), alternating at `ωH ∈ π + 2πℤ`. This propagates the
/// tangent-linear response `δy` of SIM's own `y` map to `−δF` along the path (flow
/// `B_y(H)` of the soft mode, then `δv += w·(−3(y − x)²)(δy + x_coh)`), so `ỹ = y + δy` is SIM with
/// the kick taken at `y − x + x_coh`. Zero when `x(0) = 0`.
#[derive(Clone, Copy, Debug)]
pub struct AliasFilter {
    b_y: macrostep::nalgebra::Matrix2<f64>,
    w: f64,
    lam: f64,
    gam: f64,
    x0: f64,
    h: f64,
    n: u32,
    d: Vector2<f64>,
}

impl AliasFilter {
    /// Stiff mode `λ` and friction `γ` (also the soft mode's), SIM step `h`, plain or mollified
    /// kick, stiff start `x(0)` (from rest).
    pub fn new(lam: f64, gam: f64, h: f64, mollified: bool, x0: f64) -> Self {
        let b_y = macrostep::sim::mode_map(0.0, gam, h);
        Self {
            b_y,
            w: if mollified { b_y[(0, 1)] } else { h },
            lam,
            gam,
            x0,
            h,
            n: 0,
            d: Vector2::zeros(),
        }
    }

    /// Advances by one SIM step; `s` is the state after it.
    pub fn step(&mut self, s: &State<f64, 2>) {
        self.n += 1;
        let t = f64::from(self.n) * self.h;
        let x_coh = self.x0 * macrostep::sim::mode_map(self.lam, self.gam, t)[(0, 0)];
        let k = -3.0 * (s.q[1] - s.q[0]).powi(2);
        self.d = self.b_y * self.d;
        self.d[1] += self.w * k * (self.d[0] + x_coh);
    }

    /// `δy`.
    pub fn correction(&self) -> f64 {
        self.d[0]
    }
}

/// The moments with the impulse-kick allowance on `x` and the aliasing allowance on `y`.
fn moments_kick(s: &State<f64, 2>, k: &KickFilter, a: &AliasFilter) -> [f64; 4] {
    let x = s.q[0] + k.correction();
    let y = s.q[1] + a.correction();
    [x, y, x * x, y * y]
}

/// GLA (004 eq 6.3) at `h`, `h/2`, `h/4`, `h/8` on one Brownian path: each step draws the
/// normals of eight `h/8` steps and aggregates the Ornstein–Uhlenbeck increments exactly to the
/// coarser levels (`η(2δ) = e^{−cδ}η₁(δ) + η₂(δ)`).
#[derive(Clone, Copy, Debug)]
pub struct GlaLevels<P> {
    g: [Gla<f64, P, 2>; 4],
    ou: [Ou<f64>; 4],
    /// The states at `h`, `h/2`, `h/4`, `h/8`.
    pub states: [State<f64, 2>; 4],
}

impl<P: macrostep::model::Potential<f64, 2> + Copy> GlaLevels<P> {
    /// The four levels of GLA with friction `c`, noise `σ` and coarse step `h`, from `s0`.
    pub fn new(
        system: macrostep::model::System<f64, P, 2>,
        c: f64,
        sigma: f64,
        h: f64,
        s0: State<f64, 2>,
    ) -> Self {
        let dts = [h, h / 2.0, h / 4.0, h / 8.0];
        Self {
            g: dts.map(|dt| Gla::with_noise(system, c, sigma, dt).expect("gla")),
            ou: dts.map(|dt| Ou::new(c, sigma, dt).expect("ou")),
            states: [s0; 4],
        }
    }

    /// One coarse step `h` (eight fine steps).
    pub fn step<R: rand_core::Rng + ?Sized>(&mut self, rng: &mut R) {
        let [g1, g2, g4, g8] = &mut self.g;
        let [ou1, ou2, ou4, ou8] = &self.ou;
        let [s1, s2, s4, s8] = &mut self.states;
        let mut eta2 = [Vector2::zeros(); 2];
        for e2 in eta2.iter_mut() {
            let mut eta4 = [Vector2::zeros(); 2];
            for e4 in eta4.iter_mut() {
                let mut eta8 = [Vector2::zeros(); 2];
                for e8 in eta8.iter_mut() {
                    let xi: Vector2<f64> = macrostep::langevin::Normal::vector(rng);
                    g8.step_with_normals(s8, &xi).expect("gla h/8");
                    *e8 = xi * ou8.std_dev();
                }
                *e4 = eta8[0] * ou8.decay() + eta8[1];
                g4.step_with_normals(s4, &(*e4 / ou4.std_dev()))
                    .expect("gla h/4");
            }
            *e2 = eta4[0] * ou4.decay() + eta4[1];
            g2.step_with_normals(s2, &(*e2 / ou2.std_dev()))
                .expect("gla h/2");
        }
        let eta1 = eta2[0] * ou2.decay() + eta2[1];
        g1.step_with_normals(s1, &(eta1 / ou1.std_dev()))
            .expect("gla h");
    }
}

/// The GLA grid step and the two SIM steps.
pub fn langevin_steps(omega: f64) -> (f64, f64, f64) {
    let h_res = 6.0 * std::f64::consts::PI / omega;
    let h = h_res / 188.0;
    (h, h_res, 100.0 * h)
}

/// Runs GLA at `h`, `h/2`, `h/4`, `h/8` on one Brownian path per trajectory ([`GlaLevels`]),
/// and SIM1 at `H` and `H/2` (its fast-flow increments aggregated exactly,
/// `R(H) = B(H/2)R₁ + R₂`; the resonant family at `τ`, `2τ`, `3τ`) for the resonant and
/// non-resonant `H`, each SIM level with its [`KickFilter`] and [`AliasFilter`] allowances.
pub fn langevin_study(setup: LangevinSetup) -> Vec<SimStats> {
    let model = TwoSpring::<f64>::paper();
    let omega = model.omega();
    let lp = model.langevin();
    let (c, sigma) = (lp.c, lp.sigma);
    let (h, h_res, h_nr) = langevin_steps(omega);
    let split = model.split();
    let fast = FastParams::langevin(split.stiff.k, c, sigma);
    // GLA integrates the full potential (stiff + soft).
    let system = model.system();
    let lam = omega * omega;
    let mut out: Vec<SimStats> = [
        (h_res, 940usize, false, false),
        (h_nr, 1000usize, false, false),
        (h_nr, 1000, true, false),
        (h_res, 1880, false, true),
    ]
    .iter()
    .map(|&(hh, every, mollified, family)| {
        let n_out = setup.steps / every;
        SimStats {
            h: hh,
            mollified,
            family,
            every,
            t: (1..=n_out).map(|k| (k * every) as f64 * h).collect(),
            raw: vec![[Acc::default(); 4]; n_out],
            corrected: vec![[Acc::default(); 4]; n_out],
            gla_h: vec![[Acc::default(); 4]; n_out],
            gla_ref: vec![[Acc::default(); 4]; n_out],
            raw_kick: vec![[Acc::default(); 4]; n_out],
            corrected_kick: vec![[Acc::default(); 4]; n_out],
            kick_bias: vec![[Acc::default(); 2]; n_out],
            alias_bias: vec![[Acc::default(); 2]; n_out],
            force: vec![Acc::default(); n_out],
            gla_ref_check: vec![[Acc::default(); 4]; n_out],
        }
    })
    .collect();
    for path in (0..setup.paths).progress_with(progress(setup.paths, "GLA + SIM1 paths")) {
        // ---- GLA on one Brownian path at three levels.
        let mut rng = Pcg32::seed_from_u64(path as u64);
        let s0 = setup.initial_state();
        let f0 = slow_force_x(&s0);
        let mut gla = GlaLevels::new(system, c, sigma, h, s0);
        for n in 1..=setup.steps {
            gla.step(&mut rng);
            let [s1, s2, s4, s8] = &gla.states;
            for st in out.iter_mut() {
                if n % st.every == 0 {
                    let k = n / st.every - 1;
                    let (m1, m2, m4, m8) = (moments(s1), moments(s2), moments(s4), moments(s8));
                    for i in 0..4 {
                        st.gla_h[k][i].add(m1[i]);
                        let reference = (4.0 * m8[i] - m4[i]) / 3.0;
                        st.gla_ref[k][i].add(reference);
                        st.gla_ref_check[k][i].add((4.0 * m4[i] - m2[i]) / 3.0 - reference);
                    }
                }
            }
        }
        // ---- SIM1 at H and H/2 on one Brownian path (independent of the GLA path).
        for st in out.iter_mut().filter(|st| st.family) {
            let mut rng = Pcg32::seed_from_u64(2_000_000_011 + path as u64);
            let tau = st.h / 3.0;
            let mk = |hh: f64| Sim1::new(Mass::identity(), fast, split.soft, hh).expect("sim");
            let (mut s1, mut s2, mut s3) = (mk(tau), mk(2.0 * tau), mk(3.0 * tau));
            let f1 = *s1.flow();
            let add = |a: Increment<f64, 2>, b: &Increment<f64, 2>| Increment {
                z: a.z + b.z,
                zeta: a.zeta + b.zeta,
            };
            let (mut a1, mut a2, mut a3) = (s0, s0, s0);
            let (mut k1, mut k2, mut k3) = (
                KickFilter::new(lam, c, tau, false, f0),
                KickFilter::new(lam, c, 2.0 * tau, false, f0),
                KickFilter::new(lam, c, 3.0 * tau, false, f0),
            );
            let (mut l1, mut l2, mut l3) = (
                AliasFilter::new(lam, c, tau, false, s0.q[0]),
                AliasFilter::new(lam, c, 2.0 * tau, false, s0.q[0]),
                AliasFilter::new(lam, c, 3.0 * tau, false, s0.q[0]),
            );
            let groups = (st.every as f64 * h / (6.0 * tau)).round() as usize;
            for k in 0..st.t.len() {
                for _ in 0..groups {
                    let r: [Increment<f64, 2>; 6] =
                        core::array::from_fn(|_| f1.sample_increment(&mut rng));
                    for ri in &r {
                        s1.step_with_increment(&mut a1, ri).expect("sim τ");
                        k1.step(slow_force_x(&a1));
                        l1.step(&a1);
                    }
                    for j in 0..3 {
                        let r2 = add(f1.carry(&r[2 * j]), &r[2 * j + 1]);
                        s2.step_with_increment(&mut a2, &r2).expect("sim 2τ");
                        k2.step(slow_force_x(&a2));
                        l2.step(&a2);
                    }
                    for j in 0..2 {
                        let r3 = add(
                            f1.carry(&add(f1.carry(&r[3 * j]), &r[3 * j + 1])),
                            &r[3 * j + 2],
                        );
                        s3.step_with_increment(&mut a3, &r3).expect("sim 3τ");
                        k3.step(slow_force_x(&a3));
                        l3.step(&a3);
                    }
                }
                let (m1, m2, m3) = (moments(&a1), moments(&a2), moments(&a3));
                let (n1, n2, n3) = (
                    moments_kick(&a1, &k1, &l1),
                    moments_kick(&a2, &k2, &l2),
                    moments_kick(&a3, &k3, &l3),
                );
                for i in 0..4 {
                    st.raw[k][i].add(m3[i]);
                    st.corrected[k][i].add(3.0 * m1[i] - 3.0 * m2[i] + m3[i]);
                    st.raw_kick[k][i].add(n3[i]);
                    st.corrected_kick[k][i].add(3.0 * n1[i] - 3.0 * n2[i] + n3[i]);
                }
                st.kick_bias[k][0].add(n3[0] - m3[0]);
                st.kick_bias[k][1].add(n3[2] - m3[2]);
                st.alias_bias[k][0].add(n3[1] - m3[1]);
                st.alias_bias[k][1].add(n3[3] - m3[3]);
                st.force[k].add(slow_force_x(&a3));
            }
        }
        for st in out.iter_mut().filter(|st| !st.family) {
            let mut rng = Pcg32::seed_from_u64(1_000_000_007 + path as u64);
            let mut big = Sim1::new(Mass::identity(), fast, split.soft, st.h)
                .expect("sim H")
                .mollified(st.mollified);
            let mut small = Sim1::new(Mass::identity(), fast, split.soft, st.h / 2.0)
                .expect("sim H/2")
                .mollified(st.mollified);
            let half_flow = *small.flow();
            let (mut a, mut b) = (s0, s0);
            let mut ka = KickFilter::new(lam, c, st.h, st.mollified, f0);
            let mut kb = KickFilter::new(lam, c, st.h / 2.0, st.mollified, f0);
            let mut la = AliasFilter::new(lam, c, st.h, st.mollified, s0.q[0]);
            let mut lb = AliasFilter::new(lam, c, st.h / 2.0, st.mollified, s0.q[0]);
            let sim_steps_per_out = (st.every as f64 * h / st.h).round() as usize;
            for k in 0..st.t.len() {
                for _ in 0..sim_steps_per_out {
                    let r1 = half_flow.sample_increment(&mut rng);
                    let r2 = half_flow.sample_increment(&mut rng);
                    small.step_with_increment(&mut b, &r1).expect("sim H/2");
                    kb.step(slow_force_x(&b));
                    lb.step(&b);
                    small.step_with_increment(&mut b, &r2).expect("sim H/2");
                    kb.step(slow_force_x(&b));
                    lb.step(&b);
                    let c1 = half_flow.carry(&r1);
                    let r = Increment {
                        z: c1.z + r2.z,
                        zeta: c1.zeta + r2.zeta,
                    };
                    big.step_with_increment(&mut a, &r).expect("sim H");
                    ka.step(slow_force_x(&a));
                    la.step(&a);
                }
                let (ma, mb) = (moments(&a), moments(&b));
                let (na, nb) = (moments_kick(&a, &ka, &la), moments_kick(&b, &kb, &lb));
                for i in 0..4 {
                    st.raw[k][i].add(ma[i]);
                    st.corrected[k][i].add(2.0 * mb[i] - ma[i]);
                    st.raw_kick[k][i].add(na[i]);
                    st.corrected_kick[k][i].add(2.0 * nb[i] - na[i]);
                }
                st.kick_bias[k][0].add(na[0] - ma[0]);
                st.kick_bias[k][1].add(na[2] - ma[2]);
                st.alias_bias[k][0].add(na[1] - ma[1]);
                st.alias_bias[k][1].add(na[3] - ma[3]);
                st.force[k].add(slow_force_x(&a));
            }
        }
    }
    out
}

/// `max |Δ| / √(SE₁² + SE₂²)` over outputs and moments.
pub fn max_abs_z(a: &[[Acc; 4]], b: &[[Acc; 4]]) -> f64 {
    let mut z: f64 = 0.0;
    for (x, y) in a.iter().zip(b) {
        for i in 0..4 {
            let se = (x[i].se().powi(2) + y[i].se().powi(2)).sqrt();
            z = z.max((x[i].mean() - y[i].mean()).abs() / se);
        }
    }
    z
}

/// The `sim-langevin` labels, in [`langevin_study`]'s order.
pub const LANGEVIN_LABELS: [&str; 4] = [
    "resonant",
    "nonresonant",
    "nonresonant_mollified",
    "resonant_family",
];

/// `max_t |E[Δ]| / SE` of the per-path differences `d` against the standard errors of `se_of`.
fn max_mean_in_se(d: &[[Acc; 4]], se_of: &[[Acc; 4]], which: &[usize]) -> f64 {
    let mut m: f64 = 0.0;
    for (x, y) in d.iter().zip(se_of) {
        for &i in which {
            m = m.max(x[i].mean().abs() / y[i].se());
        }
    }
    m
}

/// The stationary slow-force compliance of SIM1's stiff mode relative to the exact one:
/// with a constant force `F` the plain-kick SIM1 map (undamped) has the fixed point
/// `x* = (ωH/2)·cot(ωH/2)·F/ω²` instead of `F/ω²`; the mollified kick
/// (weight `sin(ωH)/ω`) gives `x* = (1 + cos ωH)/2 · F/ω²`.
pub fn sim_compliance(omega: f64, h: f64, mollified: bool) -> f64 {
    let th = omega * h;
    if mollified {
        0.5 * (1.0 + th.cos())
    } else {
        0.5 * th / (0.5 * th).tan()
    }
}

/// Prints the tables and figures of `sim-langevin` for a [`langevin_study`] result; returns the
/// headline `max |z|` (plain SIM1, both allowances).
pub fn report_langevin(setup: &LangevinSetup, stats: &[SimStats], prefix: &str) -> f64 {
    let model = TwoSpring::<f64>::paper();
    let omega = model.omega();
    let c = model.langevin().c;
    let f0 = slow_force_x(&setup.initial_state());
    let mut worst: f64 = 0.0;
    let mut worst_old: f64 = 0.0;
    let mut ref_check: f64 = 0.0;
    for (label, st) in LANGEVIN_LABELS.iter().zip(stats) {
        crate::say!("\nSIM1 H = {:.5} ({label})", st.h);
        let tab = Table::new(&[
            "t",
            "moment",
            "GLA ref",
            "±SE",
            "GLA h",
            "SIM1 H",
            "+kick",
            "+kick+soft",
            "±SE",
            "z",
        ]);
        for k in 0..st.t.len() {
            for (i, name) in MOMENTS.iter().enumerate() {
                let (r, g, s, sk, sc) = (
                    &st.gla_ref[k][i],
                    &st.gla_h[k][i],
                    &st.raw[k][i],
                    &st.raw_kick[k][i],
                    &st.corrected_kick[k][i],
                );
                let z = (sc.mean() - r.mean()) / (sc.se().powi(2) + r.se().powi(2)).sqrt();
                tab.row(&[
                    format!("{:.3}", st.t[k]),
                    name.to_string(),
                    format!("{:.6}", r.mean()),
                    sci(r.se()),
                    format!("{:.6}", g.mean()),
                    format!("{:.6}", s.mean()),
                    format!("{:.6}", sk.mean()),
                    format!("{:.6}", sc.mean()),
                    sci(sc.se()),
                    format!("{z:.2}"),
                ]);
            }
        }
        let z_corr = max_abs_z(&st.corrected, &st.gla_ref);
        let z_raw = max_abs_z(&st.raw, &st.gla_ref);
        let z_gla = max_abs_z(&st.gla_h, &st.gla_ref);
        let z_kick = max_abs_z(&st.corrected_kick, &st.gla_ref);
        let z_kick_only = max_abs_z(&st.raw_kick, &st.gla_ref);
        // Old headline: plain SIM1 with the halving / family allowance only.
        if *label == "resonant_family" || *label == "nonresonant" {
            worst_old = worst_old.max(z_corr);
        }
        // New headline: plain SIM1 (every plain-kick study) with both allowances.
        if !st.mollified {
            worst = worst.max(z_kick);
        }
        figure(&format!("{prefix}.{label}.max_abs_z"), z_corr);
        figure(&format!("{prefix}.{label}.max_abs_z_uncorrected"), z_raw);
        figure(&format!("{prefix}.{label}.gla_h_max_abs_z"), z_gla);
        figure(
            &format!("{prefix}.{label}.max_abs_z_all_allowances"),
            z_kick,
        );
        figure(
            &format!("{prefix}.{label}.max_abs_z_stiff_allowances_only"),
            z_kick_only,
        );
        // The two bias allowances, in absolute terms and in SE units of the raw SIM moment.
        let (mut kb_x, mut kb_x2, mut kb_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for (kb, raw) in st.kick_bias.iter().zip(&st.raw) {
            kb_x = kb_x.max(kb[0].mean().abs());
            kb_x2 = kb_x2.max(kb[1].mean().abs());
            kb_se = kb_se
                .max(kb[0].mean().abs() / raw[0].se())
                .max(kb[1].mean().abs() / raw[2].se());
        }
        let (mut sb_y, mut sb_y2, mut sb_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for (kc, raw) in st.corrected_kick.iter().zip(&st.raw_kick) {
            let (dy, dy2) = (raw[1].mean() - kc[1].mean(), raw[3].mean() - kc[3].mean());
            sb_y = sb_y.max(dy.abs());
            sb_y2 = sb_y2.max(dy2.abs());
            sb_se = sb_se
                .max(dy.abs() / raw[1].se())
                .max(dy2.abs() / raw[3].se());
        }
        figure(&format!("{prefix}.{label}.kick_bias_max_abs.x"), kb_x);
        figure(&format!("{prefix}.{label}.kick_bias_max_abs.x2"), kb_x2);
        figure(&format!("{prefix}.{label}.kick_bias_max_se"), kb_se);
        let (mut ab_y, mut ab_y2, mut ab_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for (ab, raw) in st.alias_bias.iter().zip(&st.raw) {
            ab_y = ab_y.max(ab[0].mean().abs());
            ab_y2 = ab_y2.max(ab[1].mean().abs());
            ab_se = ab_se
                .max(ab[0].mean().abs() / raw[1].se())
                .max(ab[1].mean().abs() / raw[3].se());
        }
        figure(&format!("{prefix}.{label}.alias_bias_max_abs.y"), ab_y);
        figure(&format!("{prefix}.{label}.alias_bias_max_abs.y2"), ab_y2);
        figure(&format!("{prefix}.{label}.alias_bias_max_se"), ab_se);
        figure(&format!("{prefix}.{label}.soft_bias_max_abs.y"), sb_y);
        figure(&format!("{prefix}.{label}.soft_bias_max_abs.y2"), sb_y2);
        figure(&format!("{prefix}.{label}.soft_bias_max_se"), sb_se);
        // The explanation, tested: the slow-force prediction of the E[x] kick bias,
        // (1 − κ)·E[F](t)/ω² − transient, κ the SIM's stationary compliance (0 at full-period
        // resonance, where the exact response at the grid points is F(t)/ω² − e^{−ct/2}F(0)/ω²).
        let kappa = sim_compliance(omega, st.h, st.mollified);
        let resonant = (omega * st.h / (2.0 * std::f64::consts::PI)).fract() < 1e-6
            || (omega * st.h / (2.0 * std::f64::consts::PI)).fract() > 1.0 - 1e-6;
        let tab = Table::new(&["t", "E[y³]", "kick bias E[x]", "±SE", "predicted"]);
        let (mut err, mut scale): (f64, f64) = (0.0, 0.0);
        for k in 0..st.t.len() {
            let meas = &st.kick_bias[k][0];
            let transient = if resonant {
                (-0.5 * c * st.t[k]).exp() * f0 / (omega * omega)
            } else {
                0.0
            };
            let pred = (1.0 - if resonant { 0.0 } else { kappa }) * st.force[k].mean()
                / (omega * omega)
                - transient;
            err = err.max((meas.mean() - pred).abs());
            scale = scale.max(meas.mean().abs());
            tab.row(&[
                format!("{:.3}", st.t[k]),
                format!("{:.5}", st.force[k].mean()),
                sci(meas.mean()),
                sci(meas.se()),
                sci(pred),
            ]);
        }
        if resonant {
            figure(
                &format!("{prefix}.{label}.kick_bias_x_prediction_rel_err"),
                err / scale,
            );
        } else {
            crate::say!(
                "(non-resonant: the prediction is the stationary slow-force compliance \
                 κ = {kappa:.3} only; it ignores the kick-excited oscillation from F(0), \
                 max |measured − predicted| / max |measured| = {:.2})",
                err / scale
            );
        }
        ref_check = ref_check.max(max_mean_in_se(
            &st.gla_ref_check,
            &st.gla_ref,
            &[0, 1, 2, 3],
        ));
    }
    figure(&format!("{prefix}.max_abs_z"), worst);
    figure(
        &format!("{prefix}.max_abs_z_soft_allowance_only"),
        worst_old,
    );
    figure(&format!("{prefix}.gla_ref_check.max_bias_se"), ref_check);
    crate::say!(
        "\nReading: GLA at h = 0.1/ω is itself biased (gla_h z), hence the Richardson reference \
         (gla_ref_check: the coarser Richardson pair (h/2, h/4) differs from it by at most that \
         many SE, so its own error is a fraction of an SE). The two-spring system is not linear \
         (quartic soft spring), so SIM's law has no closed form; its deterministic bias has \
         three parts, each allowed for separately and shown in SE units. (1) Soft: the O(H) \
         splitting error of the y dynamics (soft_bias, ~100 SE), smooth in H, extrapolated out \
         over H on the same Brownian path. (2) Stiff impulse quadrature (kick_bias): x is a \
         linear oscillator driven by the slow force y³, and SIM replaces the convolution \
         ∫G(t − s)F(s)ds of its response by the impulse sum Σ B₁₂((n−k)H)·H·F_k — \
         H-independent, O(F/ω²), not removable by extrapolation. At full-period H the sum \
         vanishes: E[x] misses the quasi-static shift (E[y³](t) − e^{{−ct/2}}y(0)³)/ω², which \
         predicts the measured allowance to kick_bias_x_prediction_rel_err; at non-resonant H \
         the stationary compliance is (ωH/2)cot(ωH/2) instead of 1, plus a kick-excited \
         oscillation. KickFilter replaces the impulse sum by the exact convolution of the same \
         force samples; the part of the force linear in x (the stiff mode's parametric \
         frequency shift 3(y − x)²/(2ω)) stays SIM's own — the plain kick reproduces it at \
         non-resonant ωH, the mollified kick (weight sin ωH/ω) does not, which is the mollified \
         row's remaining E[x] excess. (3) Aliasing (alias_bias): x(0) = 0.8/ω starts a coherent \
         stiff oscillation that the exact dynamics averages out of the force on y; at full-period \
         H every kick samples it at the same phase. The control from x(0) = 0 has no (3) and \
         passes with (1) and (2) alone. All three are within Theorem 4.2.1's O(H) error but \
         resolved by 5000 paths. max_abs_z (plain SIM1, all allowances) then tests what is \
         left: the stochastic part B(H), Σ(H), sampling and seeding against the independent GLA \
         reference."
    );
    worst
}

// ---------------------------------------------------------------- exact law (linear variant)

type M4 = macrostep::nalgebra::Matrix4<f64>;
type V4 = macrostep::nalgebra::Vector4<f64>;

/// Van Loan's method (host `exp` of an 8×8 block matrix): `(e^{At}, ∫₀ᵗ e^{As} Q e^{Aᵀs} ds)`.
pub fn van_loan(a: &M4, q: &M4, t: f64) -> (M4, M4) {
    let mut c = macrostep::nalgebra::SMatrix::<f64, 8, 8>::zeros();
    c.fixed_view_mut::<4, 4>(0, 0).copy_from(&(-a * t));
    c.fixed_view_mut::<4, 4>(0, 4).copy_from(&(q * t));
    c.fixed_view_mut::<4, 4>(4, 4)
        .copy_from(&(a.transpose() * t));
    let e = c.exp();
    let f12: M4 = e.fixed_view::<4, 4>(0, 4).into_owned();
    let f22: M4 = e.fixed_view::<4, 4>(4, 4).into_owned();
    (f22.transpose(), f22.transpose() * f12)
}

/// The linear variant of the two-spring system: the quartic soft spring replaced by
/// `½k(y − x)²`, everything else as [`TwoSpring::paper`]. Linear with additive noise, so both the
/// exact law and SIM1's law are Gaussian and computable without Monte Carlo.
#[derive(Clone, Copy, Debug)]
pub struct LinearTwoSpring {
    /// Stiff frequency `ω`.
    pub omega: f64,
    /// Soft spring constant `k`.
    pub k: f64,
    /// Friction `c`.
    pub c: f64,
    /// Noise `σ`.
    pub sigma: f64,
}

impl LinearTwoSpring {
    /// `ω = 100`, `k = 1`, `c = 0.1`, `σ² = 0.02` (`β = 10`).
    pub fn paper_like() -> Self {
        let lp = TwoSpring::<f64>::paper().langevin();
        Self {
            omega: 100.0,
            k: 1.0,
            c: lp.c,
            sigma: lp.sigma,
        }
    }
    fn stiff(&self) -> macrostep::nalgebra::Matrix2<f64> {
        macrostep::nalgebra::Matrix2::new(self.omega * self.omega, 0.0, 0.0, 0.0)
    }
    fn soft(&self) -> macrostep::nalgebra::Matrix2<f64> {
        macrostep::nalgebra::Matrix2::new(self.k, -self.k, -self.k, self.k)
    }
    /// The generator `[[0, I], [−K, −cI]]` of `(q, v)` for the stiffness `K`.
    fn generator(&self, k: &macrostep::nalgebra::Matrix2<f64>) -> M4 {
        let mut a = M4::zeros();
        a[(0, 2)] = 1.0;
        a[(1, 3)] = 1.0;
        a.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-k));
        a[(2, 2)] = -self.c;
        a[(3, 3)] = -self.c;
        a
    }
    fn noise(&self) -> M4 {
        M4::from_diagonal(&V4::new(0.0, 0.0, self.sigma.powi(2), self.sigma.powi(2)))
    }
    /// Exact law over `dt`: `(E, P)` with `m ← E m`, `P ← E P Eᵀ + P(dt)`.
    pub fn exact_map(&self, dt: f64) -> (M4, M4) {
        van_loan(
            &self.generator(&(self.stiff() + self.soft())),
            &self.noise(),
            dt,
        )
    }
    /// SIM1's law over one step `H` (exact fast flow `B(H)`, `Σ(H)` by Van Loan, then the kick
    /// `v += −H K_soft q`): `(A, Q)` with `m ← A m`, `P ← A P Aᵀ + Q`.
    pub fn sim1_map(&self, h: f64) -> (M4, M4) {
        let (b, sig) = van_loan(&self.generator(&self.stiff()), &self.noise(), h);
        let mut kick = M4::identity();
        kick.fixed_view_mut::<2, 2>(2, 0)
            .copy_from(&(-self.soft() * h));
        (kick * b, kick * sig * kick.transpose())
    }
    /// The start of Fig. 4.2 (`x(0) = 0.8/ω`, `y(0) = 1.1 + x(0)`, at rest).
    pub fn initial_state(&self) -> State<f64, 2> {
        TwoSpring::<f64>::paper().initial_state()
    }
}

/// The four moments of a Gaussian law `(m, P)` of `(x, y, vₓ, v_y)`.
fn law_moments(m: &V4, p: &M4) -> [f64; 4] {
    [m[0], m[1], m[0] * m[0] + p[(0, 0)], m[1] * m[1] + p[(1, 1)]]
}

/// The linear-variant study: per output, exact and SIM1 law moments and Monte-Carlo moments.
#[derive(Clone, Debug)]
pub struct LinearStats {
    /// SIM step `H`.
    pub h: f64,
    /// Output times.
    pub t: Vec<f64>,
    /// Exact law moments.
    pub exact: Vec<[f64; 4]>,
    /// SIM1 law moments (same `H`).
    pub sim_law: Vec<[f64; 4]>,
    /// Monte Carlo of the `Sim1` implementation.
    pub sim_mc: Vec<[Acc; 4]>,
    /// Monte Carlo of GLA at `h` on the same grid as [`langevin_study`].
    pub gla_h: Vec<[Acc; 4]>,
    /// The Richardson GLA reference `(4X(h/8) − X(h/4))/3`.
    pub gla_ref: Vec<[Acc; 4]>,
}

/// Runs the linear-variant study for the resonant and the non-resonant `H` of
/// [`langevin_steps`], `paths` trajectories of `steps` GLA steps, outputs every `every` GLA
/// steps (a multiple of both SIM steps: 940 or 1880 for `H_res`, 100 for `H_nr`).
pub fn linear_law_study(paths: usize, steps: usize) -> Vec<LinearStats> {
    let sys = LinearTwoSpring::paper_like();
    let (h, h_res, h_nr) = langevin_steps(sys.omega);
    let s0 = sys.initial_state();
    let z0 = V4::new(s0.q[0], s0.q[1], s0.v[0], s0.v[1]);
    let mut out: Vec<(LinearStats, usize)> = [(h_res, 940usize), (h_nr, 1000usize)]
        .iter()
        .map(|&(hh, every)| {
            let n_out = steps / every;
            let t: Vec<f64> = (1..=n_out).map(|k| (k * every) as f64 * h).collect();
            // Exact law at the outputs.
            let (e, pd) = sys.exact_map(every as f64 * h);
            let (mut m, mut p) = (z0, M4::zeros());
            let mut exact = Vec::new();
            for _ in 0..n_out {
                m = e * m;
                p = e * p * e.transpose() + pd;
                exact.push(law_moments(&m, &p));
            }
            // SIM1 law.
            let per = (every as f64 * h / hh).round() as usize;
            let (a, q) = sys.sim1_map(hh);
            let (mut m, mut p) = (z0, M4::zeros());
            let mut sim_law = Vec::new();
            for _ in 0..n_out {
                for _ in 0..per {
                    m = a * m;
                    p = a * p * a.transpose() + q;
                }
                sim_law.push(law_moments(&m, &p));
            }
            (
                LinearStats {
                    h: hh,
                    t,
                    exact,
                    sim_law,
                    sim_mc: vec![[Acc::default(); 4]; n_out],
                    gla_h: vec![[Acc::default(); 4]; n_out],
                    gla_ref: vec![[Acc::default(); 4]; n_out],
                },
                every,
            )
        })
        .collect();
    let system = macrostep::model::System::new(
        Mass::identity(),
        macrostep::model::Quadratic::new(sys.stiff() + sys.soft()),
    );
    let fast = FastParams::langevin(sys.stiff(), sys.c, sys.sigma);
    for path in (0..paths).progress_with(progress(paths, "linear variant paths")) {
        let mut rng = Pcg32::seed_from_u64(3_000_000_019 + path as u64);
        let mut gla = GlaLevels::new(system, sys.c, sys.sigma, h, s0);
        for n in 1..=steps {
            gla.step(&mut rng);
            for (st, every) in out.iter_mut() {
                if n % *every == 0 {
                    let k = n / *every - 1;
                    let [s1, _, s4, s8] = &gla.states;
                    let (m1, m4, m8) = (moments(s1), moments(s4), moments(s8));
                    for i in 0..4 {
                        st.gla_h[k][i].add(m1[i]);
                        st.gla_ref[k][i].add((4.0 * m8[i] - m4[i]) / 3.0);
                    }
                }
            }
        }
        for (st, every) in out.iter_mut() {
            let mut rng = Pcg32::seed_from_u64(4_000_000_007 + path as u64);
            let mut sim = Sim1::new(
                Mass::identity(),
                fast,
                macrostep::model::Quadratic::new(sys.soft()),
                st.h,
            )
            .expect("sim1");
            let per = (*every as f64 * h / st.h).round() as usize;
            let mut s = s0;
            for acc in st.sim_mc.iter_mut() {
                sim.integrate_with(&mut s, per, &mut rng).expect("sim1");
                for (a, m) in acc.iter_mut().zip(moments(&s)) {
                    a.add(m);
                }
            }
        }
    }
    out.into_iter().map(|(st, _)| st).collect()
}

/// Figures of the linear-variant study; returns `max |z|` of (SIM − exact bias) vs the GLA
/// reference over both `H`.
pub fn report_linear(stats: &[LinearStats]) -> f64 {
    let sys = LinearTwoSpring::paper_like();
    let w2 = sys.omega * sys.omega;
    let mut worst: f64 = 0.0;
    let (mut ref_z, mut gla_z): (f64, f64) = (0.0, 0.0);
    for (label, st) in ["resonant", "nonresonant"].iter().zip(stats) {
        crate::say!("\nlinear variant, SIM1 H = {:.5} ({label})", st.h);
        let tab = Table::new(&[
            "t", "moment", "exact", "SIM law", "bias", "SIM MC", "±SE", "z own", "GLA ref", "±SE",
            "z",
        ]);
        let (mut z_own, mut z, mut bias_se): (f64, f64, f64) = (0.0, 0.0, 0.0);
        let mut bias_abs = [0.0f64; 4];
        for k in 0..st.t.len() {
            for (i, name) in MOMENTS.iter().enumerate() {
                let (ex, law, mc, r) = (
                    st.exact[k][i],
                    st.sim_law[k][i],
                    &st.sim_mc[k][i],
                    &st.gla_ref[k][i],
                );
                let bias = law - ex;
                let zo = (mc.mean() - law) / mc.se();
                let zz = (mc.mean() - bias - r.mean()) / (mc.se().powi(2) + r.se().powi(2)).sqrt();
                z_own = z_own.max(zo.abs());
                z = z.max(zz.abs());
                bias_abs[i] = bias_abs[i].max(bias.abs());
                bias_se = bias_se.max(bias.abs() / mc.se());
                ref_z = ref_z.max((r.mean() - ex).abs() / r.se());
                gla_z = gla_z.max((st.gla_h[k][i].mean() - ex).abs() / st.gla_h[k][i].se());
                tab.row(&[
                    format!("{:.3}", st.t[k]),
                    name.to_string(),
                    format!("{ex:.6}"),
                    format!("{law:.6}"),
                    sci(bias),
                    format!("{:.6}", mc.mean()),
                    sci(mc.se()),
                    format!("{zo:.2}"),
                    format!("{:.6}", r.mean()),
                    sci(r.se()),
                    format!("{zz:.2}"),
                ]);
            }
        }
        worst = worst.max(z);
        let p = format!("sim-langevin.linear.{label}");
        figure(&format!("{p}.sim_vs_own_law.max_abs_z"), z_own);
        figure(&format!("{p}.max_abs_z"), z);
        for (i, m) in ["x", "y", "x2", "y2"].iter().enumerate() {
            figure(&format!("{p}.bias_max_abs.{m}"), bias_abs[i]);
        }
        figure(&format!("{p}.bias_max_se"), bias_se);
        if *label == "resonant" {
            // The quasi-static explanation: at full-period H SIM's x never takes the shift
            // F/ω² of the slow force F = k(y − x) (exact-law mean), so bias E[x] ≈
            // −(E[F](t) − e^{−ct/2}F(0))/ω².
            let s0 = sys.initial_state();
            let f0 = sys.k * (s0.q[1] - s0.q[0]);
            // Second order: the exact stiff frequency is √(ω² + k), so the coherent part
            // (x(0) − F(0)/ω²)e^{−ct/2} of x turns by δω·t, δω ≈ k/(2ω), between the grid
            // points where SIM's x stands still.
            let (mut err, mut err2, mut scale): (f64, f64, f64) = (0.0, 0.0, 0.0);
            let dw = (w2 + sys.k).sqrt() - sys.omega;
            for k in 0..st.t.len() {
                let f = sys.k * (st.exact[k][1] - st.exact[k][0]);
                let decay = (-0.5 * sys.c * st.t[k]).exp();
                let pred = -(f - decay * f0) / w2;
                let pred2 = pred + (s0.q[0] - f0 / w2) * decay * (1.0 - (dw * st.t[k]).cos());
                let bias = st.sim_law[k][0] - st.exact[k][0];
                err = err.max((bias - pred).abs());
                err2 = err2.max((bias - pred2).abs());
                scale = scale.max(bias.abs());
            }
            figure(&format!("{p}.bias_x_prediction_rel_err"), err / scale);
            figure(
                &format!("{p}.bias_x_prediction_with_phase_rel_err"),
                err2 / scale,
            );
        }
    }
    figure("sim-langevin.linear.max_abs_z", worst);
    figure("sim-langevin.linear.gla_ref_vs_exact.max_abs_z", ref_z);
    figure("sim-langevin.linear.gla_h_vs_exact.max_abs_z", gla_z);
    worst
}

/// CPU seconds per trajectory of GLA at `h = 0.1/ω` and of SIM1 at `H` over `T`.
pub fn langevin_speed(paths: usize, t_end: f64, h_sim: f64) -> (f64, f64) {
    let model = TwoSpring::<f64>::paper();
    let lp = model.langevin();
    let split = model.split();
    let h = 0.1 / model.omega();
    let mut gla = Gla::with_noise(model.system(), lp.c, lp.sigma, h).expect("gla");
    let fast = FastParams::langevin(split.stiff.k, lp.c, lp.sigma);
    let mut sim = Sim1::new(Mass::identity(), fast, split.soft, h_sim).expect("sim");
    let mut rng = Pcg32::seed_from_u64(99);
    let mut sink = 0.0;
    let t0 = Instant::now();
    for _ in 0..paths {
        let mut s = model.initial_state();
        gla.integrate_with(&mut s, (t_end / h).round() as usize, &mut rng)
            .expect("gla");
        sink += s.q[0];
    }
    let cpu_gla = t0.elapsed().as_secs_f64();
    let reps = 20;
    let t0 = Instant::now();
    for _ in 0..paths * reps {
        let mut s = model.initial_state();
        sim.integrate_with(&mut s, (t_end / h_sim).round() as usize, &mut rng)
            .expect("sim");
        sink += s.q[0];
    }
    let cpu_sim = t0.elapsed().as_secs_f64() / reps as f64;
    std::hint::black_box(sink);
    (cpu_gla / paths as f64, cpu_sim / paths as f64)
}

/// `reproduce sim-langevin`.
pub fn run_langevin() {
    let setup = LangevinSetup {
        paths: crate::options::paths_or(5000),
        steps: 10_000,
        stiff_start: true,
    };
    let (h, h_res, h_nr) = langevin_steps(100.0);
    crate::say!(
        "two-spring Langevin (004 §4.2.5): ω = 100, c = 0.1, β = 10; {} paths, T = {:.3}",
        setup.paths,
        setup.steps as f64 * h
    );
    crate::say!(
        "GLA grid h = {h:.6e} (≈ 0.1/ω), levels h, h/2, h/4, h/8 on one Brownian path; reference \
         (4E[h/8] − E[h/4])/3. SIM1 at H = {h_res:.5} (ωH = 6π, resonant) and H = {h_nr:.5} \
         (ωH = {:.2}), soft bias extrapolated out by 2E[H/2] − E[H] (resonant family: \
         3E[τ] − 3E[2τ] + E[3τ], τ = 2π/ω) on the same path, stiff impulse-kick bias allowed for \
         per path by the exact linear response of x (KickFilter), its aliasing in the force on \
         y by the tangent response of y (AliasFilter).",
        100.0 * h_nr
    );
    let t0 = Instant::now();
    let stats = langevin_study(setup);
    crate::say!("(study CPU {:.1} s)", t0.elapsed().as_secs_f64());
    report_langevin(&setup, &stats, "sim-langevin");
    let control = LangevinSetup {
        stiff_start: false,
        ..setup
    };
    crate::say!(
        "\n== control: the same study from x(0) = 0, y(0) = 1.1 (no coherent stiff oscillation)"
    );
    let stats = langevin_study(control);
    report_langevin(&control, &stats, "sim-langevin.control_x0_zero");
    crate::say!(
        "\n== linear variant (soft spring ½k(y − x)², k = 1): exact law and SIM1's law in closed \
         form (Van Loan), SIM1 and GLA by Monte Carlo ({} paths)",
        setup.paths
    );
    let lin = linear_law_study(setup.paths, setup.steps);
    report_linear(&lin);
    crate::say!(
        "(linear: sim_vs_own_law tests the implementation's B(H), Σ(H), sampling and seeding \
         against SIM1's law computed independently; max_abs_z is |(SIM − exact bias) − GLA \
         ref| / combined SE; gla_ref_vs_exact checks the Richardson reference pipeline.)"
    );
    let (g, s) = langevin_speed(200, 10.0, h_res);
    crate::say!(
        "\nCPU per trajectory to T = 10: GLA h = 0.1/ω {g:.3e} s, SIM1 H = {h_res:.4} {s:.3e} s"
    );
    figure("sim-langevin.speedup", g / s);
}

// ============================================================================ sim-stiff-friction

/// Final `max |q(T) − q_ref(T)|` on the two-spring system with `ω = 100`, stiff friction `c`
/// and no noise: SIM1 (`sim = true`) or GLA (noise switched off by `β = 10³⁰⁰`) with step `h`;
/// `∞` on blow-up.
pub fn stiff_friction_error(c: f64, sim: bool, h: f64, t_end: f64, q_ref: &Vector2<f64>) -> f64 {
    let model = TwoSpring::<f64>::new(100.0, c, 10.0).expect("model");
    let split = model.split();
    let n = (t_end / h).round() as usize;
    let mut s = model.initial_state();
    let ok = if sim {
        let fast = FastParams::langevin(split.stiff.k, c, 0.0);
        Sim1::new(Mass::identity(), fast, split.soft, h)
            .expect("sim")
            .integrate(&mut s, n)
    } else {
        let mut gla = Gla::new(model.system(), c, 1e300, h).expect("gla");
        let mut rng = Pcg32::seed_from_u64(0);
        gla.integrate_with(&mut s, n, &mut rng)
    };
    let e = (s.q - q_ref).amax();
    if ok.is_err() || !e.is_finite() || e > 1e6 {
        f64::INFINITY
    } else {
        e
    }
}

/// DOP853 reference `q(T)` of the damped two-spring system (no noise).
pub fn stiff_friction_reference(c: f64, t_end: f64) -> Vector2<f64> {
    let model = TwoSpring::<f64>::new(100.0, c, 10.0).expect("model");
    let sys = model.system();
    let s0 = model.initial_state();
    let y = reference::solve_to(
        |_t, y, dy| {
            let q = Vector2::new(y[0], y[1]);
            let a = sys.acceleration(&q);
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = a[0] - c * y[2];
            dy[3] = a[1] - c * y[3];
        },
        0.0,
        &[s0.q[0], s0.q[1], 0.0, 0.0],
        t_end,
        1e-12,
        1e-12,
    );
    Vector2::new(y[0], y[1])
}

/// `reproduce sim-stiff-friction`.
pub fn run_stiff_friction() {
    let t_end = 2.0;
    crate::say!(
        "Remark 4.2.5: two-spring system ω = 100 with stiff friction c = O(ω) (ε^(-1/2)), σ = 0; \
         error in q at T = {t_end} vs DOP853"
    );
    let tab = Table::new(&["c", "method", "H", "err q"]);
    for c in [100.0, 1000.0] {
        let r = stiff_friction_reference(c, t_end);
        for (sim, h) in [
            (true, 0.1),
            (true, 0.05),
            (true, 0.01),
            (false, 0.05),
            (false, 0.01),
            (false, 1e-3),
            (false, 1e-4),
        ] {
            let e = stiff_friction_error(c, sim, h, t_end, &r);
            let name = if sim { "sim1" } else { "gla" };
            tab.row(&[format!("{c}"), name.into(), format!("{h}"), sci(e)]);
            figure(&format!("sim-stiff-friction.c{c}.{name}.H{h}.err_q"), e);
        }
    }
}
