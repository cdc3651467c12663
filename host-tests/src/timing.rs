//! Cost measurement by thread CPU time: the one way every published speed ratio is measured.
//!
//! Wall-clock time on a shared machine charges a method for the time slices other processes
//! take: a long run is preempted, a short one finishes inside its slice, and the long method
//! looks slower than it is. The thread's CPU-time clock (`CLOCK_THREAD_CPUTIME_ID`) counts only
//! the cycles this thread ran, so a comparison here measures the methods, not the machine's load
//! (cache contention from other processes still shows, a little).
//!
//! [`compare`] times a list of closures the way a ratio needs them timed:
//! - **a minimum sample duration**: a closure that runs for less than [`Timing::min_sample`]
//!   (≥ 2 ms by default) is repeated inside one sample until the sample lasts that long, and the
//!   sample is the batch's CPU time divided by its repeats (the clock's granularity and the
//!   call overhead then do not count);
//! - **interleaved, rotated rounds**: round `r` runs every closure once, in the list's order
//!   rotated by `r`, so no closure always runs first (cold caches) or right after the same one;
//! - **medians over rounds**, with the spread (least and largest round) kept for the reader.

use std::time::Instant;

mod placed;
pub use placed::Placed;

/// Seconds of CPU time the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through a pointer to a live local, and
    // `CLOCK_THREAD_CPUTIME_ID` is a clock every supported (POSIX) host provides.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Seconds of CPU time the whole process (every thread) has used so far
/// (`CLOCK_PROCESS_CPUTIME_ID`): the clock for a section that runs parallel work (an ensemble on
/// rayon's pool), where the calling thread's clock would miss the workers.
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as in `thread_cpu_seconds`; `CLOCK_PROCESS_CPUTIME_ID` is a POSIX clock.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Process CPU seconds (all threads) of one call of `f`: the cost of a parallel section, summed
/// over the threads that ran it. Other threads of the process running at the same time are
/// counted too, so time one section at a time.
pub fn process_cpu_seconds_of<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t0 = process_cpu_seconds();
    let out = std::hint::black_box(f());
    (out, process_cpu_seconds() - t0)
}

/// A stopwatch in the calling thread's CPU time, used like [`Instant`]: the time a section
/// took on its own thread, not the time the machine let it run. Valid for a section that runs
/// on one thread (no parallel work inside it).
#[derive(Clone, Copy, Debug)]
pub struct CpuClock(f64);

impl CpuClock {
    /// Starts the stopwatch.
    pub fn start() -> Self {
        Self(thread_cpu_seconds())
    }

    /// Thread CPU seconds since [`CpuClock::start`].
    pub fn elapsed_secs(&self) -> f64 {
        thread_cpu_seconds() - self.0
    }
}

/// Thread CPU seconds of one call of `f`.
pub fn cpu_seconds_of<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t0 = thread_cpu_seconds();
    let out = std::hint::black_box(f());
    (out, thread_cpu_seconds() - t0)
}

/// How a comparison is timed.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Rounds (each runs every closure once, in rotated order); the result is their median.
    pub rounds: usize,
    /// Least CPU seconds of one sample: shorter calls are repeated inside the sample.
    pub min_sample: f64,
}

impl Timing {
    /// `rounds` rounds with the default 2 ms minimum sample.
    pub fn rounds(rounds: usize) -> Self {
        Self {
            rounds,
            min_sample: 2e-3,
        }
    }
}

impl Default for Timing {
    fn default() -> Self {
        Self::rounds(7)
    }
}

/// One closure's CPU time per call over the rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Median over rounds (seconds per call).
    pub median: f64,
    /// Least round.
    pub min: f64,
    /// Largest round.
    pub max: f64,
    /// Calls per sample (the repeats that made a sample last [`Timing::min_sample`]).
    pub repeats: usize,
}

impl Measured {
    /// Relative spread `(max − min) / median`.
    pub fn spread(&self) -> f64 {
        (self.max - self.min) / self.median
    }
}

