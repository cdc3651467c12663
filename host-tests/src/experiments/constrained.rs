//! Constrained dynamics: Reich's pendulum tables (002 §5), VS vs VR on the spring chain (001 §7),
//! the multiplier recovered from a penalty run (000 Fig 2b / Fig 5), the chain of 20 pendula
//! (004 §5.4.3).

use crate::report::{figure, sci, Table};
use crate::rigid::{multiplier_curves, MultiplierCurves};
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

/// `reproduce reich`: 002 §5, Tables 1–2.
pub fn reich() {
    let p = Pendulum::<f64>::paper();
    let period = 7.416298709;
    let sys = p.system();
    crate::say!("Reich 002 §5: pendulum m = g = L = 1 from q = (1, 0) at rest, T = {period}");
    crate::say!("Yoshida = Reich eq 27 (three constrained Verlet stages, c1 = 1/(2−2^(1/3)), one");
    crate::say!(
        "velocity projection); RATTLE = scheme 24 with Verlet. Energy error sampled every step."
    );
    let table = Table::new(&[
        "method",
        "h",
        "|p_y(T)|",
        "|p_y(2T)|",
        "|p_y(4T)|",
        "max|dH|",
        "paper",
    ]);
    let mut measured = Vec::new();
    for (label, k) in [("0.04T", 25usize), ("0.004T", 250)] {
        let h = period / k as f64;
        let params = ConstraintNewtonParams::default();
        let mut y4 = Reich4::new(sys, p.constraint(), h, Stage::Reich, params).expect("Reich4");
        let (py, dh) = pendulum_run(&mut y4, &sys, p.initial_state(), k);
        let mut ra = Rattle::new(sys, p.constraint(), h, params).expect("Rattle");
        let (pr, dr) = pendulum_run(&mut ra, &sys, p.initial_state(), k);
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
    crate::say!();
    crate::say!("ratio measured / published (Yoshida row):");
    for ((name, paper), m) in REICH_YOSHIDA.iter().zip(&measured) {
        crate::say!("  {name:>16}: {:.4}", m / paper);
        figure(&format!("reich.yoshida.{name}.ratio"), m / paper);
    }
}

/// `reproduce vs-vr`: 001 §3–4 and Fig 2 on the spring chain (`systems::SpringChain`, κ = 1),
/// t ∈ [0, 10], h = 0.01.
pub fn vs_vr() {
    use macrostep::constrained::Shake;
    use macrostep::model::Constraint;
    use macrostep::systems::SpringChain;
    let sc = SpringChain::<f64>::paper();
    let (sys, g) = (sc.system(), sc.constraint());
    let h = 0.01;
    let n = 1000;
    let params = ConstraintNewtonParams::default();
    let mut vr = Rattle::new(sys, g, h, params).expect("Rattle");
    let mut vs = Shake::new(sys, g, h, params).expect("Shake");
    let (mut a, mut b) = (sc.initial_state(), sc.initial_state());
    let e0 = sys.energy(&a);
    let (mut dq, mut res_vr, mut res_vs) = (0.0_f64, 0.0_f64, 0.0_f64);
    let (mut vs_first, mut vs_second) = (0.0_f64, 0.0_f64);
    let (mut de_vr, mut de_vs) = (0.0_f64, 0.0_f64);
    crate::say!(
        "001 §7 spring chain: 6 nodes, 5 rods, κ = 1, zigzag start rotating (see SpringChain)"
    );
    crate::say!("VS = SHAKE (eqs 15–18), VR = RATTLE (eqs 24–28), h = {h}, t ∈ [0, 10], Newton tol = 1000 ε");
    let table = Table::new(&["t", "|q_VS − q_VR|", "|g'v| VR", "|g'v| VS"]);
    for k in 1..=n {
        vr.step(&mut a).expect("VR step");
        vs.step(&mut b).expect("VS step");
        let d = (a.q - b.q).amax();
        let rr = (g.jacobian(&a.q) * a.v).amax();
        let rs = (g.jacobian(&b.q) * b.v).amax();
        dq = dq.max(d);
        res_vr = res_vr.max(rr);
        res_vs = res_vs.max(rs);
        if k <= n / 2 {
            vs_first = vs_first.max(rs);
        } else {
            vs_second = vs_second.max(rs);
        }
        de_vr = de_vr.max((sys.energy(&a) - e0).abs());
        de_vs = de_vs.max((sys.energy(&b) - e0).abs());
        if k % 100 == 0 {
            table.row(&[format!("{:.1}", a.t), sci(d), sci(rr), sci(rs)]);
        }
    }
    figure("vs-vr.position_diff_max", dq);
    figure("vs-vr.vr_velocity_residual_max", res_vr);
    figure("vs-vr.vs_velocity_residual_max", res_vs);
    figure("vs-vr.vs_velocity_residual_max_first_half", vs_first);
    figure("vs-vr.vs_velocity_residual_max_second_half", vs_second);
    figure("vs-vr.vr_energy_error_max", de_vr);
    figure("vs-vr.vs_energy_error_max", de_vs);
}

/// `reproduce multiplier`: 000 Fig 2b / Theorem 1.3 on the double pendulum.
///
/// Two penalty runs by Z&S: h = 0.001 (resolving the fast oscillation, hω ≤ 0.1; the main
/// figures `multiplier.omega<ω>.*`) and 000 Fig 2's h = 0.01 (`multiplier.h0.01.omega<ω>.*`),
/// where hω reaches 1 at ω = 100 and the recovered average degrades instead of converging.
pub fn multiplier() {
    use macrostep::systems::DoublePendulum;
    let dp = DoublePendulum::<f64>::paper();
    let (t_w, t_end) = (0.2, 5.0);
    crate::say!(
        "000 Thm 1.3 / Fig 2b: double pendulum (L₁ = 1, L₂ = √2, start (0,−1,1,−2) at rest),"
    );
    crate::say!(
        "λ ≈ −⟨ω² g⟩ (same sign as RATTLE's λ: force +g'ᵀλ; g = squared distances in both)"
    );
    let mut curves = Vec::new();
    for (h, prefix) in [(PENALTY_H, "multiplier"), (0.01, "multiplier.h0.01")] {
        let w = (t_w / h).round() as usize;
        // About 1000 samples per curve for the charts (of the main step only).
        let every = if h == PENALTY_H {
            ((t_end / h) as usize / 1000).max(1)
        } else {
            usize::MAX
        };
        crate::say!();
        crate::say!("penalty run by {PENALTY_METHOD} with h = {h}, RATTLE with h = {h}; window T_w = {t_w} ({w} samples), t ∈ [0, {t_end}]");
        let table = Table::new(&["ω", "hω", "window err", "pointwise err", "vs exact λ"]);
        for omega in [20.0, 50.0, 100.0] {
            let sys = dp.penalised(omega).expect("penalty");
            let mut step = penalty_integrator(sys, h);
            let run = multiplier_curves(omega, h, w, t_end, every, |s| step(s));
            let (we, pe, re) = run.errors;
            table.row(&[
                format!("{omega}"),
                format!("{:.2}", h * omega),
                sci(we),
                sci(pe),
                sci(re),
            ]);
            figure(&format!("{prefix}.omega{omega}.window_err"), we);
            figure(&format!("{prefix}.omega{omega}.pointwise_err"), pe);
            figure(&format!("{prefix}.omega{omega}.exact_window_err"), re);
            if h == PENALTY_H {
                curves.push((omega, run));
            }
        }
    }
    multiplier_charts(&curves, PENALTY_H, t_w);
}

/// 000 Fig 2b as curves (`--plot`, `--csv`): per component, RATTLE's λ and the window
/// estimate of the first ω; and the window error against time for every ω.
fn multiplier_charts(curves: &[(f64, MultiplierCurves)], h: f64, t_w: f64) {
    use crate::plot::{emit, Chart, Series};
    let Some((omega, first)) = curves.first() else {
        return;
    };
    let pts = |f: &dyn Fn(&crate::rigid::MultiplierSample) -> f64| -> Vec<(f64, f64)> {
        first.samples.iter().map(|s| (s.t, f(s))).collect()
    };
    for i in 0..2 {
        let n = i + 1;
        emit(&Chart {
            stem: format!("multiplier.lambda{n}"),
            title: format!("000 Fig 2b: multiplier λ{n} of the double pendulum, ω = {omega}"),
            x_label: "time t".into(),
            y_label: format!("λ{n} (force on rod {n} = λ{n} ∇g{n}; g = |rod|² − L²)"),
            log_x: false,
            log_y: false,
            series: vec![
                Series {
                    label: format!("penalty −ω²g{n}(q(t)) pointwise (Z&S, h = {h})"),
                    points: pts(&|s| s.pointwise[i]),
                },
                Series {
                    label: format!("penalty ⟨−ω²g{n}⟩ over the window [t − {t_w}, t] (eq 1.8)"),
                    points: pts(&|s| s.window[i]),
                },
                Series {
                    label: format!("RATTLE λ{n}(t), h = {h}"),
                    points: pts(&|s| s.rattle[i]),
                },
                Series {
                    label: format!("RATTLE λ{n} averaged over the same window"),
                    points: pts(&|s| s.rattle_window[i]),
                },
            ],
        });
    }
    let series = curves
        .iter()
        .map(|(omega, run)| Series {
            label: format!("ω = {omega}, h = {h}"),
            points: run
                .samples
                .iter()
                .map(|s| (s.t, s.window_err_so_far))
                .collect(),
        })
        .collect();
    emit(&Chart {
        stem: "multiplier.window_error".into(),
        title: format!(
            "000 Thm 1.3: the window multiplier error shrinks as ω grows (window {t_w})"
        ),
        x_label: "time t".into(),
        y_label: "max over [0, t], i = 1, 2 of |⟨−ω²g_i⟩ − ⟨λ_i RATTLE⟩| (log)".into(),
        log_x: false,
        log_y: true,
        series,
    });
}

/// The penalty integrator of `reproduce multiplier`: Z&S (000 eq 1.3, β = 0.4).
const PENALTY_METHOD: &str = "Z&S (β = 0.4)";
/// Its main step (hω ≤ 0.1 for ω ≤ 100).
const PENALTY_H: f64 = 0.001;

type PenaltySystem = System<f64, macrostep::systems::GravityPenalty<f64, 4, 2>, 4>;

type StepFn = Box<dyn FnMut(&mut State<f64, 4>)>;

fn penalty_integrator(sys: PenaltySystem, h: f64) -> StepFn {
    use macrostep::zs::{ZhangSkeel, ZsParams};
    let mut zs = ZhangSkeel::new(sys, h, ZsParams::with_beta(0.4)).expect("Z&S");
    Box::new(move |s| zs.step(s).expect("penalty step"))
}

/// Sampled chain ends `[(t, (x₁, y₁, x_n, y_n))]`.
type Samples = Vec<(f64, [f64; 4])>;

/// `(x₁, y₁, x_n, y_n)` of a chain state.
fn chain_ends<const N: usize>(s: &State<f64, N>) -> [f64; 4] {
    [s.q[0], s.q[1], s.q[N - 2], s.q[N - 1]]
}

/// The first sample time at which two trajectories of chain ends (sampled at the same times)
/// differ by more than `tol` in max norm; `t_end` if never.
fn agree_until(a: &[(f64, [f64; 4])], b: &[(f64, [f64; 4])], tol: f64, t_end: f64) -> f64 {
    let mut last = t_end;
    for ((t, x), (_, y)) in a.iter().zip(b) {
        if (0..4).any(|i| (x[i] - y[i]).abs() > tol) {
            return *t;
        }
        last = *t;
    }
    // A run that stopped early agrees only as far as it got.
    if a.len().min(b.len()) < a.len().max(b.len()) {
        last
    } else {
        t_end
    }
}

/// RATTLE on the chain of `n = N/2` pendula from the horizontal start, sampled every `every`
/// steps: `[(t, ends)]`, the wall time per step in ns, and the time of a failed step (Newton not
/// converging), if any.
fn rattle_chain<const N: usize, const D: usize>(
    h: f64,
    t_end: f64,
    every: usize,
) -> (Samples, f64, Option<f64>) {
    use macrostep::systems::Chain;
    let chain = Chain::<f64, N, D>::horizontal();
    let params = ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    };
    let mut ra = Rattle::new(chain.system(), chain.constraint(), h, params).expect("Rattle");
    let mut s = chain.initial_state();
    let n = (t_end / h).round() as usize;
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    let mut failed = None;
    let mut done = 0usize;
    for k in 1..=n {
        if let Err(e) = ra.step(&mut s) {
            crate::say!("RATTLE h = {h}: step from t = {:.3} failed: {e:?}", s.t);
            failed = Some(s.t);
            break;
        }
        done = k;
        if k % every == 0 {
            out.push((s.t, chain_ends(&s)));
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / done.max(1) as f64;
    (out, ns, failed)
}

/// `reproduce chain`: 004 §5.4.3, chain of 20 pendula (x_i(0) = i, y_i(0) = 0, L_i = 1, T = 20).
pub fn chain() {
    let t_end = 20.0;
    crate::say!("004 §5.4.3: chain of 20 pendula, horizontal at rest, L = 1, g = 1, T = {t_end}");
    // Samples every 0.1.
    let (r05, ns05, fail05) = rattle_chain::<40, 20>(0.05, t_end, 2);
    let (r025, ns025, fail025) = rattle_chain::<40, 20>(0.025, t_end, 4);
    let (r0125, _, _) = rattle_chain::<40, 20>(0.0125, t_end, 8);
    // A failed run stops early: the comparison ends there (agree_until ≤ its last sample).
    let end05 = fail05.unwrap_or(t_end);
    let chaos = agree_until(&r05, &r025, 0.05, end05);
    let chaos2 = agree_until(&r025, &r0125, 0.05, fail025.unwrap_or(t_end));
    crate::say!(
        "RATTLE h = 0.05 vs h = 0.025 agree (|Δ| ≤ 0.05 in x₁, y₁, x₂₀, y₂₀) until t = {chaos}"
    );
    crate::say!("RATTLE h = 0.025 vs h = 0.0125 agree until t = {chaos2}");
    figure(
        "chain.n20.rattle_h0.05_failed_at",
        fail05.unwrap_or(f64::NAN),
    );
    figure("chain.n20.rattle_h0.05_vs_h0.025_agree_until", chaos);
    figure("chain.n20.rattle_h0.025_vs_h0.0125_agree_until", chaos2);
    figure("chain.n20.rattle_ns_per_step", ns05);
    figure("chain.n20.rattle_h0.025_ns_per_step", ns025);
    // The converged reference: RATTLE at h = 1e-3 and 5e-4 (same samples every 0.1).
    let (r1e3, _, _) = rattle_chain::<40, 20>(1e-3, t_end, 100);
    let (r5e4, _, _) = rattle_chain::<40, 20>(5e-4, t_end, 200);
    let converged = agree_until(&r1e3, &r5e4, 0.05, t_end);
    let coarse = agree_until(&r0125, &r5e4, 0.05, t_end);
    crate::say!(
        "RATTLE h = 1e-3 vs h = 5e-4 agree until t = {converged} (the converged reference)"
    );
    crate::say!("RATTLE h = 0.0125 vs h = 5e-4 agree until t = {coarse}");
    figure("chain.n20.rattle_h0.001_vs_h0.0005_agree_until", converged);
    figure("chain.n20.rattle_h0.0125_vs_h0.0005_agree_until", coarse);
    chain_sylipn(&r05, &r025, &r5e4, t_end);
}

/// SyLiPN (004 Integrator 5.2.3, banded solver) on the penalised chain of `n = N/2` pendula from
/// the horizontal start: samples every `every` steps (up to the first failed step, where the
/// default guards stop a diverging run) and ns per step.
fn sylipn_chain<const N: usize, const D: usize>(
    h: f64,
    omega: f64,
    t_end: f64,
    every: usize,
) -> (Samples, f64) {
    use macrostep::linalg::Banded;
    use macrostep::systems::Chain;
    use macrostep::zs::{Sylipn, ZsParams};
    let chain = Chain::<f64, N, D>::horizontal();
    let sys = chain.penalised(omega).expect("penalty");
    let mut zs =
        Sylipn::with_solver(sys, h, ZsParams::with_beta(0.4), Banded::<4>).expect("SyLiPN");
    let mut s = chain.initial_state();
    let n = (t_end / h).round() as usize;
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    let mut done = 0;
    for k in 1..=n {
        if zs.step(&mut s).is_err() {
            break;
        }
        done = k;
        if k % every == 0 {
            out.push((s.t, chain_ends(&s)));
        }
    }
    (out, start.elapsed().as_nanos() as f64 / done.max(1) as f64)
}

/// The SyLiPN half of `reproduce chain`: agreement with RATTLE, cost per step, cost slope in n.
fn chain_sylipn(
    r05: &[(f64, [f64; 4])],
    r025: &[(f64, [f64; 4])],
    converged: &[(f64, [f64; 4])],
    t_end: f64,
) {
    let (zs, ns) = sylipn_chain::<40, 20>(0.1, 100.0, t_end, 1);
    // At ωh = 10 the run diverges (energy growing without bound from t ≈ 6); the step guards
    // end it there and every comparison below covers the steps before that.
    let zs_end = zs.last().map_or(0.0, |x| x.0);
    crate::say!("SyLiPN (h = 0.1, ω = 100) ran to t = {zs_end:.2} of {t_end} before a step guard stopped it");
    figure("chain.n20.sylipn_ran_until", zs_end);
    // RATTLE h = 0.05 stops at its failure; the comparison covers its samples only.
    let end05 = r05.last().map_or(0.0, |x| x.0);
    let a05 = agree_until(&zs, r05, 0.05, end05);
    let a025 = agree_until(&zs, r025, 0.05, t_end);
    crate::say!("SyLiPN (h = 0.1, β = 0.4, ω = 100, banded) vs RATTLE h = 0.05: agree until t = {a05} (RATTLE ran to {end05:.2})");
    crate::say!("SyLiPN vs RATTLE h = 0.025: agree until t = {a025}");
    // Is the early departure SyLiPN's step or the finite-ω penalty model? Refine SyLiPN's step.
    let (zs_fine, _) = sylipn_chain::<40, 20>(0.0125, 100.0, t_end, 8);
    let a_fine = agree_until(&zs_fine, r025, 0.05, t_end);
    crate::say!("SyLiPN h = 0.0125 (ω = 100) vs RATTLE h = 0.025: agree until t = {a_fine} — the penalty model (finite ω), not the step, limits the agreement");
    figure("chain.n20.agree_until", a05);
    figure("chain.n20.sylipn_h0.0125_agree_until", a_fine);
    figure("chain.n20.agree_until_rattle_h0.025", a025);
    let a_conv = agree_until(&zs, converged, 0.05, t_end);
    let a_fine_conv = agree_until(&zs_fine, converged, 0.05, t_end);
    crate::say!("against RATTLE h = 5e-4: SyLiPN h = 0.1 agrees until t = {a_conv}, SyLiPN h = 0.0125 until t = {a_fine_conv}");
    figure("chain.n20.agree_until_rattle_h0.0005", a_conv);
    figure(
        "chain.n20.sylipn_h0.0125_agree_until_rattle_h0.0005",
        a_fine_conv,
    );
    figure("chain.n20.zss_ns_per_step", ns);
    // Cost per step against n (T = 2: the cost per step does not depend on the state).
    let reps = 5;
    let best = |f: &dyn Fn() -> f64| (0..reps).map(|_| f()).fold(f64::INFINITY, f64::min);
    let c5 = best(&|| sylipn_chain::<10, 5>(0.1, 100.0, 2.0, 1000).1);
    let c10 = best(&|| sylipn_chain::<20, 10>(0.1, 100.0, 2.0, 1000).1);
    let c20 = best(&|| sylipn_chain::<40, 20>(0.1, 100.0, 2.0, 1000).1);
    let c40 = best(&|| sylipn_chain::<80, 40>(0.1, 100.0, 2.0, 1000).1);
    let ns_list = [5.0, 10.0, 20.0, 40.0];
    let costs = [c5, c10, c20, c40];
    let table = Table::new(&["n", "SyLiPN ns/step"]);
    for (n, c) in ns_list.iter().zip(&costs) {
        table.row(&[format!("{n}"), format!("{c:.0}")]);
    }
    let slope = crate::measure::loglog_slope(&ns_list, &costs);
    figure("chain.cost_slope", slope);
}
