//! Reversibility, symplecticity defects and linear stability (Theorem 2.5).

use super::*;

/// Theorem 2.9 / Cor 2.10: Φ₋ₕ∘Φₕ = id. 1e-12 is a few hundred roundoffs over 2·100 steps.
#[test]
fn symmetric_methods_are_reversible() {
    let s0 = hh_start();
    let tol = 1e-12;
    let e = reversibility_error(&mut ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap(), &s0, 100);
    assert!(e < tol, "Z&S {e}");
    let e = reversibility_error(&mut Sylipn::new(hh(), 0.1, p(0.4)).unwrap(), &s0, 100);
    assert!(e < tol, "Z&Ss {e}");
    let e = reversibility_error(
        &mut StiffSylipn::new(hh_split(), 0.1, p(0.4)).unwrap(),
        &s0,
        100,
    );
    assert!(e < tol, "stiff Z&Ss {e}");
    for scheme in [Scheme::TripleJump, Scheme::Suzuki5] {
        let mut c =
            SymmetricComposition::new(ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap(), scheme).unwrap();
        let e = reversibility_error(&mut c, &s0, 100);
        assert!(e < tol, "{scheme:?} {e}");
    }
    // Newton-solved methods are symmetric up to the Newton tolerance; with tol = 1e-14 the
    // iteration ends at roundoff.
    let tight = ImplicitNewtonParams {
        tol: 1e-14,
        max_iter: 50,
    };
    let e = reversibility_error(
        &mut Newmark::new(hh(), 0.1, pn(0.4, tight)).unwrap(),
        &s0,
        100,
    );
    assert!(e < 1e-11, "Newmark {e}");
    let e = reversibility_error(
        &mut PushForwardNewmark::new(hh(), 0.1, pn(0.4, tight)).unwrap(),
        &s0,
        100,
    );
    assert!(e < 1e-11, "push-forward {e}");
    // The negative baseline is not symmetric: the same measurement must see it.
    let e = reversibility_error(
        &mut NewmarkOneIteration::new(hh(), 0.1, p(0.4)).unwrap(),
        &s0,
        100,
    );
    // (Only mildly asymmetric on this smooth problem — ~1e-8 — but four orders of magnitude
    // above the symmetric methods' roundoff.)
    assert!(
        e > 1e-10,
        "one-iteration Newmark unexpectedly reversible: {e}"
    );
}

