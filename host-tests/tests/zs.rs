//! The Zhang–Skeel family: order, symmetry, symplecticity, stability, cost, bad input, cross-checks.

use host_tests::fixtures::{HenonHeiles, PendulumPotential};
use host_tests::measure::{integrator_defect, loglog_slope, reversibility_error};
use host_tests::zs_support::{dyn_zs, hh_grad, hh_hess, hh_third, DynPotential, FpuChain};
use host_tests::{for_scalars, Tolerance};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::linalg::{BandMut, Banded};
use macrostep::model::{Hessian, Mass, Potential, Quadratic, Split, System, ThirdDerivative};
use macrostep::systems::HarmonicOscillator;
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkOneIteration, PushForwardNewmark, StiffSylipn, Sylipn,
    ZhangSkeel, ZsParams,
};
use macrostep::{ConfigError, Integrator, Real, State, StepError};
use nalgebra::{matrix, vector, DVector, SMatrix, SVector};
use std::cell::Cell;

fn p(beta: f64) -> ZsParams<f64> {
    ZsParams::with_beta(beta)
}

fn hh() -> System<f64, HenonHeiles, 2> {
    System::new(Mass::identity(), HenonHeiles)
}

fn hh_start() -> State<f64, 2> {
    State::new(0.0, vector![0.3, -0.2], vector![0.1, 0.25])
}

/// A split of Hénon–Heiles: the cubic part soft, a stiff quadratic `½·(x² + 4y²)` with α = 100.
type HhSplit = Split<f64, HenonHeiles, Quadratic<f64, 2>>;
fn hh_split() -> System<f64, HhSplit, 2> {
    System::new(
        Mass::identity(),
        Split::new(
            HenonHeiles,
            Quadratic::new(matrix![1.0, 0.0; 0.0, 4.0]),
            100.0,
        ),
    )
}

/// Error at T of a run with step h against a run with h/2 (Richardson form): the successive
/// differences shrink like h^p, so their slope is the order. The expected value (the order) is a
/// number from the paper, not from the code under test.
fn successive_difference_slope<I: Integrator<f64, 2>>(
    make: impl Fn(f64) -> I,
    s0: State<f64, 2>,
    t_end: f64,
    hs: &[f64],
) -> f64 {
    let run = |h: f64| {
        let mut integ = make(h);
        let mut s = s0;
        let n = (t_end / h).round() as usize;
        integ.integrate(&mut s, n).unwrap();
        s
    };
    let sols: Vec<_> = hs.iter().map(|&h| run(h)).collect();
    let mut x = vec![];
    let mut e = vec![];
    for k in 0..hs.len() - 1 {
        let d = (sols[k].q - sols[k + 1].q)
            .amax()
            .max((sols[k].v - sols[k + 1].v).amax());
        x.push(hs[k]);
        e.push(d);
    }
    loglog_slope(&x, &e)
}

