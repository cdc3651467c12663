//! The work–precision harness charges a method for the CPU time its thread uses, not for the
//! wall-clock time it spends off the processor: a method that does the same work as another but
//! also waits (preempted on a shared machine, here: sleeping) costs the same at equal error.

use host_tests::experiments::work_precision::search::{study, Method, Problem, Search};
use std::hint::black_box;

/// A fixed amount of floating-point work (≈ 0.1–1 ms).
fn burn() -> f64 {
    let mut x = black_box(0.5_f64);
    for _ in 0..20_000 {
        x = black_box(x * 1.000_000_1 + 1e-9).sin();
    }
    x
}

fn method(key: &'static str, sleep_ms: u64) -> Method<'static> {
    Method {
        key,
        label: key,
        param_name: "h",
        p_max: 1.0,
        p_min: 1e-2,
        snap: None,
        run: Box::new(move |p| {
            if sleep_ms > 0 {
                std::thread::sleep(std::time::Duration::from_millis(sleep_ms));
            }
            black_box(burn());
            // The error of a run is its parameter: every method meets a target at the same p.
            Ok(vec![p])
        }),
    }
}

#[test]
fn waiting_is_not_charged_at_equal_error() {
    let problem = Problem {
        key: "cpu_time",
        title: "busy vs busy-and-waiting".into(),
        error_label: "p",
        span: 1.0,
        error: Box::new(|obs| obs[0]),
        methods: vec![method("busy", 0), method("waiting", 3)],
        targets: vec![0.1],
        ratios: vec![("waiting", "busy")],
    };
    let search = Search {
        grid_ratio: 2.0,
        bisect: 2,
        curve_reps: 1,
        reps: 5,
    };
    let s = study(&problem, &search);
    let ratio = s.ratios[0].2[0];
    // Same work, so the CPU-time ratio is 1 up to noise; wall-clock time would charge the 3 ms
    // sleep (several times the work) and give a ratio of 4 or more.
    assert!(
        (0.7..1.4).contains(&ratio),
        "waiting ÷ busy at equal error = {ratio}"
    );
    for c in &s.curves {
        let f = c.found[0].as_ref().expect("target reached");
        assert!(f.p <= 0.1 && f.cost > 0.0, "{}: {f:?}", c.key);
    }
}
