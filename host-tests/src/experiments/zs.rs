//! Zhang–Skeel family reproductions (000 §2, §4.1, §4.4; 004 Ch. 5).
//!
//! `zs-stability` (Thm 2.5), `zs-order` (Cor 2.8, Rem 2.11), `zs-symplectic` (Thm 2.12, 2.4,
//! Rem 2.14), `penalty-scaling` (Thm 1.3 / Rem A.3, Fig 2a), `double-pendulum` (Fig 1), `dna`
//! (§4.4, Fig 8), `zs-chain-cost` (§4.3 last paragraphs, 004 §5.4.1: linear cost in n).
//!
//! The double pendulum here hangs below its pivot (gravity towards −y), the convention of the
//! rigid reference in [`crate::rigid`]; see [`dp_penalised`].

use crate::measure::loglog_slope;
use crate::report::{figure, sci, Table};
use crate::zs_support::{HenonHeiles, Pendulum1};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::models::HarmonicOscillator;
use macrostep::zs::{StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use nalgebra::{matrix, vector, DVector};

/// Energy-norm amplification `max_k ‖(ωq_k, v_k)‖ / ‖(ωq₀, v₀)‖` of Z&S on `q̈ = −ω²q`
/// (ω = 1, step `hω`), over `steps` steps; stops early (returning the value reached) beyond 1e8.
pub fn zs_amplification(beta: f64, homega: f64, steps: usize) -> f64 {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).expect("valid oscillator");
    // The raw linear map, also where it grows: the step guards would refuse those steps.
    let mut zs = ZhangSkeel::new(osc.system(), homega, ZsParams::with_beta(beta))
        .and_then(|z| z.with_guards(macrostep::Guards::off()))
        .expect("valid");
    let mut s = osc.initial_state();
    let mut worst: f64 = 1.0;
    for _ in 0..steps {
        if zs.step(&mut s).is_err() {
            return f64::INFINITY;
        }
        let n = (s.q[0] * s.q[0] + s.v[0] * s.v[0]).sqrt();
        worst = worst.max(n);
        if worst > 1e8 {
            break;
        }
    }
    worst
}

/// `zs-stability`: Theorem 2.5 on the harmonic oscillator.
pub fn stability() {
    let steps = 10_000;
    let grid: Vec<f64> = (0..=50)
        .map(|k| 0.1 * 10f64.powf(k as f64 * 5.0 / 50.0))
        .collect();
    let t = Table::new(&["h*omega", "beta=0.25", "beta=0.2"]);
    let mut max025: f64 = 0.0;
    for &hw in &grid {
        let a = zs_amplification(0.25, hw, steps);
        let b = zs_amplification(0.2, hw, steps);
        max025 = max025.max(a);
        if (hw.log10() * 10.0).round() as i64 % 5 == 0 {
            t.row(&[sci(hw), sci(a), sci(b)]);
        }
    }
    // Bisection for the first unstable hω with β = 0.2: "unstable" = amplification > 10
    // within 10⁴ steps.
    let (mut lo, mut hi) = (1.0, 10.0);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if zs_amplification(0.2, mid, steps) > 10.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let crit = 0.5 * (lo + hi);
    let analytic = 2.0 / (1.0f64 - 4.0 * 0.2).sqrt();
    crate::say!(
        "beta = 0.2: critical h*omega {crit:.6} (analytic 2/sqrt(1-4beta) = {analytic:.6}, rel. diff {:.2e})",
        (crit - analytic).abs() / analytic
    );
    figure("zs-stability.beta025.max_amplification", max025);
    figure("zs-stability.beta020.critical_homega", crit);
}

fn hh() -> System<f64, HenonHeiles, 2> {
    System::new(Mass::identity(), HenonHeiles)
}

/// The start of every Hénon–Heiles run (energy ≈ 0.08, regular motion).
pub fn hh_start() -> State<f64, 2> {
    State::new(0.0, vector![0.3, -0.2], vector![0.1, 0.25])
}

