//! The criterion bench groups as one "experiment" of `cargo xtask three-runs` (`--only benches`):
//! every bench target run once (`cargo bench --bench '*' -- --output-format bencher`, thread CPU
//! time, see `benches/common/mod.rs`), each group's benchmarks expressed as ratios to the group's
//! first benchmark.
//!
//! The groups compare methods: `work-precision/…` groups run each method over the same span at
//! the step where it reaches error 1e-2, so their ratios are named
//! `bench.<group>.<id>_over_<first>.speedup_at_equal_error`; the other groups time one step (or
//! a fixed span) of each method, named `….ratio_at_equal_step`. A ratio is the medians'
//! quotient, the medians read from criterion's `target/criterion/**/new/estimates.json` (the
//! `bencher` lines round to whole nanoseconds); the run order and the groups come from the
//! `bencher` lines (a blank line ends a group).
//!
//! A group measured in interleaved rounds as well (`benches/common/interleaved.rs`: its
//! benchmarks timed against each other in rotated rounds of ≥ 2 ms samples, one line
//! `interleaved <full id> <median ns> …` each) takes its ratios from those medians: criterion
//! times the benchmarks of a group one after the other, so a slow spell during one of them
//! (the group's first is every ratio's denominator) moves the group's ratios; interleaved, the
//! spell hits numerator and denominator alike. Criterion's medians remain for the other groups.
//!
//! By default the benches run in their short mode (`MACROSTEP_BENCH_SHORT=1`: 10 samples,
//! 0.3 s of thread CPU per benchmark, a few minutes of CPU for all of them); `--bench-full`
//! runs criterion's full measurement (30 samples, 2 s each).

use crate::{cargo, output, root, Result};
use std::path::{Path, PathBuf};

/// The name of the benches in `--only`.
pub const NAME: &str = "benches";

/// One run of every bench target: the `figure <name> <ratio>` lines of its groups' ratios.
pub fn run(full: bool) -> Result<String> {
    let mut cmd = cargo();
    cmd.args([
        "bench",
        "--workspace",
        "--bench",
        "*",
        "--",
        "--output-format",
        "bencher",
    ]);
    if !full {
        cmd.env("MACROSTEP_BENCH_SHORT", "1");
    }
    let stdout = output(&mut cmd)?;
    let groups = groups(&stdout);
    let mut medians = medians(&criterion_dir())?;
    prefer_interleaved(&groups, &mut medians, &interleaved(&stdout));
    let mut s = String::new();
    for (name, ratio) in ratios(&groups, &medians) {
        s.push_str(&format!("figure {name} {ratio:e}\n"));
    }
    Ok(s)
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join("criterion")
}

/// The benchmarks' full ids, grouped as the `bencher` lines print them (`test <id> ... bench:
/// …`, a blank line after each group), in run order.
pub fn groups(stdout: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for line in stdout.lines() {
        if line.trim().is_empty() {
            if out.last().is_some_and(|g| !g.is_empty()) {
                out.push(Vec::new());
            }
        } else if let Some(id) = line
            .strip_prefix("test ")
            .and_then(|l| l.split_once(" ... bench:"))
            .map(|(id, _)| id.trim().to_string())
        {
            if let Some(g) = out.last_mut() {
                g.push(id);
            }
        }
    }
    out.retain(|g| !g.is_empty());
    out
}

/// The `"key":"value"` string of a flat JSON text (criterion's ids have no escapes).
fn json_str<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("\"{key}\":\""))? + key.len() + 4;
    text[at..].split('"').next()
}

/// The median's point estimate in criterion's `estimates.json`.
fn json_median(text: &str) -> Option<f64> {
    let m = text.find("\"median\":")?;
    let rest = &text[m..];
    let at = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let num: String = rest[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().ok()
}

/// Every benchmark's group id and median (ns of thread CPU) in criterion's directory, by full id.
fn medians(dir: &Path) -> Result<Vec<(String, String, f64)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "benchmark.json")
                && p.parent().is_some_and(|q| q.ends_with("new"))
            {
                let read = |q: &Path| std::fs::read_to_string(q).unwrap_or_default();
                let bench = read(&p);
                let est = read(&p.with_file_name("estimates.json"));
                if let (Some(full), Some(group), Some(m)) = (
                    json_str(&bench, "full_id"),
                    json_str(&bench, "group_id"),
                    json_median(&est),
                ) {
                    out.push((full.to_string(), group.to_string(), m));
                }
            }
        }
    }
    Ok(out)
}

/// The `interleaved <full id> <median ns> …` lines of the stdout: `(full id, median)`.
pub fn interleaved(stdout: &str) -> Vec<(String, f64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("interleaved ")?.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect()
}

/// Replaces criterion's medians by the interleaved ones in every group whose benchmarks all have
/// one (a group is never mixed: its ratios divide medians of one measurement).
pub fn prefer_interleaved(
    groups: &[Vec<String>],
    medians: &mut [(String, String, f64)],
    interleaved: &[(String, f64)],
) {
    let find = |id: &str| interleaved.iter().find(|x| x.0 == id).map(|x| x.1);
    for g in groups {
        if g.iter().all(|id| find(id).is_some()) {
            for m in medians.iter_mut().filter(|m| g.contains(&m.0)) {
                m.2 = find(&m.0).unwrap_or(m.2);
            }
        }
    }
}

