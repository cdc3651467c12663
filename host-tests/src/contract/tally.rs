//! Counting outcomes of many cases of one entry point (the fuzz runner's table).

use super::{Entry, Outcome};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What the cases of one entry point ended with.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Cases run.
    pub cases: u64,
    /// Cases whose constructor and steps all returned `Ok`.
    pub ok: u64,
    /// Refused configurations, by `ConfigError` variant.
    pub config: BTreeMap<String, u64>,
    /// Step errors (state bit-identical), by `StepError` variant.
    pub step: BTreeMap<String, u64>,
    /// Cases that panicked.
    pub panics: u64,
    /// Cases that broke the contract (all kinds).
    pub violations: u64,
    /// Of those: a step returned `Err` and changed the state.
    pub state_changes: u64,
    /// Of those: a step returned `Ok` with a state that breaks a promise of the guards (not
    /// finite, the clock not advanced, a residual or energy bound exceeded).
    pub guard_breaks: u64,
    /// The first few panics and violations: `(case seed, message)`.
    pub examples: Vec<(u64, String)>,
}

impl Tally {
    /// Adds the counts of `later` (the cases after this tally's) and keeps the first
    /// examples of both.
    pub fn merge(&mut self, later: &Tally) {
        self.cases += later.cases;
        self.ok += later.ok;
        for (mine, theirs) in [
            (&mut self.config, &later.config),
            (&mut self.step, &later.step),
        ] {
            for (k, n) in theirs {
                *mine.entry(k.clone()).or_default() += n;
            }
        }
        self.panics += later.panics;
        self.violations += later.violations;
        self.state_changes += later.state_changes;
        self.guard_breaks += later.guard_breaks;
        for (seed, msg) in &later.examples {
            keep(&mut self.examples, *seed, msg.clone());
        }
    }
}

/// How many failing cases per entry point are kept for the report.
const EXAMPLES: usize = 3;

/// The seed of case `k` of `entry` in a run seeded with `seed` (replay one case with
/// [`replay`]).
pub fn case_seed(entry: &Entry, seed: u64, k: u64) -> u64 {
    // FNV-1a of the name, so that entries draw independent streams.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in entry.name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ seed)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(k)
}

/// Runs the case with the given seed (no panic catching).
pub fn replay(entry: &Entry, case_seed: u64) -> Outcome {
    (entry.run)(&mut Pcg64::seed_from_u64(case_seed))
}

/// Runs `cases` cases of `entry`, catching panics per case (install a silent panic hook first
/// to keep the output readable).
pub fn tally(entry: &Entry, seed: u64, cases: u64) -> Tally {
    tally_range(entry, seed, 0..cases)
}

/// Runs cases `ks` of `entry` (case `k` as in [`tally`]): a run split into ranges and
/// [merged](Tally::merge) in order gives [`tally`]'s table and examples.
pub fn tally_range(entry: &Entry, seed: u64, ks: core::ops::Range<u64>) -> Tally {
    let mut t = Tally::default();
    for k in ks {
        let cs = case_seed(entry, seed, k);
        t.cases += 1;
        match catch_unwind(AssertUnwindSafe(|| replay(entry, cs))) {
            Ok(Outcome::Ok) => t.ok += 1,
            Ok(Outcome::Config(kind)) => *t.config.entry(kind).or_default() += 1,
            Ok(Outcome::Step(kind)) => *t.step.entry(kind).or_default() += 1,
            Ok(Outcome::Violation(msg)) => {
                t.violations += 1;
                match violation_kind(&msg) {
                    Violation::StateChanged => t.state_changes += 1,
                    Violation::GuardBroken => t.guard_breaks += 1,
                    Violation::Other => {}
                }
                keep(&mut t.examples, cs, format!("violation: {msg}"));
            }
            Err(payload) => {
                t.panics += 1;
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".into());
                keep(&mut t.examples, cs, format!("panic: {msg}"));
            }
        }
    }
    t
}

/// What kind of contract violation a message of [`super::run`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// `Err` with a changed state (`step k: Err(…) changed the state …`).
    StateChanged,
    /// `Ok` with a state that breaks a guard's promise (`step k (h = …): Ok …`).
    GuardBroken,
    /// Anything else: a constructor's or setter's promise.
    Other,
}

/// Classifies a violation message of [`super::run`] (see [`Violation`]).
pub fn violation_kind(msg: &str) -> Violation {
    if msg.contains(") changed the state") {
        Violation::StateChanged
    } else if msg.starts_with("step ") && msg.contains("): Ok") {
        Violation::GuardBroken
    } else {
        Violation::Other
    }
}

fn keep(examples: &mut Vec<(u64, String)>, seed: u64, msg: String) {
    if examples.len() < EXAMPLES {
        examples.push((seed, msg));
    }
}

/// `Kind:count Kind:count …`, or `-`.
pub fn kinds(m: &BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "-".into();
    }
    m.iter()
        .map(|(k, n)| format!("{k}:{n}"))
        .collect::<Vec<_>>()
        .join(" ")
}
