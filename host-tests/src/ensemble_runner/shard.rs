//! Sharding an experiment's ensembles across machines: `reproduce <experiment> --members a..b
//! --shard FILE` runs members `a..b` of every ensemble of the experiment and writes their block
//! partials to `FILE`; `reproduce merge FILE…` adds the shards' partials in block order and
//! reports, with the same figures as one run over all members.
//!
//! A shard file is text: a header (experiment, setup, member range), then per [`fold`](super::fold)
//! call, in call order, its label and member count and one line per block with the block's sums
//! as the hexadecimal bits of each `f64` (exact).

use super::{block_size, Sums};
use crate::experiments::{Entry, Scale};
use crate::report::Output;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

/// What [`fold`](super::fold) does on the current thread ([`with_plan`](super::with_plan)).
#[derive(Clone, Debug, Default)]
pub enum Plan {
    /// Run every member (the default).
    #[default]
    Whole,
    /// Run the blocks starting in `members` and keep their partials, per fold call.
    Record {
        /// The shard's members.
        members: Range<usize>,
        /// The fold calls so far.
        folds: Vec<Fold>,
    },
    /// Run nothing: each fold call takes the next merged fold's partials.
    Replay {
        /// The merged folds, in call order.
        folds: Vec<Fold>,
        /// The next fold call.
        next: usize,
    },
}

/// One fold call of a shard: its label, member count and `(block index, sums)` per block.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    /// The label given to [`fold`](super::fold).
    pub what: String,
    /// Members of the whole ensemble.
    pub n: usize,
    /// The blocks this shard ran (or, merged, all blocks in order).
    pub blocks: Vec<(usize, Vec<f64>)>,
}

impl Plan {
    /// The members to run of an `n`-member ensemble.
    pub(super) fn members(&self, n: usize) -> Range<usize> {
        match self {
            Plan::Record { members, .. } => members.start.min(n)..members.end.min(n),
            _ => 0..n,
        }
    }

    /// Under [`Plan::Replay`], the merged sums of the next fold call and its member seconds
    /// (summed over the blocks, each timed where it ran).
    pub(super) fn replay<A: Sums>(&mut self, what: &str, n: usize, zero: &A) -> Option<(A, f64)> {
        let Plan::Replay { folds, next } = self else {
            return None;
        };
        let fold = folds.get(*next).unwrap_or_else(|| {
            panic!(
                "the shards hold {} ensembles, the run asks for more",
                folds.len()
            )
        });
        assert!(
            fold.what == what && fold.n == n,
            "shard ensemble {} is `{}` of {} members, the run asks for `{what}` of {n}",
            *next,
            fold.what,
            fold.n
        );
        *next += 1;
        let (mut total, mut seconds) = (zero.clone(), 0.0);
        for (k, words) in &fold.blocks {
            let mut part = zero.clone();
            let (secs, sums) = words.split_last().expect("a block holds its seconds");
            assert!(
                part.set_words(sums),
                "block {k} of `{what}` has the wrong size"
            );
            total.merge(&part);
            seconds += secs;
        }
        Some((total, seconds))
    }

    /// Under [`Plan::Record`], keeps the partials of a fold call.
    pub(super) fn record<A: Sums>(&mut self, what: &str, n: usize, partials: &[(usize, A, f64)]) {
        if let Plan::Record { folds, .. } = self {
            folds.push(Fold {
                what: what.to_string(),
                n,
                blocks: partials
                    .iter()
                    .map(|(k, a, secs)| (*k, [a.words(), vec![*secs]].concat()))
                    .collect(),
            });
        }
    }
}

/// Parses a member range `a..b` (`a < b`; `b` may pass the end of every ensemble). A shard runs
/// the blocks whose first member is in `a..b`, so shards whose ranges tile `0..n` tile the
/// blocks whatever the block size.
pub fn parse_members(s: &str) -> Result<Range<usize>, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not a range a..b"))?;
    let parse = |x: &str| x.trim().parse::<usize>().map_err(|e| format!("`{x}`: {e}"));
    let (a, b) = (parse(a)?, parse(b)?);
    if a >= b {
        return Err(format!("empty member range {a}..{b}"));
    }
    Ok(a..b)
}

