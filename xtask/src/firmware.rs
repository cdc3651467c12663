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
//!    the stack high-water mark the program printed.
//! 5. Prints `figure firmware.<name>[.<case>].instructions_per_step N`, `figure
//!    firmware.<name>.flash_bytes N`, `figure firmware.<name>.ram_bytes N` (static RAM:
//!    `.data` + `.bss`) and `figure firmware.<name>.stack_bytes N` (the stack high-water mark
//!    the program measured, where the integrator and its state live).
//! 6. Runs the host parity test (firmware f32 == host f32 bit for bit, f32 vs f64 within the
//!    documented tolerance), which reads the golden outputs.
//!
//! `--bless` rewrites the golden outputs and the measured lines of the size files (the budget
//! lines are kept); budgets are still enforced.

use super::{ensure_target, output, root, run, Result, EMBEDDED_TARGET};
use std::fmt::Write as _;
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
    run(
        "firmware: host parity (firmware f32 == host f32 bit for bit; f32 vs f64)",
        super::cargo().args([
            "test",
            "-p",
            "host-tests",
            "--features",
            "libm-force",
            "--test",
            "firmware_parity",
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
    for (case, n) in &per_step {
        let key = if per_step.len() == 1 {
            String::new()
        } else {
            format!(".{case}")
        };
        println!("figure firmware.{}{key}.instructions_per_step {n}", p.name);
    }
    println!("figure firmware.{}.flash_bytes {}", p.name, sizes.flash());
    println!("figure firmware.{}.ram_bytes {}", p.name, sizes.ram());
    if let Some(stack) = text.lines().find_map(|l| l.strip_prefix("stack_bytes ")) {
        println!("figure firmware.{}.stack_bytes {}", p.name, stack.trim());
    }

    compare_output_or_bless(&out_path, &text, bless)?;
    let size_path = expected_dir.join(format!("{}.size", p.name));
    let budgets = read_budgets(&size_path);
    let size_text = sizes.render(&p.name, &budgets);
    compare_sizes_or_bless(&size_path, &size_text, bless)?;

    // The stack high-water mark the program printed (0 when it printed none).
    let stack_bytes = text
        .lines()
        .find_map(|l| l.strip_prefix("stack_bytes "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut over = Vec::new();
    for b in &budgets {
        let measured = match b.what.as_str() {
            "flash_bytes" => vec![(String::new(), sizes.flash())],
            "ram_bytes" => vec![(String::new(), sizes.ram())],
            "stack_bytes" => vec![(String::new(), stack_bytes)],
            "instructions_per_step" => per_step.clone(),
            other => return Err(format!("{}: unknown budget {other:?}", size_path.display())),
        };
        for (case, m) in measured {
            let case = if case.is_empty() || per_step.len() == 1 {
                String::new()
            } else {
                format!(" ({case})")
            };
            let (what, limit) = (&b.what, b.limit);
            let verdict = match (m <= limit, b.known_over) {
                (true, false) => "within".to_string(),
                (true, true) => {
                    format!(
                        "within (the size file still marks it `{KNOWN_OVER}`: remove that mark)"
                    )
                }
                (false, true) => format!("OVER (known: marked `{KNOWN_OVER}` in the size file)"),
                (false, false) => {
                    over.push(format!("{what}{case} {m} > {limit}"));
                    "OVER".to_string()
                }
            };
            eprintln!(
                "xtask: firmware {} {what}{case} {m}: {verdict} budget {limit}",
                p.name
            );
        }
    }
    if !over.is_empty() {
        return Err(format!("over budget: {}", over.join(", ")));
    }
    Ok(())
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

fn compare_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
    let expected = fs::read_to_string(path).unwrap_or_default();
    if expected == actual {
        return Ok(());
    }
    if bless {
        fs::write(path, actual).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("xtask: blessed {}", path.display());
        return Ok(());
    }
    Err(format!(
        "{} differs (run `cargo xtask firmware --bless` if the change is intended):\n{}",
        path.display(),
        diff(&expected, actual)
    ))
}

/// Slack allowed on the instructions of a scenario's *first* step and on the calibration line,
/// in SysTick-derived counts. Both are read from SysTick under `-icount`, whose phase against the
/// first instruction of the measured window varies by a tick or two from run to run; the steady
/// min/max/mean of every step (the golden facts) are compared exactly.
const FIRST_SLACK: u64 = 4;

/// Like [`compare_or_bless`], but the calibration line and the `first` field of `instructions`
/// lines may differ by up to [`FIRST_SLACK`].
fn compare_output_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
    let expected = fs::read_to_string(path).unwrap_or_default();
    let close = |e: &str, a: &str| -> bool {
        let (ew, aw): (Vec<&str>, Vec<&str>) = (
            e.split_whitespace().collect(),
            a.split_whitespace().collect(),
        );
        let loose = matches!(ew.first(), Some(&"calibration") | Some(&"instructions"));
        if e == a || !loose || ew.len() != aw.len() {
            return e == a;
        }
        ew.iter().zip(&aw).enumerate().all(|(i, (x, y))| {
            let slack = ew[0] == "calibration" || (i > 0 && ew[i - 1] == "first");
            x == y
                || (slack
                    && matches!((x.parse::<u64>(), y.parse::<u64>()),
                        (Ok(p), Ok(q)) if p.abs_diff(q) <= FIRST_SLACK))
        })
    };
    let (el, al): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    if el.len() == al.len() && el.iter().zip(&al).all(|(e, a)| close(e, a)) && !bless {
        return Ok(());
    }
    compare_or_bless(path, actual, bless)
}

/// Slack allowed on code size (`text`, `flash_bytes`) against the golden file, in bytes.
///
/// Cargo derives symbol hashes of path dependencies from their location on disk, and LLVM's
/// code layout (function order, alignment padding) follows the symbol names, so the same source
/// built from another checkout path can differ by a few bytes of padding (4 bytes seen between
/// two clones). A real code change moves the size by far more; budgets are checked exactly.
const SIZE_SLACK: u64 = 64;

/// Like [`compare_or_bless`], but code-size lines may differ by up to [`SIZE_SLACK`] bytes.
fn compare_sizes_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
    let expected = fs::read_to_string(path).unwrap_or_default();
    let close = |e: &str, a: &str| -> bool {
        if e == a {
            return true;
        }
        let (mut ew, mut aw) = (e.split_whitespace(), a.split_whitespace());
        match (ew.next(), ew.next(), aw.next(), aw.next()) {
            (Some(ek), Some(ev), Some(ak), Some(av))
                if ek == ak && (ek == "text" || ek == "flash_bytes") && ew.next().is_none() =>
            {
                match (ev.parse::<u64>(), av.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.abs_diff(y) <= SIZE_SLACK,
                    _ => false,
                }
            }
            _ => false,
        }
    };
    let (el, al): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    if el.len() == al.len() && el.iter().zip(&al).all(|(e, a)| close(e, a)) && !bless {
        return Ok(());
    }
    compare_or_bless(path, actual, bless)
}

/// A small line diff: the lines that differ, with their line numbers (the files are short and
/// line-aligned, so no LCS is needed to read it).
fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let mut s = String::new();
    let mut shown = 0;
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i), a.get(i));
        if x != y {
            if shown == 40 {
                s.push_str("  …\n");
                break;
            }
            let _ = writeln!(
                s,
                "  line {}:\n  - {}\n  + {}",
                i + 1,
                x.unwrap_or(&"<none>"),
                y.unwrap_or(&"<none>")
            );
            shown += 1;
        }
    }
    s
}