/// Per group of two or more benchmarks, every later benchmark's median over the first's, named
/// as the module docs say.
pub fn ratios(groups: &[Vec<String>], medians: &[(String, String, f64)]) -> Vec<(String, f64)> {
    let find = |id: &str| medians.iter().find(|m| m.0 == id);
    let mut out = Vec::new();
    for g in groups {
        let Some((base_id, group, base)) = g.first().and_then(|id| find(id)) else {
            continue;
        };
        let short = |id: &str| -> String {
            id.strip_prefix(group.as_str())
                .unwrap_or(id)
                .trim_start_matches('/')
                .replace(char::is_whitespace, "_")
        };
        let kind = if group.starts_with("work-precision/") {
            "speedup_at_equal_error"
        } else {
            "ratio_at_equal_step"
        };
        for id in &g[1..] {
            let v = find(id).map_or(f64::NAN, |m| m.2 / base);
            let name = format!(
                "bench.{}.{}_over_{}.{kind}",
                group.replace(char::is_whitespace, "_"),
                short(id),
                short(base_id)
            );
            out.push((name, v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDOUT: &str = "\
test step/dp/n2/zs::zhang_skeel ... bench:         290 ns/iter (+/- 3)
test step/dp/n2/baselines::verlet ... bench:         120 ns/iter (+/- 1)

test work-precision/dp_w100/err1e-2/zs::zhang_skeel/h=1/17 ... bench:       5,000 ns/iter (+/- 9)
test work-precision/dp_w100/err1e-2/baselines::verlet/h=1/214 ... bench:      26,000 ns/iter (+/- 9)

test lonely/one ... bench:         1 ns/iter (+/- 0)
";

    #[test]
    fn groups_split_at_blank_lines_and_ratios_are_over_the_first() {
        let g = groups(STDOUT);
        assert_eq!(g.len(), 3);
        assert_eq!(
            g[1][1],
            "work-precision/dp_w100/err1e-2/baselines::verlet/h=1/214"
        );
        let m = |id: &str, group: &str, v: f64| (id.to_string(), group.to_string(), v);
        let medians = vec![
            m("step/dp/n2/zs::zhang_skeel", "step/dp/n2", 290.4),
            m("step/dp/n2/baselines::verlet", "step/dp/n2", 121.0),
            m(&g[1][0], "work-precision/dp_w100/err1e-2", 5000.0),
            m(&g[1][1], "work-precision/dp_w100/err1e-2", 26000.0),
            m("lonely/one", "lonely", 1.0),
        ];
        let r = ratios(&g, &medians);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0].0,
            "bench.step/dp/n2.baselines::verlet_over_zs::zhang_skeel.ratio_at_equal_step"
        );
        assert!((r[0].1 - 121.0 / 290.4).abs() < 1e-15);
        assert_eq!(
            r[1].0,
            "bench.work-precision/dp_w100/err1e-2.baselines::verlet/h=1/214_over_zs::zhang_skeel/h=1/17.speedup_at_equal_error"
        );
        assert!((r[1].1 - 5.2).abs() < 1e-12);
    }

    #[test]
    fn interleaved_medians_replace_a_whole_group_only() {
        let stdout = "\
test g/a ... bench:         100 ns/iter (+/- 3)
test g/b ... bench:         300 ns/iter (+/- 1)

interleaved g/a 2e2 1.9e2 2.1e2 1000
interleaved g/b 3e2 2.9e2 3.1e2 700
test h/a ... bench:         10 ns/iter (+/- 3)
test h/b ... bench:         20 ns/iter (+/- 1)

interleaved h/a 5e1 4e1 6e1 10
";
        let g = groups(stdout);
        assert_eq!(g.len(), 2, "{g:?}");
        let il = interleaved(stdout);
        assert_eq!(il.len(), 3);
        assert_eq!(il[1], ("g/b".to_string(), 300.0));
        let m = |id: &str, group: &str, v: f64| (id.to_string(), group.to_string(), v);
        let mut medians = vec![
            m("g/a", "g", 100.0),
            m("g/b", "g", 300.0),
            m("h/a", "h", 10.0),
            m("h/b", "h", 20.0),
        ];
        prefer_interleaved(&g, &mut medians, &il);
        // Group g: both interleaved (200, 300); group h: h/b has none, so criterion's stay.
        let r = ratios(&g, &medians);
        assert!((r[0].1 - 1.5).abs() < 1e-15, "{r:?}");
        assert!((r[1].1 - 2.0).abs() < 1e-15, "{r:?}");
    }

    #[test]
    fn reads_criterion_json() {
        let bench = r#"{"group_id":"step/dp/n2","function_id":null,"value_str":"zs","throughput":null,"full_id":"step/dp/n2/zs","directory_name":"step_dp_n2/zs","title":"step/dp/n2/zs"}"#;
        assert_eq!(json_str(bench, "full_id"), Some("step/dp/n2/zs"));
        assert_eq!(json_str(bench, "group_id"), Some("step/dp/n2"));
        let est = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":290.125,"standard_error":0.1}}"#;
        assert_eq!(json_median(est), Some(290.125));
    }
}
