//! `cargo xtask three-runs [--runs N] [--only EXP,EXP…] [--parallel] [--bench-full] [--saved]
//! [--write]`: the run-to-run agreement of every published cost ratio.
//!
//! Builds `reproduce` once (release, `peers` feature, MuJoCo's Python when it can be installed:
//! see `peers.rs`), then runs `work-precision`, `work-precision-omega`, `chain-peers`,
//! `arm-peers` and `zs-step-cost` (`--figures-only`, paper setups) `N` times (default 3): back to back, or with `--parallel`
//! the `N` runs of one experiment at the same time (on a shared machine each run then gets its
//! own share of the cores; thread CPU time is what the ratios measure, so the runs still
//! compare). The criterion bench groups are the experiment `benches` (see `bench_ratios.rs`:
//! every bench target, short mode unless `--bench-full`, each group's benchmarks over its first;
//! always back to back, as the runs share criterion's directory). Each run's output is kept in `target/three-runs/run<k>.<experiment>.txt`, its
//! first line `# started …; load …; wall …`; `--saved` makes the table from those files without
//! running anything. A published ratio is every figure named `…speedup_at_equal_error…` or
//! `…ratio_at_equal_step…`; per ratio the table gives each run's value, the min, median and max,
//! and the spread `max(max/median − 1, 1 − min/median)`, marked when it exceeds ±15 %. The load
//! average (`/proc/loadavg`) is read before and after every run: the ratios are thread CPU
//! time, so the load costs wall time, not agreement, unless a sample is too short.
//!
//! `--write` puts the table between the `three-runs` markers named by the experiment list
//! (`<!-- three-runs:begin work-precision,work-precision-omega -->` …
//! `<!-- three-runs:end … -->`; the section is generated: edit the tool, not the text) in the
//! experiment list's page ([`DOCS`]; `docs/work_precision.md` for any other list).

use crate::{bench_ratios, cargo, output, root, run, Result};
use std::fmt::Write as _;
use std::process::Command;

/// The experiments whose ratios are published.
const EXPERIMENTS: [&str; 6] = [
    "work-precision",
    "work-precision-omega",
    "chain-peers",
    "arm-peers",
    "zs-step-cost",
    bench_ratios::NAME,
];

/// The page of an experiment list whose table is not in `docs/work_precision.md`.
const DOCS: [(&str, &str); 1] = [("arm-peers", "arm-peers.md")];

/// The page (under `docs/`) holding the markers of the experiment list `set`.
fn doc_of(set: &str) -> &'static str {
    DOCS.iter()
        .find(|d| d.0 == set)
        .map_or("work_precision.md", |d| d.1)
}

/// The agreement every published ratio must show across runs.
const SPREAD_LIMIT: f64 = 0.15;

/// One experiment run: its figure lines and the machine around it.
struct Run {
    run: usize,
    experiment: String,
    started: String,
    load_before: String,
    load_after: String,
    seconds: f64,
    figures: Vec<(String, f64)>,
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn now() -> String {
    output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M:%S UTC"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// `figure <name> <value>` lines of a ratio.
fn ratios(stdout: &str) -> Vec<(String, f64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            match (w.next(), w.next(), w.next()) {
                (Some("figure"), Some(name), Some(v))
                    if name.contains("speedup_at_equal_error")
                        || name.contains("ratio_at_equal_step") =>
                {
                    Some((name.to_string(), v.parse().unwrap_or(f64::NAN)))
                }
                _ => None,
            }
        })
        .collect()
}

/// Builds the benches when `benches` and `reproduce` when `reproduce`; returns its path and the
/// environment the MuJoCo peer needs.
fn build(benches: bool, reproduce: bool) -> Result<(std::path::PathBuf, Option<String>)> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), std::path::PathBuf::from);
    let bin = target.join("release").join("reproduce");
    if benches {
        run(
            "cargo bench --workspace --bench '*' --no-run",
            cargo().args(["bench", "--workspace", "--bench", "*", "--no-run"]),
        )?;
    }
    if !reproduce {
        return Ok((bin, None));
    }
    let py = crate::peers::mujoco_python();
    run(
        "cargo build --release -p host-tests --features peers --bin reproduce",
        cargo().args([
            "build",
            "--release",
            "-p",
            "host-tests",
            "--features",
            "peers",
            "--bin",
            "reproduce",
        ]),
    )?;
    Ok((bin, py))
}

fn runs_dir(bin: &std::path::Path) -> std::path::PathBuf {
    bin.parent()
        .and_then(|p| p.parent())
        .map_or_else(|| root().join("target"), |p| p.to_path_buf())
        .join("three-runs")
}

