//! The output format of `reproduce`: a human table and `figure <experiment>.<name> <value>` lines,
//! and the progress display on stderr.
//!
//! Human text goes through [`say!`](crate::say), which [`Output::figures_only`] silences;
//! `figure` lines are always printed, in the same format.

use indicatif::{MultiProgress, ProgressBar, ProgressFinish, ProgressStyle};
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

/// Where and how an experiment's report goes: passed to every report function. The default
/// prints everything and writes no files (what a test or a library user wants).
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// Print only the `figure` lines (`--figures-only`).
    pub figures_only: bool,
    /// Directory for the CSV files of the curves behind each figure (`--csv DIR`).
    pub csv: Option<PathBuf>,
    /// Directory for the PNG plots of the paper figures (`--plot DIR`).
    pub plot: Option<PathBuf>,
}

/// Every bar of the process, so an experiment's spinner and its loops' bars share stderr.
static BARS: LazyLock<MultiProgress> = LazyLock::new(MultiProgress::new);

/// `println!` for the human part of an experiment's output: `say!(out, "…", …)` prints unless
/// `out` (an [`Output`]) asks for the `figure` lines only.
#[macro_export]
macro_rules! say {
    ($out:expr) => {
        if !$out.figures_only {
            println!();
        }
    };
    ($out:expr, $($arg:tt)*) => {
        if !$out.figures_only {
            println!($($arg)*);
        }
    };
}

/// Prints a machine-readable figure line: `figure <name> <value>`.
pub fn figure(name: &str, value: f64) {
    println!("figure {name} {value:.6e}");
}

/// Prints a machine-readable integer figure line: `figure <name> <value>`.
pub fn figure_int(name: &str, value: i64) {
    println!("figure {name} {value}");
}

/// A simple fixed-width table printer for the human-readable part of an experiment.
pub struct Table {
    widths: Vec<usize>,
    /// Rows are silenced like [`say!`](crate::say).
    figures_only: bool,
}

impl Table {
    /// Prints the header row (unless `out` asks for figures only) and remembers column widths.
    pub fn new(out: &Output, headers: &[&str]) -> Self {
        let widths: Vec<usize> = headers.iter().map(|h| h.len().max(12)).collect();
        let row: Vec<String> = headers
            .iter()
            .zip(&widths)
            .map(|(h, w)| format!("{h:>w$}"))
            .collect();
        crate::say!(out, "{}", row.join("  "));
        crate::say!(
            out,
            "{}",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("  ")
        );
        Self {
            widths,
            figures_only: out.figures_only,
        }
    }

    /// Prints one row of preformatted cells.
    pub fn row(&self, cells: &[String]) {
        let row: Vec<String> = cells
            .iter()
            .zip(&self.widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        crate::say!(self, "{}", row.join("  "));
    }
}

/// Formats a float compactly for tables.
pub fn sci(x: f64) -> String {
    format!("{x:.3e}")
}

/// A spinner with the elapsed time on stderr, for a whole experiment (hidden when stderr is not
/// a terminal).
pub fn spinner(what: &str) -> ProgressBar {
    let bar = BARS.add(ProgressBar::new_spinner().with_message(what.to_string()));
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A progress bar of `len` units (paths, steps) on stderr, cleared when its iterator ends and
/// hidden when stderr is not a terminal. Use with `indicatif::ProgressIterator::progress_with`.
pub fn progress(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64)
        .with_message(what.to_string())
        .with_finish(ProgressFinish::AndClear);
    let bar = BARS.add(bar);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}
