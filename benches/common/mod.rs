//! Shared by every bench file: the measurement configuration (with its short CI mode) and the
//! two ways a bench drives an integrator (one step at a time, or a fixed span of steps).
//!
//! Group names are `step/<model>/n<bodies>` (or `pieces/…`, `integrate-…/…`) and are unique
//! across all bench files, so Criterion's saved baselines never overwrite each other.

// Each bench binary includes this module and uses only part of it.
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use macrostep::{Integrator, Real, State};
use std::hint::black_box;
use std::time::Duration;

/// A benchmark group measured in wall-clock time.
pub type Group<'a> = BenchmarkGroup<'a, WallTime>;

/// Steps between resets to the initial state, so a long benchmark stays in the regime it
/// started in (one FSAL miss per reset).
pub const RESET: usize = 64;

/// `MACROSTEP_BENCH_SHORT=1` selects the short measurement used in CI.
pub fn short() -> bool {
    std::env::var_os("MACROSTEP_BENCH_SHORT").is_some()
}

/// The configuration every bench binary passes to `criterion_group!`. Command-line options
/// (`--test`, filters, `--measurement-time`) are applied on top of it by the macro.
pub fn config() -> Criterion {
    let base = Criterion::default();
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

/// Benchmarks one `step` of `integ`, continuing the trajectory from `s0` and resetting to it
/// every [`RESET`] steps.
pub fn bench_steps<T: Real, I: Integrator<T, N>, const N: usize>(
    g: &mut Group<'_>,
    id: &str,
    mut integ: I,
    s0: State<T, N>,
) {
    bench_stepper(g, id, s0, move |s| {
        integ.step(s).expect("stable");
    });
}

/// Benchmarks one call of `step` on any state type (rigid bodies, relaxed states), continuing
/// the trajectory from `s0` and resetting to it every [`RESET`] steps.
pub fn bench_stepper<S: Copy>(
    g: &mut Group<'_>,
    id: impl Into<String>,
    s0: S,
    mut step: impl FnMut(&mut S),
) {
    let mut s = s0;
    let mut k = 0usize;
    g.bench_function(BenchmarkId::from_parameter(id.into()), |b| {
        b.iter(|| {
            if k.is_multiple_of(RESET) {
                s = s0;
            }
            k += 1;
            step(black_box(&mut s));
        })
    });
}

/// Benchmarks `steps` steps of `integ` from `s0` (a fixed span of simulated time), restarting
/// from `s0` at every iteration.
pub fn bench_span<T: Real, I: Integrator<T, N>, const N: usize>(
    g: &mut Group<'_>,
    id: impl Into<String>,
    integ: &mut I,
    s0: State<T, N>,
    steps: usize,
) {
    g.bench_function(BenchmarkId::from_parameter(id.into()), |b| {
        b.iter(|| {
            let mut s = black_box(s0);
            integ.integrate(&mut s, steps).expect("stable");
            s
        })
    });
}
