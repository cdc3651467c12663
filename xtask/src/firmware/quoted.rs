//! The check that no device figure is quoted by hand in `README.md` or `firmware/README.md`:
//! outside the generated blocks (`table.rs`, `blocks.rs`), a number attached to a device unit
//! (`3,004 B`, `≈ 2,460 instructions`, `instr.`, `per tick`, `µs`), a before → after pair, a
//! golden-output key with its value (`busy_us 136`), a number in a table whose header names a
//! device quantity, or a golden-output line in a code block is an error. A current figure comes
//! from a generated block; a past measurement belongs in `docs/firmware-history.md`, which is
//! not scanned. [`ALLOWED`] lists the few constants that look like figures, each with its reason.

use crate::Result;
use std::fs;
use std::path::Path;

/// Units that make the number before them a device figure (longest first).
const UNITS: [&str; 12] = [
    "instructions",
    "instruction",
    "per step",
    "per tick",
    "instr.",
    "/ step",
    "/ tick",
    "bytes",
    "KB",
    "kB",
    "µs",
    "B",
];

/// Suffixes of golden-output and size-file keys whose value is a device figure
/// (`busy_us 136`, `stack_bytes 1736`, `instructions_per_tick 15000`).
const KEY_SUFFIXES: [&str; 6] = ["_us", "_bytes", "_ticks", "_instructions", "_tick", "_step"];

/// First words of golden-output lines; such a line in a code block quotes measured values.
const GOLDEN_LINES: [&str; 7] = [
    "x",
    "instructions",
    "tick_instructions",
    "tick",
    "startup",
    "stack_bytes",
    "calibration",
];

/// Words of a table header that make the table's numeric cells device figures.
const TABLE_WORDS: [&str; 6] = ["instructions", "instr.", "stack", "flash", "ram", "tick"];

/// Words after a thousands-grouped number that make it a count of the scenario's set-up
/// (`5,000 ticks`, `2,000 steps`), not a measurement.
const COUNT_WORDS: [&str; 6] = ["steps", "ticks", "periods", "iterations", "runs", "samples"];

/// Matches that are not device figures: `(the matched text, why it is allowed)`.
const ALLOWED: [(&str, &str); 1] = [(
    "15,625 instructions",
    "one 1 ms period under `-icount shift=6` (64 ns an instruction): a constant of the QEMU set-up",
)];

/// A hand-quoted figure: the 1-based line and the matched text.
#[derive(Debug, PartialEq)]
pub(super) struct Finding {
    pub(super) line: usize,
    pub(super) text: String,
}

/// The number starting at `i` (digits, `,`/`.` between digits, an optional `–`/`-` range):
/// its end, or `None` when `i` does not start a number (a digit inside a word such as `f32` or
/// `0x3f` does not).
fn number_at(c: &[char], i: usize) -> Option<usize> {
    if !c[i].is_ascii_digit() || i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_') {
        return None;
    }
    let digits = |mut j: usize| {
        while j < c.len() {
            let sep = matches!(c[j], ',' | '.') && c.get(j + 1).is_some_and(char::is_ascii_digit);
            if !(c[j].is_ascii_digit() || sep) {
                break;
            }
            j += 1;
        }
        j
    };
    let mut j = digits(i);
    // An exponent: `5.4e-4`, `1e−12`.
    if c.get(j) == Some(&'e') {
        let k = if matches!(c.get(j + 1), Some('-' | '−')) {
            j + 2
        } else {
            j + 1
        };
        if c.get(k).is_some_and(char::is_ascii_digit) && !c[i..j].contains(&'e') {
            j = digits(k);
        }
    }
    if j + 1 < c.len() && matches!(c[j], '–' | '-') && c[j + 1].is_ascii_digit() {
        j = digits(j + 1);
    }
    Some(j)
}

/// Whether `rest` starts with `word` not followed by a letter or digit.
fn starts_with_word(rest: &[char], word: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    rest.len() >= w.len()
        && rest[..w.len()] == w[..]
        && (w.last() == Some(&'.') || rest.get(w.len()).is_none_or(|c| !c.is_alphanumeric()))
}

