// The steps of `benches/work_precision.rs`, from the search of `reproduce work-precision` and
// `reproduce work-precision-omega` (paper setups). Generated: the test
// `experiments::work_precision::bench_steps` in host-tests runs that search and fails when a row
// differs; `MACROSTEP_BLESS=1` makes it rewrite this file. Do not edit by hand.

/// `(study, method key, k)`: the method's coarsest step `h = 1/k` that reaches error 1e-2 in the
/// study of that key (every finer grid step reaching it too).
pub const STEPS: &[(&str, &str, usize)] = &[
    ("dp_w100", "zs", 17),
    ("dp_w100", "sylipn", 29),
    ("dp_w100", "verlet", 214),
    ("dp_w100", "rattle", 9),
    ("omega1000", "zs", 68),
    ("omega1000", "sylipn", 83),
    ("omega1000", "verlet", 2168),
    ("omega1000", "rattle", 9),
    ("chain20_w100", "sylipn", 16),
    ("chain20_w100", "zs", 14),
    ("chain20_w100", "rattle", 8),
    ("fpu_sum", "sim1", 68),
    ("fpu_sum", "sim2", 66),
    ("fpu_sum", "sim4", 66),
    ("fpu_sum", "verlet", 4151),
    ("trimer", "legacy", 3591),
    ("trimer", "fused", 40),
    ("trimer", "flavor_se", 40),
];
