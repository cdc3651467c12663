//! `reproduce lc-circuit` (004 §7.1) in its quick setup, and the circuit integrators' claims.
//!
//! Tolerances (one line each, why):
//! - `Z_MAX = 5`: Monte Carlo vs the scheme's exact moments over ~2400 (Fig 7.2) or 4 (Gibbs)
//!   correlated z-scores; a 5σ bound gives a family-wise false alarm rate below 1e-3.
//! - `ORDER_TOL = 0.15`: log–log slopes over h = 0.1 … 0.0125; the deterministic slope is still
//!   pre-asymptotic (0.93, the error ratios rise 1.83 → 1.96), the strong one carries the
//!   sampling noise of 100 paths.
//! - Fig 7.2 discretisation bias ≤ 2 % at h = 0.1 (measured 0.49 %; O(h), 004 says "agree very
//!   well"); Gibbs bias ≤ 2 % at h = 0.05 (measured 1.2 % on ⟨i₁²⟩).

use host_tests::experiments::lc_circuit::{compute, Results, Setup, Stat};
use host_tests::reference::circuit::{exact_moments, linear_sde};
use macrostep::circuit::{Circuit, CircuitParams, CircuitVi, NoisyCircuitVi};
use macrostep::langevin::StochasticIntegrator;
use macrostep::nalgebra::{Matrix2, Vector2, Vector4};
use macrostep::{Integrator, State};
use rand_pcg::rand_core::SeedableRng;
use rand_pcg::Pcg32;
use std::sync::OnceLock;

const Z_MAX: f64 = 5.0;
const ORDER_TOL: f64 = 0.15;

fn quick() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| compute(&Setup::quick()))
}

fn slope(y: &[f64]) -> f64 {
    host_tests::measure::loglog_slope(&Setup::quick().steps, y)
}

#[test]
fn fig_7_2_ensemble_variances_match_the_exact_variances() {
    let r = quick();
    assert_eq!(r.times.len(), 300);
    assert!(r.max_z_scheme < Z_MAX, "MC vs scheme: {}", r.max_z_scheme);
    assert!(
        r.max_rel_bias < 0.02,
        "scheme vs (7.24b): {}",
        r.max_rel_bias
    );
    let last = r.var.last().unwrap();
    for s in last {
        let bias = (s.scheme - s.exact).abs();
        assert!((s.mc - s.exact).abs() < Z_MAX * s.se + bias, "{s:?}");
        // The noise heats the lossless circuit: the variance grows (≈ linearly) with t.
        assert!(s.exact > 3e-3 && s.mc > 3e-3);
    }
}

#[test]
fn orders_are_one_as_claimed() {
    let r = quick();
    let order = <CircuitVi<f64, 4, 2> as Integrator<f64, 2>>::ORDER as f64;
    let det = slope(&r.mean_err);
    let weak = slope(&r.cov_err);
    let strong = slope(&r.strong_err);
    assert!((det - order).abs() < ORDER_TOL, "deterministic {det}");
    let sto = <NoisyCircuitVi<f64, 4, 2> as StochasticIntegrator<f64, 2>>::DETERMINISTIC_ORDER;
    assert_eq!(sto as f64, order);
    assert!((weak - 1.0).abs() < ORDER_TOL, "weak {weak}");
    assert!((strong - 1.0).abs() < ORDER_TOL, "strong {strong}");
}

#[test]
fn gibbs_statistics_with_johnson_nyquist_noise() {
    let r = quick();
    let names = ["energy", "q3_var", "q4_var", "i1_var"];
    for (name, s) in names.iter().zip(&r.gibbs) {
        let Stat {
            mc,
            se,
            exact,
            scheme,
        } = *s;
        assert!(
            (mc - scheme).abs() < Z_MAX * se,
            "{name}: MC vs scheme {s:?}"
        );
        assert!((scheme - exact).abs() < 0.02 * exact, "{name}: bias {s:?}");
        assert!(
            (mc - exact).abs() < Z_MAX * se + (scheme - exact).abs(),
            "{name}: {s:?}"
        );
    }
    let order = slope(&r.gibbs_bias);
    assert!(order > 1.0 - ORDER_TOL, "stationary bias order {order}");
}

#[test]
fn symplectic_not_symmetric_and_volume_contracting_as_claimed() {
    let r = quick();
    type Vi = CircuitVi<f64, 4, 2>;
    // The measurement decides each claim: defect at differencing level vs O(h).
    let symplectic = r.symplectic_defect < 1e-8;
    assert_eq!(
        symplectic,
        <Vi as Integrator<f64, 2>>::SYMPLECTIC,
        "{}",
        r.symplectic_defect
    );
    assert!(symplectic || r.symplectic_defect > 1e-3);
    let symmetric = r.reversibility < 1e-8;
    assert_eq!(
        symmetric,
        <Vi as Integrator<f64, 2>>::SYMMETRIC,
        "{}",
        r.reversibility
    );
    assert!(symmetric || r.reversibility > 1e-3, "{}", r.reversibility);
    assert!(r.volume_error < 1e-8, "{}", r.volume_error);
}