/// The unit right after a number (after at most one space), with the match's end.
fn unit_after(c: &[char], j: usize) -> Option<usize> {
    let k = if matches!(c.get(j), Some(' ' | '\u{a0}')) {
        j + 1
    } else {
        j
    };
    UNITS
        .iter()
        .find(|u| starts_with_word(&c[k..], u))
        .map(|u| k + u.chars().count())
}

/// The key right before position `i` (`… busy_us 136`) when it is a device-figure key.
fn key_before(c: &[char], i: usize) -> Option<usize> {
    if i < 2 || c[i - 1] != ' ' {
        return None;
    }
    let mut s = i - 1;
    while s > 0 && (c[s - 1].is_ascii_alphanumeric() || c[s - 1] == '_') {
        s -= 1;
    }
    let key: String = c[s..i - 1].iter().collect();
    KEY_SUFFIXES
        .iter()
        .any(|x| key.len() > x.len() && key.ends_with(x))
        .then_some(s)
}

/// Whether a number is a small count (an integer below 100, such as `n = 5 → 10`), not a
/// measurement.
fn small_count(n: &[char]) -> bool {
    n.iter().all(char::is_ascii_digit) && n.len() <= 2
}

/// Whether the number `c[i..j]` is written with a thousands separator (`3,726`) and is not a
/// count (followed by one of [`COUNT_WORDS`]) or a ratio (`1,196×`): in these READMEs such a
/// number is an instruction count or a size even when no unit follows (`the table's 3,726`,
/// `3,796 max`).
fn grouped_measurement(c: &[char], i: usize, j: usize) -> bool {
    let grouped = c[i..j]
        .windows(2)
        .any(|w| w[0] == ',' && w[1].is_ascii_digit());
    let rest: String = c[j..].iter().collect();
    let rest = rest.trim_start();
    grouped
        && !rest.starts_with('×')
        && !COUNT_WORDS.iter().any(|w| {
            rest.strip_prefix(w)
                .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
        })
}

/// The `→ number [unit]` right after position `j` (spaces allowed around the arrow): the
/// second number's start, its end and the end of its unit.
fn arrow_after(c: &[char], j: usize) -> Option<(usize, usize, usize)> {
    let skip = |mut k: usize| {
        while c.get(k) == Some(&' ') {
            k += 1;
        }
        k
    };
    let mut k = skip(j);
    if c.get(k) != Some(&'→') {
        return None;
    }
    k = skip(k + 1);
    if c.get(k) == Some(&'−') {
        k += 1;
    }
    (k < c.len()).then_some(())?;
    let e = number_at(c, k)?;
    Some((k, e, unit_after(c, e).unwrap_or(e)))
}

/// The figures of one prose line: numbers with a device unit, after a device key, or in a
/// before → after pair. `next` is the paragraph's next line (or empty): a figure that starts on
/// this line may end on it (`2,074 →` / `2,544`). The scan starts at char `from` (what the
/// previous line's last figure took of this one) and returns the chars of `next` that its last
/// figure took.
fn prose_figures(line: &str, next: &str, from: usize) -> (Vec<String>, usize) {
    let own = line.chars().count();
    let lead = next.chars().take_while(|c| c.is_whitespace()).count();
    let c: Vec<char> = line
        .chars()
        .chain(" ".chars())
        .chain(next.trim().chars())
        .collect();
    let mut found = Vec::new();
    let mut i = from;
    while i < own {
        let Some(j) = number_at(&c, i) else {
            i += 1;
            continue;
        };
        let unit = unit_after(&c, j);
        let end = unit.unwrap_or(j);
        // `n = 5 → 10` counts, it does not measure.
        let arrow = arrow_after(&c, end).filter(|&(k, e, u)| {
            unit.is_some() || u > e || !small_count(&c[i..j]) || !small_count(&c[k..e])
        });
        if let Some((_, _, e)) = arrow {
            found.push(c[i..e].iter().collect());
            i = e;
        } else if let Some(s) = key_before(&c, i) {
            found.push(c[s..j].iter().collect());
            i = j;
        } else if unit.is_some() || grouped_measurement(&c, i, j) {
            found.push(c[i..end].iter().collect());
            i = end;
        } else {
            i = j;
        }
    }
    let taken = if i > own + 1 { i - own - 1 + lead } else { 0 };
    (found, taken)
}

