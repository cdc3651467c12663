//! The run options of `reproduce`, set once by the binary and read by experiments and the
//! report functions. Library users (tests) never set them and get [`Options::default`]: the
//! paper setup, every line printed, no files written.

use std::path::PathBuf;
use std::sync::OnceLock;

/// How an experiment runs and what it writes.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Run the reduced setup where an experiment has one.
    pub quick: bool,
    /// Print only the `figure` lines.
    pub figures_only: bool,
    /// Number of Monte Carlo paths, for the experiments that take it.
    pub paths: Option<usize>,
    /// Directory for the CSV files of the curves behind each figure.
    pub csv: Option<PathBuf>,
    /// Directory for the PNG plots of the paper figures.
    pub plot: Option<PathBuf>,
}

static OPTIONS: OnceLock<Options> = OnceLock::new();

/// Sets the options for this process; only the first call has an effect.
pub fn set(options: Options) {
    let _ = OPTIONS.set(options);
}

/// The options in force ([`Options::default`] unless [`set`] was called).
pub fn get() -> &'static Options {
    OPTIONS.get_or_init(Options::default)
}

/// `paths` from the command line, else `default`.
pub fn paths_or(default: usize) -> usize {
    get().paths.unwrap_or(default)
}

/// The setup an experiment runs: `quick()` under `--quick`, else `paper()`.
pub fn setup<S>(paper: impl FnOnce() -> S, quick: impl FnOnce() -> S) -> S {
    if get().quick {
        quick()
    } else {
        paper()
    }
}
