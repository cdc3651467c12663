//! Cheap versions of the SIM reproductions (`reproduce fpu-sim`, `sim-uniform`, `sim-langevin`,
//! `sim-stiff-friction` run the full ones).

use host_tests::experiments::sim::langevin::{self, LangevinSetup};
use host_tests::experiments::sim::{fpu, stiff_friction, uniform};

#[test]
fn sim_error_in_q_is_uniform_in_omega_while_verlet_blows_up() {
    // Theorem 4.2.2 at fixed H = 0.01, T = 0.5.
    let r = uniform::compute(&uniform::Setup {
        t_end: 0.5,
        ..uniform::Setup::paper()
    });
    let errs: Vec<f64> = r
        .errors_of(uniform::Which::Sim1)
        .iter()
        .map(|&(_, e)| e)
        .collect();
    let (lo, hi) = errs
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &e| (a.min(e), b.max(e)));
    // Uniform: an 8-fold range of ω changes the error by less than 50 % (measured: ~1 %).
    assert!(hi < 1.5 * lo && hi < 1e-2, "{errs:?}");
    let (w_max, vv) = *r.errors_of(uniform::Which::Verlet).last().expect("rows");
    assert_eq!(w_max, 400.0);
    assert!(
        vv.is_infinite() || vv > 1.0,
        "Verlet at ωH = 4 must blow up: {vv}"
    );
}

#[test]
fn fpu_sim1_tracks_the_reference_on_a_short_window() {
    // T = 50 (the reference trustworthy throughout): stiff energies I_j with SIM1 H = 0.01
    // against the Verlet–Richardson reference, itself checked against DOP853.
    let r = fpu::compute(&fpu::Setup {
        t_over_omega: 0.25,
        sims: vec![("sim1", 0.01)],
        timing_reps: 1,
        ..fpu::Setup::paper()
    });
    assert_eq!(r.t_end, 50.0);
    assert_eq!(
        r.trusted,
        r.richardson.t.len(),
        "trusted to t = {}",
        r.t_trusted
    );
    assert!(r.vs_dop < 1e-3, "reference vs DOP853: {:e}", r.vs_dop);
    let (e_sum, e_j) = (r.runs[0].err_sum, r.runs[0].err_j);
    // Measured by `reproduce fpu-sim` over t ≤ 220: 4e-2; on t ≤ 50 the exchange has barely
    // started and both errors are ~1e-2 or below.
    assert!(e_sum < 1e-2 && e_j < 2e-2, "ΣI {e_sum:e}, I_j {e_j:e}");
}

/// `reproduce sim-langevin` over `paths` paths of 1880 GLA steps (T ≈ 1.9: two resonant
/// outputs, one non-resonant), with a token cost comparison.
fn cheap_langevin(paths: usize) -> langevin::Results {
    langevin::compute(&langevin::Setup {
        study: LangevinSetup {
            paths,
            steps: 1880,
            stiff_start: true,
        },
        speed: (1, 0.1),
    })
}

/// With the bias allowances (soft: extrapolation over H on one Brownian path; stiff: the
/// per-path exact linear response of x replacing the impulse sum, `KickFilter`, and the
/// aliasing of the coherent stiff oscillation in the force on y, `AliasFilter`) every SIM1
/// study — resonant, non-resonant, mollified, resonant family — agrees with the Richardson GLA
/// reference at 300 paths. The full `reproduce sim-langevin` (5000 paths, 4× smaller SE) checks
/// the plain kick the same way (max |z| 3.84) and resolves the mollified kick's own excess
/// (7.8, see the ignored test below). Without the stiff allowances the non-resonant plain kick
/// fails here (its E[x] bias is ~9 SE at 300 paths), which the second half checks: the
/// allowance is not a no-op.
#[test]
fn sim_langevin_moments_agree_with_richardson_gla_after_bias_allowances() {
    let stats = cheap_langevin(300).stats.0;
    assert_eq!(stats.len(), 4);
    for st in &stats {
        assert!(!st.t.is_empty());
        let z = st.max_abs_z_vs_ref(true);
        assert!(
            z < 4.0,
            "H = {} (mollified {}, family {}): max |z| = {z}",
            st.h,
            st.mollified,
            st.family
        );
    }
    let nonresonant = &stats[1];
    assert!(!nonresonant.mollified && nonresonant.h < 0.15);
    let z_without = nonresonant.max_abs_z_vs_ref(false);
    assert!(z_without > 4.0, "stiff bias not resolved: {z_without}");
}

