//! The output format of `reproduce`: a human table and `figure <experiment>.<name> <value>` lines,
//! and the progress display on stderr.
//!
//! Human text goes through [`say!`](crate::say), which [`Output::figures_only`] silences;
//! `figure` lines are always printed, in the same format.
//!
//! Progress goes to stderr: a bar under a terminal, and otherwise (a CI log, a redirected run,
//! a batch job) one plain line every [`LINE_EVERY`] per loop, `what: done/total (p%), elapsed,
//! ETA` ([`progress_line`]), so a long run shows it is alive without filling the log.

use indicatif::{
    MultiProgress, ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle,
    TermLike,
};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

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
/// a terminal: the loops' progress lines say enough there).
pub fn spinner(what: &str) -> ProgressBar {
    let bar = BARS.add(ProgressBar::new_spinner().with_message(what.to_string()));
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A progress display of `len` units (paths, steps) on stderr, cleared when its iterator ends:
/// a bar under a terminal, else a [`progress_line`] every [`LINE_EVERY`]. Use with
/// `indicatif::ProgressIterator::progress_with`, or `inc` it from worker threads.
pub fn progress(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64)
        .with_message(what.to_string())
        .with_finish(ProgressFinish::AndClear);
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(LineLog::new(LINE_EVERY)),
            1,
        ));
        bar.set_style(
            ProgressStyle::with_template("{msg}: {counts}")
                .expect("valid template")
                .with_key(
                    "counts",
                    |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let len = s.len().unwrap_or(0);
                        let _ = w.write_str(&progress_counts(s.pos(), len, s.elapsed()));
                    },
                ),
        );
        return bar;
    }
    let bar = BARS.add(bar);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// How often a loop's progress line is printed when stderr is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// The progress line printed when stderr is not a terminal:
/// `what: done/total (p%), elapsed E, ETA R`, the remaining time `R` extrapolated linearly from
/// the elapsed time (`unknown` before the first unit is done).
pub fn progress_line(what: &str, done: u64, total: u64, elapsed: Duration) -> String {
    format!("{what}: {}", progress_counts(done, total, elapsed))
}

/// [`progress_line`] without its label.
fn progress_counts(done: u64, total: u64, elapsed: Duration) -> String {
    let percent = (done.min(total) * 100).checked_div(total).unwrap_or(100);
    let eta = if done == 0 {
        "unknown".to_string()
    } else {
        let left = total.saturating_sub(done) as f64 / done as f64;
        clock(elapsed.mul_f64(left))
    };
    format!(
        "{done}/{total} ({percent}%), elapsed {}, ETA {eta}",
        clock(elapsed)
    )
}

/// A duration as `42s`, `3m07s` or `2h05m09s` (rounded to the second).
fn clock(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

/// A draw target for indicatif that writes the rendered line to stderr at most once per
/// `every`, and nothing for a run shorter than that; cursor moves and clears are ignored.
#[derive(Debug)]
struct LineLog {
    every: Duration,
    last: Mutex<Instant>,
}

impl LineLog {
    fn new(every: Duration) -> Self {
        Self {
            every,
            last: Mutex::new(Instant::now()),
        }
    }
    fn emit(&self, s: &str) -> std::io::Result<()> {
        let line = s.trim();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if !line.is_empty() && last.elapsed() >= self.every {
            *last = Instant::now();
            eprintln!("{line}");
        }
        Ok(())
    }
}

impl TermLike for LineLog {
    fn width(&self) -> u16 {
        200
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.emit(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.emit(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_counts_percent_and_extrapolates_the_eta() {
        let s = Duration::from_secs;
        assert_eq!(
            progress_line("GLA paths", 250, 1000, s(30)),
            "GLA paths: 250/1000 (25%), elapsed 30s, ETA 1m30s"
        );
        assert_eq!(
            progress_line("paths", 0, 40, s(12)),
            "paths: 0/40 (0%), elapsed 12s, ETA unknown"
        );
        assert_eq!(
            progress_line("steps", 3, 4, s(3 * 3725)),
            "steps: 3/4 (75%), elapsed 3h06m15s, ETA 1h02m05s"
        );
        assert_eq!(
            progress_line("paths", 7, 7, Duration::from_millis(59_600)),
            "paths: 7/7 (100%), elapsed 1m00s, ETA 0s"
        );
    }

    #[test]
    fn line_log_is_silent_until_its_period_has_passed() {
        let log = LineLog::new(Duration::from_secs(3600));
        let before = *log.last.lock().unwrap();
        log.write_line("paths: 1/2").unwrap();
        assert_eq!(
            *log.last.lock().unwrap(),
            before,
            "printed before the period"
        );
        let log = LineLog::new(Duration::ZERO);
        log.write_line("   ").unwrap();
        let before = *log.last.lock().unwrap();
        std::thread::sleep(Duration::from_millis(2));
        log.write_line("paths: 1/2").unwrap();
        assert!(
            *log.last.lock().unwrap() > before,
            "a due line was not printed"
        );
    }
}
