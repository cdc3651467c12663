//! The [`Experiment`] trait every reproduction implements, and the object-safe [`Entry`] the
//! registry ([`EXPERIMENTS`](super::EXPERIMENTS)) holds for `reproduce`.
//!
//! An experiment is a unit type with its facts as constants, two setups, a `compute` that
//! measures (no printing, no global state) and a `report` that prints the measurements:
//!
//! ```text
//! let r = E::compute(&E::quick());   // a test: assert on `r`
//! E::report(&r, &Output::default()); // `reproduce`: tables, `figure` lines, charts
//! ```

use crate::report::Output;

/// Which setup `reproduce` runs: the paper's or the reduced one (`--quick`), and the Monte Carlo
/// path count asked for on the command line (`--paths N`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scale {
    /// Run [`Experiment::quick`] instead of [`Experiment::paper`].
    pub quick: bool,
    /// Monte Carlo paths, for the experiments that take them ([`Experiment::with_paths`]).
    pub paths: Option<usize>,
}

/// A reproduction: what it is, what it runs, what it measures and how it reports.
pub trait Experiment {
    /// The name given on the command line (stable once published).
    const NAME: &'static str;
    /// The seed document and passage (`000 §4.1 Fig 1`; see `shared/seeds/INDEX.md`), or
    /// `(self-check)` for checks of the tools themselves.
    const SEED: &'static str;
    /// Expected wall-clock seconds of the paper setup in a release build on one core.
    const SECONDS: f64;
    /// What it reproduces, in one line.
    const ABOUT: &'static str;

    /// What to run.
    type Setup;
    /// What it measures.
    type Results;

    /// The seed's setup.
    fn paper() -> Self::Setup;
    /// A reduced setup that exercises the same code in seconds (`--quick`, the tests); the paper
    /// setup itself where that already runs in about a second.
    fn quick() -> Self::Setup;
    /// `setup` with `paths` Monte Carlo paths; experiments without paths ignore it.
    fn with_paths(setup: Self::Setup, _paths: usize) -> Self::Setup {
        setup
    }
    /// Runs the experiment.
    fn compute(setup: &Self::Setup) -> Self::Results;
    /// Prints the tables and `figure` lines of `results` and writes the charts `out` asks for.
    fn report(results: &Self::Results, out: &Output);

    /// The setup `reproduce` runs at `scale`.
    fn setup(scale: &Scale) -> Self::Setup {
        let setup = if scale.quick {
            Self::quick()
        } else {
            Self::paper()
        };
        match scale.paths {
            Some(n) => Self::with_paths(setup, n),
            None => setup,
        }
    }
}

/// One row of the registry: an [`Experiment`]'s constants and its run, type-erased.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// [`Experiment::NAME`].
    pub name: &'static str,
    /// [`Experiment::SEED`].
    pub seed: &'static str,
    /// [`Experiment::SECONDS`].
    pub seconds: f64,
    /// [`Experiment::ABOUT`].
    pub about: &'static str,
    /// Sets up, computes and reports ([`run`]).
    pub run: fn(&Scale, &Output),
    /// Sets up and computes without reporting (a shard of its ensembles:
    /// [`crate::ensemble_runner::shard`]).
    pub compute: fn(&Scale),
}

/// The registry row of `E`.
pub const fn entry<E: Experiment>() -> Entry {
    Entry {
        name: E::NAME,
        seed: E::SEED,
        seconds: E::SECONDS,
        about: E::ABOUT,
        run: run::<E>,
        compute: |scale| {
            E::compute(&E::setup(scale));
        },
    }
}

/// Runs `E` at `scale` and reports to `out`.
pub fn run<E: Experiment>(scale: &Scale, out: &Output) {
    E::report(&E::compute(&E::setup(scale)), out);
}

impl Entry {
    /// The expected run time, rounded for `reproduce list`.
    pub fn expected_time(&self) -> String {
        match self.seconds {
            s if s < 1.0 => "< 1 s".into(),
            s if s < 120.0 => format!("{s:.0} s"),
            s => format!("{:.0} min", s / 60.0),
        }
    }
}