/// Marks a budget that is known to be missed: reported on every run, not a failure (the
/// measured value itself is still pinned by the golden output, so any change shows).
const KNOWN_OVER: &str = "known-over";

/// One `budget <what> <limit> [known-over]` line of a size file.
struct Budget {
    what: String,
    limit: u64,
    known_over: bool,
}

/// The budget lines of a size file.
fn read_budgets(path: &Path) -> Vec<Budget> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let (what, n, known_over) = match w.as_slice() {
                ["budget", what, n] => (what, n, false),
                ["budget", what, n, mark] if *mark == KNOWN_OVER => (what, n, true),
                _ => return None,
            };
            Some(Budget {
                what: what.to_string(),
                limit: n.parse().ok()?,
                known_over,
            })
        })
        .collect()
}

/// Section sizes in the `size` (Berkeley) sense: `text` = read-only allocated sections (vector
/// table, code, constants), `data` = initialised RAM (also stored in flash), `bss` = zeroed RAM.
struct Sizes {
    text: u64,
    data: u64,
    bss: u64,
}

impl Sizes {
    fn flash(&self) -> u64 {
        self.text + self.data
    }

    /// Static RAM (the stack is not counted: it is whatever RAM is left).
    fn ram(&self) -> u64 {
        self.data + self.bss
    }