#[test]
fn reduced_matrices_agree_with_the_host_derivation() {
    // The §7.1.6 circuit with the seed's noise `Σ_jj = 0.01`.
    let p = CircuitParams::lc_paper(10.0, 0.01);
    let c = Circuit::new(p).unwrap();
    let (a, gbar, s) = linear_sde(&p);
    assert_eq!(c.elastance(), &s);
    assert_eq!(s, Matrix2::new(1.1, -1.0, -1.0, 1.0));
    assert_eq!(-a.fixed_view::<2, 2>(2, 0), *c.elastance());
    assert_eq!(gbar.fixed_view::<2, 4>(2, 0), *c.noise_matrix());
}

#[test]
fn exact_moments_of_a_circuit_without_capacitors_are_closed_form() {
    // No capacitor, no resistor: p̃ is a Brownian motion with covariance GGᵀt and q̃ = ∫p̃, so
    // Cov p = Qt, Cov(q, p) = Qt²/2, Cov q = Qt³/3, mean q = q₀ + p₀t.
    let mut p = CircuitParams::lc_paper(1.0, 0.3);
    p.inverse_capacitance = Vector4::zeros();
    let (a, gbar, _) = linear_sde(&p);
    let q = (gbar * gbar.transpose())
        .fixed_view::<2, 2>(2, 2)
        .into_owned();
    let t = 2.5;
    let (m, cov) = exact_moments(&a, &gbar, &Vector4::new(1.0, 0.0, 0.5, -1.0), t);
    assert!((m - Vector4::new(1.0 + 0.5 * t, -t, 0.5, -1.0)).amax() < 1e-12);
    let close = |x: Matrix2<f64>, y: Matrix2<f64>| (x - y).amax() < 1e-12 * (1.0 + y.amax());
    assert!(close(cov.fixed_view::<2, 2>(2, 2).into_owned(), q * t));
    assert!(close(
        cov.fixed_view::<2, 2>(0, 2).into_owned(),
        q * t * t / 2.0
    ));
    assert!(close(
        cov.fixed_view::<2, 2>(0, 0).into_owned(),
        q * t * t * t / 3.0
    ));
}

#[test]
fn f32_run_follows_f64_run_from_the_same_seed() {
    let c64 = Circuit::new(CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.01)).unwrap();
    let c32 = Circuit::new(CircuitParams::<f32, 4, 2>::lc_paper(10.0, 0.01)).unwrap();
    let mut v64 = NoisyCircuitVi::new(c64, 0.1).unwrap();
    let mut v32 = NoisyCircuitVi::new(c32, 0.1).unwrap();
    let (mut r64, mut r32) = (Pcg32::seed_from_u64(5), Pcg32::seed_from_u64(5));
    let mut s64 = State::at_rest(Vector2::new(1.0, 0.0));
    let mut s32 = State::at_rest(Vector2::new(1.0f32, 0.0));
    v64.integrate_noisy(&mut s64, 300, &mut r64).unwrap();
    v32.integrate_noisy(&mut s32, 300, &mut r32).unwrap();
    // 300 steps of a neutrally stable map: f32 roundoff (6e-8) grows at most linearly.
    for i in 0..2 {
        assert!((s64.q[i] - s32.q[i] as f64).abs() < 1e-4, "{s64:?} {s32:?}");
        assert!((s64.v[i] - s32.v[i] as f64).abs() < 1e-4, "{s64:?} {s32:?}");
    }
    assert!((s64.t - 30.0).abs() < 1e-9 && (s32.t - 30.0).abs() < 1e-4);
}

#[test]
fn flavor_captures_the_slow_mode_inside_its_regime() {
    // 004 §7.1.7 with ε = 1e-6, τ = 1e-4, δ = 1e-2 (τ ≪ √ε ≪ δ ≪ τ/√ε): the slow mesh charge
    // and current within 2 % of their amplitude 1 (measured 0.53 %, O(δ) + O(√ε) effects), with
    // 500× fewer legacy steps than the benchmark, which is itself exact to 1e-5.
    let r = &quick().flavor[1];
    assert!(
        r.slow_error[0] < 0.02,
        "FLAVOR slow error {}",
        r.slow_error[0]
    );
    assert!(
        r.slow_error[1] < 1e-4,
        "benchmark slow error {}",
        r.slow_error[1]
    );
    assert!((r.steps_ratio - 500.0).abs() < 1e-9);
    assert_eq!(r.times.len(), 1000);
}
