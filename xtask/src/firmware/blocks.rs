//! The generated blocks of `firmware/README.md` beside the figures table (`table.rs`): every
//! step and tick loop's first/min/max/mean instructions, the timer-driven loops' periods and
//! worst response, the start-up computations' instructions, the named values the scenarios
//! print (gains, settle times, errors) and the real-time example's timing. Each is rendered
//! from the golden files alone, so the README's prose refers to these blocks instead of quoting
//! a number that goes stale.

use super::golden::Budget;
use super::table::thousands;
use std::fmt::Write as _;

/// One scenario's golden files: its name, its size file, its output and the size file's budgets.
pub(super) struct Golden {
    pub(super) name: String,
    pub(super) sizes: String,
    pub(super) out: String,
    pub(super) budgets: Vec<Budget>,
}

impl Golden {
    fn budget(&self, what: &str) -> String {
        self.budgets
            .iter()
            .find(|b| b.what == what)
            .map_or("—".to_string(), |b| {
                let mark = if b.known_over { " (known-over)" } else { "" };
                format!("≤ {}{mark}", thousands(b.limit))
            })
    }

    /// The whitespace-separated words of every output line whose first word is `key`.
    fn lines<'a>(&'a self, key: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
        self.out
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(move |w| w.first() == Some(&key))
    }
}