/// Theorem 2.12 (Z&S symplectic), Theorem 2.4 / Remark 2.14 (Z&Ss only under commutation).
/// Central differences with ε = 1e-5 have truncation ~1e-10·V‴ and roundoff ~1e-11.
#[test]
fn symplecticity_defects() {
    let s0 = hh_start();
    let m = Mass::identity();
    let zs = integrator_defect(
        &mut ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let zss = integrator_defect(
        &mut Sylipn::new(hh(), 0.1, p(0.4)).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let zs4 = integrator_defect(
        &mut SymmetricComposition::new(
            ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap(),
            Scheme::Suzuki5,
        )
        .unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let tight = ImplicitNewtonParams {
        tol: 1e-14,
        max_iter: 50,
    };
    let pf = integrator_defect(
        &mut PushForwardNewmark::new(hh(), 0.1, pn(0.4, tight)).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let nm = integrator_defect(
        &mut Newmark::new(hh(), 0.1, pn(0.4, tight)).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let one = integrator_defect(
        &mut NewmarkOneIteration::new(hh(), 0.1, p(0.4)).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    println!("defects: zs {zs:e} zss {zss:e} zs4 {zs4:e} pf {pf:e} nm {nm:e} one {one:e}");
    assert!(zs < 1e-9, "Z&S defect {zs}");
    assert!(zs4 < 1e-9, "composed Z&S defect {zs4}");
    assert!(pf < 1e-9, "push-forward Newmark defect {pf}");
    assert!(
        zss > 100.0 * zs.max(1e-12),
        "Z&Ss defect {zss} not above Z&S {zs}"
    );
    assert!(
        nm > 1e-6,
        "Newmark (q, v) map should not be canonically symplectic: {nm}"
    );
    assert!(one > 1e-6, "one-iteration Newmark defect {one}");
    // One degree of freedom: the commutation condition holds and Z&Ss is symplectic.
    let pend = System::new(Mass::identity(), PendulumPotential::new(1.0));
    let s1 = State::new(0.0, vector![1.0], vector![0.3]);
    let d = integrator_defect(
        &mut Sylipn::new(pend, 0.1, p(0.4)).unwrap(),
        &Mass::identity(),
        &s1,
        10,
        1e-5,
    );
    assert!(d < 1e-9, "Z&Ss 1-DOF defect {d}");
}

/// Energy-norm amplification `max_k ‖(ωq_k, v_k)‖ / ‖(ωq_0, v_0)‖` over `steps` steps.
fn amplification<I: Integrator<f64, 1>>(mut integ: I, omega: f64, steps: usize) -> f64 {
    // The raw linear map, also where it grows: the step guards would refuse those steps.
    integ.set_guards(macrostep::Guards::off()).unwrap();
    let mut s = State::new(0.0, vector![1.0], vector![0.0]);
    let n0 = omega;
    let mut worst: f64 = 1.0;
    for _ in 0..steps {
        if integ.step(&mut s).is_err() {
            return f64::INFINITY;
        }
        let n = (omega * omega * s.q[0] * s.q[0] + s.v[0] * s.v[0]).sqrt();
        worst = worst.max(n / n0);
        if worst > 1e6 {
            return worst;
        }
    }
    worst
}

/// Theorem 2.5: β ≥ ¼ unconditionally stable; β = 0.2 loses stability at hω = 2/√(1−4β).
#[test]
fn linear_stability_theorem_2_5() {
    let omega = 1.0;
    let osc = HarmonicOscillator::<f64, 1>::isotropic(omega).unwrap();
    for &hw in &[0.1, 1.0, 4.0, 10.0, 100.0, 1e3, 1e4] {
        let a = amplification(
            ZhangSkeel::new(osc.system(), hw, p(0.25)).unwrap(),
            omega,
            2000,
        );
        assert!(a <= 10.0, "β = ¼, hω = {hw}: amplification {a}");
        let a = amplification(Sylipn::new(osc.system(), hw, p(0.25)).unwrap(), omega, 2000);
        assert!(a <= 10.0, "Z&Ss β = ¼, hω = {hw}: amplification {a}");
    }
    let crit = 2.0 / (1.0f64 - 0.8).sqrt();
    let below = amplification(
        ZhangSkeel::new(osc.system(), 0.99 * crit, p(0.2)).unwrap(),
        omega,
        2000,
    );
    let above = amplification(
        ZhangSkeel::new(osc.system(), 1.01 * crit, p(0.2)).unwrap(),
        omega,
        2000,
    );
    assert!(below <= 10.0, "β = 0.2 below critical: {below}");
    assert!(above > 1e3, "β = 0.2 above critical: {above}");
}

/// Stiff Z&Ss on a split with a stiff quadratic part: bounded at hω_stiff = 100.
#[test]
fn stiff_sylipn_is_stable_across_the_stiff_scale() {
    let soft = Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]);
    let stiff = Quadratic::new(matrix![0.0, 0.0; 0.0, 1.0]);
    let sys = System::new(Mass::identity(), Split::new(soft, stiff, 1e6));
    // The raw method's stability (bounded energy, checked below): at hω = 100 the stiff mode's
    // true energy swings far below its start between turning points, which the guards refuse.
    let mut m = StiffSylipn::new(sys, 0.1, p(0.3))
        .unwrap()
        .with_guards(macrostep::Guards::off())
        .unwrap();
    let mut s = State::at_rest(vector![1.0, 1.0]);
    let e0 = sys.energy(&s);
    for _ in 0..10_000 {
        m.step(&mut s).unwrap();
        assert!(sys.energy(&s) <= 10.0 * e0);
    }
}
