//! Hostile-input runs of every contract entry point (`cargo xtask fuzz`).
//!
//! ```text
//! fuzz [--cases N] [--seed S] [--jobs J] [--filter SUBSTRING] [--replay NAME CASE_SEED]
//! ```
//!
//! Runs `N` (default 10⁶) seeded cases per entry point of `host_tests::contract`, catching
//! panics per case with a silent panic hook, and prints one row per entry point: cases, `Ok`,
//! panics, state changes on `Err` (`Err+state`), `Ok` results that break a guard's promise
//! (`guard`), contract violations of every kind (`viol`, the two before included), typed errors
//! by kind (`ConfigError` and `StepError` variant names), and the seeds of the first failing
//! cases. The jobs share every entry point's cases in chunks; each row is also printed to stderr
//! as soon as the entry point's cases are done (a run stopped early keeps its finished rows).
//! Exits non-zero when any case panicked or broke the contract. Build it in the `fuzz` profile
//! (release with overflow checks and debug assertions), as `cargo xtask fuzz` does.

use host_tests::contract::tally::{kinds, replay, tally_range, Tally};
use host_tests::contract::{entries, Entry};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

struct Options {
    cases: u64,
    seed: u64,
    jobs: usize,
    filter: Option<String>,
    replay: Option<(String, u64)>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        cases: 1_000_000,
        seed: 12,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        filter: None,
        replay: None,
    };
    let mut args = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> Result<u64, String> {
        v.and_then(|s| s.replace('_', "").parse().ok())
            .ok_or(format!("{what} needs a number"))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cases" => o.cases = num(args.next(), "--cases")?,
            "--seed" => o.seed = num(args.next(), "--seed")?,
            "--jobs" => o.jobs = num(args.next(), "--jobs")?.max(1) as usize,
            "--filter" => o.filter = args.next(),
            "--replay" => {
                let name = args.next().ok_or("--replay needs NAME CASE_SEED")?;
                o.replay = Some((name, num(args.next(), "--replay")?));
            }
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fuzz: {e}\nusage: fuzz [--cases N] [--seed S] [--jobs J] [--filter SUBSTRING] [--replay NAME CASE_SEED]");
            return ExitCode::from(2);
        }
    };
    let all: Vec<Entry> = entries()
        .into_iter()
        .filter(|e| {
            o.filter
                .as_ref()
                .is_none_or(|f| e.name.contains(f.as_str()))
        })
        .collect();
    if let Some((name, cs)) = &o.replay {
        // One case, panics not caught: the backtrace is the point.
        let Some(e) = all.iter().find(|e| e.name == name) else {
            eprintln!("fuzz: no entry point named {name:?}");
            return ExitCode::from(2);
        };
        println!("{:?}", replay(e, *cs));
        return ExitCode::SUCCESS;
    }
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let results = run_all(&all, &o);
    let _ = std::panic::take_hook();
    print_table(&all, &results);
    let bad: u64 = results.iter().map(|t| t.panics + t.violations).sum();
    let total: u64 = results.iter().map(|t| t.cases).sum();
    println!(
        "fuzz: {} entry points, {total} cases, seed {}, {} jobs, {:.1} s; panics + violations: {bad}",
        all.len(),
        o.seed,
        o.jobs,
        start.elapsed().as_secs_f64()
    );
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Cases per unit of work: the jobs share every entry point's cases in chunks of this size, so
/// that the last entry point does not run on one job while the others idle.
const CHUNK: u64 = 20_000;

/// Runs every entry point, its cases split into chunks run `o.jobs` at a time; prints an
/// entry point's row (to stderr) as soon as its last chunk finishes, so that a run stopped
/// early still reports the rows it completed.
fn run_all(all: &[Entry], o: &Options) -> Vec<Tally> {
    let chunks = o.cases.div_ceil(CHUNK).max(1);
    let units: Vec<(usize, u64)> = (0..all.len())
        .flat_map(|i| (0..chunks).map(move |c| (i, c)))
        .collect();
    let next = AtomicUsize::new(0);
    // Per entry point: its chunks' tallies, and the time its first chunk started.
    let parts: Mutex<Vec<Vec<Option<Tally>>>> =
        Mutex::new(vec![vec![None; chunks as usize]; all.len()]);
    let started: Mutex<Vec<Option<Instant>>> = Mutex::new(vec![None; all.len()]);
    eprintln!("{}", header());
    std::thread::scope(|scope| {
        for _ in 0..o.jobs {
            scope.spawn(|| loop {
                let u = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, c)) = units.get(u) else { break };
                let Some(e) = all.get(i) else { break };
                let t0 = *started.lock().expect("no poisoning")[i].get_or_insert_with(Instant::now);
                let ks = c * CHUNK..((c + 1) * CHUNK).min(o.cases);
                let t = tally_range(e, o.seed, ks);
                let mut p = parts.lock().expect("no poisoning: panics are caught");
                p[i][c as usize] = Some(t);
                if p[i].iter().all(Option::is_some) {
                    let row = merged(&p[i]);
                    eprintln!(
                        "{}  ({:.1} s)",
                        row_text(e, &row),
                        t0.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    parts
        .into_inner()
        .expect("no poisoning")
        .iter()
        .map(|p| merged(p))
        .collect()
}

/// The chunks' tallies merged in case order.
fn merged(parts: &[Option<Tally>]) -> Tally {
    let mut t = Tally::default();
    for p in parts.iter().flatten() {
        t.merge(p);
    }
    t
}

fn header() -> String {
    format!(
        "{:<62} {:>9} {:>9} {:>6} {:>9} {:>6} {:>6}  typed errors by kind",
        "entry point", "cases", "Ok", "panic", "Err+state", "guard", "viol"
    )
}

/// One entry point's row and its example lines.
fn row_text(e: &Entry, t: &Tally) -> String {
    let mut s = format!(
        "{:<62} {:>9} {:>9} {:>6} {:>9} {:>6} {:>6}  config[{}] step[{}]",
        e.name,
        t.cases,
        t.ok,
        t.panics,
        t.state_changes,
        t.guard_breaks,
        t.violations,
        kinds(&t.config),
        kinds(&t.step)
    );
    for (seed, msg) in &t.examples {
        s += &format!("\n    case seed {seed}: {msg}");
    }
    s
}

fn print_table(all: &[Entry], results: &[Tally]) {
    println!("{}", header());
    for (e, t) in all.iter().zip(results) {
        println!("{}", row_text(e, t));
    }
}