type HhSplit = Split<f64, HenonHeiles, Quadratic<f64, 2>>;
fn hh_split() -> System<f64, HhSplit, 2> {
    System::new(
        Mass::identity(),
        Split::new(
            HenonHeiles,
            Quadratic::new(matrix![1.0, 0.0; 0.0, 4.0]),
            100.0,
        ),
    )
}

/// Error at `t_end` of `make(h)` against `reference` (max norm over q and v), for each `h`.
fn errors<I: Integrator<f64, 2>>(
    make: impl Fn(f64) -> I,
    s0: State<f64, 2>,
    t_end: f64,
    hs: &[f64],
    reference: &State<f64, 2>,
) -> Vec<f64> {
    hs.iter()
        .map(|&h| {
            let mut integ = make(h);
            let mut s = s0;
            let n = (t_end / h).round() as usize;
            integ.integrate(&mut s, n).expect("stable run");
            (s.q - reference.q).amax().max((s.v - reference.v).amax())
        })
        .collect()
}

/// `zs-order`: Corollary 2.8 (order 2) and Remark 2.11 (order 4 by composition), Hénon–Heiles.
pub fn order() {
    let p = ZsParams::with_beta(0.4);
    let t_end = 2.0;
    let s0 = hh_start();
    let reference_hh = solve_system(&hh(), &s0, &[t_end], 1e-13, 1e-13)[0];
    let reference_split = solve_system(&hh_split(), &s0, &[t_end], 1e-13, 1e-13)[0];
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let hs_stiff = [0.01, 0.005, 0.0025, 0.00125, 0.000625];
    let zs = errors(
        |h| ZhangSkeel::new(hh(), h, p).expect("valid"),
        s0,
        t_end,
        &hs,
        &reference_hh,
    );
    let zss = errors(
        |h| Sylipn::new(hh(), h, p).expect("valid"),
        s0,
        t_end,
        &hs,
        &reference_hh,
    );
    let stiff = errors(
        |h| StiffSylipn::new(hh_split(), h, p).expect("valid"),
        s0,
        t_end,
        &hs_stiff,
        &reference_split,
    );
    let zs4 = errors(
        |h| {
            SymmetricComposition::new(
                ZhangSkeel::new(hh(), h, p).expect("valid"),
                Scheme::TripleJump,
            )
            .expect("valid")
        },
        s0,
        t_end,
        &hs,
        &reference_hh,
    );
    let t = Table::new(&["h", "zs", "zss", "zs4 (3-jump)", "h_stiff", "zss_stiff"]);
    for k in 0..hs.len() {
        t.row(&[
            sci(hs[k]),
            sci(zs[k]),
            sci(zss[k]),
            sci(zs4[k]),
            sci(hs_stiff[k]),
            sci(stiff[k]),
        ]);
    }
    figure("zs-order.zs.slope", loglog_slope(&hs, &zs));
    figure("zs-order.zss.slope", loglog_slope(&hs, &zss));
    figure("zs-order.zss_stiff.slope", loglog_slope(&hs_stiff, &stiff));
    figure("zs-order.zs4.slope", loglog_slope(&hs, &zs4));
}

