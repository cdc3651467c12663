//! Cost per step (one gradient, Hessian and contraction), typed errors on bad input, cache
//! consistency after a failed step.

use super::*;

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

/// Bad input → typed errors, state untouched.
#[test]
fn bad_configuration_is_rejected_with_typed_errors() {
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
            Newmark::new(osc.system(), h, NewmarkParams::with_beta(0.4)).unwrap_err(),
            ConfigError::StepSize
        );
    }
    let one = NewmarkOneIteration::new(osc.system(), 0.1, p(0.4)).unwrap();
    assert!(SymmetricComposition::new(one, Scheme::TripleJump).is_err());
}

/// Failed steps → typed errors, state untouched.
#[test]
fn failed_steps_return_typed_errors_and_keep_the_state() {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
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
        Newmark::new(neg, 1.0, pn(0.25, np)).unwrap().step(&mut s),
        PushForwardNewmark::new(neg, 1.0, pn(0.25, np))
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
    let mut nm = Newmark::new(hh(), 0.5, pn(0.4, capped)).unwrap();
    let mut s = hh_start();
    assert_eq!(nm.step(&mut s), Err(StepError::NotConverged));
    assert_eq!(s, hh_start());
    let mut pf = PushForwardNewmark::new(hh(), 0.5, pn(0.4, capped)).unwrap();
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