    fn render(&self, name: &str, budgets: &[Budget]) -> String {
        let mut s = format!(
            "# {name}: section sizes in bytes (release: opt-level \"s\", LTO). flash = text + data, ram = data + bss.\n\
             # `cargo xtask firmware --bless` rewrites the measured lines and keeps the budget lines.\n\
             text {}\ndata {}\nbss {}\nflash_bytes {}\nram_bytes {}\n",
            self.text,
            self.data,
            self.bss,
            self.flash(),
            self.ram()
        );
        for b in budgets {
            let mark = if b.known_over {
                format!(" {KNOWN_OVER}")
            } else {
                String::new()
            };
            let _ = writeln!(s, "budget {} {}{mark}", b.what, b.limit);
        }
        s
    }

    /// Parses the section headers of a 32-bit little-endian ELF.
    fn of(elf: &Path) -> Result<Self> {
        let b = fs::read(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
        let bad = || format!("{}: not a 32-bit little-endian ELF", elf.display());
        if b.len() < 52 || &b[..4] != b"\x7fELF" || b[4] != 1 || b[5] != 1 {
            return Err(bad());
        }
        let u16_at = |o: usize| {
            b.get(o..o + 2)
                .map(|x| u16::from_le_bytes([x[0], x[1]]) as usize)
        };
        let u32_at = |o: usize| {
            b.get(o..o + 4)
                .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]) as u64)
        };
        let shoff = u32_at(0x20).ok_or_else(bad)? as usize;
        let shentsize = u16_at(0x2E).ok_or_else(bad)?;
        let shnum = u16_at(0x30).ok_or_else(bad)?;
        const SHT_NOBITS: u64 = 8;
        const SHF_WRITE: u64 = 1;
        const SHF_ALLOC: u64 = 2;
        let (mut text, mut data, mut bss) = (0, 0, 0);
        for i in 0..shnum {
            let h = shoff + i * shentsize;
            let ty = u32_at(h + 4).ok_or_else(bad)?;
            let flags = u32_at(h + 8).ok_or_else(bad)?;
            let size = u32_at(h + 20).ok_or_else(bad)?;
            if flags & SHF_ALLOC == 0 {
                continue;
            }
            if ty == SHT_NOBITS {
                bss += size;
            } else if flags & SHF_WRITE != 0 {
                data += size;
            } else {
                text += size;
            }
        }
        Ok(Self { text, data, bss })
    }
}

fn ensure_qemu() -> Result {
    if Command::new("qemu-system-arm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    let root_user = output(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut c = if root_user {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    run("apt-get update", &mut apt(&["update", "-q"]))?;
    run(
        "apt-get install qemu-system-arm",
        &mut apt(&["install", "-y", "-q", "qemu-system-arm"]),
    )
}

fn defmt_print() -> PathBuf {
    // `cargo install` puts it in $CARGO_HOME/bin, which may not be on PATH.
    if Command::new("defmt-print")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return PathBuf::from("defmt-print");
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    home.join("bin").join("defmt-print")
}

fn ensure_defmt_print() -> Result {
    if Command::new(defmt_print())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    run(
        "cargo install defmt-print (decodes the firmware's defmt output)",
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args([
            "install",
            "--locked",
            "defmt-print",
        ]),
    )
}
