//! Work at equal accuracy: each method integrates the same span at the step where
//! `reproduce work-precision` found it reaches position error 1e-2 against the rigid solution,
//! so the ratios of these times are equal-accuracy cost ratios from one run.
//!
//! The steps are copied from a `reproduce work-precision` run (paper setup; the `h_at_1e-2`
//! figures) and must be refreshed with it; they are the largest steps of the form `1/k` that
//! still reach 1e-2 (outputs at integer times). The peer DOP853 is not here: benches use the
//! core crate's dev-dependencies only (its cost is in the `reproduce` figures).
//!
//! Groups `work-precision/double_pendulum_w100/err1e-2`, `…_w1000/err1e-2` (T = 10) and
//! `work-precision/chain20_w100/err1e-2` (T = 3), `work-precision/fpu_w200/err1e-2` (T = 10,
//! error in the sum of the slow energies ΣI), `work-precision/trimer/err1e-2` (T = 1, slow
//! variable of 004 eq 2.100: the legacy symplectic Euler at its 1e-2 step, the fused and the
//! switched FLAVOR at their 1e-2 macro-step δ = 0.025 with τ = 1e-5), ids
//! `<family>::<method>/h=1/<k>`. Short mode:
//! `MACROSTEP_BENCH_SHORT=1 cargo bench --bench work_precision`.

mod common;

use common::{bench_span, config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::VelocityVerlet;
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::flavor::{FusedEuler, Nonintrusive, Params, Switched};
use macrostep::linalg::Banded;
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, Sim2, Sim4, SimSystem};
use macrostep::systems::{Chain, DoublePendulum, Fpu, SpringTrimer};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};

/// Steps per unit time at error 1e-2, double pendulum ω = 100 (h = 1/k).
const DP_K: [(&str, usize); 4] = [
    ("zs::zhang_skeel", 17),
    ("zs::sylipn", 29),
    ("baselines::verlet", 214),
    ("constrained::rattle", 9),
];

/// The same at ω = 1000 (`reproduce work-precision-omega`, `*.h_at_1e-2.omega1000`): Z&S is
/// at its stability cap there, Verlet at ωh ≈ 0.46.
const DP1000_K: [(&str, usize); 4] = [
    ("zs::zhang_skeel", 53),
    ("zs::sylipn", 83),
    ("baselines::verlet", 2168),
    ("constrained::rattle", 9),
];

fn double_pendulum(c: &mut Criterion) {
    double_pendulum_at(c, 100.0, &DP_K);
    double_pendulum_at(c, 1000.0, &DP1000_K);
}

fn double_pendulum_at(c: &mut Criterion, omega: f64, table: &[(&str, usize)]) {
    let dp = DoublePendulum::<f64>::paper();
    let pen = dp.penalised(omega).expect("valid");
    let s0 = dp.initial_state();
    let p = ZsParams::with_beta(0.4);
    let span = 10;
    let mut g = c.benchmark_group(format!("work-precision/double_pendulum_w{omega}/err1e-2"));
    for &(id, k) in table {
        let h = 1.0 / k as f64;
        let name = format!("{id}/h=1/{k}");
        let steps = span * k;
        match id {
            "zs::zhang_skeel" => bench_span(
                &mut g,
                name,
                &mut ZhangSkeel::new(pen, h, p).unwrap(),
                s0,
                steps,
            ),
            "zs::sylipn" => bench_span(
                &mut g,
                name,
                &mut Sylipn::new(pen, h, p).unwrap(),
                s0,
                steps,
            ),
            "baselines::verlet" => bench_span(
                &mut g,
                name,
                &mut VelocityVerlet::new(pen, h).unwrap(),
                s0,
                steps,
            ),
            _ => {
                let mut r = Rattle::new(
                    dp.system(),
                    dp.constraint(),
                    h,
                    ConstraintNewtonParams::default(),
                );
                bench_span(&mut g, name, r.as_mut().unwrap(), s0, steps)
            }
        }
    }
    g.finish();
}

/// Steps per unit time at error 1e-2, chain of 20 at ω = 100, T = 3 (h = 1/k).
const CHAIN_K: [(&str, usize); 3] = [
    ("zs::sylipn_banded", 16),
    ("zs::zhang_skeel_banded", 14),
    ("constrained::rattle", 8),
];