/// `zs-symplectic`: Theorem 2.12 (Z&S), Theorem 2.4 / Remark 2.14 (Z&Ss).
pub fn symplectic() {
    use crate::measure::integrator_defect;
    let p = ZsParams::with_beta(0.4);
    let pend = System::new(Mass::identity(), Pendulum1);
    let s1 = State::new(0.0, vector![1.0], vector![0.3]);
    let d = integrator_defect(
        &mut Sylipn::new(pend, 0.1, p).expect("valid"),
        &Mass::identity(),
        &s1,
        10,
        1e-5,
    );
    crate::say!("Z&Ss on the 1-DOF pendulum V = -cos q, h = 0.1, 10 steps: defect {d:.3e}");
    figure("zs-symplectic.zss.oscillator_1d", d);
    let s0 = hh_start();
    let zs = integrator_defect(
        &mut ZhangSkeel::new(hh(), 0.1, p).expect("valid"),
        &Mass::identity(),
        &s0,
        10,
        1e-5,
    );
    let zss = integrator_defect(
        &mut Sylipn::new(hh(), 0.1, p).expect("valid"),
        &Mass::identity(),
        &s0,
        10,
        1e-5,
    );
    crate::say!("Henon-Heiles, h = 0.1, 10 steps: Z&S defect {zs:.3e}, Z&Ss defect {zss:.3e}");
    figure("zs-symplectic.zs.henon_heiles", zs);
    figure("zs-symplectic.zss.henon_heiles", zss);
    symplectic_dp();
}

// ---------------------------------------------------------------------------------------------
// The penalised double pendulum (000 §4.1).

use crate::reference::solve_system;
use crate::rigid::DoublePendulum as RigidDp;
use macrostep::baselines::VelocityVerlet;
use macrostep::model::{Constraint, Hessian, Potential};
use macrostep::models::DoublePendulum;
use macrostep::zs::{Newmark, NewmarkOneIteration, NewtonParams};
use std::time::Instant;

/// The penalised double pendulum potential used here.
pub type DpPenalty = macrostep::models::GravityPenalty<f64, 4, 2>;

/// The penalised double pendulum of 000 §4.1 (`models::DoublePendulum::paper().penalised(ω)`,
/// gravity towards `−y`, the convention of the rigid reference [`crate::rigid`]).
pub fn dp_penalised(omega: f64) -> System<f64, DpPenalty, 4> {
    DoublePendulum::<f64>::paper()
        .penalised(omega)
        .expect("valid omega")
}

/// The seed's start, at rest.
pub fn dp_start() -> State<f64, 4> {
    DoublePendulum::<f64>::paper().initial_state()
}

/// Rigid reference positions at `times` (generalised coordinates, DOP853 at tolerance 1e-12).
pub fn dp_reference(times: &[f64]) -> Vec<[f64; 4]> {
    let dp = RigidDp::seed();
    let (q0, v0) = RigidDp::seed_initial();
    dp.solve(&q0, &v0, times, 1e-12, 1e-12)
        .into_iter()
        .map(|s| s.q)
        .collect()
}

/// Per-method results of the double-pendulum run.
#[derive(Clone, Debug)]
pub struct DpRun {
    /// Step size.
    pub h: f64,
    /// Max-norm position error against the rigid reference at t = 10.
    pub err_t10: f64,
    /// The same, maximised over [0, T].
    pub err_max: f64,
    /// max |H − H₀| of the penalised Hamiltonian over [0, T].
    pub max_energy_err: f64,
    /// max ‖g(q)‖∞ over [0, T].
    pub max_g: f64,
    /// Wall-clock nanoseconds per step (a separate, unmeasured run).
    pub ns_per_step: f64,
    /// About 1000 samples `[t, |H − H₀|, ‖g(q)‖∞, position error]` over [0, T] (the curves of
    /// 000 Fig 1–2).
    pub series: Vec<[f64; 4]>,
}

