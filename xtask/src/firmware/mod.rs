//! `cargo xtask firmware [--bless]`: every firmware binary built, run under QEMU and checked.
//!
//! 1. Installs what is missing: the `thumbv7em-none-eabihf` target, `qemu-system-arm` (apt-get,
//!    through `sudo` when not root) and `defmt-print` (`cargo install`).
//! 2. Discovers the binaries (`firmware/src/bin/*.rs`) and examples (`firmware/examples/*.rs`),
//!    checks formatting and clippy (the firmware is outside the root workspace, so `.ci/run`'s
//!    own checks do not see it) and builds them in release mode (opt-level "s", LTO).
//!    **Panic-free by link:** every scenario binary must declare `panic_never!()` (checked
//!    here in its source; examples may choose `report_panics!()`, as `fail_panic` must). That
//!    handler calls an undefined symbol, so a binary in which any panic path survives
//!    optimisation does not link and this build step fails (see `firmware/README.md`).
//! 3. Runs each with `cargo run` (the runner of `firmware/.cargo/config.toml`: QEMU
//!    `mps2-an386`, `-icount shift=6`, under `timeout`), decodes its defmt output with
//!    `defmt-print`, and diffs it against `firmware/expected/<name>.out`. Every program must
//!    exit with success and print `ok`, except the `fail_*` examples (a panic, a step error),
//!    which must exit with failure.
//! 4. Reads the ELF's section sizes (text/data/bss, parsed here: no extra tool to install) and
//!    diffs them against `firmware/expected/<name>.size`, which also holds the budgets
//!    (`budget flash_bytes N`, `budget ram_bytes N`, `budget instructions_per_step N`; the
//!    last is checked against the largest steady-state step of every case). A budget that is
//!    known to be missed carries the mark `known-over`: it is reported on every run, not failed
//!    (its measured value is pinned by the golden output anyway). `budget stack_bytes N` checks
//!    the stack high-water mark the program printed; `budget startup_instructions N` the
//!    instructions of the start-up computation (`startup <case> instructions N`, e.g. an LQR
//!    gain's Riccati solve); `budget instructions_per_tick N` the largest steady tick of a loop run
//!    from a timer interrupt (`tick_instructions` lines).
//! 5. Prints `figure firmware.<name>[.<case>].instructions_per_step N`, `figure
//!    firmware.<name>.flash_bytes N`, `figure firmware.<name>.ram_bytes N` (static RAM:
//!    `.data` + `.bss`) and `figure firmware.<name>.stack_bytes N` (the stack high-water mark
//!    the program measured, where the integrator and its state live), and for a program with
//!    cases `<plant>_free` and `<plant>_controlled`, `figure
//!    firmware.<name>.<plant>.controlled_over_free_permille N` (mean instructions per tick,
//!    controlled over free, in thousandths rounded up).
//! 6. Checks the figures table and the other generated blocks of `firmware/README.md` against
//!    the golden files (`table.rs`, `blocks.rs`; `--bless` rewrites them), then scans
//!    `README.md` and `firmware/README.md` for device figures quoted by hand outside those blocks
//!    (`quoted.rs`; past measurements belong in `docs/firmware-history.md`).
//! 7. Runs the host parity test (firmware f32 == host f32 bit for bit, f32 vs f64 within the
//!    documented tolerance), which reads the golden outputs.
//!
//! `--bless` rewrites the golden outputs and the measured lines of the size files (the budget
//! lines are kept); budgets are still enforced.

mod blocks;
mod golden;
mod quoted;
mod table;
mod tools;

use golden::{
    check_budgets, compare_or_bless, compare_output_or_bless, compare_sizes_or_bless, read_budgets,
    Sizes,
};
use tools::{defmt_print, ensure_defmt_print, ensure_qemu};