fn chain(c: &mut Criterion) {
    let chain = Chain::<f64, 40, 20>::horizontal();
    let pen = chain.penalised(100.0).expect("valid");
    let s0 = chain.initial_state();
    let p = ZsParams::with_beta(0.4);
    // |q| ~ 20: scale RATTLE's absolute tolerance (as in `benches/constrained.rs`).
    let newton = ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    };
    let span = 3;
    let mut g = c.benchmark_group("work-precision/chain20_w100/err1e-2");
    for (id, k) in CHAIN_K {
        let h = 1.0 / k as f64;
        let name = format!("{id}/h=1/{k}");
        let steps = span * k;
        match id {
            "zs::sylipn_banded" => {
                let mut m = Sylipn::with_solver(pen, h, p, Banded::<4>).unwrap();
                bench_span(&mut g, name, &mut m, s0, steps)
            }
            "zs::zhang_skeel_banded" => {
                let mut m = ZhangSkeel::with_solver(pen, h, p, Banded::<4>).unwrap();
                bench_span(&mut g, name, &mut m, s0, steps)
            }
            _ => {
                let mut r = Rattle::new(chain.system(), chain.constraint(), h, newton).unwrap();
                bench_span(&mut g, name, &mut r, s0, steps)
            }
        }
    }
    g.finish();
}

/// Steps per unit time at error 1e-2 in ΣI, FPU m = 3, ω = 200 (`work_precision.fpu_sum.*.h_at_1e-2`).
const FPU_K: [(&str, usize); 4] = [
    ("sim::sim1", 68),
    ("sim::sim2", 66),
    ("sim::sim4", 66),
    ("baselines::verlet", 4151),
];

fn fpu(c: &mut Criterion) {
    let fpu = Fpu::<f64, 6>::paper();
    let split = fpu.split();
    let sys = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    let fast = FastParams::default();
    let s0 = fpu.initial_state();
    let span = 10;
    let mut g = c.benchmark_group("work-precision/fpu_w200/err1e-2");
    for (id, k) in FPU_K {
        let h = 1.0 / k as f64;
        let name = format!("{id}/h=1/{k}");
        let steps = span * k;
        match id {
            "sim::sim1" => {
                let mut i = Sim1::new(sys, h, fast).unwrap();
                bench_span(&mut g, name, &mut i, s0, steps)
            }
            "sim::sim2" => {
                let mut i = Sim2::new(sys, h, fast).unwrap();
                bench_span(&mut g, name, &mut i, s0, steps)
            }
            "sim::sim4" => {
                let mut i = Sim4::new(sys, h, fast).unwrap();
                bench_span(&mut g, name, &mut i, s0, steps)
            }
            _ => {
                let mut i = VelocityVerlet::new(fpu.system(), h).unwrap();
                bench_span(&mut g, name, &mut i, s0, steps)
            }
        }
    }
    g.finish();
}

/// Steps per unit time at slow-variable error 1e-2 on the trimer (`work_precision.trimer.*`):
/// the legacy map at `h_at_1e-2` = 2.29e-4, the FLAVORs at `delta_at_1e-2` = 0.025.
const TRIMER_K: [(&str, usize); 3] = [
    ("baselines::symplectic_euler", 4363),
    ("flavor::nonintrusive_fused", 40),
    ("flavor::nonintrusive", 40),
];

/// The FLAVORs' micro-step (`work_precision::slow::TAU`).
const TRIMER_TAU: f64 = 1e-5;

fn trimer(c: &mut Criterion) {
    let model = SpringTrimer::<f64>::paper();
    let s0 = model.initial_state();
    let mut g = c.benchmark_group("work-precision/trimer/err1e-2");
    for (id, k) in TRIMER_K {
        let h = 1.0 / k as f64;
        let name = format!("{id}/h=1/{k}");
        match id {
            "baselines::symplectic_euler" => {
                let mut i =
                    SymplecticEuler::new(model.system(), h, EulerOrdering::KickDrift).unwrap();
                bench_span(&mut g, name, &mut i, s0, k)
            }
            "flavor::nonintrusive_fused" => {
                let p = Params::new(h, TRIMER_TAU).unwrap();
                let mut i = Nonintrusive::new(FusedEuler::new(model.system()).unwrap(), p).unwrap();
                bench_span(&mut g, name, &mut i, s0, k)
            }
            _ => {
                let p = Params::new(h, TRIMER_TAU).unwrap();
                let se = SymplecticEuler::new(model.system(), TRIMER_TAU, EulerOrdering::KickDrift);
                let map = Switched::symplectic_euler(se.unwrap()).unwrap();
                bench_span(&mut g, name, &mut Nonintrusive::new(map, p).unwrap(), s0, k)
            }
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = double_pendulum, chain, fpu, trimer
}
criterion_main!(benches);