fn dp_run<I: Integrator<f64, 4>>(
    make: impl Fn() -> I,
    sys: &System<f64, DpPenalty, 4>,
    h: f64,
    t_end: f64,
) -> DpRun {
    let n = (t_end / h).round() as usize;
    let times: Vec<f64> = (0..=n).map(|k| k as f64 * h).collect();
    let refq = dp_reference(&times);
    let k10 = (10.0 / h).round() as usize;
    let mut integ = make();
    let mut s = dp_start();
    let e0 = sys.energy(&s);
    let (mut err_t10, mut err_max, mut de, mut g) = (f64::NAN, 0.0f64, 0.0f64, 0.0f64);
    let stride = (n / 1000).max(1);
    let mut series = Vec::with_capacity(n / stride + 1);
    for (k, rq) in refq.iter().enumerate() {
        if k > 0 && integ.step(&mut s).is_err() {
            return DpRun {
                h,
                err_t10: f64::INFINITY,
                err_max: f64::INFINITY,
                max_energy_err: f64::INFINITY,
                max_g: f64::INFINITY,
                ns_per_step: f64::NAN,
                series,
            };
        }
        let e = (0..4).map(|i| (s.q[i] - rq[i]).abs()).fold(0.0, f64::max);
        if k == k10 {
            err_t10 = e;
        }
        err_max = err_max.max(e);
        let (de_k, g_k) = (
            (sys.energy(&s) - e0).abs(),
            sys.potential.constraint.value(&s.q).amax(),
        );
        de = de.max(de_k);
        g = g.max(g_k);
        if k % stride == 0 {
            series.push([s.t, de_k, g_k, e]);
        }
    }
    let mut integ = make();
    let mut s = dp_start();
    let start = Instant::now();
    let _ = integ.integrate(&mut s, n);
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    std::hint::black_box(s);
    DpRun {
        h,
        err_t10,
        err_max,
        max_energy_err: de,
        max_g: g,
        ns_per_step: ns,
        series,
    }
}

/// The five runs of 000 Fig 1 rows 3–6 (+ Z&Ss): ω = 20, β = 0.4, T = 50.
pub fn dp_runs(t_end: f64) -> Vec<(&'static str, DpRun)> {
    let omega = 20.0;
    let sys = dp_penalised(omega);
    let p = ZsParams::with_beta(0.4);
    let h = 0.1;
    let newton = NewtonParams {
        tol: 1e-12,
        max_iter: 50,
    };
    vec![
        (
            "zs",
            dp_run(
                || ZhangSkeel::new(sys, h, p).expect("valid"),
                &sys,
                h,
                t_end,
            ),
        ),
        (
            "zss",
            dp_run(|| Sylipn::new(sys, h, p).expect("valid"), &sys, h, t_end),
        ),
        (
            "newmark",
            dp_run(
                || Newmark::new(sys, h, p, newton).expect("valid"),
                &sys,
                h,
                t_end,
            ),
        ),
        (
            "newmark1",
            dp_run(
                || NewmarkOneIteration::new(sys, h, p).expect("valid"),
                &sys,
                h,
                t_end,
            ),
        ),
        (
            "verlet",
            dp_run(
                || VelocityVerlet::new(sys, h / omega).expect("valid"),
                &sys,
                h / omega,
                t_end,
            ),
        ),
    ]
}

/// `double-pendulum`: 000 §4.1 Fig 1.
pub fn double_pendulum() {
    let runs = dp_runs(50.0);
    let t = Table::new(&[
        "method",
        "h",
        "err_t10",
        "err_max",
        "max_energy_err",
        "max_g",
        "ns_per_step",
    ]);
    for (name, r) in &runs {
        t.row(&[
            name.to_string(),
            sci(r.h),
            sci(r.err_t10),
            sci(r.err_max),
            sci(r.max_energy_err),
            sci(r.max_g),
            format!("{:.0}", r.ns_per_step),
        ]);
    }
    // f32: Z&S on the same problem in single precision, error against the rigid reference.
    let sys32 = DoublePendulum::<f32>::paper()
        .penalised(20.0f32)
        .expect("valid");
    let mut zs32 = ZhangSkeel::new(sys32, 0.1f32, ZsParams::with_beta(0.4f32)).expect("valid");
    let mut s32 = DoublePendulum::<f32>::paper().initial_state();
    zs32.integrate(&mut s32, 100).expect("stable");
    let r10 = dp_reference(&[10.0])[0];
    let e32 = (0..4)
        .map(|i| (f64::from(s32.q[i]) - r10[i]).abs())
        .fold(0.0, f64::max);
    crate::say!("Z&S in f32, h = 0.1: max position error at t = 10 {e32:.3e}");
    dp_charts(&runs);
    figure("double-pendulum.zs_f32.err_t10", e32);
    for (name, r) in &runs {
        figure(&format!("double-pendulum.{name}.err_t10"), r.err_t10);
        figure(&format!("double-pendulum.{name}.err_max"), r.err_max);
        figure(
            &format!("double-pendulum.{name}.max_energy_err"),
            r.max_energy_err,
        );
        figure(&format!("double-pendulum.{name}.max_g"), r.max_g);
        figure(
            &format!("double-pendulum.{name}.ns_per_step"),
            r.ns_per_step,
        );
    }
}

