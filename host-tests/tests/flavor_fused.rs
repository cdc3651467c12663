//! The fused nonintrusive FLAVOR over symplectic Euler ([`FusedEuler`]): the same composition
//! `Φ⁰_{δ−τ} ∘ Φ^α_τ` (eq 2.45, on step eq 2.50, off step eq 2.49) at one legacy step's cost —
//! equal to the unfused composition to rounding, built independently from the baselines'
//! symplectic Euler; symplectic; and the symmetric FLAVOR over it reversible.

use host_tests::fixtures::system_2100;
use host_tests::measure::{integrator_defect, reversibility_error};
use host_tests::{for_scalars, Tolerance};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::{FusedEuler, LegacyMap, Nonintrusive, Params, Stiffness, Symmetric};
use macrostep::model::Mass;
use macrostep::nalgebra::vector;
use macrostep::{Guards, Integrator, Real, State, Stepper};

/// System 2.100 with a moderate ε so that a few FLAVOR steps move everything.
const EPS: f64 = 1e-4;

fn s0<T: Real>() -> State<T, 3> {
    State::new(
        T::zero(),
        vector![0.8, 0.811, 0.721].map(T::lit),
        vector![0.1, -0.2, 0.3].map(T::lit),
    )
}

/// One step, three ways: the fused step, the map's two sub-steps, and the composition built from
/// the baselines' symplectic Euler (drift–kick with the split's α on, then kick–drift with α = 0)
/// — over 200 FLAVOR steps (δ = 0.01, τ = 1e-3, stable: δτω² ≈ 0.3).
fn fused_equals_unfused<T: Real + Tolerance>() {
    let (delta, tau) = (T::lit(0.01), T::lit(1e-3));
    let sys = system_2100::<T>(EPS, 1.1, 0.97);
    let mut fused = FusedEuler::new(sys).unwrap();
    let mut split = fused;
    // The composition runs each baseline on a state the other one moved (a new run at every
    // step) and conserves the energy of neither system: a FLAVOR's guards bound no energy
    // (`macrostep::flavor`: the stiff spring's share of the energy swings within a step), so
    // the baselines standing in for its two sub-steps run without energy guards likewise.
    let mut on = SymplecticEuler::new(sys, tau, EulerOrdering::DriftKick)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let mut off_sys = sys;
    off_sys.potential.alpha = T::zero();
    let mut off = SymplecticEuler::new(off_sys, delta - tau, EulerOrdering::KickDrift)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let (mut a, mut b, mut c) = (s0::<T>(), s0::<T>(), s0::<T>());
    let mut worst: f64 = 0.0;
    for _ in 0..200 {
        fused.flavor_step(&mut a, delta, tau, T::zero()).unwrap();
        split
            .step(&mut b, tau, Stiffness::On { clock: T::zero() })
            .unwrap();
        split.step(&mut b, delta - tau, Stiffness::Off).unwrap();
        on.step(&mut c).unwrap();
        off.step(&mut c).unwrap();
        for other in [&b, &c] {
            let scale = 1.0 + a.q.amax().to_f64().max(a.v.amax().to_f64());
            let d = (a.q - other.q)
                .amax()
                .to_f64()
                .max((a.v - other.v).amax().to_f64());
            worst = worst.max(d / scale);
        }
    }
    // Same arithmetic up to the order of two additions per step: roundoff only.
    assert!(worst <= T::SAME_MATH, "fused vs unfused: {worst:e}");
    // And the states moved (the comparison is not vacuous): the slow variable changed by O(1).
    let slow = |s: &State<T, 3>| (s.q.sum() / T::lit(3.0)).to_f64();
    assert!((slow(&a) - slow(&s0::<T>())).abs() > 0.05);
}
for_scalars!(fused_equals_unfused);