/// A generated block: its marker name and its renderer.
pub(super) type Block = (&'static str, fn(&[Golden]) -> String);

/// Every generated block of `firmware/README.md` besides the figures table, in no particular
/// order (each sits between its own marker lines).
pub(super) const BLOCKS: [Block; 5] = [
    ("loops", loops),
    ("ticks", ticks),
    ("startup", startup),
    ("values", values),
    ("realtime", realtime),
];

fn num(w: &str) -> String {
    w.parse::<u64>().map_or_else(|_| w.to_string(), thousands)
}

/// `instructions <case> first F min A max B mean M` (a step) and `tick_instructions …` (a timer
/// tick): one row per case.
fn loops(goldens: &[Golden]) -> String {
    let mut s = String::from(
        "| binary | case | loop | first | min | max | mean | budget (max) |\n\
         |---|---|---|--:|--:|--:|--:|---|\n",
    );
    for g in goldens {
        for (key, what, budget) in [
            ("instructions", "step", "instructions_per_step"),
            ("tick_instructions", "timer tick", "instructions_per_tick"),
        ] {
            for w in g.lines(key) {
                if let [_, case, "first", first, "min", min, "max", max, "mean", mean] = w[..] {
                    let _ = writeln!(
                        s,
                        "| `{}` | {case} | {what} | {} | {} | {} | {} | {} |",
                        g.name,
                        num(first),
                        num(min),
                        num(max),
                        num(mean),
                        g.budget(budget)
                    );
                }
            }
        }
    }
    s
}

/// `tick <case> period_instructions P max_response R overruns O`: a timer-driven loop's period,
/// its worst response time (period start to the end of the tick) and its overruns.
fn ticks(goldens: &[Golden]) -> String {
    let mut s = String::from(
        "| binary | case | period, instructions | worst response, instructions | overruns |\n\
         |---|---|--:|--:|--:|\n",
    );
    for g in goldens {
        for w in g.lines("tick") {
            if let [_, case, "period_instructions", p, "max_response", r, "overruns", o] = w[..] {
                let _ = writeln!(
                    s,
                    "| `{}` | {case} | {} | {} | {} |",
                    g.name,
                    num(p),
                    num(r),
                    num(o)
                );
            }
        }
    }
    s
}

/// `startup <case> instructions N`: the start-up computation (e.g. an LQR gain's Riccati solve).
fn startup(goldens: &[Golden]) -> String {
    let mut s = String::from(
        "| binary | case | start-up instructions | budget |\n\
         |---|---|--:|---|\n",
    );
    for g in goldens {
        for w in g.lines("startup") {
            if let [_, case, "instructions", n] = w[..] {
                let _ = writeln!(
                    s,
                    "| `{}` | {case} | {} | {} |",
                    g.name,
                    num(n),
                    g.budget("startup_instructions")
                );
            }
        }
    }
    s
}

/// The named values a scenario prints (`x <case> <step> <name> <i> <bits> <decimal>` with a name
/// other than the state's `t`, `q`, `v`), with their decimal as printed.
fn values(goldens: &[Golden]) -> String {
    let mut s = String::from(
        "| binary | case | value | `f32` |\n\
         |---|---|---|--:|\n",
    );
    for g in goldens {
        for w in g.lines("x") {
            if let [_, case, _, name, i, _, decimal] = w[..] {
                if !matches!(name, "t" | "q" | "v") {
                    let _ = writeln!(s, "| `{}` | {case} | `{name}[{i}]` | {decimal} |", g.name);
                }
            }
        }
    }
    s
}

/// The real-time example's timing: `INFO k <k> busy_us <n> …` per logged period and the summary
/// `INFO iterations N overruns N max_busy_us N max_jitter_ticks N`.
fn realtime(goldens: &[Golden]) -> String {
    let mut s = String::from(
        "| binary | periods | busy, first period, µs | busy, later logged periods (max), µs | overruns | period jitter (max), SysTick ticks |\n\
         |---|--:|--:|--:|--:|--:|\n",
    );
    for g in goldens {
        let busy: Vec<(&str, &str)> = g
            .lines("INFO")
            .filter_map(|w| match w[..] {
                [_, "k", k, "busy_us", n, ..] => Some((k, n)),
                _ => None,
            })
            .collect();
        let first = busy.iter().find(|(k, _)| *k == "0").map(|(_, n)| *n);
        let later = busy
            .iter()
            .filter(|(k, _)| *k != "0")
            .filter_map(|(_, n)| n.parse::<u64>().ok())
            .max();
        for w in g.lines("INFO") {
            if let [_, "iterations", it, "overruns", o, "max_busy_us", _, "max_jitter_ticks", j] =
                w[..]
            {
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    g.name,
                    num(it),
                    first.map_or("—".to_string(), num),
                    later.map_or("—".to_string(), thousands),
                    num(o),
                    num(j)
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(name: &str, out: &str, budgets: &[(&str, u64, bool)]) -> Golden {
        Golden {
            name: name.to_string(),
            sizes: String::new(),
            out: out.to_string(),
            budgets: budgets
                .iter()
                .map(|&(what, limit, known_over)| Budget {
                    what: what.to_string(),
                    limit,
                    known_over,
                })
                .collect(),
        }
    }

    /// A timer-driven loop with a start-up gain and a summary, and a two-case step loop.
    fn fixture() -> Vec<Golden> {
        vec![
            golden(
                "ekf",
                "scenario ekf\n\
                 calibration loop_instructions 2000 ticks 3201 overhead_ticks 1\n\
                 startup main instructions 150108\n\
                 x main 0 k 0 0xc11e9472 -9.911242\n\
                 x main 0 t 0 0x00000000 0.0\n\
                 x main 500 q 1 0x3e4b95a7 0.19881307\n\
                 tick_instructions main first 15143 min 13200 max 13807 mean 13772\n\
                 tick main period_instructions 15625 max_response 15151 overruns 0\n\
                 x summary 0 settle_time 0 0x4027ef9e 2.624\n\
                 stack_bytes 1736\nok\n",
                &[
                    ("instructions_per_tick", 15000, false),
                    ("startup_instructions", 200000, false),
                ],
            ),
            golden(
                "chain",
                "case n5 steps 200 every 50\n\
                 instructions n5 first 13564 min 7439 max 7459 mean 7448\n\
                 instructions n10 first 28028 min 15355 max 15368 mean 15363\n",
                &[("instructions_per_step", 9000, true)],
            ),
        ]
    }

    #[test]
    fn loops_lists_every_step_and_tick_case_with_its_budget() {
        assert_eq!(
            loops(&fixture()),
            "| binary | case | loop | first | min | max | mean | budget (max) |\n\
             |---|---|---|--:|--:|--:|--:|---|\n\
             | `ekf` | main | timer tick | 15,143 | 13,200 | 13,807 | 13,772 | ≤ 15,000 |\n\
             | `chain` | n5 | step | 13,564 | 7,439 | 7,459 | 7,448 | ≤ 9,000 (known-over) |\n\
             | `chain` | n10 | step | 28,028 | 15,355 | 15,368 | 15,363 | ≤ 9,000 (known-over) |\n"
        );
    }

    #[test]
    fn ticks_lists_period_response_and_overruns() {
        assert_eq!(
            ticks(&fixture()),
            "| binary | case | period, instructions | worst response, instructions | overruns |\n\
             |---|---|--:|--:|--:|\n\
             | `ekf` | main | 15,625 | 15,151 | 0 |\n"
        );
    }

    #[test]
    fn startup_lists_the_start_up_computations() {
        assert_eq!(
            startup(&fixture()),
            "| binary | case | start-up instructions | budget |\n\
             |---|---|--:|---|\n\
             | `ekf` | main | 150,108 | ≤ 200,000 |\n"
        );
    }

    #[test]
    fn values_lists_the_named_values_not_the_state() {
        assert_eq!(
            values(&fixture()),
            "| binary | case | value | `f32` |\n\
             |---|---|---|--:|\n\
             | `ekf` | main | `k[0]` | -9.911242 |\n\
             | `ekf` | summary | `settle_time[0]` | 2.624 |\n"
        );
    }

    #[test]
    fn realtime_reads_the_busy_times_and_the_summary() {
        let g = [golden(
            "control_loop",
            "INFO  k 0 busy_us 162 State { t: 0.01 }\n\
             INFO  k 25 busy_us 103 State { t: 0.26 }\n\
             INFO  k 50 busy_us 104 State { t: 0.51 }\n\
             INFO  pin low after the loop true\n\
             INFO  iterations 100 overruns 0 max_busy_us 162 max_jitter_ticks 70\n\
             stack_bytes 768\nok\n",
            &[],
        )];
        assert_eq!(
            realtime(&g),
            "| binary | periods | busy, first period, µs | busy, later logged periods (max), µs | overruns | period jitter (max), SysTick ticks |\n\
             |---|--:|--:|--:|--:|--:|\n\
             | `control_loop` | 100 | 162 | 104 | 0 | 70 |\n"
        );
        // A scenario without a real-time summary adds no row.
        assert_eq!(realtime(&fixture()).lines().count(), 2);
    }
}