/// The numeric cells of a table row (`**` and `≈` stripped).
fn numeric_cells(row: &str) -> Vec<String> {
    row.split('|')
        .map(|cell| cell.trim().trim_matches('*').trim_start_matches('≈').trim())
        .filter(|cell| cell.starts_with(|ch: char| ch.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// Every hand-quoted device figure of `text`, skipping the blocks between `markers`.
pub(super) fn scan(text: &str, markers: &[(String, String)]) -> Vec<Finding> {
    let mut found = Vec::new();
    let (mut generated, mut fenced, mut device_table, mut in_table) = (None, false, false, false);
    let lines: Vec<&str> = text.lines().collect();
    // The chars of a line that the previous line's last figure took (`2,074 →` / `2,544`).
    let mut carry = 0;
    for (n, line) in lines.iter().enumerate() {
        if let Some(end) = generated {
            if line.trim() == end {
                generated = None;
            }
            continue;
        }
        if let Some((_, end)) = markers.iter().find(|(b, _)| line.trim() == b) {
            generated = Some(end.as_str());
            continue;
        }
        let trimmed = line.trim_start();
        let from = std::mem::take(&mut carry);
        let next = lines.get(n + 1).copied().unwrap_or("");
        let next = match next.trim_start() {
            t if t.starts_with(['|', '<']) || t.starts_with("```") => "",
            t => t,
        };
        let mut texts = Vec::new();
        if trimmed.starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            let first = trimmed.split_whitespace().next().unwrap_or("");
            let c: Vec<char> = trimmed.chars().collect();
            let has_number = (0..c.len()).any(|i| number_at(&c, i).is_some());
            if GOLDEN_LINES.contains(&first) && has_number {
                texts.push(trimmed.to_string());
            }
        } else if trimmed.starts_with('|') {
            if !in_table {
                let header = trimmed.to_lowercase();
                device_table = TABLE_WORDS.iter().any(|w| header.contains(w));
            } else if device_table {
                texts.extend(numeric_cells(trimmed));
            }
            texts.extend(prose_figures(line, "", 0).0);
        } else {
            let (figures, taken) = prose_figures(line, next, from);
            texts.extend(figures);
            carry = taken;
        }
        in_table = !fenced && trimmed.starts_with('|');
        for t in texts {
            if !ALLOWED.iter().any(|(a, _)| *a == t) && !found.contains(&(n, t.clone())) {
                found.push((n, t));
            }
        }
    }
    found
        .into_iter()
        .map(|(n, text)| Finding { line: n + 1, text })
        .collect()
}

/// Fails with every hand-quoted device figure of `files` (paths relative to `root`).
pub(super) fn check(root: &Path, files: &[&str], markers: &[(String, String)]) -> Result {
    let mut report = String::new();
    for file in files {
        let path = root.join(file);
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for f in scan(&text, markers) {
            report += &format!("  {file}:{}: `{}`\n", f.line, f.text);
        }
    }
    if report.is_empty() {
        return Ok(());
    }
    Err(format!(
        "device figures quoted by hand (they go stale): take a current figure from a generated \
         block (`cargo xtask firmware-table --bless` renders them from firmware/expected/) or \
         move a past measurement to docs/firmware-history.md:\n{report}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(text: &str) -> Vec<String> {
        scan(text, &[]).into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn numbers_with_device_units_are_figures() {
        assert_eq!(
            figures("Stack: 1,776 B high-water mark, flash 48,416 B, 20 bytes."),
            ["1,776 B", "48,416 B", "20 bytes"]
        );
        assert_eq!(
            figures("Where a tick's ≈ 3,818 instructions go; ≈ 700–1,500 instructions a call"),
            ["3,818 instructions", "700–1,500 instructions"]
        );
        assert_eq!(
            figures("4,000 instr. / tick, 90 per step, 12 / tick, 2.8 µs, 0.4–2.2 KB smaller"),
            [
                "4,000 instr.",
                "90 per step",
                "12 / tick",
                "2.8 µs",
                "0.4–2.2 KB"
            ]
        );
        assert_eq!(figures("(616 B), 448B."), ["616 B", "448B"]);
        assert_eq!(
            figures("a frame of 1,960\nB, Z&S 2,074 →\n2,544 (+23 %)\n"),
            ["1,960 B", "2,074 → 2,544"],
            "a figure may end on the paragraph's next line"
        );
    }

    #[test]
    fn thousands_grouped_numbers_are_figures_without_a_unit() {
        assert_eq!(
            figures("the table's 3,726 is with them; (3,796 max, 3,792 mean); 20 × 831 = 16,620"),
            ["3,726", "3,796", "3,792", "16,620"]
        );
        assert_eq!(
            figures("12,495 with them, 11,589 without"),
            ["12,495", "11,589"]
        );
    }

    #[test]
    fn before_after_pairs_and_keys_are_figures() {
        assert_eq!(
            figures("Z&S 2,074 → 2,544 (+23 %), peak 1,960 → 1,600 B, s −5.4170e-4 → −5.4395e-4"),
            ["2,074 → 2,544", "1,960 → 1,600 B", "5.4170e-4 → −5.4395e-4"]
        );
        assert_eq!(
            figures("the loop logs `busy_us 136` per step; `instructions_per_tick 15000`"),
            ["busy_us 136", "instructions_per_tick 15000"]
        );
    }

    #[test]
    fn budgets_constants_and_identifiers_are_not_figures() {
        let prose = "stack ≤ 2 KiB, flash ≤ 24 KiB at `h = 1 ms`, 1 kHz, 168 MHz, issue 28, \
                     `f32`, `0x3f800000`, `Mass<f32, 20>`, SO(3), 9×9 `LDLᵀ`, the `Bᵀ P B` \
                     block, ω = 10⁴, n = 5 → 10 links, 5,000 ticks, 2000 known steps";
        assert_eq!(figures(prose), Vec::<String>::new());
        assert_eq!(
            figures("one period is 15,625 instructions"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn numbers_in_device_tables_are_figures() {
        let text = "| choice | instr. / tick (mean) | stack |\n\
                    |---|---|---|\n\
                    | none | 4,398 | 3,004 B |\n\
                    | in place | **3,339** | ≈ 1,624 |\n\
                    \n\
                    | file | what it does |\n\
                    |---|---|\n\
                    | `src/bin` | 1 binary per scenario |\n";
        assert_eq!(
            figures(text),
            ["4,398", "3,004 B", "3,339", "1,624"],
            "the second table names no device quantity"
        );
    }

    #[test]
    fn golden_lines_in_code_blocks_are_figures() {
        let text = "```text\n\
                    x main 50 q 2 0xbf6ce8a6 -0.92542493\n\
                    instructions main first 3811 min 2073 max 2074 mean 2073\n\
                    instructions main first F min A max B mean M\n\
                    x <case> <step> q <i> <f32 bits> <decimal>\n\
                    cargo xtask firmware --bless\n\
                    ```\n";
        assert_eq!(
            scan(text, &[]),
            [
                Finding {
                    line: 2,
                    text: "x main 50 q 2 0xbf6ce8a6 -0.92542493".into()
                },
                Finding {
                    line: 3,
                    text: "instructions main first 3811 min 2073 max 2074 mean 2073".into()
                },
            ]
        );
    }

    #[test]
    fn generated_blocks_are_skipped() {
        let markers = [("<!-- a:begin -->".to_string(), "<!-- a:end -->".to_string())];
        let text =
            "flash 1 B\n<!-- a:begin -->\n| stack |\n|---|\n| 920 B |\n<!-- a:end -->\n7 B\n";
        assert_eq!(
            scan(text, &markers),
            [
                Finding {
                    line: 1,
                    text: "1 B".into()
                },
                Finding {
                    line: 7,
                    text: "7 B".into()
                }
            ]
        );
    }
}