/// A shard: which run it belongs to and its folds.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardFile {
    /// Experiment name.
    pub experiment: String,
    /// `--quick`.
    pub quick: bool,
    /// `--paths`.
    pub paths: Option<usize>,
    /// The shard's members.
    pub members: Range<usize>,
    /// The fold calls, in order.
    pub folds: Vec<Fold>,
}

impl ShardFile {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut s = String::from("macrostep-shard 1\n");
        let paths = self.paths.map_or("-".into(), |p| p.to_string());
        let _ = writeln!(s, "experiment {}", self.experiment);
        let _ = writeln!(
            s,
            "setup {} {paths}",
            if self.quick { "quick" } else { "paper" }
        );
        let _ = writeln!(s, "members {} {}", self.members.start, self.members.end);
        for f in &self.folds {
            let _ = writeln!(s, "fold {} {} {}", f.n, f.blocks.len(), f.what);
            for (k, words) in &f.blocks {
                let _ = write!(s, "block {k}");
                for w in words {
                    let _ = write!(s, " {:016x}", w.to_bits());
                }
                s.push('\n');
            }
        }
        s
    }

    /// Parses [`ShardFile::to_text`]'s output.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        let mut next = |key: &str| -> Result<Vec<String>, String> {
            let line = lines.next().ok_or(format!("missing `{key}` line"))?;
            let mut it = line.split(' ');
            match it.next() {
                Some(k) if k == key => Ok(it.map(str::to_string).collect()),
                _ => Err(format!("expected `{key}`, found `{line}`")),
            }
        };
        let num = |x: &str| x.parse::<usize>().map_err(|e| format!("`{x}`: {e}"));
        if next("macrostep-shard")? != ["1"] {
            return Err("unknown shard format version".into());
        }
        let experiment = next("experiment")?.join(" ");
        let setup = next("setup")?;
        let (quick, paths) = match setup.as_slice() {
            [s, p] => (s == "quick", (p != "-").then(|| num(p)).transpose()?),
            _ => return Err("bad `setup` line".into()),
        };
        let m = next("members")?;
        let members = match m.as_slice() {
            [a, b] => num(a)?..num(b)?,
            _ => return Err("bad `members` line".into()),
        };
        let mut folds = vec![];
        while let Ok(f) = next("fold") {
            let (n, count) = (num(&f[0])?, num(&f[1])?);
            let mut blocks = vec![];
            for _ in 0..count {
                let b = next("block")?;
                let words = b[1..]
                    .iter()
                    .map(|w| u64::from_str_radix(w, 16).map(f64::from_bits))
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("block word: {e}"))?;
                blocks.push((num(&b[0])?, words));
            }
            folds.push(Fold {
                what: f[2..].join(" "),
                n,
                blocks,
            });
        }
        Ok(Self {
            experiment,
            quick,
            paths,
            members,
            folds,
        })
    }

    /// Merges shards of one run into a [`Plan::Replay`]: same experiment and setup, the same
    /// ensembles in the same order, and every block of every ensemble in exactly one shard.
    pub fn merge(shards: &[ShardFile]) -> Result<Plan, String> {
        let first = shards.first().ok_or("no shard to merge")?;
        let mut folds: Vec<Fold> = vec![];
        for s in shards {
            if (&s.experiment, s.quick, s.paths) != (&first.experiment, first.quick, first.paths) {
                return Err(format!(
                    "shard of members {:?} is of another run ({} quick={} paths={:?})",
                    s.members, s.experiment, s.quick, s.paths
                ));
            }
            if s.folds.len() != first.folds.len() {
                return Err(format!(
                    "shard {:?} has another number of ensembles",
                    s.members
                ));
            }
        }
        for (i, f) in first.folds.iter().enumerate() {
            let mut blocks: Vec<(usize, Vec<f64>)> = vec![];
            for s in shards {
                let g = &s.folds[i];
                if (&g.what, g.n) != (&f.what, f.n) {
                    return Err(format!("ensemble {i} differs between shards"));
                }
                blocks.extend(g.blocks.iter().cloned());
            }
            blocks.sort_by_key(|b| b.0);
            let want = f.n.div_ceil(block_size(f.n));
            if blocks.iter().map(|b| b.0).ne(0..want) {
                let got: Vec<usize> = blocks.iter().map(|b| b.0).collect();
                return Err(format!(
                    "ensemble `{}` needs blocks 0..{want} once each, the shards hold {got:?}",
                    f.what
                ));
            }
            folds.push(Fold {
                what: f.what.clone(),
                n: f.n,
                blocks,
            });
        }
        Ok(Plan::Replay { folds, next: 0 })
    }
}

