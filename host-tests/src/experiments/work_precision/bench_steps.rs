//! The steps of `benches/work_precision.rs` (`benches/common/work_precision_steps.rs`), found by
//! the search of this experiment: [`searched`] runs the paper setups' search on the methods the
//! bench times, [`render`] writes the table the bench includes, and the test below fails when
//! the checked-in table differs from the search (`MACROSTEP_BLESS=1` rewrites it), so the bench
//! and the experiment cannot drift.

use super::search::{self, Search};
use super::{dp, omega, slow, Setup};

include!("../../../../benches/common/work_precision_steps.rs");

/// The studies the bench draws from, in table order.
pub const STUDIES: [&str; 5] = ["dp_w100", "omega1000", "chain20_w100", "fpu_sum", "trimer"];

/// The error the bench's steps reach.
pub const TARGET: f64 = 1e-2;

/// `(study, method key, k)` for every method of [`STEPS`]: the paper setups' search of `study`
/// restricted to the bench's methods, its found step at [`TARGET`] as `h = 1/k` (`k = 0`: not
/// reached).
pub fn searched() -> Vec<(&'static str, &'static str, usize)> {
    let wp = Setup::paper();
    let om = omega::Setup::paper();
    // Timing is not what is compared: one round.
    let quiet = |s: Search| Search {
        curve_reps: 1,
        reps: 1,
        ..s
    };
    let rigid = dp::rigid_reference(wp.dp_span);
    let rigid_om = dp::rigid_reference(om.span);
    let chain_ref = super::chain::reference(super::chain::NODES, wp.chain_span, wp.chain_outputs);
    let fpu_ref = slow::fpu_reference(wp.fpu_span, 1e-12);
    let trimer_ref = slow::trimer_reference(wp.trimer_span);
    let mut out = Vec::new();
    for study in STUDIES {
        let mut problem = match study {
            "dp_w100" => dp::problem(100.0, wp.dp_span, &rigid),
            "omega1000" => dp::problem(1000.0, om.span, &rigid_om),
            "chain20_w100" => {
                super::chain::problem::<40, 20>(100.0, wp.chain_span, wp.chain_outputs, &chain_ref)
            }
            "fpu_sum" => slow::fpu_problem(slow::FpuError::Sum, wp.fpu_span, &fpu_ref),
            _ => slow::trimer_problem(wp.trimer_span, &trimer_ref),
        };
        let keys: Vec<&str> = STEPS.iter().filter(|r| r.0 == study).map(|r| r.1).collect();
        problem.methods.retain(|m| keys.contains(&m.key));
        problem.ratios.clear();
        let t = problem
            .targets
            .iter()
            .position(|&e| e == TARGET)
            .expect("every study of the bench has target 1e-2");
        let grid = if study == "omega1000" {
            om.search
        } else {
            wp.search
        };
        let s = search::study(&problem, &quiet(grid));
        for key in keys {
            let c = s.curves.iter().find(|c| c.key == key).expect("kept");
            let k = c.found[t]
                .as_ref()
                .map_or(0, |f| (1.0 / f.p).round() as usize);
            out.push((study, key, k));
        }
    }
    out
}

/// The text of `benches/common/work_precision_steps.rs` for `rows`.
pub fn render(rows: &[(&str, &str, usize)]) -> String {
    let mut s = String::new();
    let full = include_str!("../../../../benches/common/work_precision_steps.rs");
    let head = full.split_once("pub const STEPS").map_or(full, |(h, _)| h);
    s.push_str(head);
    s.push_str("pub const STEPS: &[(&str, &str, usize)] = &[\n");
    for (study, key, k) in rows {
        s.push_str(&format!("    (\"{study}\", \"{key}\", {k}),\n"));
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step of the bench is the step the experiment's search finds (and the found step
    /// is of the form `1/k`: the search snaps steps to divide the output spacing 1 or 0.5).
    #[test]
    fn bench_steps_are_the_searched_steps() {
        let found = searched();
        let table: Vec<(&str, &str, usize)> = STEPS.to_vec();
        if found != table && std::env::var("MACROSTEP_BLESS").as_deref() == Ok("1") {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../benches/common/work_precision_steps.rs"
            );
            std::fs::write(path, render(&found)).expect("write the steps table");
            return;
        }
        assert!(
            found.iter().all(|r| r.2 > 0),
            "a bench method misses 1e-2: {found:?}"
        );
        assert_eq!(
            found,
            table,
            "the search finds other steps than benches/common/work_precision_steps.rs holds; \
             rerun with MACROSTEP_BLESS=1 to write:\n{}",
            render(&found)
        );
    }

    /// The table the test compares is the table the bench includes: rendering its own rows
    /// gives the file back.
    #[test]
    fn render_reproduces_the_checked_in_file() {
        assert_eq!(
            render(STEPS),
            include_str!("../../../../benches/common/work_precision_steps.rs")
        );
    }
}