/// The method's label in the charts.
fn dp_label(name: &str, h: f64) -> String {
    let method = match name {
        "zs" => "Z&S",
        "zss" => "Z&Ss (SyLiPN)",
        "newmark" => "Newmark (converged)",
        "newmark1" => "Newmark, one iteration",
        "verlet" => "velocity Verlet",
        other => other,
    };
    format!("{method}, h = {h}")
}

/// 000 Fig 1–2 as curves: energy error, constraint drift and position error over time, one
/// curve per method (`--plot`, `--csv`).
fn dp_charts(runs: &[(&'static str, DpRun)]) {
    let what = [
        (
            1,
            "energy",
            "energy error",
            "|H(t) − H(0)| of the penalised H",
        ),
        (
            2,
            "constraint",
            "constraint drift",
            "max_i |g_i(q(t))|, g = |rod|² − 1",
        ),
        (
            3,
            "position_error",
            "error vs rigid reference",
            "max_i |q_i(t) − q_i,ref(t)|",
        ),
    ];
    for (col, stem, title, y) in what {
        let series = runs
            .iter()
            .map(|(name, r)| crate::plot::Series {
                label: dp_label(name, r.h),
                // t = 0 is exact by construction (zero or roundoff): left out of the log plot.
                points: r.series.iter().skip(1).map(|p| (p[0], p[col])).collect(),
            })
            .collect();
        crate::plot::emit(&crate::plot::Chart {
            stem: format!("double-pendulum.{stem}"),
            title: format!("000 §4.1 double pendulum (ω = 20, β = 0.4): {title}"),
            x_label: "time t".into(),
            y_label: format!("{y} (log scale)"),
            log_x: false,
            log_y: true,
            series,
        });
    }
}

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

/// `penalty-scaling`: Thm 1.3 / Rem A.3 / Fig 2a — `|g| = O(ω⁻²)`.
pub fn penalty_scaling() {
    let t = Table::new(&["omega", "h", "omega^2 max|g|"]);
    for omega in [10.0, 20.0, 40.0, 80.0, 160.0, 320.0] {
        let v = omega2_max_g(omega, 50.0);
        t.row(&[format!("{omega}"), sci(0.1 / omega), sci(v)]);
        figure(&format!("penalty-scaling.omega{omega}.omega2_max_g"), v);
    }
}

/// Symplecticity defect `max|DΦᵀJDΦ − J|` with the Jacobian from Richardson-extrapolated
/// central differences, `(4 D(ε) − D(2ε))/3`: the stiff penalty gives the map large second
/// derivatives, so plain central differences carry an `O(ε²)` error above 1e-9 (see the table).
pub fn richardson_defect(
    mut f: impl FnMut(&DVector<f64>) -> DVector<f64>,
    x: &DVector<f64>,
    eps: f64,
) -> f64 {
    use crate::measure::{canonical_j, jacobian};
    let j1 = jacobian(&mut f, x, eps);
    let j2 = jacobian(&mut f, x, 2.0 * eps);
    let d = (j1 * 4.0 - j2) / 3.0;
    let j = canonical_j(x.len() / 2);
    (d.transpose() * &j * &d - j).amax()
}

/// Symplecticity defects of `steps` steps on the penalised double pendulum (ω = 20, h = 0.1,
/// β = 0.4) at a point of the trajectory (t = 2): plain central differences with step `eps`
/// when `richardson` is false, extrapolated ones otherwise. Returns (Z&S, Z&Ss).
pub fn dp_defects(steps: usize, eps: f64, richardson: bool) -> (f64, f64) {
    use crate::measure::{from_phase, symplecticity_defect, to_phase};
    let sys = dp_penalised(20.0);
    let p = ZsParams::with_beta(0.4);
    let mut s0 = dp_start();
    ZhangSkeel::new(sys, 0.1, p)
        .expect("valid")
        .integrate(&mut s0, 20)
        .expect("stable");
    let m = Mass::identity();
    let x0 = to_phase(&s0, &m);
    let mut zs = ZhangSkeel::new(sys, 0.1, p).expect("valid");
    let mut zss = Sylipn::new(sys, 0.1, p).expect("valid");
    let mut run = |x: &DVector<f64>, full: bool| {
        let mut s = from_phase(x, &m, s0.t);
        for _ in 0..steps {
            if full {
                zs.step(&mut s).expect("step");
            } else {
                zss.step(&mut s).expect("step");
            }
        }
        to_phase(&s, &m)
    };
    if richardson {
        (
            richardson_defect(|x| run(x, true), &x0, eps),
            richardson_defect(|x| run(x, false), &x0, eps),
        )
    } else {
        (
            symplecticity_defect(|x| run(x, true), &x0, eps),
            symplecticity_defect(|x| run(x, false), &x0, eps),
        )
    }
}

/// Hessian of the penalised potential is what Z&S uses; kept reachable for the example.
pub fn dp_hessian(q: &nalgebra::SVector<f64, 4>) -> nalgebra::SMatrix<f64, 4, 4> {
    dp_penalised(20.0).potential.hessian(q)
}

/// The energy of the penalised system (used by the example).
pub fn dp_energy(s: &State<f64, 4>) -> f64 {
    let sys = dp_penalised(20.0);
    sys.mass.kinetic(&s.v) + sys.potential.energy(&s.q)
}

// ---------------------------------------------------------------------------------------------
// DNA (000 §4.4).

use macrostep::models::Dna;
use rand_core::{Rng, SeedableRng};

const DNA_N: usize = 200;

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

fn dna_inner() {
    let seed = 2015;
    let t_end = 2000.0;
    let sys = Dna::<f64, DNA_N>::paper().system();
    let zs = ZhangSkeel::new(sys, 2.0, ZsParams::with_beta(0.3)).expect("valid");
    let start = Instant::now();
    let r = dna_run(zs, 2.0, t_end, seed);
    let zs_time = start.elapsed().as_secs_f64();
    let tr = transitions(&r.mean_angle);
    crate::say!(
        "Z&S beta = 0.3, h = 2, T = {t_end}: stable {}, max |H - H0| {:.3e}, {} mean-angle transitions, {:.2} s",
        r.stable, r.max_energy_err, tr, zs_time
    );
    for (k, m) in r.mean_angle.iter().enumerate().step_by(50) {
        crate::say!("  t = {:>6.0}  mean angle {:.4}", (k + 1) as f64 * 2.0, m);
    }
    let (strict, bounded, linear) = verlet_limits(t_end, seed);
    let vv = VelocityVerlet::new(sys, 0.2).expect("valid");
    let start = Instant::now();
    let rv = dna_run(vv, 0.2, t_end, seed);
    let vv_time = start.elapsed().as_secs_f64();
    crate::say!(
        "Verlet h = 0.2: stable {}, max |H - H0| {:.3e}, {} transitions, {:.2} s",
        rv.stable,
        rv.max_energy_err,
        transitions(&rv.mean_angle),
        vv_time,
    );
    crate::say!(
        "Verlet step limits (the paper: h = 0.2 is near Verlet's limit): energy within 10 % of |H0| over T up to h = {strict:.4}; bounded (no blow-up) up to h = {bounded:.4}; linear 2/omega_max at the start {linear:.4}"
    );
    figure("dna.zs.h2.stable", if r.stable { 1.0 } else { 0.0 });
    figure("dna.verlet.h_limit", strict);
    figure("dna.verlet.h_limit_bounded", bounded);
    figure("dna.verlet.h_linear_limit", linear);
    crate::report::figure_int("dna.zs.transitions", tr as i64);
    crate::report::figure_int("dna.verlet.transitions", transitions(&rv.mean_angle) as i64);
}

/// `dna`: 000 §4.4 — runs on a thread with a large stack (the 200×200 Hessian and its factor
/// live on the stack).
pub fn dna() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(dna_inner)
        .expect("spawn")
        .join()
        .expect("dna experiment panicked");
}

/// `zs-symplectic` (double-pendulum part).
pub fn symplectic_dp() {
    let t = Table::new(&["steps", "fd eps", "Richardson", "Z&S", "Z&Ss"]);
    for steps in [1, 10] {
        for eps in [1e-4, 1e-5, 1e-6] {
            for rich in [false, true] {
                let (a, b) = dp_defects(steps, eps, rich);
                t.row(&[
                    format!("{steps}"),
                    sci(eps),
                    format!("{rich}"),
                    sci(a),
                    sci(b),
                ]);
            }
        }
    }
    let (zs, zss) = dp_defects(1, 1e-4, true);
    crate::say!("penalised double pendulum (omega = 20, h = 0.1, beta = 0.4), one step, Richardson eps = 1e-4: Z&S {zs:.3e}, Z&Ss {zss:.3e}");
    figure("zs-symplectic.zs.double_pendulum", zs);
    figure("zs-symplectic.zss.double_pendulum", zss);
}

// ---------------------------------------------------------------------------------------------
// Cost per step on the chain of n pendula (000 §4.3, 004 §5.4.1): dense vs banded.

use macrostep::linalg::{Banded, ShiftedSolve};
use macrostep::models::Chain;

/// Mean wall-clock nanoseconds of `f` over `reps` calls (after a warm-up of `reps / 10`).
fn time_ns(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..reps / 10 {
        f();
    }
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}

/// ns per step of `integ` from `s0`, resetting every 64 steps (one FSAL miss per reset).
fn step_ns<I: Integrator<f64, N>, const N: usize>(
    mut integ: I,
    s0: State<f64, N>,
    reps: usize,
) -> f64 {
    let mut s = s0;
    let mut k = 0usize;
    time_ns(reps, || {
        if k.is_multiple_of(64) {
            s = s0;
        }
        k += 1;
        integ.step(std::hint::black_box(&mut s)).expect("stable");
    })
}

/// (Verlet, dense Z&S, banded Z&S, sum of the banded step's pieces) in ns for a chain of `D`.
fn chain_costs<const N: usize, const D: usize>(reps: usize) -> [f64; 4] {
    let chain = Chain::<f64, N, D>::slanted();
    let sys = chain.penalised(20.0).expect("valid");
    let s0 = chain.initial_state();
    let (h, p) = (0.05, ZsParams::with_beta(0.4));
    let vv = step_ns(VelocityVerlet::new(sys, h / 20.0).expect("valid"), s0, reps);
    let dense = step_ns(ZhangSkeel::new(sys, h, p).expect("valid"), s0, reps);
    let banded = step_ns(
        ZhangSkeel::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s0,
        reps,
    );
    let q = s0.q + nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.01 * (i as f64).sin());
    let a = nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.1 * (i as f64).cos());
    let pot = sys.potential;
    use macrostep::model::ThirdDerivative;
    use std::hint::black_box as bb;
    let grad = time_ns(reps, || {
        bb(pot.gradient(bb(&q)));
    });
    let third = time_ns(reps, || {
        bb(pot.third_contraction(bb(&q), &a));
    });
    let mut solver = Banded::<4>;
    let solve = time_ns(reps, || {
        bb(solver
            .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
            .expect("regular"));
    });
    [vv, dense, banded, grad + third + solve]
}

