//! Project automation: `cargo xtask <command>`.
//!
//! - `test`: runs every test on a fresh machine, installing what is missing (the
//!   `thumbv7em-none-eabihf` target). Host tests (unit, integration, doc), the criterion benches
//!   in test mode, the main example, the core crate built for Cortex-M4F with and without `defmt`,
//!   the no_std link probe, and a feature check that `std`/`alloc` never reach the embedded build.
//! - `probe`: only the no_std checks.

mod firmware;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const EMBEDDED_TARGET: &str = "thumbv7em-none-eabihf";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("probe") => nostd_checks(),
        Some("firmware") => firmware::firmware(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <test|probe|firmware [--bless]>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T = ()> = std::result::Result<T, String>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(what: &str, cmd: &mut Command) -> Result {
    let start = Instant::now();
    eprintln!("xtask: ==> {what}");
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    eprintln!("xtask: <== {what} ({:.0} s)", start.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: {status}"))
    }
}

fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ensure_target() -> Result {
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))?;
    if installed.lines().any(|l| l.trim() == EMBEDDED_TARGET) {
        return Ok(());
    }
    run(
        "rustup target add",
        Command::new("rustup").args(["target", "add", EMBEDDED_TARGET]),
    )
}

fn test() -> Result {
    ensure_target()?;
    run(
        "host tests (unit, integration, doc)",
        cargo().args(["test", "--workspace"]),
    )?;
    run(
        "rustdoc of the core crate (warnings are errors: broken intra-doc links)",
        cargo()
            .args(["doc", "--no-deps", "-p", "macrostep"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    run(
        "criterion benches in test mode",
        cargo().args(["bench", "--workspace", "--benches", "--", "--test"]),
    )?;
    run(
        "main example",
        cargo().args(["run", "--release", "--example", "double_pendulum"]),
    )?;
    run(
        "reproduce list",
        cargo().args([
            "run",
            "--release",
            "-p",
            "host-tests",
            "--bin",
            "reproduce",
            "--",
            "list",
        ]),
    )?;
    nostd_checks()?;
    firmware::firmware(&[])?;
    eprintln!("xtask: all tests passed");
    Ok(())
}

fn nostd_checks() -> Result {
    ensure_target()?;
    run(
        "core crate for thumbv7em-none-eabihf",
        cargo().args(["build", "-p", "macrostep", "--target", EMBEDDED_TARGET]),
    )?;
    run(
        "core crate for thumbv7em-none-eabihf with defmt",
        cargo().args([
            "build",
            "-p",
            "macrostep",
            "--target",
            EMBEDDED_TARGET,
            "--features",
            "defmt",
        ]),
    )?;
    run(
        "no_std link probe (fails if std or alloc is linked)",
        cargo().args([
            "build",
            "--release",
            "--manifest-path",
            "probe/Cargo.toml",
            "--target-dir",
            "target/probe",
        ]),
    )?;
    // Cheap extra check: no `std` or `alloc` feature is enabled anywhere in the embedded graph.
    let tree = output(cargo().args([
        "tree",
        "-p",
        "macrostep",
        "-e",
        "features,normal,no-proc-macro",
        "--target",
        EMBEDDED_TARGET,
        "--features",
        "defmt",
    ]))?;
    let offending: Vec<&str> = tree
        .lines()
        .filter(|l| l.contains("feature \"std\"") || l.contains("feature \"alloc\""))
        .collect();
    if !offending.is_empty() {
        return Err(format!(
            "std/alloc features in the embedded build:\n{}",
            offending.join("\n")
        ));
    }
    eprintln!("xtask: no std/alloc feature in the {EMBEDDED_TARGET} dependency graph");
    Ok(())
}
