//! A bench group's ratios measured the way `host-tests`' `timing::compare` measures the
//! experiments' ones: every benchmark of the group timed against the others in interleaved,
//! rotated rounds of thread CPU time, each sample repeated until it lasts at least
//! [`MIN_SAMPLE`], medians over the rounds; round `r` runs at the `r mod 16`-th of 16 stack
//! offsets ([`STACK_OFFSETS`]), so every process times the same mix of stack alignments.
//!
//! Criterion times one benchmark after the other: a group's first benchmark (the denominator of
//! every ratio of the group) is measured in its own fraction of a second, and a slow spell of a
//! shared machine during that fraction moves every ratio of the group together. Here a spell
//! lasting a round hits every benchmark of the group in that round, and the median over rounds
//! drops it.
//!
//! [`RatioGroup`] runs each benchmark through criterion as before (its reports and `bencher`
//! lines) and keeps the routine; [`RatioGroup::finish`] then times the routines criterion ran
//! against each other and prints one line per benchmark,
//! `interleaved <group>/<id> <median ns> <min ns> <max ns> <calls per sample>`, which
//! `cargo xtask three-runs` (`xtask/src/bench_ratios.rs`) prefers over criterion's medians.
//! Nothing is timed twice in criterion's `--test` (smoke) and `--list` modes.

use super::{short, Criterion, Group, RESET};
use criterion::BenchmarkId;
use macrostep::{Integrator, Real, State};
use std::hint::black_box;
use std::time::Instant;

/// Least thread CPU seconds of one sample: a shorter routine is repeated inside the sample.
pub const MIN_SAMPLE: f64 = 2e-3;

/// Interleaved rounds: short (CI) mode and full mode.
pub const ROUNDS: [usize; 2] = [16, 32];

/// Seconds of thread CPU time so far.
fn cpu_seconds() -> f64 {
    super::thread_cpu_ns() * 1e-9
}

/// A benchmark group measured by criterion and, for its ratios, by interleaved rounds.
pub struct RatioGroup<'c, 'f> {
    group: Group<'c>,
    name: String,
    routines: Vec<(String, Box<dyn FnMut() + 'f>)>,
}

impl<'c, 'f> RatioGroup<'c, 'f> {
    /// The group `name` of `c`.
    pub fn new(c: &'c mut Criterion, name: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            group: c.benchmark_group(&name),
            name,
            routines: Vec::new(),
        }
    }

    /// Benchmarks `routine` (one call is one iteration) under `id`, by criterion now and in the
    /// interleaved rounds at [`RatioGroup::finish`] when criterion ran it (its filter may skip
    /// it).
    pub fn bench<R>(&mut self, id: impl Into<String>, mut routine: impl FnMut() -> R + 'f) {
        let id = id.into();
        let mut ran = false;
        self.group
            .bench_function(BenchmarkId::from_parameter(&id), |b| {
                ran = true;
                b.iter(&mut routine)
            });
        if ran {
            self.routines.push((
                id,
                Box::new(move || {
                    black_box(routine());
                }),
            ));
        }
    }

    /// Benchmarks one call of `step` on a state from `s0` (reset to it every [`RESET`] calls),
    /// like [`super::bench_stepper`].
    pub fn bench_stepper<S: Copy + 'f>(
        &mut self,
        id: impl Into<String>,
        s0: S,
        mut step: impl FnMut(&mut S) + 'f,
    ) {
        let (mut s, mut k) = (s0, 0usize);
        self.bench(id, move || {
            if k.is_multiple_of(RESET) {
                s = s0;
            }
            k += 1;
            step(black_box(&mut s));
        });
    }

    /// Benchmarks one step of `integ` from `s0`, like [`super::bench_steps`], over every heap
    /// placement of the integrator: copies of `(integ, state)` at every 8-byte offset modulo a
    /// 64-byte cache line (see [`Placements`]), the next copy after each reset to `s0` (every
    /// [`RESET`] calls), so a sample is the mean over placements. A step of a few tens of ns
    /// costs up to 15 % more at one offset than at another (Z&S on the double pendulum: 62 or
    /// 72 ns, Verlet unchanged), and where the allocator puts one copy differs with the process's
    /// earlier allocations (criterion's output format, the filter).
    pub fn bench_steps<T, I, const N: usize>(
        &mut self,
        id: impl Into<String>,
        integ: I,
        s0: macrostep::State<T, N>,
    ) where
        T: macrostep::Real + 'f,
        I: macrostep::Integrator<T, N> + Clone + 'f,
    {
        let mut copies = Placements::new(integ, s0);
        self.bench(id, move || copies.step());
    }

    /// Ends criterion's group, then times the routines criterion ran against each other and
    /// prints their `interleaved` lines (see the module docs).
    pub fn finish(mut self) {
        self.group.finish();
        let skip = std::env::args().any(|a| a == "--test" || a == "--list");
        if skip || self.routines.len() < 2 {
            return;
        }
        let rounds = ROUNDS[usize::from(!short())];
        let mut fs: Vec<&mut dyn FnMut()> = self
            .routines
            .iter_mut()
            .map(|r| r.1.as_mut() as &mut dyn FnMut())
            .collect();
        let measured = compare(&mut fs, rounds);
        for ((id, _), m) in self.routines.iter().zip(measured) {
            println!(
                "interleaved {}/{id} {:e} {:e} {:e} {}",
                self.name,
                m.median * 1e9,
                m.min * 1e9,
                m.max * 1e9,
                m.repeats
            );
        }
    }
}

/// One routine's thread CPU seconds per call over the rounds.
pub struct Measured {
    /// Median over rounds.
    pub median: f64,
    /// Least round.
    pub min: f64,
    /// Largest round.
    pub max: f64,
    /// Calls per sample.
    pub repeats: usize,
}

