//! Project automation: `cargo xtask <command>`.
//!
//! - `test [--no-firmware]`: runs every test on a fresh machine. It first checks the
//!   prerequisites (the `thumbv7em-none-eabihf` target, `qemu-system-arm`, `defmt-print`) and
//!   prints what is missing and how it will be installed, failing at once when it cannot be.
//!   Then: host tests (unit, integration, doc; the `serde` round trip), rustdoc of every feature
//!   with warnings as errors, the packaged file list against [`PACKAGE_ALLOW`], the criterion
//!   benches in test mode, the main example, the no_std checks of `probe`, and the firmware
//!   stage (QEMU). `--no-firmware`, or `MACROSTEP_SKIP_FIRMWARE=1` in the environment, skips the
//!   firmware stage and its prerequisites.
//! - `probe`: only the no_std checks: the core crate built for Cortex-M4F with no feature, with
//!   `defmt` and with `serde`, the no_std link probe, and a feature check that `std`/`alloc`
//!   never reach the embedded build.
//! - `package`: only the packaging checks: rustdoc of every feature with warnings as errors and
//!   the packaged file list.
//! - `firmware [--bless]`: only the firmware stage (see `firmware.rs`).
//! - `firmware-table [--bless]`: only the figures table of `firmware/README.md` against the
//!   golden files (`test` checks it too, with or without the firmware stage).
//! - `fuzz [--cases N] …`: hostile-input runs of every contract entry point (see `fuzz.rs`).
//! - `peers [--quick] [--only NAME] [-- ARGS]`: `reproduce chain-peers` and `reproduce arm-peers` with rapier and MuJoCo (see `peers.rs`).
//! - `three-runs [--runs N] [--only EXP,…] [--write]`: every published ratio over N runs, the
//!   criterion bench groups' included (see `three_runs.rs`, `bench_ratios.rs`).