use super::{ensure_target, root, run, Result, EMBEDDED_TARGET};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn firmware(args: &[String]) -> Result {
    let bless = args.iter().any(|a| a == "--bless");
    if let Some(bad) = args.iter().find(|a| *a != "--bless") {
        return Err(format!(
            "firmware: unknown argument {bad:?} (usage: cargo xtask firmware [--bless])"
        ));
    }
    ensure_target()?;
    ensure_qemu()?;
    ensure_defmt_print()?;

    let dir = root().join("firmware");
    let programs = discover(&dir)?;
    if programs.is_empty() {
        return Err("firmware: no binary in firmware/src/bin".into());
    }
    check_panic_never(&dir, &programs)?;
    run(
        "firmware: rustfmt check",
        firmware_cargo(&dir).args(["fmt", "--all", "--", "--check"]),
    )?;
    run(
        "firmware: clippy (lib, binaries, examples)",
        firmware_cargo(&dir).args([
            "clippy",
            "--release",
            "--lib",
            "--bins",
            "--examples",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    run(
        "firmware: build every binary and example (release)",
        firmware_cargo(&dir).args(["build", "--release", "--bins", "--examples"]),
    )?;

    let mut failures = Vec::new();
    for p in &programs {
        if let Err(e) = check(&dir, p, bless) {
            eprintln!("xtask: firmware {}: {e}", p.name);
            failures.push(p.name.clone());
        }
    }
    if !failures.is_empty() {
        return Err(format!(
            "firmware: {} failed: {}",
            failures.len(),
            failures.join(", ")
        ));
    }
    check_readmes(bless)?;
    run(
        "firmware: the scenarios' host tests (firmware f32 == host f32 bit for bit; f32 vs f64; in-place construction == by value)",
        super::cargo().args([
            "test",
            "--manifest-path",
            "firmware/scenarios/Cargo.toml",
            "--tests",
            "--",
            "--nocapture",
        ]),
    )?;
    eprintln!("xtask: firmware: {} programs checked", programs.len());
    Ok(())
}

struct Program {
    name: String,
    example: bool,
}

impl Program {
    /// `fail_*` programs check the failure path: they must exit with failure.
    fn must_fail(&self) -> bool {
        self.name.starts_with("fail_")
    }

    fn elf(&self, dir: &Path) -> PathBuf {
        let base = dir.join("target").join(EMBEDDED_TARGET).join("release");
        if self.example {
            base.join("examples").join(&self.name)
        } else {
            base.join(&self.name)
        }
    }
}

/// What a scenario binary declares to be built with the panic-never handler.
const PANIC_NEVER: &str = "panic_never!();";

/// Every scenario binary (`src/bin`) declares [`PANIC_NEVER`], so the release build proves it
/// panic-free; examples are listed with their choice.
fn check_panic_never(dir: &Path, programs: &[Program]) -> Result {
    let mut missing = Vec::new();
    for p in programs {
        let sub = if p.example { "examples" } else { "src/bin" };
        let path = dir.join(sub).join(format!("{}.rs", p.name));
        let src = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let never = src
            .lines()
            .map(str::trim)
            .any(|l| !l.starts_with("//") && l.ends_with(PANIC_NEVER));
        if !never && !p.example {
            missing.push(p.name.clone());
        }
        let how = if never {
            "panic_never (a panic path is a link error)"
        } else {
            "report_panics"
        };
        eprintln!("xtask: firmware {}: panic handler {how}", p.name);
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "firmware: scenario binaries without `{PANIC_NEVER}` (every scenario must be proven \
             panic-free at link time): {}",
            missing.join(", ")
        ))
    }
}

/// `firmware/src/bin/*.rs` and `firmware/examples/*.rs`, sorted.
fn discover(dir: &Path) -> Result<Vec<Program>> {
    let mut programs = Vec::new();
    for (sub, example) in [("src/bin", false), ("examples", true)] {
        let Ok(entries) = fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        programs.extend(names.into_iter().map(|name| Program { name, example }));
    }
    Ok(programs)
}

/// A cargo command inside `firmware/`, so its `.cargo/config.toml` (target, runner, linker
/// scripts) applies.
fn firmware_cargo(dir: &Path) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(dir);
    // Section sizes must not depend on where the repository or the cargo registry lives (panic
    // locations embed source paths): remap both to fixed prefixes. `--config` arrays are
    // appended to the config file's rustflags, so the linker scripts stay.
    let mut flags = Vec::new();
    if let Some(root) = dir.parent() {
        flags.push(format!(
            "\"--remap-path-prefix={}=/macrostep\"",
            root.display()
        ));
    }
    if let Some(home) = cargo_home() {
        flags.push(format!("\"--remap-path-prefix={}=/cargo\"", home.display()));
    }
    c.arg("--config").arg(format!(
        "target.thumbv7em-none-eabihf.rustflags=[{}]",
        flags.join(", ")
    ));
    // The ELF paths below assume the firmware's own target directory.
    c.env("CARGO_TARGET_DIR", dir.join("target"));
    c
}

/// Cargo's home directory (`$CARGO_HOME`, else `~/.cargo`).
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

