//! Cost per step of the constrained methods (RATTLE, SHAKE, Reich's 4th-order composition)
//! against the penalty methods Z&S and SyLiPN on the double pendulum (000 §4.1, ω = 20) and on
//! chains of n = 5, 10, 20, 40 pendula (004 §5.4.3, ω = 100, banded solver), with velocity
//! Verlet on the penalised model as the baseline in every group.
//!
//! Groups `step/<model>/n<bodies>`, ids `<family>::<method>/f64`. Short mode for CI:
//! `MACROSTEP_BENCH_SHORT=1 cargo bench --bench constrained`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{NewtonParams, Rattle, Reich4, Shake, Stage};
use macrostep::linalg::Banded;
use macrostep::models::{Chain, DoublePendulum};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, Real, State};
use std::hint::black_box;
use std::time::Duration;

/// Steps between resets to the initial state (a long benchmark stays in its regime).
const RESET: usize = 64;

fn short() -> bool {
    std::env::var_os("MACROSTEP_BENCH_SHORT").is_some()
}

fn configure(c: &mut Criterion) -> Criterion {
    let base = std::mem::take(c);
    if short() {
        base.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
    } else {
        base.sample_size(30)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
    }
}

fn bench_steps<T: Real, I: Integrator<T, N>, const N: usize>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    mut integ: I,
    s0: State<T, N>,
) {
    let mut s = s0;
    let mut k = 0usize;
    g.bench_function(BenchmarkId::from_parameter(id), |b| {
        b.iter(|| {
            if k.is_multiple_of(RESET) {
                s = s0;
            }
            k += 1;
            integ.step(black_box(&mut s)).expect("stable");
        })
    });
}

fn params() -> NewtonParams<f64> {
    // Chains reach |q| ~ n: the default absolute tolerance 1000 ε is below the roundoff of
    // |d|² − L² there, so scale it.
    NewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..NewtonParams::default()
    }
}

fn double_pendulum(c: &mut Criterion) {
    let mut c = configure(c);
    let dp = DoublePendulum::<f64>::paper();
    let (sys, g, s0) = (dp.system(), dp.constraint(), dp.initial_state());
    let h = 0.1;
    let omega = 20.0;
    let mut group = c.benchmark_group("step/double_pendulum/n2");
    bench_steps(
        &mut group,
        "baselines::verlet/f64",
        VelocityVerlet::new(dp.penalised(omega).expect("valid"), h / omega).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "constrained::rattle/f64",
        Rattle::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    let pen = dp.penalised(omega).expect("valid");
    bench_steps(
        &mut group,
        "zs::zhang_skeel/f64",
        ZhangSkeel::new(pen, h, ZsParams::with_beta(0.4)).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "zs::sylipn/f64",
        Sylipn::new(pen, h, ZsParams::with_beta(0.4)).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "constrained::shake/f64",
        Shake::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "constrained::reich4/f64",
        Reich4::new(sys, g, h, Stage::Reich, params()).expect("valid"),
        s0,
    );
    let dp32 = DoublePendulum::<f32>::paper();
    bench_steps(
        &mut group,
        "constrained::rattle/f32",
        Rattle::new(
            dp32.system(),
            dp32.constraint(),
            0.1_f32,
            NewtonParams::default(),
        )
        .expect("valid"),
        dp32.initial_state(),
    );
    group.finish();
}

fn chain_group<const N: usize, const D: usize>(c: &mut Criterion) {
    let mut c = configure(c);
    let chain = Chain::<f64, N, D>::horizontal();
    let (sys, g, s0) = (chain.system(), chain.constraint(), chain.initial_state());
    let h = 0.05;
    let omega = 100.0;
    let name = format!("step/chain/n{D}");
    let mut group = c.benchmark_group(&name);
    bench_steps(
        &mut group,
        "baselines::verlet/f64",
        VelocityVerlet::new(chain.penalised(omega).expect("valid"), h / omega).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "constrained::rattle/f64",
        Rattle::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
        "constrained::shake/f64",
        Shake::new(sys, g, h, params()).expect("valid"),
        s0,
    );
    // Same step as RATTLE (Z&S at 2h blows up on the n = 5 chain), banded solver.
    let pen = chain.penalised(omega).expect("valid");
    bench_steps(
        &mut group,
        "zs::zhang_skeel_banded/f64",
        ZhangSkeel::with_solver(pen, h, ZsParams::with_beta(0.4), Banded::<4>).expect("valid"),
        s0,
    );
    bench_steps(
        &mut group,
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

criterion_group!(benches, double_pendulum, chains);
criterion_main!(benches);
