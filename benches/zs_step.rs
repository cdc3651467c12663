//! Cost per step of the Zhang–Skeel family against velocity Verlet, and the pieces of one Z&S
//! step, on the penalised double pendulum and on chains of n = 5, 10, 20, 40 pendula.
//!
//! Groups `step/<model>/n<bodies>` (ids `<family>::<method>/f64`, Verlet in every group) and
//! `pieces/<model>/n<bodies>` (gradient, Hessian or band, the in-place assembly the dense solve
//! uses, contraction, factor + solve, and the whole step; on the double pendulum also the fused
//! gradient + matrix pass, the dense force solve, the guards' evaluation and the steps with the
//! guards off). Short mode for CI:
//! `MACROSTEP_BENCH_SHORT=1 cargo bench --bench zs_step`.

mod common;

use common::interleaved::RatioGroup;
use common::{config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::VelocityVerlet;
use macrostep::guard::Probe;
use macrostep::linalg::{
    band_cholesky_solve, solve_symmetric, BandMut, Banded, Dense, ShiftedSolve,
};
use macrostep::model::{Hessian, Penalty, Potential, Split, System, ThirdDerivative, Zero};
use macrostep::systems::{Chain, DoublePendulum, GravityPenalty};
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkParams, StiffSylipn, Sylipn, ZhangSkeel, ZsParams,
};
use macrostep::{Guards, Integrator, State, Stepper};
use nalgebra::{SMatrix, SVector};
use std::hint::black_box;

fn chain_group<const N: usize, const D: usize>(c: &mut Criterion) {
    let chain = Chain::<f64, N, D>::slanted();
    let omega = 20.0;
    let sys = chain.penalised(omega).expect("valid");
    let s0 = chain.initial_state();
    let h = 0.05;
    let p = ZsParams::with_beta(0.4);
    let name = format!("step/chain/n{D}");
    let mut g = RatioGroup::new(c, name);
    g.bench_steps(
        "baselines::verlet/f64",
        VelocityVerlet::new(sys, h / omega).expect("valid"),
        s0,
    );
    g.bench_steps(
        "zs::zhang_skeel/f64",
        ZhangSkeel::new(sys, h, p).expect("valid"),
        s0,
    );
    g.bench_steps(
        "zs::zhang_skeel_banded/f64",
        ZhangSkeel::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s0,
    );
    g.bench_steps("zs::sylipn/f64", Sylipn::new(sys, h, p).expect("valid"), s0);
    g.bench_steps(
        "zs::sylipn_banded/f64",
        Sylipn::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s0,
    );
    // stiff Z&Ss: gravity soft, the penalty stiff
    let stiff = Penalty::new(Zero, chain.constraint(), omega).expect("valid");
    let split = System::new(sys.mass, Split::new(chain.system().potential, stiff, 1.0));
    g.bench_steps(
        "zs::stiff_sylipn_banded/f64",
        StiffSylipn::with_solver(split, h, p, Banded::<4>).expect("valid"),
        s0,
    );
    let np = NewmarkParams {
        beta: p.beta,
        newton: ImplicitNewtonParams {
            tol: 1e-10,
            max_iter: 50,
        },
    };
    g.bench_steps(
        "zs::newmark/f64",
        Newmark::new(sys, h, np).expect("valid"),
        s0,
    );
    g.finish();
    chain_pieces::<N, D>(c, sys, s0, h, p);
}

/// The pieces of one Z&S step on the chain, at a state of the trajectory.
fn chain_pieces<const N: usize, const D: usize>(
    c: &mut Criterion,
    sys: System<f64, GravityPenalty<f64, N, D>, N>,
    s0: State<f64, N>,
    h: f64,
    p: ZsParams<f64>,
) {
    let mut s = s0;
    ZhangSkeel::new(sys, h, p)
        .expect("valid")
        .integrate(&mut s, 20)
        .expect("stable");
    let q = s.q;
    let pot = sys.potential;
    let cc = 0.4 * h * h;
    let a = SVector::<f64, N>::from_fn(|i, _| 0.1 * (i as f64).sin());
    let mut g = RatioGroup::new(c, format!("pieces/chain/n{D}"));
    g.bench("gradient", || pot.gradient(black_box(&q)));
    g.bench("hessian", || pot.hessian(black_box(&q)));
    g.bench("hessian_band", || {
        let mut band = SMatrix::<f64, 4, N>::zeros();
        pot.hessian_band(black_box(&q), 1.0, &mut BandMut::from_matrix(&mut band));
        band
    });
    g.bench("third_contraction", || {
        pot.third_contraction(black_box(&q), &a)
    });
    let m = pot.hessian(&q) * cc + SMatrix::<f64, N, N>::identity();
    g.bench("factor_solve_dense", || solve_symmetric(black_box(m), &a));
    let mut band = SMatrix::<f64, 4, N>::zeros();
    pot.hessian_band(&q, cc, &mut BandMut::from_matrix(&mut band));
    for j in 0..N {
        band[(0, j)] += 1.0;
    }
    g.bench("factor_solve_banded", || {
        band_cholesky_solve(black_box(&band), &a)
    });
    g.bench_steps(
        "zs_step_dense",
        ZhangSkeel::new(sys, h, p).expect("valid"),
        s,
    );
    g.bench_steps(
        "zs_step_banded",
        ZhangSkeel::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s,
    );
    g.finish();
}

