//! Parallel ensembles on the host: independent members (Monte Carlo paths, initial states,
//! parameters) run on a `rayon` pool, with results bit-identical whatever the thread count and
//! however the members are split across machines.
//!
//! # Where it lives
//! Here, in the std verification crate, not behind a std feature of `macrostep`: the core crate
//! stays `no_std` without `alloc` and free of a thread pool, and an ensemble is a study (many
//! independent integrations whose statistics are reduced), not a step. A user's own ensemble is
//! a `rayon` loop around the core integrators; this module is the pattern, with the two
//! properties a study needs.
//!
//! # Determinism
//! - **Seeds.** Member `i` of a stream with base seed `b` draws from
//!   `Pcg32::seed_from_u64(b + i)` (wrapping; [`member_rng`]). `seed_from_u64` expands its
//!   argument through a PCG32 of its own, so consecutive arguments give unrelated generators;
//!   two streams of one study need bases further apart than the member count, which
//!   [`stream_base`] (SplitMix64 of the study seed and a stream number) provides. No generator
//!   is shared between members, so a member's numbers do not depend on which thread ran it.
//! - **Reduction.** The `n` members of an ensemble are grouped in blocks of [`block_size`]`(n)`
//!   consecutive indices (a function of `n` alone: at most [`MAX_BLOCKS`] blocks). Each block is
//!   reduced sequentially in member order into a zero partial; the block partials are then added
//!   in block order ([`Sums::merge`]). Threads only decide which block runs where, never the
//!   order of a floating-point addition, so the sums are bit-identical at 1, 2 or 64 threads.
//!
//! # Sharding across machines
//! Because the reduction is by blocks, a shard (members `a..b`: the blocks whose first member
//! is in `a..b`, so any ranges that tile `0..n` tile the blocks) can write its block partials to
//! a file and a merge step can add every shard's partials in block order: the same sums, bit for
//! bit, as one run. [`Plan`]
//! switches every [`fold`] of the calling thread between computing all members
//! ([`Plan::Whole`]), recording a shard ([`Plan::Record`]) and replaying merged shards
//! ([`Plan::Replay`]); the file format and the merge are in [`shard`]. `docs/ensembles.md`
//! shows how to run the shards under a batch scheduler.
//!
//! # Cost
//! [`fold`] also returns the *member seconds*: the sum over blocks of the thread CPU time each
//! block took on its worker thread (a block runs on one thread). That is the CPU time of the
//! members, the same at 1 or 2 threads and under load, so a cost comparison (FLAVOR vs GLA per
//! path) keeps its meaning in a parallel run on a shared machine.

pub mod shard;

use crate::report::progress;
use crate::timing::CpuClock;
use rand::SeedableRng;
use rand_pcg::Pcg32;
use rayon::prelude::*;
use std::cell::RefCell;
use std::ops::Range;

pub use shard::{Plan, ShardFile};

/// The most blocks an ensemble is reduced in (see the module docs): enough for any thread
/// count to balance, few enough to keep a shard file small.
pub const MAX_BLOCKS: usize = 256;

/// Members per block of an `n`-member ensemble: `⌈n / MAX_BLOCKS⌉` (at least 1). Fixed by `n`:
/// changing it changes the last bits of the ensemble's sums.
pub fn block_size(n: usize) -> usize {
    n.div_ceil(MAX_BLOCKS).max(1)
}

/// SplitMix64's finaliser: a bijection of `u64` that scatters neighbouring inputs.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The base seed of stream `stream` of a study seeded `seed`: `splitmix64(seed ⊕ splitmix64(stream))`.
pub fn stream_base(seed: u64, stream: u64) -> u64 {
    splitmix64(seed ^ splitmix64(stream))
}

/// The generator of member `index` of the stream with base seed `base`:
/// `Pcg32::seed_from_u64(base + index)` (wrapping).
pub fn member_rng(base: u64, index: usize) -> Pcg32 {
    Pcg32::seed_from_u64(base.wrapping_add(index as u64))
}

/// Running sums that members add into and that partials of disjoint member sets combine by
/// addition: a visitor over every sum (counts included, as `f64`) in a fixed order. Fields that
/// are not sums (times, step sizes, labels) are not visited; they stay as in the zero value.
pub trait Sums: Clone + Send + Sync {
    /// Calls `f` on every running sum of `self`, always in the same order.
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64));

    /// The sums of `self` in visiting order.
    fn words(&self) -> Vec<f64> {
        let mut out = vec![];
        self.clone().visit(&mut |x| out.push(*x));
        out
    }

    /// Adds `other`'s sums into `self` (`other` reduced from members after `self`'s).
    fn merge(&mut self, other: &Self) {
        let words = other.words();
        let mut it = words.iter();
        self.visit(&mut |x| *x += it.next().expect("same shape"));
    }

    /// Sets the sums of `self` from `words` (the output of [`Sums::words`] of a value of the
    /// same shape); `false` if the count does not match.
    fn set_words(&mut self, words: &[f64]) -> bool {
        let mut it = words.iter();
        let mut short = false;
        self.visit(&mut |x| match it.next() {
            Some(w) => *x = *w,
            None => short = true,
        });
        !short && it.next().is_none()
    }
}

impl Sums for f64 {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        f(self);
    }
}

impl<S: Sums, const N: usize> Sums for [S; N] {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        for s in self {
            s.visit(f);
        }
    }
}

