//! Cost per step on SO(3) (000 §4.5): the linearised Z&S (first-order and trapezoidal forms)
//! against the Cayley variational benchmark with its Newton solve, on the paper's magnetised
//! body from the paper's start, in f32 and f64.
//!
//! Group `step/so3_magnetised/n9`, ids `lie::<method>/<scalar>`; the benchmark is in the group so
//! ratios come from one run. Short mode for CI: `MACROSTEP_BENCH_SHORT=1 cargo bench --bench so3`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use macrostep::lie::{BodyState, CayleyVariational, LinearizedZs, RigidBody, So3ZsParams};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Integrator, Real};
use std::hint::black_box;
use std::time::Duration;

/// Steps between resets to the initial state (the run stays in the regime it started in).
const RESET: usize = 64;

fn configure() -> Criterion {
    let base = Criterion::default();
    if std::env::var_os("MACROSTEP_BENCH_SHORT").is_some() {
        base.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
    } else {
        base.sample_size(30)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
    }
}

fn scalar<T: Real>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
) {
    let h = T::lit(0.1);
    let body = RigidBody::<T>::paper();
    let s0 = BodyState::<T>::paper();
    fn zs<T: Real, const S: bool>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        id: String,
        body: RigidBody<T>,
        h: T,
        s0: BodyState<T>,
    ) {
        let mut integ = LinearizedZs::<T, S>::new(body, h, So3ZsParams::default()).expect("valid");
        let x0 = s0.to_relaxed();
        let mut s = x0;
        let mut k = 0usize;
        g.bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                if k.is_multiple_of(RESET) {
                    s = x0;
                }
                k += 1;
                integ.step(black_box(&mut s)).expect("stable");
            })
        });
    }
    zs::<T, false>(g, format!("lie::LinearizedZs1/{name}"), body, h, s0);
    zs::<T, true>(g, format!("lie::LinearizedZs2/{name}"), body, h, s0);
    let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default()).expect("valid");
    let mut s = s0;
    let mut k = 0usize;
    g.bench_function(
        BenchmarkId::from_parameter(format!("lie::CayleyVariational/{name}")),
        |b| {
            b.iter(|| {
                if k.is_multiple_of(RESET) {
                    s = s0;
                }
                k += 1;
                cay.step(black_box(&mut s)).expect("stable");
            })
        },
    );
}

fn so3(c: &mut Criterion) {
    let mut g = c.benchmark_group("step/so3_magnetised/n9");
    scalar::<f64>(&mut g, "f64");
    scalar::<f32>(&mut g, "f32");
    g.finish();
}

criterion_group! {
    name = benches;
    config = configure();
    targets = so3
}
criterion_main!(benches);