fn double_pendulum(c: &mut Criterion) {
    // The seed's penalised double pendulum (000 §4.1, gravity towards −y).
    let dp = DoublePendulum::<f64>::paper();
    let omega = 20.0;
    let gravity = dp.system().potential;
    let sys = dp.penalised(omega).expect("valid");
    let s0 = dp.initial_state();
    let h = 0.1;
    let p = ZsParams::with_beta(0.4);
    let mut g = RatioGroup::new(c, "step/double_pendulum/n2");
    g.bench_steps(
        "baselines::verlet/f64",
        VelocityVerlet::new(sys, h / omega).expect("valid"),
        s0,
    );
    g.bench_steps(
        "zs::zhang_skeel/f64",
        ZhangSkeel::new(sys, h, p).expect("valid"),
        s0,
    );
    g.bench_steps("zs::sylipn/f64", Sylipn::new(sys, h, p).expect("valid"), s0);
    let stiff = Penalty::new(Zero, dp.constraint(), omega).expect("valid");
    let split = System::new(sys.mass, Split::new(gravity, stiff, 1.0));
    g.bench_steps(
        "zs::stiff_sylipn/f64",
        StiffSylipn::new(split, h, p).expect("valid"),
        s0,
    );
    let np = NewmarkParams {
        beta: p.beta,
        newton: ImplicitNewtonParams {
            tol: 1e-10,
            max_iter: 50,
        },
    };
    g.bench_steps(
        "zs::newmark/f64",
        Newmark::new(sys, h, np).expect("valid"),
        s0,
    );
    // f32 Z&S in the same group
    let sys32 = DoublePendulum::<f32>::paper()
        .penalised(20.0f32)
        .expect("valid");
    g.bench_steps(
        "zs::zhang_skeel/f32",
        ZhangSkeel::new(sys32, 0.1f32, ZsParams::with_beta(0.4f32)).expect("valid"),
        DoublePendulum::<f32>::paper().initial_state(),
    );
    g.finish();
    dp_pieces(c, sys, s0, h, p);
}

/// The pieces of one Z&S step on the double pendulum, at a state of the trajectory.
fn dp_pieces(
    c: &mut Criterion,
    sys: System<f64, GravityPenalty<f64, 4, 2>, 4>,
    s0: State<f64, 4>,
    h: f64,
    p: ZsParams<f64>,
) {
    let mut s = s0;
    ZhangSkeel::new(sys, h, p)
        .expect("valid")
        .integrate(&mut s, 20)
        .expect("stable");
    let q = s.q;
    let pot = sys.potential;
    let a = SVector::<f64, 4>::new(0.1, -0.2, 0.05, 0.3);
    let m = pot.hessian(&q) * (0.4 * h * h) + SMatrix::<f64, 4, 4>::identity();
    let mut g = RatioGroup::new(c, "pieces/double_pendulum/n2");
    g.bench("gradient", || pot.gradient(black_box(&q)));
    g.bench("hessian", || pot.hessian(black_box(&q)));
    // What the dense strategy assembles in a step: `M + βh² Hess V` in place (the by-value
    // `hessian` above is not on the step's path).
    g.bench("add_hessian", || {
        let mut m = SMatrix::<f64, 4, 4>::identity();
        pot.add_hessian(black_box(&q), 0.4 * h * h, &mut m);
        m
    });
    g.bench("third_contraction", || {
        pot.third_contraction(black_box(&q), &a)
    });
    g.bench("factor_solve_dense", || solve_symmetric(black_box(m), &a));
    g.bench_steps(
        "zs_step_dense",
        ZhangSkeel::new(sys, h, p).expect("valid"),
        s,
    );
    dp_step_pieces(&mut g, sys, s, h, p);
    g.finish();
}

/// The rest of the profile of one Z&S step on the double pendulum: the fused pass (gradient,
/// `M + βh² Hess V`, and the energy and residual it hands to the guards), the whole force solve
/// of the dense strategy (that pass and the 2×2-block solve), the guards' evaluation on the
/// system (what the driver's commit evaluates when nothing is handed over), and the steps of
/// Z&S and Verlet with every guard off (the guards' share is the difference).
fn dp_step_pieces<'f>(
    g: &mut RatioGroup<'_, 'f>,
    sys: System<f64, GravityPenalty<f64, 4, 2>, 4>,
    s: State<f64, 4>,
    h: f64,
    p: ZsParams<f64>,
) {
    let (q, pot, c) = (s.q, sys.potential, 0.4 * h * h);
    g.bench("gradient_add_hessian", move || {
        let (mut grad, mut m) = (SVector::<f64, 4>::zeros(), SMatrix::<f64, 4, 4>::identity());
        let handed = pot.gradient_add_hessian(black_box(&q), c, &mut grad, &mut m);
        (grad, m, handed)
    });
    g.bench("force_solve_dense", move || {
        let mut x = SVector::<f64, 4>::zeros();
        let handed = Dense.solve_force_in_place(&sys.mass, &pot, black_box(&q), c, &mut x);
        (x, handed)
    });
    g.bench("guard_energy_residual", move || {
        let s = black_box(&s);
        (Probe::energy(&sys, s), Probe::residual(&sys, &s.q))
    });
    let mut zs = ZhangSkeel::new(sys, h, p).expect("valid");
    zs.set_guards(Guards::off()).expect("valid");
    g.bench_steps("zs_step_dense_guards_off", zs, s);
    let verlet = || VelocityVerlet::new(sys, h / 20.0).expect("valid");
    g.bench_steps("verlet_step", verlet(), s);
    let mut off = verlet();
    off.set_guards(Guards::off()).expect("valid");
    g.bench_steps("verlet_step_guards_off", off, s);
}

fn all(c: &mut Criterion) {
    double_pendulum(c);
    chain_group::<10, 5>(c);
    chain_group::<20, 10>(c);
    chain_group::<40, 20>(c);
    chain_group::<80, 40>(c);
}

criterion_group! {
    name = benches;
    config = config();
    targets = all
}
criterion_main!(benches);
