//! Shared by every bench file: the measurement (thread CPU time, [`ThreadCpu`]), its
//! configuration (with its short CI mode) and the two ways a bench drives an integrator (one
//! step at a time, or a fixed span of steps).
//!
//! A group whose ratios are published can be a [`interleaved::RatioGroup`]: criterion's
//! measurement plus the group's benchmarks timed against each other in interleaved rounds.
//!
//! Group names are `step/<model>/n<bodies>` (or `pieces/…`, `integrate-…/…`) and are unique
//! across all bench files, so Criterion's saved baselines never overwrite each other.

// Each bench binary includes this module and uses only part of it.
#![allow(dead_code)]

pub mod interleaved;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{BenchmarkGroup, BenchmarkId, Throughput};
use macrostep::{Integrator, Real, State};
use std::hint::black_box;
use std::time::Duration;

/// Criterion measuring thread CPU time.
pub type Criterion = criterion::Criterion<ThreadCpu>;

/// A benchmark group measured in thread CPU time.
pub type Group<'a> = BenchmarkGroup<'a, ThreadCpu>;

/// Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) in nanoseconds: the cycles the benchmark's thread
/// ran, not the time other processes on a shared machine took from it (wall-clock time charges
/// a long batch for its preemptions, so methods of different cost would not compare fairly).
pub struct ThreadCpu;

/// The calling thread's CPU time so far, in nanoseconds.
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through a pointer to a live local.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

impl Measurement for ThreadCpu {
    type Intermediate = f64;
    type Value = f64;

    fn start(&self) -> f64 {
        thread_cpu_ns()
    }
    fn end(&self, t0: f64) -> f64 {
        thread_cpu_ns() - t0
    }
    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn to_f64(&self, v: &f64) -> f64 {
        *v
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuNs
    }
}

/// Formats CPU nanoseconds as a duration (ps … s).
struct CpuNs;

impl ValueFormatter for CpuNs {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match ns {
            x if x < 1.0 => (1e3, "ps (cpu)"),
            x if x < 1e3 => (1.0, "ns (cpu)"),
            x if x < 1e6 => (1e-3, "µs (cpu)"),
            x if x < 1e9 => (1e-6, "ms (cpu)"),
            _ => (1e-9, "s (cpu)"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, _ns: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let per_call = match *t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Bits(n) => n,
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => n,
        } as f64;
        values.iter_mut().for_each(|v| *v = per_call * 1e9 / *v);
        "/s (cpu)"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

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
    let base = criterion::Criterion::default().with_measurement(ThreadCpu);
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