/// `reproduce <experiment> --members a..b --shard FILE`: computes the shard and writes it (no
/// report).
pub fn run_shard(
    e: &Entry,
    scale: &Scale,
    members: Range<usize>,
    file: &Path,
) -> Result<(), String> {
    let plan = Plan::Record {
        members: members.clone(),
        folds: vec![],
    };
    let ((), plan) = super::with_plan(plan, || (e.compute)(scale));
    let Plan::Record { folds, .. } = plan else {
        unreachable!("with_plan returns the plan it was given")
    };
    if folds.is_empty() {
        return Err(format!("`{}` runs no ensemble to shard", e.name));
    }
    let shard = ShardFile {
        experiment: e.name.to_string(),
        quick: scale.quick,
        paths: scale.paths,
        members,
        folds,
    };
    std::fs::write(file, shard.to_text()).map_err(|err| format!("{}: {err}", file.display()))
}

/// `reproduce merge FILE…`: merges the shards and reports the experiment as one run would.
pub fn run_merge(files: &[impl AsRef<Path>], out: &Output) -> Result<(), String> {
    let shards = files
        .iter()
        .map(|f| {
            let f = f.as_ref();
            std::fs::read_to_string(f)
                .map_err(|err| format!("{}: {err}", f.display()))
                .and_then(|t| ShardFile::parse(&t).map_err(|err| format!("{}: {err}", f.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let plan = ShardFile::merge(&shards)?;
    let first = &shards[0];
    let e = crate::experiments::find(&first.experiment)
        .ok_or_else(|| format!("unknown experiment `{}`", first.experiment))?;
    let scale = Scale {
        quick: first.quick,
        paths: first.paths,
    };
    let ((), _) = super::with_plan(plan, || (e.run)(&scale, out));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{fold, member_rng, with_plan};
    use super::*;

    fn toy() -> Vec<[f64; 2]> {
        let one = |n: usize, base: u64| {
            fold("toy", n, &[0.0; 2], |i, acc| {
                use rand::RngExt;
                let x: f64 = member_rng(base, i).random();
                acc[0] += x;
                acc[1] += x * x;
            })
            .0
        };
        vec![one(100, 1), one(7, 2), one(40, 3)]
    }

    fn record(members: Range<usize>) -> ShardFile {
        let plan = Plan::Record {
            members: members.clone(),
            folds: vec![],
        };
        let Plan::Record { folds, .. } = with_plan(plan, toy).1 else {
            unreachable!()
        };
        ShardFile {
            experiment: "toy".into(),
            quick: true,
            paths: Some(100),
            members,
            folds,
        }
    }

    #[test]
    fn shards_merged_equal_one_run() {
        let whole = toy();
        let shards: Vec<ShardFile> = [0..33, 61..112, 33..61]
            .into_iter()
            .map(|m| ShardFile::parse(&record(m).to_text()).unwrap())
            .collect();
        let plan = ShardFile::merge(&shards).unwrap();
        assert_eq!(with_plan(plan, toy).0, whole);
        // A shard's own sums are not the whole's, so the equality above is not trivial.
        let plan = Plan::Record {
            members: 0..32,
            folds: vec![],
        };
        assert_ne!(with_plan(plan, toy).0, whole);
    }

    #[test]
    fn merge_refuses_missing_and_doubled_blocks() {
        let (a, b) = (record(0..32), record(48..112));
        assert!(ShardFile::merge(&[a.clone(), b])
            .unwrap_err()
            .contains("blocks 0..100"));
        assert!(ShardFile::merge(&[a.clone(), a.clone(), record(32..112)]).is_err());
        let mut other = record(32..112);
        other.paths = Some(50);
        assert!(ShardFile::merge(&[a, other])
            .unwrap_err()
            .contains("another run"));
    }

    #[test]
    fn member_ranges_parse() {
        assert_eq!(parse_members("32..4096"), Ok(32..4096));
        assert_eq!(parse_members("5..17"), Ok(5..17));
        assert!(parse_members("9..3").is_err());
        assert!(parse_members("32..32").is_err());
        assert!(parse_members("32").is_err());
    }
}
