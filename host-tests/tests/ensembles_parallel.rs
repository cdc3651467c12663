//! The Monte Carlo experiments on `rayon` (`ensemble_runner`): the same numbers, bit for bit, at
//! 1 and 2 threads, and from shards merged as from one run. Small setups of `sim-langevin`,
//! `flavor-langevin`, `accelerated-sampling` and `kapitza`; the statistics compared are the
//! ones their `figure` lines are computed from (timings excepted).

use host_tests::ensemble_runner::{with_plan, Plan, ShardFile, Sums};
use host_tests::experiments::accelerated_sampling as accel;
use host_tests::experiments::flavor::kapitza;
use host_tests::experiments::flavor::langevin as fl;
use host_tests::experiments::sim::langevin::{langevin_study, linear_law_study, LangevinSetup};
use host_tests::fixtures::lj_well::H;

fn on<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(f)
}

/// The numbers of a small `sim-langevin` (study and linear variant) as bit patterns.
fn sim_langevin() -> Vec<u64> {
    let setup = LangevinSetup {
        paths: 40,
        steps: 1880,
        stiff_start: true,
    };
    let study = langevin_study(setup);
    let linear = linear_law_study(setup.paths, setup.steps);
    let mut words = study.words();
    words.extend(linear.words());
    assert!(words.len() > 400 && words.iter().all(|w| w.is_finite()));
    words.into_iter().map(f64::to_bits).collect()
}

fn flavor_setup() -> fl::Setup {
    fl::Setup {
        paths: 24,
        t_slow: 2,
        // The report averages E[y²] over t ≥ 5.
        t_fast: 5.5,
        study: vec![(5e-4, 1e-3)],
        metropolis: (200, 20),
        omegas: vec![100.0],
    }
}

/// The statistics of a small `flavor-langevin` (every z, moment ratio and χ²; no seconds).
fn flavor_langevin() -> String {
    let r = fl::compute(&flavor_setup());
    let study: Vec<_> = r.study.iter().map(|s| (s.xy, s.x, s.y2_ratio)).collect();
    let omega: Vec<_> = r
        .omega_study
        .iter()
        .map(|o| (o.z, o.dx, o.y2_ratio))
        .collect();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        r.slow.0,
        r.gla.1,
        r.step_check,
        study,
        (r.gla_thesis.0, r.gla_thesis.1),
        r.metropolis,
        omega,
        r.paths
    )
}

fn accelerated_sampling() -> String {
    let r = accel::compute(&accel::Setup {
        paths: 40,
        t_total: 2.0,
        t_long: 2.0,
        horizons: vec![2.0],
        extra_horizons: vec![],
        sweep: (vec![1.0], 40, 2.0),
        every: (0.5 / H).round() as usize,
        only: vec!["gla", "anneal_gla"],
        ..accel::Setup::quick()
    });
    let fixed: Vec<_> = r.fixed.iter().map(|(_, c)| c).collect();
    let annealed: Vec<_> = r.annealed.iter().map(|(_, c)| c).collect();
    assert!(!fixed.is_empty() && !annealed.is_empty());
    format!("{fixed:?} {annealed:?} {:?}", r.sweep)
}

fn kapitza_sweeps() -> String {
    let r = kapitza::compute(&kapitza::Setup {
        t_end: 0.3,
        ..kapitza::Setup::paper()
    });
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        r.averaging, r.averaging_omega, r.legacy, r.grid, r.rows
    )
}

#[test]
fn sim_langevin_is_bit_identical_at_1_and_2_threads() {
    assert_eq!(on(1, sim_langevin), on(2, sim_langevin));
}

#[test]
fn flavor_langevin_is_bit_identical_at_1_and_2_threads() {
    assert_eq!(on(1, flavor_langevin), on(2, flavor_langevin));
}

#[test]
fn accelerated_sampling_is_bit_identical_at_1_and_2_threads() {
    assert_eq!(on(1, accelerated_sampling), on(2, accelerated_sampling));
}

#[test]
fn kapitza_sweeps_are_bit_identical_at_1_and_2_threads() {
    assert_eq!(on(1, kapitza_sweeps), on(2, kapitza_sweeps));
}

/// `flavor-langevin` over members 0..7, 7..16 and 16..32 (past the 24 paths) on different
/// pools, through the shard file text, merged: the same statistics as one run.
#[test]
fn flavor_langevin_sharded_and_merged_equals_one_run() {
    let whole = on(2, flavor_langevin);
    let shards: Vec<ShardFile> = [(0..7, 1), (16..32, 2), (7..16, 1)]
        .into_iter()
        .map(|(members, threads)| {
            let plan = Plan::Record {
                members: members.clone(),
                folds: vec![],
            };
            let (part, plan) = on(threads, || with_plan(plan, flavor_langevin));
            assert_ne!(part, whole, "a shard alone gives the whole's statistics");
            let Plan::Record { folds, .. } = plan else {
                unreachable!("with_plan hands back the plan it ran")
            };
            let file = ShardFile {
                experiment: "flavor-langevin".into(),
                quick: true,
                paths: Some(24),
                members,
                folds,
            };
            ShardFile::parse(&file.to_text()).expect("round trip")
        })
        .collect();
    let plan = ShardFile::merge(&shards).expect("complete shards");
    let (merged, _) = on(1, || with_plan(plan, flavor_langevin));
    assert_eq!(merged, whole);
    assert!(ShardFile::merge(&shards[..2]).is_err(), "a missing shard");
}