impl<S: Sums> Sums for Vec<S> {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        for s in self {
            s.visit(f);
        }
    }
}

impl<A: Sums, B: Sums> Sums for (A, B) {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.0.visit(f);
        self.1.visit(f);
    }
}

/// Visits a count kept as `usize` as an `f64` (exact below 2⁵³).
pub fn visit_count(n: &mut usize, f: &mut dyn FnMut(&mut f64)) {
    let mut x = *n as f64;
    f(&mut x);
    *n = x as usize;
}

thread_local! {
    static PLAN: RefCell<Plan> = const { RefCell::new(Plan::Whole) };
}

/// Runs `body` with every [`fold`] it calls on this thread following `plan`, and returns the
/// plan afterwards (a [`Plan::Record`] then holds the shard's partials).
pub fn with_plan<R>(plan: Plan, body: impl FnOnce() -> R) -> (R, Plan) {
    let previous = PLAN.with(|p| p.replace(plan));
    let r = body();
    let plan = PLAN.with(|p| p.replace(previous));
    (r, plan)
}

/// The blocks of `n` members: `[kB, min((k + 1)B, n))`, `B = block_size(n)`.
fn blocks(n: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    let b = block_size(n);
    (0..n.div_ceil(b))
        .into_par_iter()
        .map(move |k| k * b..((k + 1) * b).min(n))
}

/// Runs members `0..n` of an ensemble on the current `rayon` pool: `member(i, acc)` adds member
/// `i` into a block's partial sums, which start as `zero`; the partials are added in block
/// order. Returns the sums and the member seconds (see the module docs). `what` labels the
/// progress display. Under [`Plan::Record`] only the shard's blocks run (the returned sums
/// cover those alone); under [`Plan::Replay`] no member runs and the sums come from the shards.
pub fn fold<A: Sums>(
    what: &str,
    n: usize,
    zero: &A,
    member: impl Fn(usize, &mut A) + Sync,
) -> (A, f64) {
    let replayed = PLAN.with(|p| p.borrow_mut().replay(what, n, zero));
    if let Some(replayed) = replayed {
        return replayed;
    }
    let range = PLAN.with(|p| p.borrow().members(n));
    let b = block_size(n);
    let bar = progress(
        range
            .clone()
            .filter(|i| i % b == 0)
            .map(|i| b.min(n - i))
            .sum(),
        what,
    );
    let partials: Vec<(usize, A, f64)> = blocks(n)
        .enumerate()
        .filter(|(_, b)| range.contains(&b.start))
        .map(|(k, b)| {
            let clock = CpuClock::start();
            let mut acc = zero.clone();
            for i in b.clone() {
                member(i, &mut acc);
            }
            bar.inc(b.len() as u64);
            (k, acc, clock.elapsed_secs())
        })
        .collect();
    bar.finish();
    let mut total = zero.clone();
    let mut seconds = 0.0;
    for (_, p, s) in &partials {
        total.merge(p);
        seconds += s;
    }
    PLAN.with(|p| p.borrow_mut().record(what, n, &partials));
    (total, seconds)
}

/// `f(i)` for `i` in `0..n` on the current `rayon` pool, in index order: a parameter sweep whose
/// points are independent (no sums to merge; not sharded).
pub fn map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    (0..n).into_par_iter().map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy ensemble whose sums depend on the order of additions: `Σ xᵢ`, `Σ xᵢ²` of values
    /// spanning 20 orders of magnitude.
    fn toy(n: usize) -> ([f64; 2], f64) {
        fold("toy", n, &[0.0; 2], |i, acc| {
            use rand::RngExt;
            let mut rng = member_rng(7, i);
            let x: f64 = rng.random::<f64>() * 10f64.powi((i % 20) as i32 - 10);
            acc[0] += x;
            acc[1] += x * x;
        })
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
    }

    #[test]
    fn fold_is_bit_identical_at_any_thread_count() {
        let one = pool(1).install(|| toy(1000).0);
        for threads in [2, 3, 8] {
            assert_eq!(
                pool(threads).install(|| toy(1000).0),
                one,
                "{threads} threads"
            );
        }
        // The toy is order-sensitive: a plain sum in reverse order differs, so the equality
        // above is not trivial.
        let mut reverse = [0.0; 2];
        for i in (0..1000).rev() {
            use rand::RngExt;
            let x: f64 = member_rng(7, i).random::<f64>() * 10f64.powi((i % 20) as i32 - 10);
            reverse[0] += x;
            reverse[1] += x * x;
        }
        assert_ne!(reverse, one);
    }

    #[test]
    fn stream_bases_are_far_apart() {
        let bases: Vec<u64> = (0..64).map(|s| stream_base(1, s)).collect();
        for (i, a) in bases.iter().enumerate() {
            for b in &bases[i + 1..] {
                assert!(a.abs_diff(*b) > 1 << 40, "{a} {b}");
            }
        }
        assert_ne!(stream_base(1, 0), stream_base(2, 0));
    }

    #[test]
    fn set_words_checks_the_shape() {
        let mut a = [[0.0; 2]; 3];
        assert!(a.set_words(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        assert_eq!(a, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);
        assert!(!a.set_words(&[1.0; 5]));
        assert!(!a.set_words(&[1.0; 7]));
    }
}