mod bench_ratios;
mod firmware;
mod fuzz;
mod peers;
mod three_runs;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const EMBEDDED_TARGET: &str = "thumbv7em-none-eabihf";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("probe") => nostd_checks(),
        Some("package") => package_checks(),
        Some("firmware") => firmware::firmware(&args[1..]),
        Some("firmware-table") => firmware::table_command(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("peers") => peers::peers(&args[1..]),
        Some("three-runs") => three_runs::three_runs(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <test [--no-firmware]|probe|package|firmware [--bless]|firmware-table [--bless]|fuzz [--cases N]|peers [--quick] [--only chain-peers|arm-peers]|three-runs [--runs N] [--only EXP,…] [--write]>");
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

/// Environment variable that skips the firmware stage of `cargo xtask test` when set to `1`.
const SKIP_FIRMWARE_ENV: &str = "MACROSTEP_SKIP_FIRMWARE";

fn test(args: &[String]) -> Result {
    let mut firmware_stage = std::env::var(SKIP_FIRMWARE_ENV).map_or(true, |v| v != "1");
    for a in args {
        match a.as_str() {
            "--no-firmware" => firmware_stage = false,
            _ => {
                return Err(format!(
                    "test: unknown argument {a:?} (usage: cargo xtask test [--no-firmware])"
                ))
            }
        }
    }
    prerequisites(firmware_stage)?;
    ensure_target()?;
    run(
        "host tests (unit, integration, doc)",
        cargo().args(["test", "--workspace"]),
    )?;
    run(
        "serde round trip (feature `serde`)",
        cargo().args([
            "test",
            "-p",
            "macrostep",
            "--features",
            "serde",
            "--lib",
            "serde",
        ]),
    )?;
    package_checks()?;
    firmware::check_table()?;
    // `--bench '*'` selects the criterion targets only: `--benches` would also rebuild and
    // re-run every unit test of the library in the bench profile.
    run(
        "criterion benches in test mode",
        cargo().args(["bench", "--workspace", "--bench", "*", "--", "--test"]),
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
    if firmware_stage {
        firmware::firmware(&[])?;
    } else {
        eprintln!("xtask: firmware stage skipped (--no-firmware or {SKIP_FIRMWARE_ENV}=1)");
    }
    eprintln!("xtask: all tests passed");
    Ok(())
}

/// What docs.rs and the registry will see: rustdoc of every feature (warnings are errors, so a
/// broken intra-doc link fails), the packaged file list, and `cargo package` without warnings.
fn package_checks() -> Result {
    run(
        "rustdoc of the core crate, every feature (warnings are errors: broken intra-doc links)",
        cargo()
            .args(["doc", "--no-deps", "-p", "macrostep", "--all-features"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    package_list()
}

/// Whether `program --version` runs and succeeds.
fn runs(program: impl AsRef<std::ffi::OsStr>) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Checks, before anything slow runs, what `test` needs; prints what is missing and how it will
/// be installed, and fails at once when it cannot be installed here. The installs themselves
/// happen where the tools are first used (`ensure_target`, the firmware stage).
fn prerequisites(firmware_stage: bool) -> Result {
    let mut missing = Vec::new();
    let mut blockers = Vec::new();
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
        .map_err(|e| format!("prerequisites: rustup is needed to add {EMBEDDED_TARGET}: {e}"))?;
    if !installed.lines().any(|l| l.trim() == EMBEDDED_TARGET) {
        missing.push(format!(
            "Rust target {EMBEDDED_TARGET}: will run `rustup target add {EMBEDDED_TARGET}`"
        ));
    }
    if firmware_stage {
        if !runs("qemu-system-arm") {
            let root_user = output(Command::new("id").arg("-u")).is_ok_and(|s| s.trim() == "0");
            let via = if root_user { "" } else { "sudo " };
            missing.push(format!(
                "qemu-system-arm (firmware stage): will run `{via}apt-get update` and `{via}apt-get install qemu-system-arm`"
            ));
            if !runs("apt-get") {
                blockers.push("qemu-system-arm: no apt-get on this machine; install QEMU's ARM system emulator with your package manager");
            } else if !root_user
                && !Command::new("sudo")
                    .arg("-V")
                    .output()
                    .is_ok_and(|o| o.status.success())
            {
                blockers
                    .push("qemu-system-arm: not root and no sudo; install qemu-system-arm as root");
            }
        }
        let in_cargo_home = cargo_home().map(|h| h.join("bin").join("defmt-print"));
        if !runs("defmt-print") && !in_cargo_home.is_some_and(runs) {
            missing.push(
                "defmt-print (firmware stage): will run `cargo install --locked defmt-print`"
                    .into(),
            );
        }
    }
    if missing.is_empty() {
        eprintln!("xtask: prerequisites present");
    } else {
        eprintln!("xtask: missing prerequisites:");
        for m in &missing {
            eprintln!("xtask:   - {m}");
        }
    }
    if !blockers.is_empty() {
        return Err(format!(
            "cannot install what the firmware stage needs:\n  {}\nInstall it, or skip the stage with `cargo xtask test --no-firmware` ({SKIP_FIRMWARE_ENV}=1).",
            blockers.join("\n  ")
        ));
    }
    Ok(())
}

/// Cargo's home directory (`$CARGO_HOME`, else `~/.cargo`).
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// What the published package may hold: exact paths, or `prefix*suffix` patterns (`*` spans
/// directories). Anything else in `cargo package --list` fails `cargo xtask test`: a new
/// top-level file must be added here on purpose, and repository-only directories (host-tests,
/// firmware, probe, xtask, .cargo, .ci) must never appear.
const PACKAGE_ALLOW: &[&str] = &[
    ".cargo_vcs_info.json",
    "Cargo.lock",
    "Cargo.toml",
    "Cargo.toml.orig",
    "README.md",
    "CHANGELOG.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "src/*.rs",
    "src/*.md",
    "benches/*.rs",
    "examples/double_pendulum.rs",
    "examples/cart_pole.rs",
];

/// Files the package must hold (the crate docs, the licenses named by `license`).
const PACKAGE_REQUIRED: &[&str] = &[
    "Cargo.toml",
    "README.md",
    "CHANGELOG.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "src/lib.rs",
    "src/lib.md",
];

fn allowed(path: &str, pattern: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            path.len() >= prefix.len() + suffix.len()
                && path.starts_with(prefix)
                && path.ends_with(suffix)
        }
        None => path == pattern,
    }
}

fn package_list() -> Result {
    eprintln!("xtask: ==> packaged file list against the allow-list");
    let list = output(cargo().args([
        "package",
        "-p",
        "macrostep",
        "--no-verify",
        "--list",
        "--allow-dirty",
    ]))?;
    let files: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let unexpected: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| !PACKAGE_ALLOW.iter().any(|p| allowed(f, p)))
        .collect();
    let absent: Vec<&str> = PACKAGE_REQUIRED
        .iter()
        .copied()
        .filter(|r| !files.contains(r))
        .collect();
    if !unexpected.is_empty() || !absent.is_empty() {
        return Err(format!(
            "package file list: unexpected {unexpected:?}, missing {absent:?} (see `include` in Cargo.toml and PACKAGE_ALLOW in xtask)"
        ));
    }
    eprintln!(
        "xtask: <== package holds {} files, all allowed",
        files.len()
    );
    // `--list` does not report the manifest problems `cargo package` warns about (a declared or
    // discovered target whose file is not packaged, missing metadata): build the archive and
    // read them.
    eprintln!("xtask: ==> cargo package --no-verify (warnings are errors)");
    let out = cargo()
        .args(["package", "-p", "macrostep", "--no-verify", "--allow-dirty"])
        .output()
        .map_err(|e| format!("cannot start cargo package: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = stderr
        .lines()
        .any(|l| l.trim_start().starts_with("warning"));
    if !out.status.success() || warned {
        return Err(format!("cargo package: {}\n{stderr}", out.status));
    }
    eprintln!("xtask: <== cargo package: no warnings");
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
        "core crate for thumbv7em-none-eabihf with serde",
        cargo().args([
            "build",
            "-p",
            "macrostep",
            "--target",
            EMBEDDED_TARGET,
            "--features",
            "serde",
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
        "defmt,serde",
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
