//! The golden files: output and size files compared (or re-blessed), and the budgets of the
//! size files checked against what a run measured.

use super::Program;
use crate::Result;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Compares the measured sizes, stack and instructions per step with the budgets of the size
/// file; an unmarked excess is an error.
pub(super) fn check_budgets(
    p: &Program,
    size_path: &Path,
    budgets: &[Budget],
    sizes: &Sizes,
    per_step: &[(String, u64)],
    text: &str,
) -> Result {
    // The stack high-water mark the program printed (0 when it printed none).
    let stack_bytes = text
        .lines()
        .find_map(|l| l.strip_prefix("stack_bytes "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut over = Vec::new();
    for b in budgets {
        let measured = match b.what.as_str() {
            "flash_bytes" => vec![(String::new(), sizes.flash())],
            "ram_bytes" => vec![(String::new(), sizes.ram())],
            "stack_bytes" => vec![(String::new(), stack_bytes)],
            "instructions_per_step" => per_step.to_vec(),
            "startup_instructions" => startup_instructions(text),
            "instructions_per_tick" => per_tick(text),
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

/// `(case, instructions)` from the `startup <case> instructions <n>` lines.
pub(super) fn startup_instructions(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["startup", case, "instructions", n] => Some((case.to_string(), n.parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

/// `(case, max instructions over the steady ticks)` from the `tick_instructions` lines of a
/// program whose loop runs from a timer interrupt.
pub(super) fn per_tick(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["tick_instructions", case, "first", _, "min", _, "max", max, "mean", _] => {
                    Some((case.to_string(), max.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

/// `(plant, ⌈1000 × mean of <plant>_controlled ÷ mean of <plant>_free⌉)` for every pair of
/// `instructions` lines of cases `<plant>_free` and `<plant>_controlled`: what a new held force
/// each tick costs over a tick with the force held, in thousandths, rounded up (a ratio a hair
/// over its budget is over it). `cargo xtask firmware` prints them as figures; the tests below
/// compare `zs_control_cost`'s with the claimed 1.25.
pub(super) fn controlled_over_free_permille(text: &str) -> Vec<(String, u64)> {
    let means: Vec<(&str, u64)> = text
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["instructions", case, "first", _, "min", _, "max", _, "mean", mean] => {
                    Some((*case, mean.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect();
    let mean = |case: &str| means.iter().find(|(c, _)| *c == case).map(|(_, m)| *m);
    means
        .iter()
        .filter_map(|(case, controlled)| {
            let plant = case.strip_suffix("_controlled")?;
            let free = mean(&format!("{plant}_free")).filter(|&f| f > 0)?;
            Some((plant.to_string(), (1000 * controlled).div_ceil(free)))
        })
        .collect()
}

pub(super) fn compare_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
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

/// Slack allowed on the instructions of a scenario's *first* step, of its start-up computation
/// (`startup` lines) and on the calibration line,
/// in SysTick-derived counts. Both are read from SysTick under `-icount`, whose phase against the
/// first instruction of the measured window varies by a tick or two from run to run; the steady
/// min/max/mean of every step (the golden facts) are compared exactly.
pub(super) const FIRST_SLACK: u64 = 4;

/// Slack on the counts of a loop run from a timer interrupt (`tick_instructions` and `tick`
/// lines), in instructions: where each tick starts against the 25 MHz timers varies from run to
/// run (seen: ±2 on the work, ±50 on the response time of an overrunning tick).
pub(super) const TICK_SLACK: u64 = 256;

/// Like [`compare_or_bless`], but the calibration line and the `first` field of `instructions`
/// lines may differ by up to [`FIRST_SLACK`].
pub(super) fn compare_output_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
    let expected = fs::read_to_string(path).unwrap_or_default();
    let close = |e: &str, a: &str| -> bool {
        let (ew, aw): (Vec<&str>, Vec<&str>) = (
            e.split_whitespace().collect(),
            a.split_whitespace().collect(),
        );
        let loose = matches!(
            ew.first(),
            Some(&"calibration")
                | Some(&"instructions")
                | Some(&"startup")
                | Some(&"tick_instructions")
                | Some(&"tick")
        );
        if e == a || !loose || ew.len() != aw.len() {
            return e == a;
        }
        ew.iter().zip(&aw).enumerate().all(|(i, (x, y))| {
            // A timer-interrupt tick's counts (`tick_instructions`, `tick`) vary from run to run
            // with the interrupt's phase: every number has [`TICK_SLACK`].
            let tick = matches!(ew[0], "tick_instructions" | "tick");
            let slack = if tick { TICK_SLACK } else { FIRST_SLACK };
            let loose_field = tick
                || ew[0] == "calibration"
                || (i > 0 && ew[i - 1] == "first")
                || (ew[0] == "startup" && i == 3);
            x == y
                || (loose_field
                    && matches!((x.parse::<u64>(), y.parse::<u64>()),
                        (Ok(p), Ok(q)) if p.abs_diff(q) <= slack))
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
pub(super) const SIZE_SLACK: u64 = 64;

/// Like [`compare_or_bless`], but code-size lines may differ by up to [`SIZE_SLACK`] bytes.
pub(super) fn compare_sizes_or_bless(path: &Path, actual: &str, bless: bool) -> Result {
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
pub(super) fn diff(expected: &str, actual: &str) -> String {
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
pub(super) const KNOWN_OVER: &str = "known-over";

/// One `budget <what> <limit> [known-over]` line of a size file.
pub(super) struct Budget {
    pub(super) what: String,
    pub(super) limit: u64,
    pub(super) known_over: bool,
}

/// The budget lines of a size file.
pub(super) fn read_budgets(path: &Path) -> Vec<Budget> {
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
pub(super) struct Sizes {
    text: u64,
    data: u64,
    bss: u64,
}

impl Sizes {
    pub(super) fn flash(&self) -> u64 {
        self.text + self.data
    }

    /// Static RAM (the stack is not counted: it is whatever RAM is left).
    pub(super) fn ram(&self) -> u64 {
        self.data + self.bss
    }

    pub(super) fn render(&self, name: &str, budgets: &[Budget]) -> String {
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
    pub(super) fn of(elf: &Path) -> Result<Self> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controlled_over_free_pairs_plants_and_rounds_up() {
        let out = "instructions a_free first 9 min 990 max 1010 mean 1000\n\
                   instructions a_controlled first 9 min 1240 max 1260 mean 1250\n\
                   instructions b_controlled first 9 min 4 max 4 mean 4\n\
                   instructions b_free first 9 min 3 max 3 mean 3\n\
                   instructions c_controlled first 9 min 5 max 5 mean 5\n\
                   instructions d_free first 9 min 5 max 5 mean 5\n";
        assert_eq!(
            controlled_over_free_permille(out),
            vec![("a".to_string(), 1250), ("b".to_string(), 1334)]
        );
    }

    /// `plant`'s controlled ÷ free tick (‰, rounded up) as the Cortex-M4F ran it: from
    /// `firmware/expected/zs_control_cost.out`, which `cargo xtask firmware` checks against
    /// QEMU's output.
    fn device_permille(plant: &str) -> u64 {
        let path = crate::root().join("firmware/expected/zs_control_cost.out");
        let out = fs::read_to_string(&path).expect("the golden output");
        let ratios = controlled_over_free_permille(&out);
        let plants: Vec<&str> = ratios.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(plants, ["cart_pole", "arm"], "the scenario's plants");
        ratios
            .into_iter()
            .find(|(p, _)| p == plant)
            .map_or(0, |(_, r)| r)
    }

    /// A controlled Z&S tick (a new held force, then a step) costs at most 1.25 free ticks (the
    /// force held) in mean device instructions: the 3-link arm.
    #[test]
    fn arm_controlled_tick_within_a_quarter_of_a_free_one_on_the_device() {
        let r = device_permille("arm");
        assert!(r <= 1250, "arm: controlled / free = {r}‰");
    }

    /// The same claim on the cart-pole, whose free tick is the smallest: the refresh's fixed
    /// part weighs more there.
    #[test]
    fn cart_pole_controlled_tick_within_a_quarter_of_a_free_one_on_the_device() {
        let r = device_permille("cart_pole");
        assert!(r <= 1250, "cart-pole: controlled / free = {r}‰");
    }
}
