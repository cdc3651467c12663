//! `reproduce`: the paper reproductions. Each experiment prints a human table and
//! `figure <experiment>.<name> <value>` lines (`--figures-only`: the figure lines alone);
//! `reproduce list` names the experiments. `--plot DIR` and `--csv DIR` write the charts as
//! `<experiment>.<figure>.{png,svg}` and their curves as `<experiment>.<figure>.csv`.

use clap::{CommandFactory, FromArgMatches, Parser};
use host_tests::ensemble_runner::shard::{parse_members, run_merge, run_shard};
use host_tests::experiments::{find, Entry, Scale, EXPERIMENTS};
use host_tests::report::{spinner, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// Reproduces the experiments of the seed papers with macrostep's integrators.
#[derive(Parser, Debug)]
#[command(name = "reproduce", version)]
struct Cli {
    /// An experiment name, `list` (name, seed reference, expected run time), `all`, or `merge`
    /// followed by shard files.
    experiment: String,
    /// Run the reduced setup of experiments that have one (the others run as usual).
    #[arg(long)]
    quick: bool,
    /// Print only the `figure <experiment>.<name> <value>` lines (no table, no headings).
    #[arg(long)]
    figures_only: bool,
    /// Monte Carlo paths for `sim-langevin` and `flavor-langevin` (default: the paper's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
    paths: Option<u64>,
    /// Write the curves behind each chart into DIR as `<experiment>.<figure>.csv`, long
    /// format: a `# x: …; y: …` line with the axes and units, then `experiment,series,x,y`.
    #[arg(long, value_name = "DIR")]
    csv: Option<PathBuf>,
    /// Draw the charts of the paper figures into DIR as `<experiment>.<figure>.png` and
    /// `<experiment>.<figure>.svg` (experiments without a chart say why in `reproduce list`).
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Run members A..B of every ensemble only and write them to `--shard FILE` (no report);
    /// `reproduce merge FILE…` reports the merged shards (docs/ensembles.md).
    #[arg(long, value_name = "A..B", requires = "shard", value_parser = parse_members)]
    members: Option<std::ops::Range<usize>>,
    /// The shard file `--members` writes.
    #[arg(long, value_name = "FILE", requires = "members")]
    shard: Option<PathBuf>,
    /// The shard files of `reproduce merge`.
    #[arg(value_name = "SHARD")]
    shards: Vec<PathBuf>,
}

/// The experiment table appended to `--help`.
fn experiment_help() -> String {
    let mut s = String::from(
        "Output: the human table and `figure <experiment>.<name> <value>` lines on stdout, \
         progress on stderr. `--figures-only` prints the figure lines alone; \
         `grep -v '^figure '` leaves the table alone.\n\n\
         Experiments (`reproduce list` adds the expected run times):\n",
    );
    for e in EXPERIMENTS {
        s.push_str(&format!("  {:<23} {}\n", e.name, e.seed));
    }
    s
}

fn list() {
    // Each column is as wide as its longest entry, so the run times line up.
    let n = EXPERIMENTS.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let w = EXPERIMENTS
        .iter()
        .map(|e| e.seed.chars().count())
        .max()
        .unwrap_or(0);
    println!(
        "{:<n$} {:<w$} {:>9}  about",
        "name", "seed reference", "time"
    );
    for e in EXPERIMENTS {
        println!(
            "{:<n$} {:<w$} {:>9}  {}",
            e.name,
            e.seed,
            e.expected_time(),
            e.about
        );
    }
}

fn run(e: &Entry, scale: &Scale, out: &Output) {
    host_tests::say!(out, "== {}: {}", e.name, e.about);
    let bar = (e.seconds >= 2.0).then(|| spinner(e.name));
    (e.run)(scale, out);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let command = Cli::command().after_help(experiment_help());
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let scale = Scale {
        quick: cli.quick,
        paths: cli.paths.map(|n| n as usize),
    };
    let out = Output {
        figures_only: cli.figures_only,
        csv: cli.csv,
        plot: cli.plot,
    };
    if !cli.shards.is_empty() && cli.experiment != "merge" {
        return fail("shard files are read by `reproduce merge` only");
    }
    if let (Some(members), Some(file)) = (cli.members, &cli.shard) {
        let done = find(&cli.experiment)
            .ok_or(format!("unknown experiment `{}`", cli.experiment))
            .and_then(|e| run_shard(e, &scale, members, file));
        return done.map_or_else(|e| fail(&e), |()| ExitCode::SUCCESS);
    }
    match cli.experiment.as_str() {
        "list" => list(),
        "merge" => {
            if let Err(e) = run_merge(&cli.shards, &out) {
                return fail(&e);
            }
        }
        "all" => {
            for e in EXPERIMENTS {
                run(e, &scale, &out);
                host_tests::say!(out);
            }
        }
        name => match find(name) {
            Some(e) => run(e, &scale, &out),
            None => {
                eprintln!("unknown experiment `{name}`; `reproduce list` names them");
                return ExitCode::from(2);
            }
        },
    }
    ExitCode::SUCCESS
}