fn check(dir: &Path, p: &Program, bless: bool) -> Result {
    // Run under QEMU through the configured runner; stdout carries defmt frames.
    let mut cmd = firmware_cargo(dir);
    cmd.args(["run", "--quiet", "--release"]);
    cmd.args([if p.example { "--example" } else { "--bin" }, &p.name]);
    eprintln!("xtask: ==> firmware {}: run in QEMU", p.name);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start cargo run: {e}"))?;
    let elf = p.elf(dir);
    let text = decode(&elf, &out.stdout)?;
    let expected_dir = dir.join("expected");
    let out_path = expected_dir.join(format!("{}.out", p.name));
    if p.must_fail() {
        // A program that checks the failure path: it must exit with failure, and its output
        // (what it printed before failing) is golden like any other.
        if out.status.success() {
            return Err(format!("must fail, but exited with success:\n{text}"));
        }
        return compare_or_bless(&out_path, &text, bless);
    }
    if !out.status.success() {
        return Err(format!(
            "QEMU run failed ({}):\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !text.lines().any(|l| l.trim() == "ok") {
        return Err(format!("no final `ok` line:\n{text}"));
    }
    // Figures first, so a run that differs from the golden files still reports what it measured.
    let sizes = Sizes::of(&elf)?;
    let per_step = instructions_per_step(&text);
    print_figures(p, &sizes, &per_step, &text);

    compare_output_or_bless(&out_path, &text, bless)?;
    let size_path = expected_dir.join(format!("{}.size", p.name));
    let budgets = read_budgets(&size_path);
    let size_text = sizes.render(&p.name, &budgets);
    compare_sizes_or_bless(&size_path, &size_text, bless)?;

    check_budgets(p, &size_path, &budgets, &sizes, &per_step, &text)
}

/// Prints the `figure` lines of one program: instructions per step (per case when there are
/// several), flash, RAM and the stack high-water mark when the program printed one.
fn print_figures(p: &Program, sizes: &Sizes, per_step: &[(String, u64)], text: &str) {
    for (case, n) in per_step {
        let key = if per_step.len() == 1 {
            String::new()
        } else {
            format!(".{case}")
        };
        println!("figure firmware.{}{key}.instructions_per_step {n}", p.name);
    }
    println!("figure firmware.{}.flash_bytes {}", p.name, sizes.flash());
    println!("figure firmware.{}.ram_bytes {}", p.name, sizes.ram());
    for (case, n) in golden::per_tick(text) {
        println!(
            "figure firmware.{}.{case}.instructions_per_tick {n}",
            p.name
        );
    }
    for (plant, n) in golden::controlled_over_free_permille(text) {
        println!(
            "figure firmware.{}.{plant}.controlled_over_free_permille {n}",
            p.name
        );
    }
    for (case, n) in golden::startup_instructions(text) {
        println!("figure firmware.{}.{case}.startup_instructions {n}", p.name);
    }
    if let Some(stack) = text.lines().find_map(|l| l.strip_prefix("stack_bytes ")) {
        println!("figure firmware.{}.stack_bytes {}", p.name, stack.trim());
    }
}

/// Decodes defmt frames with `defmt-print`, one line per log message.
fn decode(elf: &Path, frames: &[u8]) -> Result<String> {
    let mut child = Command::new(defmt_print())
        .arg("-e")
        .arg(elf)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start defmt-print: {e}"))?;
    {
        let mut stdin = child.stdin.take().ok_or("defmt-print: no stdin")?;
        stdin
            .write_all(frames)
            .map_err(|e| format!("defmt-print: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("defmt-print: {e}"))?;
    // defmt-print exits when its input ends; its status then is not meaningful.
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !text.ends_with('\n') && !text.is_empty() {
        text.push('\n');
    }
    Ok(text)
}

/// `(case, max instructions over the steady steps)` from the `instructions` lines.
fn instructions_per_step(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["instructions", case, "first", _, "min", _, "max", max, "mean", _] => {
                    Some((case.to_string(), max.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

/// Checks that the generated blocks of `firmware/README.md` are what the golden files say and
/// that no device figure is quoted by hand in the READMEs (no QEMU needed: `cargo xtask test`
/// runs it with or without the firmware stage).
pub fn check_table() -> Result {
    table_command(&[])
}

/// `cargo xtask firmware-table [--bless]`: only the generated blocks of `firmware/README.md`,
/// checked against (or rewritten from) the golden files, and the scan for hand-quoted device
/// figures, without building or running anything.
pub fn table_command(args: &[String]) -> Result {
    let bless = args.iter().any(|a| a == "--bless");
    if let Some(bad) = args.iter().find(|a| *a != "--bless") {
        return Err(format!(
            "firmware-table: unknown argument {bad:?} (usage: cargo xtask firmware-table [--bless])"
        ));
    }
    check_readmes(bless)
}

/// The generated blocks of `firmware/README.md` checked against (or, with `bless`, rewritten
/// from) the golden files, then both READMEs scanned for device figures quoted by hand
/// (`quoted.rs`; `docs/firmware-history.md` is not scanned: it is history by definition).
fn check_readmes(bless: bool) -> Result {
    let dir = root().join("firmware");
    table::check_or_bless(&dir.join("README.md"), &dir.join("expected"), bless)?;
    quoted::check(
        &root(),
        &["README.md", "firmware/README.md"],
        &table::all_markers(),
    )
}