/// How to run one experiment: the `reproduce` binary and MuJoCo's Python, and the benches' mode.
struct Runner {
    bin: std::path::PathBuf,
    py: Option<String>,
    bench_full: bool,
}

fn run_one(runner: &Runner, k: usize, experiment: &str) -> Result<Run> {
    let (started, load_before) = (now(), loadavg());
    let t0 = std::time::Instant::now();
    eprintln!("xtask: ==> run {k}: {experiment} (load {load_before})");
    let stdout = if experiment == bench_ratios::NAME {
        bench_ratios::run(runner.bench_full)?
    } else {
        let mut cmd = Command::new(&runner.bin);
        cmd.args([experiment, "--figures-only"]).current_dir(root());
        if let Some(py) = &runner.py {
            cmd.env("MACROSTEP_PEERS_PYTHON", py);
        }
        output(&mut cmd)?
    };
    let bin = &runner.bin;
    let r = Run {
        run: k,
        experiment: experiment.into(),
        started,
        load_before,
        load_after: loadavg(),
        seconds: t0.elapsed().as_secs_f64(),
        figures: ratios(&stdout),
    };
    let dir = runs_dir(bin);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join(format!("run{k}.{experiment}.txt"));
    let head = format!(
        "# started {}; load before {}; load after {}; wall {:.0} s\n",
        r.started, r.load_before, r.load_after, r.seconds
    );
    std::fs::write(&file, head + &stdout).map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("xtask: <== run {k}: {experiment} ({:.0} s)", r.seconds);
    Ok(r)
}

