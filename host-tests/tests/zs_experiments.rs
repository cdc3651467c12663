//! Cheaper versions of the `reproduce` experiments of the Zhang–Skeel family.

use host_tests::experiments::zs::{dna, double_pendulum, penalty_scaling, stability, symplectic};

/// Theorem 2.5 at the two ends: β = ¼ bounded at hω = 10⁴, β = 0.2 critical at 2/√(1−4β).
#[test]
fn stability_figures() {
    let r = stability::compute(&stability::Setup {
        steps: 1000,
        grid: vec![1e4],
    });
    assert!(r.max_beta025 <= 10.0, "{}", r.max_beta025);
    let crit = 2.0 / 0.2f64.sqrt();
    let found = r.critical_beta020;
    assert!((found / crit - 1.0).abs() < 0.01, "{found} vs {crit}");
}

/// Theorem 2.12 vs Remark 2.14 on the penalised double pendulum (ω = 20, h = 0.1, β = 0.4) and
/// on Hénon–Heiles; Theorem 2.4: Z&Ss is symplectic with one degree of freedom.
#[test]
fn double_pendulum_symplecticity() {
    let r = symplectic::compute(&symplectic::Setup::quick());
    let &(_, _, _, zs, zss) = r
        .double_pendulum
        .iter()
        .find(|row| row.0 == 1 && row.1 == 1e-4 && row.2)
        .expect("one step, eps = 1e-4, Richardson");
    assert!(zs <= 1e-9, "Z&S defect {zs}");
    assert!(zss > 1e3 * zs.max(1e-12), "Z&Ss defect {zss} vs Z&S {zs}");
    let (zs_hh, zss_hh) = r.henon_heiles;
    assert!(zs_hh <= 1e-9, "Z&S defect on Hénon–Heiles {zs_hh}");
    assert!(
        zss_hh > 1e3 * zs_hh.max(1e-12),
        "Z&Ss {zss_hh} vs Z&S {zs_hh}"
    );
    assert!(r.zss_pendulum <= 1e-9, "Z&Ss, 1 dof: {}", r.zss_pendulum);
}

/// Fig 1 (T = 50, about a second): Z&S and fully solved Newmark close to each other and to the rigid
/// reference; the one-iteration Newmark worse in energy.
#[test]
fn double_pendulum_short() {
    let runs = double_pendulum::compute(&double_pendulum::Setup::paper()).runs;
    let get = |n: &str| {
        runs.iter()
            .find(|(m, _)| *m == n)
            .expect("method")
            .1
            .clone()
    };
    let (zs, nm, one, vv) = (get("zs"), get("newmark"), get("newmark1"), get("verlet"));
    // Z&S at h = 0.1: second-order error ~ 1e-2 at t = 10 (Verlet at h = 0.005 shows the
    // O(ω⁻²) = 2.5e-3 modelling error floor).
    assert!(zs.err_t10 < 0.05, "Z&S err at t = 10: {}", zs.err_t10);
    assert!(nm.err_t10 < 0.05, "Newmark err at t = 10: {}", nm.err_t10);
    assert!(vv.err_t10 < 0.01, "Verlet err at t = 10: {}", vv.err_t10);
    // 000 §4.1: the one-iteration Newmark drifts (0.26 vs 0.027 and 0.007 measured), and its
    // trajectory error over [0, 50] is the largest (0.70 vs 0.19 and 0.21).
    assert!(one.max_energy_err > 3.0 * zs.max_energy_err.max(nm.max_energy_err));
    assert!(one.err_max > 2.0 * zs.err_max.max(nm.err_max));
    // Remark A.3: |g| = O(ω⁻²) = O(1/400)
    assert!(zs.max_g < 0.05 && nm.max_g < 0.05);
}

/// Remark A.3: ω² max|g| bounded independently of ω (two values, T = 10).
#[test]
fn penalty_scaling_short() {
    let r = penalty_scaling::compute(&penalty_scaling::Setup {
        omegas: vec![10.0, 40.0],
        t_end: 10.0,
    });
    let [(_, a), (_, b)] = r.rows[..] else {
        panic!("two rows")
    };
    assert!(a < 10.0 && b < 10.0, "{a} {b}");
    assert!((a / b - 1.0).abs() < 0.5, "{a} vs {b}");
}

/// 000 §4.4 over T = 200: Z&S at h = 2 stays bounded; Verlet's bounded-run step limit is below
/// 2 and within 10 % of its linear limit 2/ω_max; its energy-accuracy limit is below that.
#[test]
fn dna_short() {
    // `compute` runs on its own large-stack thread.
    let r = dna::compute(&dna::Setup::quick());
    assert!(r.zs.0.stable);
    assert!(r.verlet.0.stable, "Verlet at h = 0.2");
    let (strict, bounded, linear) = r.verlet_limits;
    assert!(bounded < 2.0, "{bounded}");
    assert!(
        (bounded / linear - 1.0).abs() < 0.1,
        "{bounded} vs {linear}"
    );
    assert!(strict <= bounded, "{strict} vs {bounded}");
    eprintln!("dna T = 200: strict {strict}, bounded {bounded}, linear {linear}");
}

/// `reproduce zs-order` (000 Cor 2.8, Rem 2.11) through its `Results`: Z&S, Z&Ss and the stiff
/// Z&Ss are second order on Hénon–Heiles, the triple-jump composition of Z&S fourth order.
#[test]
fn zs_order_slopes() {
    use host_tests::experiments::zs::order::ZsOrderExperiment;
    use host_tests::experiments::Experiment;
    use host_tests::measure::loglog_slope;
    let r = ZsOrderExperiment::compute(&ZsOrderExperiment::quick());
    for (name, hs, errs, order) in [
        ("zs", &r.hs, &r.zs, 2.0),
        ("zss", &r.hs, &r.zss, 2.0),
        ("zss_stiff", &r.hs_stiff, &r.zss_stiff, 2.0),
        ("zs4", &r.hs, &r.zs4, 4.0),
    ] {
        let slope = loglog_slope(hs, errs);
        assert!((slope - order).abs() < 0.2, "{name}: slope {slope}");
    }
}

/// `reproduce zs-chain-cost` (000 §4.3, 004 §5.4.1) through its `Results`: with the banded
/// solver a Z&S step on a chain of n pendula costs O(n), with the dense one more. Wall-clock
/// means over thousands of steps, so only wide margins are asserted: at n = 40 the dense step
/// costs more than 3 times the banded one (measured 14–17x), and the banded cost's log–log
/// slope in n is below 1.6 (measured 1.0–1.1; quadratic would be 2) and below the dense one
/// (measured 1.9–2.3).
#[test]
fn zs_chain_cost_banded_grows_linearly() {
    use host_tests::experiments::zs::chain_cost::ZsChainCostExperiment;
    use host_tests::experiments::Experiment;
    use host_tests::measure::loglog_slope;
    let r = ZsChainCostExperiment::compute(&ZsChainCostExperiment::quick());
    let [_, dense40, banded40, _] = r.rows[3];
    assert!(
        dense40 > 3.0 * banded40,
        "n = 40: dense {dense40} ns, banded {banded40} ns"
    );
    let col = |k: usize| r.rows.iter().map(|row| row[k]).collect::<Vec<_>>();
    let (banded, dense) = (loglog_slope(&r.ns, &col(2)), loglog_slope(&r.ns, &col(1)));
    assert!(banded < 1.6, "banded slope {banded}");
    assert!(banded < dense, "banded slope {banded}, dense {dense}");
}
