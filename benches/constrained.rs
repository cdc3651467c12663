//! Cost per step of the constrained methods (RATTLE, SHAKE, Reich's 4th-order composition)
//! against the penalty methods Z&S and SyLiPN on the double pendulum (000 §4.1, ω = 20) and on
//! chains of n = 5, 10, 20, 40 pendula (004 §5.4.3, ω = 100, banded solver), with velocity
//! Verlet on the penalised model as the baseline in every group.
//!
//! Groups `step/double_pendulum_constrained/n2` and `step/chain_w100/n<bodies>` (distinct from
//! the Z&S bench's `step/double_pendulum/n2` and `step/chain/n<bodies>`, which use other
//! methods and, for the chain, another model), ids `<family>::<method>/f64`. Short mode for CI:
//! `MACROSTEP_BENCH_SHORT=1 cargo bench --bench constrained`.

mod common;

use common::interleaved::RatioGroup;
use common::{config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Reich4, Shake, Stage};
use macrostep::linalg::Banded;
use macrostep::systems::{Chain, DoublePendulum};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};

fn params() -> ConstraintNewtonParams<f64> {
    // Chains reach |q| ~ n: the default absolute tolerance 1000 ε is below the roundoff of
    // |d|² − L² there, so scale it.
    ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    }
}

fn double_pendulum(c: &mut Criterion) {
    let dp = DoublePendulum::<f64>::paper();
    let (sys, g, s0) = (dp.system(), dp.constraint(), dp.initial_state());
    let h = 0.1;
    let omega = 20.0;
    let mut group = RatioGroup::new(c, "step/double_pendulum_constrained/n2");
    group.bench_steps(
        "baselines::verlet/f64",
        VelocityVerlet::new(dp.penalised(omega).expect("valid"), h / omega).expect("valid"),
        s0,
    );
    group.bench_steps(
        "constrained::rattle/f64",
        Rattle::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    let pen = dp.penalised(omega).expect("valid");
    group.bench_steps(
        "zs::zhang_skeel/f64",
        ZhangSkeel::new(pen, h, ZsParams::with_beta(0.4)).expect("valid"),
        s0,
    );
    group.bench_steps(
        "zs::sylipn/f64",
        Sylipn::new(pen, h, ZsParams::with_beta(0.4)).expect("valid"),
        s0,
    );
    group.bench_steps(
        "constrained::shake/f64",
        Shake::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    group.bench_steps(
        "constrained::reich4/f64",
        Reich4::new(sys, g, h, Stage::Reich, params()).expect("valid"),
        s0,
    );
    let dp32 = DoublePendulum::<f32>::paper();
    group.bench_steps(
        "constrained::rattle/f32",
        Rattle::new(
            dp32.system(),
            dp32.constraint(),
            0.1_f32,
            ConstraintNewtonParams::default(),
        )
        .expect("valid"),
        dp32.initial_state(),
    );
    group.finish();
}

fn chain_group<const N: usize, const D: usize>(c: &mut Criterion) {
    let chain = Chain::<f64, N, D>::horizontal();
    let (sys, g, s0) = (chain.system(), chain.constraint(), chain.initial_state());
    let h = 0.05;
    let omega = 100.0;
    let name = format!("step/chain_w100/n{D}");
    let mut group = RatioGroup::new(c, name);
    group.bench_steps(
        "baselines::verlet/f64",
        VelocityVerlet::new(chain.penalised(omega).expect("valid"), h / omega).expect("valid"),
        s0,
    );
    group.bench_steps(
        "constrained::rattle/f64",
        Rattle::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    group.bench_steps(
        "constrained::shake/f64",
        Shake::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    // Same step as RATTLE (Z&S at 2h blows up on the n = 5 chain), banded solver.
    let pen = chain.penalised(omega).expect("valid");
    group.bench_steps(
        "zs::zhang_skeel_banded/f64",
        ZhangSkeel::with_solver(pen, h, ZsParams::with_beta(0.4), Banded::<4>).expect("valid"),
        s0,
    );
    group.bench_steps(
        "zs::sylipn_banded/f64",
        Sylipn::with_solver(pen, h, ZsParams::with_beta(0.4), Banded::<4>).expect("valid"),
        s0,
    );
    group.finish();
}

fn chains(c: &mut Criterion) {
    chain_group::<10, 5>(c);
    chain_group::<20, 10>(c);
    chain_group::<40, 20>(c);
    chain_group::<80, 40>(c);
}

criterion_group! {
    name = benches;
    config = config();
    targets = double_pendulum, chains
}
criterion_main!(benches);