/// A run kept by an earlier call (`--saved`).
fn saved(bin: &std::path::Path, k: usize, experiment: &str) -> Result<Run> {
    let file = runs_dir(bin).join(format!("run{k}.{experiment}.txt"));
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let head = text.lines().next().unwrap_or("");
    let field = |name: &str| -> String {
        head.strip_prefix("# ")
            .and_then(|h| h.split("; ").find_map(|f| f.strip_prefix(name)))
            .map_or_else(|| "not recorded".into(), |v| v.trim().to_string())
    };
    Ok(Run {
        run: k,
        experiment: experiment.into(),
        started: field("started "),
        load_before: field("load before "),
        load_after: field("load after "),
        seconds: field("wall ")
            .trim_end_matches(" s")
            .parse()
            .unwrap_or(f64::NAN),
        figures: ratios(&text),
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn num(v: f64) -> String {
    if !v.is_finite() {
        return "nan".into();
    }
    let a = v.abs();
    if a >= 1e4 || (a < 1e-2 && a > 0.0) {
        format!("{v:.2e}")
    } else {
        // Three significant digits.
        let digits = (2 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.digits$}")
    }
}

/// The markdown section: the runs, then one row per ratio.
fn table(runs: &[Run], n_runs: usize) -> (String, usize, usize) {
    let mut s = String::new();
    let commit = output(cargo_less_git().args(["rev-parse", "--short", "HEAD"]))
        .map(|c| c.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        s,
        "Generated by `cargo xtask three-runs --write` at commit `{commit}` on a {cores}-core \
         machine shared with other jobs; costs are thread CPU time, so the load (the 1/5/15-minute \
         load averages of `/proc/loadavg`) slows the runs but is not what the ratios measure.\n"
    );
    s.push_str("| run | experiment | started | load before | load after | wall s |\n|---|---|---|---|---|---|\n");
    for r in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.0} |",
            r.run, r.experiment, r.started, r.load_before, r.load_after, r.seconds
        );
    }
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        for (n, _) in &r.figures {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    let heads: String = (1..=n_runs).map(|k| format!(" run {k} |")).collect();
    let _ = writeln!(
        s,
        "\n| ratio |{heads} min | median | max | spread | within ±15 % |\n|---|{}---|---|---|---|---|",
        "---|".repeat(n_runs)
    );
    let (mut within, mut measured) = (0, 0);
    for name in names {
        let vals: Vec<f64> = (1..=n_runs)
            .map(|k| {
                runs.iter()
                    .filter(|r| r.run == k)
                    .flat_map(|r| &r.figures)
                    .find(|f| f.0 == name)
                    .map_or(f64::NAN, |f| f.1)
            })
            .collect();
        let cells: String = vals.iter().map(|v| format!(" {} |", num(*v))).collect();
        if vals.iter().all(|v| v.is_nan()) {
            let _ = writeln!(s, "| `{name}` |{cells} — | — | — | — | not reached |");
            continue;
        }
        measured += 1;
        let mut sorted: Vec<f64> = vals.clone();
        let (lo, hi) = sorted
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        let med = median(&mut sorted);
        let spread = (hi / med - 1.0).max(1.0 - lo / med);
        let ok = spread.is_finite() && spread <= SPREAD_LIMIT;
        within += usize::from(ok);
        let verdict = if ok { "yes" } else { "**no**" };
        let _ = writeln!(
            s,
            "| `{name}` |{cells} {} | {} | {} | {:.0} % | {verdict} |",
            num(lo),
            num(med),
            num(hi),
            100.0 * spread
        );
    }
    (s, within, measured)
}

fn cargo_less_git() -> Command {
    let mut c = Command::new("git");
    c.current_dir(root());
    c
}

/// Replaces the generated section for the experiment list `set` in its page ([`doc_of`]).
fn write_doc(set: &str, section: &str) -> Result {
    let path = root().join("docs").join(doc_of(set));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (begin, end) = (
        format!("<!-- three-runs:begin {set} -->"),
        format!("<!-- three-runs:end {set} -->"),
    );
    let (Some(a), Some(b)) = (text.find(&begin), text.find(&end)) else {
        return Err(format!(
            "{}: no markers `{begin}` … `{end}`",
            path.display()
        ));
    };
    let new = format!("{}{begin}\n{section}{}", &text[..a], &text[b..]);
    std::fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn three_runs(args: &[String]) -> Result {
    let mut n_runs = 3;
    let mut only: Vec<String> = EXPERIMENTS.iter().map(|s| s.to_string()).collect();
    let (mut write, mut parallel, mut from_saved, mut bench_full) = (false, false, false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => {
                n_runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n >= 2)
                    .ok_or("--runs takes a number ≥ 2")?;
            }
            "--only" => {
                only = it
                    .next()
                    .ok_or("--only takes EXP,EXP…")?
                    .split(',')
                    .map(str::to_string)
                    .collect();
            }
            "--write" => write = true,
            "--parallel" => parallel = true,
            "--saved" => from_saved = true,
            "--bench-full" => bench_full = true,
            other => return Err(format!("three-runs: unknown argument {other}")),
        }
    }
    let (bin, py) = if from_saved {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| root().join("target"), std::path::PathBuf::from);
        (target.join("release").join("reproduce"), None)
    } else {
        build(
            only.iter().any(|e| e == bench_ratios::NAME),
            only.iter().any(|e| e != bench_ratios::NAME),
        )?
    };
    let runner = Runner {
        bin,
        py,
        bench_full,
    };
    let bin = &runner.bin;
    let mut runs = Vec::new();
    for e in &only {
        if from_saved {
            for k in 1..=n_runs {
                runs.push(saved(bin, k, e)?);
            }
        } else if parallel && e != bench_ratios::NAME {
            let done: Vec<Result<Run>> = std::thread::scope(|s| {
                let handles: Vec<_> = (1..=n_runs)
                    .map(|k| {
                        let runner = &runner;
                        s.spawn(move || run_one(runner, k, e))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err("a run panicked".into())))
                    .collect()
            });
            for r in done {
                runs.push(r?);
            }
        } else {
            for k in 1..=n_runs {
                runs.push(run_one(&runner, k, e)?);
            }
        }
    }
    runs.sort_by_key(|r| r.run);
    let (section, within, measured) = table(&runs, n_runs);
    println!("{section}");
    eprintln!(
        "xtask: {within} of {measured} measured ratios within ±{:.0} % of their median",
        100.0 * SPREAD_LIMIT
    );
    if write {
        let set = only.join(",");
        write_doc(&set, &section)?;
        eprintln!("xtask: wrote docs/{}", doc_of(&set));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_is_a_speedup_or_a_ratio_at_equal_step_figure() {
        let out = "figure arm-peers.rattle_over_zs.speedup_at_equal_error_1e-2 1.12\n\
                   figure arm-peers.zs.cpu_us_per_sim_s_at_1e-2 1695\n\
                   figure work-precision.dp.verlet_over_zs.ratio_at_equal_step_1e-2 NaN\n\
                   say something\n";
        let r = ratios(out);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            (
                "arm-peers.rattle_over_zs.speedup_at_equal_error_1e-2".into(),
                1.12
            )
        );
        assert!(r[1].1.is_nan());
    }

    #[test]
    fn every_experiment_list_with_its_own_page_has_its_markers_there() {
        assert_eq!(doc_of("chain-peers"), "work_precision.md");
        for (set, page) in DOCS {
            assert!(EXPERIMENTS.contains(&set), "{set}");
            let text = std::fs::read_to_string(root().join("docs").join(page)).unwrap();
            for m in ["begin", "end"] {
                let marker = format!("<!-- three-runs:{m} {set} -->");
                assert!(text.contains(&marker), "{page} lacks {marker}");
            }
        }
    }
}