#[test]
fn second_order_zs_zss_stiff_and_fourth_order_composition() {
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let zs = successive_difference_slope(
        |h| ZhangSkeel::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let zss = successive_difference_slope(
        |h| Sylipn::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let stiff = successive_difference_slope(
        |h| StiffSylipn::new(hh_split(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &[0.005, 0.0025, 0.00125, 0.000625],
    );
    let zs4 = successive_difference_slope(
        |h| {
            SymmetricComposition::new(
                ZhangSkeel::new(hh(), h, p(0.4)).unwrap(),
                Scheme::TripleJump,
            )
            .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    let su = successive_difference_slope(
        |h| {
            SymmetricComposition::new(ZhangSkeel::new(hh(), h, p(0.4)).unwrap(), Scheme::Suzuki5)
                .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    assert!((zs - 2.0).abs() < 0.1, "Z&S order {zs}");
    assert!((zss - 2.0).abs() < 0.1, "Z&Ss order {zss}");
    assert!((stiff - 2.0).abs() < 0.1, "stiff Z&Ss order {stiff}");
    assert!((zs4 - 4.0).abs() < 0.2, "triple-jump Z&S order {zs4}");
    assert!((su - 4.0).abs() < 0.2, "Suzuki Z&S order {su}");
}

#[test]
fn newmark_variants_are_second_order() {
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let nm = successive_difference_slope(
        |h| Newmark::new(hh(), h, p(0.4), ImplicitNewtonParams::default()).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let pf = successive_difference_slope(
        |h| PushForwardNewmark::new(hh(), h, p(0.4), ImplicitNewtonParams::default()).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let one = successive_difference_slope(
        |h| NewmarkOneIteration::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    for (name, s) in [
        ("newmark", nm),
        ("push-forward", pf),
        ("one-iteration", one),
    ] {
        assert!((s - 2.0).abs() < 0.1, "{name} order {s}");
    }
}

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
        &mut Newmark::new(hh(), 0.1, p(0.4), tight).unwrap(),
        &s0,
        100,
    );
    assert!(e < 1e-11, "Newmark {e}");
    let e = reversibility_error(
        &mut PushForwardNewmark::new(hh(), 0.1, p(0.4), tight).unwrap(),
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
        &mut PushForwardNewmark::new(hh(), 0.1, p(0.4), tight).unwrap(),
        &m,
        &s0,
        10,
        1e-5,
    );
    let nm = integrator_defect(
        &mut Newmark::new(hh(), 0.1, p(0.4), tight).unwrap(),
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

/// Counts derivative evaluations, to check the cost claims of the FSAL cache.
#[derive(Default)]
struct Counting {
    grad: Cell<usize>,
    hess: Cell<usize>,
    third: Cell<usize>,
}
impl Potential<f64, 2> for Counting {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        HenonHeiles.energy(q)
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        self.grad.set(self.grad.get() + 1);
        HenonHeiles.gradient(q)
    }
}
impl Hessian<f64, 2> for Counting {
    fn hessian(&self, q: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        self.hess.set(self.hess.get() + 1);
        HenonHeiles.hessian(q)
    }
}
impl ThirdDerivative<f64, 2> for Counting {
    fn third_contraction(&self, q: &SVector<f64, 2>, a: &SVector<f64, 2>) -> SVector<f64, 2> {
        self.third.set(self.third.get() + 1);
        HenonHeiles.third_contraction(q, a)
    }
}

#[test]
fn one_gradient_hessian_contraction_per_step_and_cache_keyed_on_h() {
    let c = Counting::default();
    let sys = System::new(Mass::identity(), &c);
    let mut zs = ZhangSkeel::new(sys, 0.1, p(0.4)).unwrap();
    let mut s = hh_start();
    zs.step(&mut s).unwrap();
    let (g0, h0, t0) = (c.grad.get(), c.hess.get(), c.third.get());
    assert_eq!(
        (g0, h0, t0),
        (2, 2, 2),
        "first step evaluates f at both ends"
    );
    zs.integrate(&mut s, 10).unwrap();
    assert_eq!(c.grad.get() - g0, 10);
    assert_eq!(c.hess.get() - h0, 10);
    assert_eq!(c.third.get() - t0, 10);
    // A step of another size must not reuse f (f depends on h): compare with a fresh integrator.
    let before = s;
    let mut cached = s;
    zs.step_by(&mut cached, 0.05).unwrap();
    let mut fresh_s = before;
    ZhangSkeel::new(hh(), 0.05, p(0.4))
        .unwrap()
        .step(&mut fresh_s)
        .unwrap();
    assert_eq!(cached, fresh_s, "cache reused across step sizes");
}

/// Item 9: bad input → typed errors, state untouched.
#[test]
fn bad_input_is_rejected_with_typed_errors() {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
    assert_eq!(
        ZhangSkeel::new(osc.system(), 0.1, p(-0.1)).unwrap_err(),
        ConfigError::OutOfRange {
            name: "beta",
            bound: ">= 0"
        }
    );
    assert_eq!(
        Sylipn::new(osc.system(), 0.1, p(f64::NAN)).unwrap_err(),
        ConfigError::NonFinite { name: "beta" }
    );
    for h in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert_eq!(
            ZhangSkeel::new(osc.system(), h, p(0.4)).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Newmark::new(osc.system(), h, p(0.4), ImplicitNewtonParams::default()).unwrap_err(),
            ConfigError::StepSize
        );
    }
    let one = NewmarkOneIteration::new(osc.system(), 0.1, p(0.4)).unwrap();
    assert!(SymmetricComposition::new(one, Scheme::TripleJump).is_err());
    let mut zs = ZhangSkeel::new(osc.system(), 0.1, p(0.4)).unwrap();
    // NaN in the state
    let mut s = State::new(0.0, vector![f64::NAN], vector![0.0]);
    let copy = s;
    assert_eq!(zs.step(&mut s), Err(StepError::NonFiniteState));
    assert!(s.q[0].is_nan() && s.v == copy.v && s.t == copy.t);
    // zero / NaN step
    let mut s = osc.initial_state();
    assert_eq!(zs.step_by(&mut s, 0.0), Err(StepError::StepSize));
    assert_eq!(zs.step_by(&mut s, f64::NAN), Err(StepError::StepSize));
    assert_eq!(s, osc.initial_state());
    // Singular M + βh²K: K = −4, β = ¼, h = 1 → 1 − 1 = 0.
    let neg = System::new(Mass::identity(), Quadratic::new(matrix![-4.0]));
    let mut s = State::new(0.0, vector![0.5], vector![0.1]);
    let copy = s;
    let np = ImplicitNewtonParams::default();
    let results = [
        ZhangSkeel::new(neg, 1.0, p(0.25)).unwrap().step(&mut s),
        Sylipn::new(neg, 1.0, p(0.25)).unwrap().step(&mut s),
        Newmark::new(neg, 1.0, p(0.25), np).unwrap().step(&mut s),
        PushForwardNewmark::new(neg, 1.0, p(0.25), np)
            .unwrap()
            .step(&mut s),
        NewmarkOneIteration::new(neg, 1.0, p(0.25))
            .unwrap()
            .step(&mut s),
    ];
    for r in results {
        assert_eq!(r, Err(StepError::Singular));
    }
    assert_eq!(s, copy);
    // Indefinite but regular: K = diag(−8, 1), β = ¼, h = 1 → M + βh²K = diag(−1, 1.25): the
    // LU fallback solves it. a₀ = −(−8·0.5)/(−1) = −4, so x₁ = 0.5 + ½·(−4) = −1.5.
    let indef = System::new(
        Mass::identity(),
        Quadratic::new(matrix![-8.0, 0.0; 0.0, 1.0]),
    );
    let mut s2 = State::new(0.0, vector![0.5, 0.5], vector![0.0, 0.0]);
    ZhangSkeel::new(indef, 1.0, p(0.25))
        .unwrap()
        .step(&mut s2)
        .unwrap();
    assert!((s2.q[0] + 1.5).abs() < 1e-15, "{}", s2.q[0]);
    // Newton that cannot converge in its cap → NotConverged, state untouched.
    let capped = ImplicitNewtonParams {
        tol: 1e-15,
        max_iter: 1,
    };
    let mut nm = Newmark::new(hh(), 0.5, p(0.4), capped).unwrap();
    let mut s = hh_start();
    assert_eq!(nm.step(&mut s), Err(StepError::NotConverged));
    assert_eq!(s, hh_start());
    let mut pf = PushForwardNewmark::new(hh(), 0.5, p(0.4), capped).unwrap();
    assert_eq!(pf.step(&mut s), Err(StepError::NotConverged));
    assert_eq!(s, hh_start());
    // Overflow → NonFiniteResult, state untouched.
    let mut unstable = ZhangSkeel::new(osc.system(), 100.0, p(0.0)).unwrap();
    let mut s = State::new(0.0, vector![1e306], vector![0.0]);
    let copy = s;
    assert_eq!(unstable.step(&mut s), Err(StepError::NonFiniteResult));
    assert_eq!(s, copy);
}

/// A failed step (here an overflow, after the cached `f` was used or replaced) leaves the
/// first-same-as-last cache consistent: the next steps equal those of a fresh integrator.
#[test]
fn failed_step_leaves_the_cache_consistent() {
    let mut zs = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
    let mut s = hh_start();
    zs.integrate(&mut s, 3).unwrap();
    // Same position and step (a cache hit), absurd velocity: the force at the new position
    // overflows and the step fails after using the cached `f`.
    let mut bad = s;
    bad.v[0] = f64::MAX;
    let bad_copy = bad;
    assert!(zs.step(&mut bad).is_err());
    assert_eq!(bad, bad_copy);
    // Same position, another step size (a miss: `f` is recomputed in place), failing.
    let mut bad = s;
    assert!(zs.step_by(&mut bad, 1e200).is_err());
    assert_eq!(bad, s);
    // Another position that overflows: the cache is recomputed there, then the step fails.
    let mut far = State::new(0.0, vector![1e300, 0.0], vector![0.0, 0.0]);
    let far_copy = far;
    assert!(zs.step(&mut far).is_err());
    assert_eq!(far, far_copy);
    let mut fresh = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
    let mut s2 = s;
    zs.integrate(&mut s, 3).unwrap();
    fresh.integrate(&mut s2, 3).unwrap();
    assert_eq!(s, s2);
}

fn max_diff(s: &State<f64, 2>, q: &DVector<f64>, v: &DVector<f64>) -> f64 {
    (s.q - SVector::<f64, 2>::from_column_slice(q.as_slice()))
        .amax()
        .max((s.v - SVector::<f64, 2>::from_column_slice(v.as_slice())).amax())
}

/// Item 8: the no_std Z&S / Z&Ss / stiff Z&Ss agree with a dynamic-size f64 reimplementation.
/// 1e-12 (`f64::SAME_MATH`): accumulated roundoff over 1000 steps.
#[test]
fn cross_check_against_dynamic_reimplementation() {
    let s0 = hh_start();
    let q0 = DVector::from_column_slice(s0.q.as_slice());
    let v0 = DVector::from_column_slice(s0.v.as_slice());
    let ones = DVector::from_element(2, 1.0);
    let pot = DynPotential {
        grad: &hh_grad,
        hess: &hh_hess,
        third: &hh_third,
    };
    for full in [true, false] {
        let (q, v) = dyn_zs(
            &pot,
            &ones,
            q0.clone(),
            v0.clone(),
            0.1,
            0.4,
            1.0,
            full,
            1000,
        );
        let mut s = s0;
        if full {
            let mut m = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
            m.integrate(&mut s, 1000).unwrap();
        } else {
            let mut m = Sylipn::new(hh(), 0.1, p(0.4)).unwrap();
            m.integrate(&mut s, 1000).unwrap();
        }
        let e = max_diff(&s, &q, &v);
        assert!(e < <f64 as Tolerance>::SAME_MATH, "full = {full}: {e}");
    }
    // Stiff Z&Ss: gradient of the whole split, Hessian of the stiff part times α.
    let grad = |x: &DVector<f64>| {
        let mut g = hh_grad(x);
        g[0] += 100.0 * x[0];
        g[1] += 100.0 * 4.0 * x[1];
        g
    };
    let hess = |_: &DVector<f64>| nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 4.0]);
    let pot = DynPotential {
        grad: &grad,
        hess: &hess,
        third: &hh_third,
    };
    let (q, v) = dyn_zs(&pot, &ones, q0, v0, 0.05, 0.4, 100.0, false, 1000);
    let mut s = s0;
    // Same arithmetic as the reimplementation, also where the stiff mode's energy swings.
    let mut m = StiffSylipn::new(hh_split(), 0.05, p(0.4))
        .unwrap()
        .with_guards(macrostep::Guards::off())
        .unwrap();
    m.integrate(&mut s, 1000).unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < <f64 as Tolerance>::SAME_MATH, "stiff: {e}");
}

/// The banded solver gives the same Z&S trajectory as the dense one on a tridiagonal chain.
#[test]
fn banded_solver_matches_dense() {
    let sys = System::new(Mass::identity(), FpuChain { k: 1.0 });
    let s0 = State::new(
        0.0,
        SVector::<f64, 12>::from_fn(|i, _| 0.3 * (i as f64 * 0.7).sin()),
        SVector::<f64, 12>::from_fn(|i, _| 0.1 * (i as f64).cos()),
    );
    let mut a = s0;
    let mut b = s0;
    let mut dense = ZhangSkeel::new(sys, 0.2, p(0.4)).unwrap();
    dense.integrate(&mut a, 500).unwrap();
    let mut banded = ZhangSkeel::with_solver(sys, 0.2, p(0.4), Banded::<2>).unwrap();
    banded.integrate(&mut b, 500).unwrap();
    // Different elimination orders round differently; 1e-11 covers 500 steps of it.
    assert!((a.q - b.q).amax() < 1e-11 && (a.v - b.v).amax() < 1e-11);
    // A model without a band is refused at construction; so is a full mass.
    assert!(ZhangSkeel::with_solver(hh(), 0.1, p(0.4), Banded::<2>).is_err());
    let m = SMatrix::<f64, 12, 12>::identity() * 2.0 + SMatrix::from_element(0.01);
    let full = System::new(Mass::full(m).unwrap(), FpuChain { k: 1.0 });
    assert!(ZhangSkeel::with_solver(full, 0.1, p(0.4), Banded::<2>).is_err());
}

/// f32 runs stay within the f32 tolerance of the f64 run (and f64 of itself, trivially tight).
fn f32_tracks_f64<T: Real + Tolerance>() {
    let sys = System::new(Mass::identity(), HenonHeiles);
    let s0 = hh_start().cast::<T>();
    let h = T::lit(0.1);
    let beta = ZsParams::with_beta(T::lit(0.4));
    let mut a = s0;
    ZhangSkeel::new(sys, h, beta)
        .unwrap()
        .integrate(&mut a, 1000)
        .unwrap();
    let mut b = hh_start();
    ZhangSkeel::new(hh(), 0.1, p(0.4))
        .unwrap()
        .integrate(&mut b, 1000)
        .unwrap();
    let e = (a.q.map(|x| x.to_f64()) - b.q).amax();
    // SAME_MATH allows 10³ steps of linearly growing roundoff; ×10 for the phase error that
    // roundoff induces in an oscillation over t = 100.
    assert!(e < 10.0 * T::SAME_MATH, "{e}");
}
for_scalars!(f32_tracks_f64);

// --- chain of pendula: local penalty derivatives and the banded solver ---------------------------

use macrostep::model::Constraint;
use macrostep::systems::Chain;

fn chain_state<const N: usize, const D: usize>(chain: &Chain<f64, N, D>) -> State<f64, N> {
    let mut s = chain.initial_state();
    // leave the constraint manifold and move, so every term is non-zero
    for i in 0..N {
        s.q[i] += 0.01 * ((i as f64) * 1.3).sin();
        s.v[i] = 0.2 * ((i as f64) * 0.7).cos();
    }
    s
}

/// The O(D) penalty gradient, third contraction and Hessian band of the distance constraints
/// agree with independent assemblies: `Jᵀ W g` from the dense Jacobian, central differences of
/// the Hessian, and the dense Hessian.
#[test]
fn chain_penalty_local_derivatives_match_dense() {
    let chain = Chain::<f64, 20, 10>::slanted();
    let sys = chain.penalised(20.0).unwrap();
    let s = chain_state(&chain);
    let q = s.q;
    let pen = &sys.potential;
    let g = pen.constraint.value(&q);
    let dense_grad = pen.base.gradient(&q) + pen.constraint.jacobian(&q).tr_mul(&(g * 400.0));
    assert!((pen.gradient(&q) - dense_grad).amax() < 1e-10 * dense_grad.amax().max(1.0));
    let a = s.v;
    let eps = 1e-5;
    let fd = (pen.hessian(&(q + a * eps)) - pen.hessian(&(q - a * eps))) / (2.0 * eps) * a;
    let c = pen.third_contraction(&q, &a);
    // central differences: O(ε²) truncation (zero here: the Hessian is quadratic in q) and
    // O(1e-16·|H|/ε) roundoff with |H| ~ 1e4
    assert!(
        (c - fd).amax() < 1e-6 * c.amax().max(1.0),
        "{}",
        (c - fd).amax()
    );
    let h = pen.hessian(&q);
    let mut band = SMatrix::<f64, 4, 20>::zeros();
    assert!(pen.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut band)));
    for j in 0..20 {
        for i in j..20 {
            let expect = h[(i, j)];
            let got = if i - j < 4 { band[(i - j, j)] } else { 0.0 };
            assert!(
                (got - expect).abs() < 1e-9 * h.amax(),
                "({i},{j}) {got} vs {expect}"
            );
        }
    }
    // The dense in-place assembly (link by link) equals the dense Hessian: M + c·Hess.
    let mut m = SMatrix::<f64, 20, 20>::identity();
    pen.add_hessian(&q, 0.3, &mut m);
    let expect = SMatrix::<f64, 20, 20>::identity() + h * 0.3;
    assert!((m - expect).amax() < 1e-12 * expect.amax());
    // three diagonals are too few for 2×2 blocks between neighbours
    let mut narrow = SMatrix::<f64, 3, 20>::zeros();
    assert!(!pen.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut narrow)));
    // The trait stays dyn-compatible.
    let dynamic: &dyn Hessian<f64, 20> = pen;
    let mut again = SMatrix::<f64, 4, 20>::zeros();
    assert!(dynamic.hessian_band(&q, 1.0, &mut BandMut::from_matrix(&mut again)));
    assert_eq!(again, band);
}

/// Z&S with the banded solver on the chain of 10 pendula equals the dense run.
#[test]
fn chain_banded_zs_matches_dense() {
    let chain = Chain::<f64, 20, 10>::slanted();
    let sys = chain.penalised(20.0).unwrap();
    let s0 = chain.initial_state();
    let (mut a, mut b) = (s0, s0);
    let mut dense = ZhangSkeel::new(sys, 0.05, p(0.4)).unwrap();
    dense.integrate(&mut a, 100).unwrap();
    let mut banded = ZhangSkeel::with_solver(sys, 0.05, p(0.4), Banded::<4>).unwrap();
    banded.integrate(&mut b, 100).unwrap();
    // different elimination order → different rounding; 1e-9 over 100 steps of a stiff problem
    let e = (a.q - b.q).amax().max((a.v - b.v).amax());
    assert!(e < 1e-9, "{e}");
    let mut c = s0;
    let mut stiff = Sylipn::with_solver(sys, 0.05, p(0.4), Banded::<4>).unwrap();
    stiff.integrate(&mut c, 10).unwrap();
}

/// Item 8 for the Newton-solved methods and the composition: the same algorithms written again
/// in dynamic size agree to 1e-12 over 1000 steps (both iterate to the same stopping rule).
#[test]
fn cross_check_newmark_push_forward_and_composition() {
    use host_tests::zs_support::{dyn_newmark, dyn_push_forward};
    let s0 = hh_start();
    let q0 = DVector::from_column_slice(s0.q.as_slice());
    let v0 = DVector::from_column_slice(s0.v.as_slice());
    let ones = DVector::from_element(2, 1.0);
    let pot = DynPotential {
        grad: &hh_grad,
        hess: &hh_hess,
        third: &hh_third,
    };
    let tol = 1e-13;
    let np = ImplicitNewtonParams { tol, max_iter: 100 };
    let tolerance = <f64 as Tolerance>::SAME_MATH;

    let (q, v) = dyn_newmark(
        &pot,
        &ones,
        q0.clone(),
        v0.clone(),
        0.1,
        0.4,
        tol,
        false,
        1000,
    );
    let mut s = s0;
    Newmark::new(hh(), 0.1, p(0.4), np)
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "Newmark {e}");

    let (q, v) = dyn_newmark(
        &pot,
        &ones,
        q0.clone(),
        v0.clone(),
        0.1,
        0.4,
        tol,
        true,
        1000,
    );
    let mut s = s0;
    NewmarkOneIteration::new(hh(), 0.1, p(0.4))
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "one-iteration Newmark {e}");

    let (q, v) = dyn_push_forward(&pot, &ones, q0.clone(), v0.clone(), 0.1, 0.4, tol, 1000);
    let mut s = s0;
    PushForwardNewmark::new(hh(), 0.1, p(0.4), np)
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "push-forward Newmark {e}");

    // Triple jump of Z&S: coefficients from Yoshida's formula, stages by the dynamic Z&S.
    let g1 = 1.0 / (2.0 - 2f64.powf(1.0 / 3.0));
    let gammas = [g1, 1.0 - 2.0 * g1, g1];
    let (mut q, mut v) = (q0, v0);
    for _ in 0..1000 {
        for g in gammas {
            (q, v) = dyn_zs(&pot, &ones, q, v, g * 0.1, 0.4, 1.0, true, 1);
        }
    }
    let mut s = s0;
    let zs = ZhangSkeel::new(hh(), 0.1, p(0.4)).unwrap();
    SymmetricComposition::new(zs, Scheme::TripleJump)
        .unwrap()
        .integrate(&mut s, 1000)
        .unwrap();
    let e = max_diff(&s, &q, &v);
    assert!(e < tolerance, "triple-jump Z&S {e}");
}

/// The composition is generic over any symmetric method: triple-jump velocity Verlet is 4th order.
#[test]
fn composition_of_verlet_is_fourth_order() {
    use macrostep::baselines::VelocityVerlet;
    let hs = [0.2, 0.1, 0.05, 0.025];
    let s = successive_difference_slope(
        |h| {
            SymmetricComposition::new(VelocityVerlet::new(hh(), h).unwrap(), Scheme::TripleJump)
                .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    assert!((s - 4.0).abs() < 0.2, "order {s}");
}
