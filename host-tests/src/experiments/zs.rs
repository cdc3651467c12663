//! Zhang–Skeel family reproductions (000 §2, §4.1, §4.4; 004 Ch. 5).
//!
//! `zs-stability` (Thm 2.5), `zs-order` (Cor 2.8, Rem 2.11), `zs-symplectic` (Thm 2.12, 2.4,
//! Rem 2.14), `penalty-scaling` (Thm 1.3 / Rem A.3, Fig 2a), `double-pendulum` (Fig 1), `dna`
//! (§4.4, Fig 8).

use crate::measure::loglog_slope;
use crate::report::{figure, sci, Table};
use crate::zs_support::{HenonHeiles, Pendulum1};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::models::HarmonicOscillator;
use macrostep::zs::{StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use nalgebra::{matrix, vector};

/// Energy-norm amplification `max_k ‖(ωq_k, v_k)‖ / ‖(ωq₀, v₀)‖` of Z&S on `q̈ = −ω²q`
/// (ω = 1, step `hω`), over `steps` steps; stops early (returning the value reached) beyond 1e8.
pub fn zs_amplification(beta: f64, homega: f64, steps: usize) -> f64 {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).expect("valid oscillator");
    let mut zs = ZhangSkeel::new(osc.system(), homega, ZsParams::with_beta(beta)).expect("valid");
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
    println!(
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

/// A very accurate reference: the Suzuki-composed (4th-order) Z&S with a step 64× smaller than
/// the smallest tested one. Independent of the method under test only in step size —
/// replaced by the harness's reference solver where available.
fn reference<I: Integrator<f64, 2>>(
    make: impl Fn(f64) -> I,
    s0: State<f64, 2>,
    t_end: f64,
    h: f64,
) -> State<f64, 2> {
    let mut integ = make(h);
    let mut s = s0;
    integ
        .integrate(&mut s, (t_end / h).round() as usize)
        .expect("stable run");
    s
}

/// `zs-order`: Corollary 2.8 (order 2) and Remark 2.11 (order 4 by composition), Hénon–Heiles.
pub fn order() {
    let p = ZsParams::with_beta(0.4);
    let t_end = 2.0;
    let s0 = hh_start();
    let four = |h| {
        SymmetricComposition::new(ZhangSkeel::new(hh(), h, p).expect("valid"), Scheme::Suzuki5)
            .expect("valid")
    };
    let reference_hh = reference(four, s0, t_end, 1e-4);
    let four_split = |h| {
        SymmetricComposition::new(
            ZhangSkeel::new(hh_split(), h, p).expect("valid"),
            Scheme::Suzuki5,
        )
        .expect("valid")
    };
    let reference_split = reference(four_split, s0, t_end, 1e-5);
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
    println!("Z&Ss on the 1-DOF pendulum V = -cos q, h = 0.1, 10 steps: defect {d:.3e}");
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
    println!("Henon-Heiles, h = 0.1, 10 steps: Z&S defect {zs:.3e}, Z&Ss defect {zss:.3e}");
    figure("zs-symplectic.zs.henon_heiles", zs);
    figure("zs-symplectic.zss.henon_heiles", zss);
}