/// Median of a non-empty list.
pub fn median(mut xs: Vec<f64>) -> f64 {
    assert!(!xs.is_empty(), "median of nothing");
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

/// Calls per sample so a sample lasts `min_sample` CPU seconds: grows a batch until it does,
/// and whether the closure waits instead of computing (sleep, I/O).
///
/// A waiting closure never reaches `min_sample`: the growth stops once two batches in a row have
/// each used less than 2 % of their wall-clock time (a 3 ms sleep uses about 0.6 %), after at
/// least 20 `min_sample` of wall-clock time in all, and such a closure is measured at the
/// (small) CPU time it really uses instead of hanging the measurement. A computing closure on
/// a loaded machine gets far more than 2 % of a core over a batch, so one preemption during one
/// of the first, tiny batches does not stop its growth (stopping there would time the closure
/// one call per sample).
fn calibrate(f: &mut dyn FnMut(), min_sample: f64) -> (usize, bool) {
    let mut n = 1usize;
    let start = Instant::now();
    let mut idle_batches = 0;
    loop {
        let wall = Instant::now();
        let t0 = thread_cpu_seconds();
        for _ in 0..n {
            f();
        }
        let cpu = thread_cpu_seconds() - t0;
        if cpu >= min_sample {
            return (n, false);
        }
        idle_batches = if cpu < 0.02 * wall.elapsed().as_secs_f64() {
            idle_batches + 1
        } else {
            0
        };
        if idle_batches >= 2 && start.elapsed().as_secs_f64() >= 20.0 * min_sample {
            return (n, true);
        }
        // Aim past the target from the measured rate (at most ×16 at a time, at least ×2).
        let factor = (min_sample / cpu.max(1e-9) * 1.2).clamp(2.0, 16.0);
        n = ((n as f64) * factor).ceil() as usize;
    }
}

/// Times the closures against each other (see the module docs): per closure, its CPU seconds
/// per call, median over `timing.rounds` interleaved rounds rotated by round. A sample repeats
/// its closure's calibrated batch until the sample has lasted `timing.min_sample` (a batch
/// calibrated in a slow spell falls short in a fast one; a waiting closure runs one batch). The
/// closures are called `1 + repeats · rounds` times each at least (calibration included) and
/// must do the same work every call.
pub fn compare(methods: &mut [&mut dyn FnMut()], timing: &Timing) -> Vec<Measured> {
    let k = methods.len();
    let batches: Vec<(usize, bool)> = methods
        .iter_mut()
        .map(|f| calibrate(*f, timing.min_sample))
        .collect();
    let mut samples = vec![Vec::with_capacity(timing.rounds); k];
    for r in 0..timing.rounds.max(1) {
        for j in 0..k {
            let i = (j + r) % k;
            let f = &mut methods[i];
            let (repeats, waiting) = batches[i];
            let (t0, mut calls) = (thread_cpu_seconds(), 0usize);
            loop {
                for _ in 0..repeats {
                    f();
                }
                calls += repeats;
                if waiting || thread_cpu_seconds() - t0 >= timing.min_sample {
                    break;
                }
            }
            samples[i].push((thread_cpu_seconds() - t0) / calls as f64);
        }
    }
    samples
        .into_iter()
        .zip(batches)
        .map(|(s, (repeats, _))| Measured {
            min: s.iter().copied().fold(f64::INFINITY, f64::min),
            max: s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            median: median(s),
            repeats,
        })
        .collect()
}

/// [`compare`] of one closure: its CPU seconds per call.
pub fn measure(f: &mut dyn FnMut(), timing: &Timing) -> Measured {
    compare(&mut [f], timing).remove(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// A fixed amount of floating-point work the optimiser cannot drop.
    fn burn(units: usize) -> f64 {
        let mut x = black_box(0.5_f64);
        for _ in 0..units * 20_000 {
            x = black_box(x * 1.000_000_1 + 1e-9).sin();
        }
        x
    }

    #[test]
    fn k_times_the_work_measures_k_times_the_time() {
        let (mut one, mut four) = (|| _ = burn(1), || _ = burn(4));
        let m = compare(&mut [&mut one, &mut four], &Timing::rounds(5));
        let ratio = m[1].median / m[0].median;
        assert!((ratio / 4.0 - 1.0).abs() < 0.2, "4× work measured {ratio}×");
        // Each sample lasted at least the minimum: short calls were repeated.
        assert!(m[0].median * m[0].repeats as f64 >= 2e-3 * 0.9, "{m:?}");
        assert!(m[0].repeats > m[1].repeats, "{m:?}");
    }

    #[test]
    fn waiting_costs_no_cpu_time() {
        // Sleeping 3 ms a call: the wall clock would say 3 ms, the thread's CPU clock ≈ 0.
        let mut sleep = || std::thread::sleep(std::time::Duration::from_millis(3));
        let m = measure(&mut sleep, &Timing::rounds(3));
        assert!(
            m.median < 3e-4,
            "a sleeping call measured {} s of CPU",
            m.median
        );
        // And it measured without hanging: the calibration stops on wall time.
        assert!(m.repeats <= 16, "{m:?}");
    }

    #[test]
    fn rounds_are_rotated() {
        // Each closure records when it ran; with three closures and three rounds, each one runs
        // first exactly once.
        let log = std::cell::RefCell::new(Vec::new());
        let mk = |id: usize| {
            let log = &log;
            move || {
                log.borrow_mut().push(id);
                black_box(burn(1));
            }
        };
        let (mut a, mut b, mut c) = (mk(0), mk(1), mk(2));
        let t = Timing {
            rounds: 3,
            min_sample: 0.0,
        };
        compare(&mut [&mut a, &mut b, &mut c], &t);
        // Calibration calls each once (min_sample 0 is met at once), then 3 rounds × 3 calls.
        let rounds = &log.borrow()[3..];
        assert_eq!(rounds, &[0, 1, 2, 1, 2, 0, 2, 0, 1]);
    }

    #[test]
    fn a_preempted_first_batch_does_not_end_the_calibration() {
        // The first call waits 60 ms (a batch of one call preempted on a loaded machine), every
        // call computes: the calibration still grows the batch to the minimum sample.
        let mut first = true;
        let mut f = || {
            if first {
                first = false;
                std::thread::sleep(std::time::Duration::from_millis(60));
            }
            black_box(burn(1));
        };
        let (n, waiting) = calibrate(&mut f, 2e-3);
        let (_, one) = cpu_seconds_of(|| burn(1));
        assert!(!waiting, "a computing closure taken for a waiting one");
        assert!(n as f64 * one >= 1.5e-3, "{n} calls of {one} s");
    }

    #[test]
    fn every_sample_lasts_the_minimum_even_when_calls_get_cheaper() {
        // The first call (the calibration's: 16 units, well over 2 ms) costs 16× the later
        // ones: the calibrated batch of one call then lasts a sixteenth of the minimum, and the
        // samples repeat it until they last the minimum.
        let calls = std::cell::Cell::new(0usize);
        let mut f = || {
            calls.set(calls.get() + 1);
            black_box(burn(if calls.get() == 1 { 16 } else { 1 }));
        };
        let m = measure(&mut f, &Timing::rounds(3));
        assert_eq!(
            m.repeats, 1,
            "the first call alone did not last 2 ms: {m:?}"
        );
        let per_sample = (calls.get() - 1) as f64 / 3.0;
        assert!(
            per_sample * m.median >= 2e-3 * 0.9,
            "{per_sample} calls of {} s per sample",
            m.median
        );
    }

    #[test]
    fn cpu_clock_advances_with_work_only() {
        let (_, busy) = cpu_seconds_of(|| burn(2));
        let (_, idle) = cpu_seconds_of(|| std::thread::sleep(std::time::Duration::from_millis(5)));
        assert!(busy > 0.0 && idle < busy, "busy {busy}, idle {idle}");
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