/// Calls per sample so a sample lasts [`MIN_SAMPLE`]: grows a batch until it does (a routine
/// that waits instead of computing stops the growth after 1 s of wall-clock time).
fn calibrate(f: &mut dyn FnMut()) -> usize {
    let mut n = 1usize;
    let wall = Instant::now();
    loop {
        let t0 = cpu_seconds();
        for _ in 0..n {
            f();
        }
        let cpu = cpu_seconds() - t0;
        if cpu >= MIN_SAMPLE || wall.elapsed().as_secs_f64() >= 1.0 {
            return n;
        }
        let factor = (MIN_SAMPLE / cpu.max(1e-9) * 1.2).clamp(2.0, 16.0);
        n = ((n as f64) * factor).ceil() as usize;
    }
}

/// Stack offsets the rounds cycle through (frames of [`at_depth`], 256 bytes of padding each:
/// more than a 4 KiB page in all).
pub const STACK_OFFSETS: usize = 16;

/// Runs `f` `depth` padded frames further down the stack. The cost of a call of a few ns depends
/// on where its stack temporaries fall against the data it reads (4 KiB aliasing), and the
/// stack's start differs from process to process: a round at each offset makes every process
/// time the same mix of alignments.
#[inline(never)]
fn at_depth(depth: usize, f: &mut dyn FnMut()) {
    let pad = black_box([0u8; 256]);
    if depth == 0 {
        f();
    } else {
        at_depth(depth - 1, f);
    }
    black_box(&pad);
}

/// Times the routines against each other: per round every routine once, in the list's order
/// rotated by the round; a sample repeats its routine's calibrated batch until it has lasted
/// [`MIN_SAMPLE`] of thread CPU (a batch calibrated in a fast spell can fall short in a slow
/// one); per routine the median of its per-call samples.
pub fn compare(fs: &mut [&mut dyn FnMut()], rounds: usize) -> Vec<Measured> {
    let k = fs.len();
    let repeats: Vec<usize> = fs.iter_mut().map(|f| calibrate(*f)).collect();
    let mut samples = vec![Vec::with_capacity(rounds); k];
    for r in 0..rounds.max(1) {
        at_depth(r % STACK_OFFSETS, &mut || {
            for j in 0..k {
                let i = (j + r) % k;
                let (t0, mut calls) = (cpu_seconds(), 0usize);
                while calls == 0 || cpu_seconds() - t0 < MIN_SAMPLE {
                    for _ in 0..repeats[i] {
                        fs[i]();
                    }
                    calls += repeats[i];
                }
                samples[i].push((cpu_seconds() - t0) / calls as f64);
            }
        });
    }
    samples
        .into_iter()
        .zip(repeats)
        .map(|(mut s, repeats)| {
            s.sort_by(f64::total_cmp);
            Measured {
                median: s[s.len() / 2],
                min: s[0],
                max: s[s.len() - 1],
                repeats,
            }
        })
        .collect()
}

/// One copy of a benchmark's integrator and state, padded by `P` words so the copies of a
/// [`Placements`] sit at different offsets within a cache line.
#[derive(Clone)]
struct Slot<I, S, const P: usize> {
    integ: I,
    s: S,
    _pad: [u64; P],
}

/// The copies of one `(integrator, state)` in a `Vec` whose stride (the slot's size) is an odd
/// multiple of the slot's alignment unit `u` (8 or 16 bytes): the copies then fall on every
/// `u`-byte offset modulo 64 once, wherever the `Vec` starts. One padding word or none makes the
/// stride odd.
enum Placements<I, T: Real, const N: usize> {
    P0(Rotation<I, T, N, 0>),
    P1(Rotation<I, T, N, 1>),
}

/// [`Slot`]s stepped in turn: the next one, reset to `s0`, after every [`RESET`] calls.
struct Rotation<I, T: Real, const N: usize, const P: usize> {
    slots: Vec<Slot<I, State<T, N>, P>>,
    s0: State<T, N>,
    k: usize,
    left: usize,
}

impl<I: Integrator<T, N> + Clone, T: Real, const N: usize, const P: usize> Rotation<I, T, N, P> {
    /// The rotation when `P` padding words make the stride an odd multiple of the unit.
    fn fits(integ: &I, s0: State<T, N>) -> Option<Self> {
        let size = core::mem::size_of::<Slot<I, State<T, N>, P>>();
        let unit = core::mem::align_of::<Slot<I, State<T, N>, P>>().max(8);
        if unit > 64 || (size / unit).is_multiple_of(2) {
            return None;
        }
        let slot = Slot {
            integ: integ.clone(),
            s: s0,
            _pad: [0; P],
        };
        Some(Self {
            slots: vec![slot; 64 / unit],
            s0,
            k: 0,
            left: 0,
        })
    }

    #[inline(always)]
    fn step(&mut self) {
        if self.left == 0 {
            self.k = if self.k + 1 == self.slots.len() {
                0
            } else {
                self.k + 1
            };
            self.slots[self.k].s = self.s0;
            self.left = RESET;
        }
        self.left -= 1;
        let slot = &mut self.slots[self.k];
        slot.integ.step(black_box(&mut slot.s)).expect("stable");
    }
}

impl<I: Integrator<T, N> + Clone, T: Real, const N: usize> Placements<I, T, N> {
    fn new(integ: I, s0: State<T, N>) -> Self {
        match Rotation::fits(&integ, s0) {
            Some(r) => Self::P0(r),
            None => Self::P1(Rotation::fits(&integ, s0).expect("one padding word makes it odd")),
        }
    }

    #[inline(always)]
    fn step(&mut self) {
        match self {
            Self::P0(r) => r.step(),
            Self::P1(r) => r.step(),
        }
    }
}