// Central differences with step 1e-5: roundoff ~1e-16·|DΦ|²/1e-5 ~ 1e-9 with |DΦ| ~ 10 (the
// stiff kick ατ = 10), truncation ~1e-10·|D³Φ| (only the soft x⁴ has a third derivative).
const DEFECT_TOL: f64 = 1e-9;

fn symplectic_claim<I: Integrator<f64, 3>>(_: &I) -> bool {
    I::SYMPLECTIC
}

#[test]
fn fused_flavor_is_symplectic() {
    let sys = system_2100::<f64>(EPS, 1.1, 0.97);
    let mut f = Nonintrusive::new(
        FusedEuler::new(sys).unwrap(),
        Params::new(0.01, 1e-3).unwrap(),
    )
    .unwrap();
    let d = integrator_defect(&mut f, &Mass::identity(), &s0::<f64>(), 5, 1e-5);
    assert!(d <= DEFECT_TOL, "defect {d:e}");
    assert!(symplectic_claim(&f));
    // Not symmetric: a step back does not undo a step.
    let r = reversibility_error(&mut f, &s0::<f64>(), 20);
    assert!(r > 1e-4, "unexpectedly reversible: {r:e}");
}

#[test]
fn symmetric_flavor_over_fused_map_is_symplectic_and_reversible() {
    let sys = system_2100::<f64>(EPS, 1.1, 0.97);
    let mut f = Symmetric::new(
        FusedEuler::new(sys).unwrap(),
        Params::new(0.01, 1e-3).unwrap(),
    )
    .unwrap();
    let d = integrator_defect(&mut f, &Mass::identity(), &s0::<f64>(), 5, 1e-5);
    assert!(d <= DEFECT_TOL, "defect {d:e}");
    // 20 steps forth and back: roundoff only (|v| up to ~10 here).
    let r = reversibility_error(&mut f, &s0::<f64>(), 20);
    assert!(r <= 1e-12, "reversibility {r:e}");
}

/// Theorem 2.4.1 over the fused map: the stiff-noise Langevin FLAVOR (eq 2.89) uses
/// [`LegacyMap::flavor_step`], and with the noise frozen its step Jacobian determinant is the
/// friction's contraction `Πᵢ e^{−α cᵢ τ}` (the fused map is symplectic).
#[test]
fn langevin_stiff_over_fused_map_is_conformally_symplectic() {
    use host_tests::measure::{from_phase, jacobian_determinant, to_phase};
    use macrostep::flavor::LangevinStiff;
    use macrostep::langevin::StochasticIntegrator;
    use macrostep::nalgebra::{DVector, SVector};
    let sys = system_2100::<f64>(EPS, 1.1, 0.97);
    let p = Params::new(0.01, 1e-3).unwrap();
    let (c, sigma): (SVector<f64, 3>, SVector<f64, 3>) =
        (vector![0.7, 0.2, 0.0], vector![0.5, 0.4, 0.0]);
    let alpha = 100.0;
    let mut f = LangevinStiff::new(
        FusedEuler::new(sys).unwrap(),
        p,
        &Mass::identity(),
        c,
        sigma,
        alpha,
    )
    .unwrap();
    let mass = Mass::identity();
    let det = jacobian_determinant(
        |x: &DVector<f64>| {
            let mut s = from_phase(x, &mass, 0.0);
            f.step_noisy(&mut s, &mut rand_pcg::Pcg32::new(42, 54))
                .expect("step");
            to_phase(&s, &mass)
        },
        &to_phase(&s0::<f64>(), &mass),
        1e-6,
    );
    let expect = (-alpha * c.sum() * p.tau()).exp();
    // Central differences (step 1e-6) of an affine-in-the-stiff-part map: roundoff
    // ~1e-16/1e-6·|DΦ|² with |DΦ| ~ 10 gives ~1e-8 per entry; measured 3e-10, bound 1e-7 as in
    // flavor_langevin.rs. The expected value, e^{−0.09} ≈ 0.914, is far from the symplectic 1.
    assert!((det - expect).abs() < 1e-7, "{det} vs {expect}");
}