/// The linear variant (soft spring `½(y − x)²`): SIM1's law and the exact law in closed form.
/// The `Sim1` Monte Carlo agrees with SIM1's law computed independently (host matrix
/// exponentials: `B(H)`, `Σ(H)` by Van Loan, then the kick), which tests the implementation's
/// stochastic part with no allowance at all; after subtracting the exact bias (law − exact law)
/// it agrees with the Richardson GLA reference, which itself agrees with the exact law. The bias
/// is real: E[y] is off by ≈ 0.1 (≫ SE), E[x] at full-period H by the missed quasi-static shift.
#[test]
fn sim_langevin_linear_variant_matches_exact_laws() {
    let stats = cheap_langevin(400).linear;
    assert_eq!(stats.len(), 2);
    for st in &stats {
        assert!(!st.t.is_empty());
        let (mut z_own, mut z, mut z_ref, mut bias_y_se): (f64, f64, f64, f64) =
            (0.0, 0.0, 0.0, 0.0);
        for k in 0..st.t.len() {
            for i in 0..4 {
                let (ex, law, mc, r) = (
                    st.exact[k][i],
                    st.sim_law[k][i],
                    &st.sim_mc[k][i],
                    &st.gla_ref[k][i],
                );
                z_own = z_own.max((mc.mean() - law).abs() / mc.se());
                let se = (mc.se().powi(2) + r.se().powi(2)).sqrt();
                z = z.max((mc.mean() - (law - ex) - r.mean()).abs() / se);
                z_ref = z_ref.max((r.mean() - ex).abs() / r.se());
            }
            bias_y_se =
                bias_y_se.max((st.sim_law[k][1] - st.exact[k][1]).abs() / st.sim_mc[k][1].se());
        }
        assert!(z_own < 4.0, "H = {}: SIM vs own law {z_own}", st.h);
        assert!(z < 4.0, "H = {}: SIM − bias vs GLA ref {z}", st.h);
        assert!(z_ref < 4.0, "H = {}: GLA ref vs exact {z_ref}", st.h);
        assert!(
            bias_y_se > 10.0,
            "H = {}: bias not resolved {bias_y_se}",
            st.h
        );
    }
    // Full-period H: the E[x] bias is the missed quasi-static shift −(F(t) − e^{−ct/2}F(0))/ω²
    // of the slow force F = y − x, plus, to second order, the turn δω·t (δω = √(ω² + 1) − ω) of
    // the coherent part (x(0) − F(0)/ω²)e^{−ct/2} of x, which SIM's frozen x also misses
    // (`reproduce sim-langevin` over T = 10: 2.7 % from the first term alone, 0.18 % with both).
    let st = &stats[0];
    let (c, w2, x0, f0) = (0.1, 1e4, 0.008, 1.1);
    let dw = (w2 + 1.0f64).sqrt() - 100.0;
    for k in 0..st.t.len() {
        let f = st.exact[k][1] - st.exact[k][0];
        let decay = (-0.5 * c * st.t[k]).exp();
        let pred = -(f - decay * f0) / w2 + (x0 - f0 / w2) * decay * (1.0 - (dw * st.t[k]).cos());
        let bias = st.sim_law[k][0] - st.exact[k][0];
        assert!(
            (bias - pred).abs() < 0.01 * bias.abs(),
            "t = {}: bias {bias:e}, predicted {pred:e}",
            st.t[k]
        );
    }
}

/// Known gap of the mollified kick (eq 4.8), not of the implementation: its stiff-mode kick
/// weight `sin(ωH)/ω` turns the parametric part `−3(y − x)²x` of the soft force into an
/// eigenphase shift `k·sin(ωH)/(2ω²)` per step instead of the exact `H·k/(2ω)` (`k = 3(y − x)²`),
/// so the stiff mode's frequency shift — which the plain kick reproduces at non-resonant ωH — is
/// wrong by the factor `sin(ωH)/(ωH)` (−0.06 here); the coherent oscillation from `x(0) = 0.8/ω`
/// sampled at the grid points then biases E[x] by ≈ 2.7e-4 (7.8 SE at 5000 paths). From
/// `x(0) = 0` (no coherent oscillation) the mollified kick passes (2.1).
#[test]
#[ignore = "known gap of the mollified kick: misses the stiff mode's parametric frequency shift; \
            E[x] 7.8 SE off at 5000 paths (slow test)"]
fn sim_langevin_full_mollified_kick_agrees_with_richardson_gla() {
    let r = langevin::compute(&langevin::Setup {
        speed: (1, 0.1),
        ..langevin::Setup::paper()
    });
    for st in r.stats.0.iter().filter(|st| st.mollified) {
        let z = st.max_abs_z_vs_ref(true);
        assert!(z < 4.0, "mollified H = {}: max |z| = {z}", st.h);
    }
}

#[test]
fn stiff_friction_sim_accurate_where_gla_is_not() {
    // Remark 4.2.5: c = ω = 100, H = 0.05 (ωH = 5).
    let r = stiff_friction::compute(&stiff_friction::Setup {
        t_end: 1.0,
        cs: vec![100.0],
        runs: vec![(true, 0.05), (false, 0.05), (false, 5e-4)],
    });
    let [(_, _, _, sim), (_, _, _, gla), (_, _, _, gla_fine)] = r.errors[..] else {
        panic!("three runs")
    };
    assert!(sim < 2e-3, "sim {sim:e}");
    assert!(gla > 10.0 * sim, "gla {gla:e} vs sim {sim:e}");
    // GLA needs a step ~100× smaller to reach SIM's accuracy.
    assert!(gla_fine < 2.0 * sim, "gla h = 5e-4: {gla_fine:e}");
}