/// `zs-chain-cost`: ns per step against n; log–log slopes; step / pieces overhead ratio.
pub fn chain_cost() {
    let reps = 20_000;
    let ns = [5.0, 10.0, 20.0, 40.0];
    let rows = [
        chain_costs::<10, 5>(reps),
        chain_costs::<20, 10>(reps),
        chain_costs::<40, 20>(reps / 4),
        chain_costs::<80, 40>(reps / 16),
    ];
    let t = Table::new(&[
        "n",
        "verlet ns",
        "zs dense ns",
        "zs banded ns",
        "pieces ns",
        "ratio",
    ]);
    for (n, r) in ns.iter().zip(&rows) {
        t.row(&[
            format!("{n}"),
            format!("{:.0}", r[0]),
            format!("{:.0}", r[1]),
            format!("{:.0}", r[2]),
            format!("{:.0}", r[3]),
            format!("{:.2}", r[2] / r[3]),
        ]);
        figure(&format!("zs-chain-cost.n{n}.banded_ns"), r[2]);
        figure(&format!("zs-chain-cost.n{n}.dense_ns"), r[1]);
        figure(&format!("zs-chain-cost.n{n}.overhead_ratio"), r[2] / r[3]);
    }
    // The same ratio on the penalised double pendulum with the dense solver.
    {
        use macrostep::linalg::Dense;
        use macrostep::model::ThirdDerivative;
        use std::hint::black_box as bb;
        let sys = dp_penalised(20.0);
        let (h, p) = (0.1, ZsParams::with_beta(0.4));
        let mut s0 = dp_start();
        ZhangSkeel::new(sys, h, p)
            .expect("valid")
            .integrate(&mut s0, 20)
            .expect("stable");
        let step = step_ns(ZhangSkeel::new(sys, h, p).expect("valid"), s0, reps * 5);
        let q = s0.q;
        let a = vector![0.1, -0.2, 0.05, 0.3];
        let pot = sys.potential;
        let grad = time_ns(reps * 5, || {
            bb(pot.gradient(bb(&q)));
        });
        let third = time_ns(reps * 5, || {
            bb(pot.third_contraction(bb(&q), &a));
        });
        let mut dense = Dense;
        let solve = time_ns(reps * 5, || {
            bb(dense
                .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
                .expect("regular"));
        });
        let pieces = grad + third + solve;
        crate::say!(
            "double pendulum: Z&S step {step:.0} ns; gradient {grad:.0} + contraction {third:.0} + Hessian, factor and solve {solve:.0} = {pieces:.0} ns; ratio {:.2}",
            step / pieces
        );
        figure(
            "zs-chain-cost.double_pendulum.overhead_ratio",
            step / pieces,
        );
    }
    let col = |k: usize| rows.iter().map(|r| r[k]).collect::<Vec<_>>();
    figure("zs-chain-cost.banded.slope", loglog_slope(&ns, &col(2)));
    figure("zs-chain-cost.dense.slope", loglog_slope(&ns, &col(1)));
    figure("zs-chain-cost.verlet.slope", loglog_slope(&ns, &col(0)));
}

#[cfg(test)]
mod tests {
    use super::largest_passing;

    #[test]
    fn bracket_widens_past_its_first_upper_end_and_bisects() {
        let inside = largest_passing(0.05, 1.0, |h| h < 0.3);
        assert!((inside - 0.3).abs() < 1e-4 && inside < 0.3, "{inside}");
        // The old bracket [0.05, 1] returned ~0.98 here: its upper end was never seen to fail.
        let beyond = largest_passing(0.05, 1.0, |h| h < 3.0);
        assert!((beyond - 3.0).abs() < 1e-3 && beyond < 3.0, "{beyond}");
    }
}
