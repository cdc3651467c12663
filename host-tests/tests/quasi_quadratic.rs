//! Quasi1/Quasi2 (004 §4.3): measured order, symplecticity, symmetry, uniformity in ω, typed
//! errors with the state untouched, and f32.

use host_tests::fixtures::quasi_quadratic::{
    initial84, initial85, quasi84, quasi85, reference, slow_error, strang84, Ring, K84, K85,
};
use host_tests::measure::{integrator_defect, loglog_slope, reversibility_error};
use macrostep::model::Mass;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::sim::{Quasi1, QuasiExp, QuasiParams, QuasiStiffness, QuasiSystem};
use macrostep::{ConfigError, Integrator, PreconditionKind, State, StepError};

/// Tolerances, one reason each.
mod tol {
    /// Order: the log–log slope over three halvings in the asymptotic regime `ωH ≤ 0.1`.
    pub const ORDER: f64 = 0.1;
    /// Symplecticity: central differences with `eps = 1e-6` at `ω = 30` (Jacobian entries
    /// `~ω`): rounding `1e-16/1e-6·ω ≈ 3e-9` per entry before cancellation; measured ~1e-10.
    pub const DEFECT: f64 = 1e-9;
    /// A map that is *not* symplectic (Lemma 4.3.1 violated) shows an O(1e-2..1) defect.
    pub const BROKEN_DEFECT: f64 = 1e-3;
    /// Uniformity: the Quasi1 slow errors at fixed H across ω = 100…1000 agree within 2× (they
    /// are O(H) with an ω-independent constant; resonances would show as spikes).
    pub const UNIFORM_RATIO: f64 = 2.0;
}

#[test]
fn order_matches_claims() {
    let (w, t) = (10.0, 1.0);
    let s0 = initial84(w);
    let x_ref = reference(K84, w, &s0, t).q[0];
    let hs = [0.01, 0.005, 0.0025];
    let e1: Vec<f64> = hs
        .iter()
        .map(|&h| slow_error(quasi84(w, h, QuasiExp::Diagonal).unwrap(), &s0, t, x_ref).unwrap())
        .collect();
    let e2: Vec<f64> = hs
        .iter()
        .map(|&h| slow_error(strang84(w, h).unwrap(), &s0, t, x_ref).unwrap())
        .collect();
    let (p1, p2) = (loglog_slope(&hs, &e1), loglog_slope(&hs, &e2));
    assert!(
        (p1 - f64::from(<Quasi1<f64, Ring, K84, 2, 1, 1> as Integrator<f64, 2>>::ORDER)).abs()
            < tol::ORDER,
        "{p1}"
    );
    assert!((p2 - 2.0).abs() < tol::ORDER, "{p2}");
}

#[test]
fn maps_are_symplectic() {
    let w = 30.0;
    let (id2, id3) = (Mass::<f64, 2>::identity(), Mass::<f64, 3>::identity());
    let s84 = initial84(w);
    let mut q1 = quasi84(w, 0.1, QuasiExp::Diagonal).unwrap();
    let claimed = <Quasi1<f64, Ring, K84, 2, 1, 1> as Integrator<f64, 2>>::SYMPLECTIC;
    let d1 = integrator_defect(&mut q1, &id2, &s84, 1, 1e-6);
    let d2 = integrator_defect(&mut strang84(w, 0.1).unwrap(), &id2, &s84, 1, 1e-6);
    let d3 = integrator_defect(
        &mut quasi85(w, 0.1, 10).unwrap(),
        &id3,
        &initial85(w),
        1,
        1e-6,
    );
    // The claim and the measurement agree (Quasi2 and Integrator 4.3.2 make the same claim).
    let measured = d1 < tol::DEFECT && d2 < tol::DEFECT && d3 < tol::DEFECT;
    assert_eq!(claimed, measured, "{d1} {d2} {d3}");
}

/// `K84` with a wrong (zero) derivative: `G₂ = 0 ≠ −J ∂F₃`, so Lemma 4.3.1 says the map is not
/// symplectic — the defect measure must see it (guards the measurement, not the method).
struct NoDerivative;
impl QuasiStiffness<f64, 1, 1> for NoDerivative {
    fn stiffness(&self, x: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        K84.stiffness(x)
    }
    fn stiffness_derivative(&self, _: &SVector<f64, 1>, _: usize) -> SMatrix<f64, 1, 1> {
        SMatrix::zeros()
    }
}

#[test]
fn dropping_the_slow_drift_breaks_symplecticity() {
    let w = 30.0;
    let sys = QuasiSystem::new(Ring, NoDerivative, w * w);
    let p = QuasiParams {
        exp: QuasiExp::Diagonal,
    };
    let mut m = Quasi1::<f64, Ring, NoDerivative, 2, 1, 1>::new(sys, 0.1, p).unwrap();
    let s0 = State::at_rest(SVector::from([1.1, 0.7]));
    let d = integrator_defect(&mut m, &Mass::identity(), &s0, 1, 1e-6);
    assert!(d > tol::BROKEN_DEFECT, "{d}");
}

#[test]
fn quasi2_is_symmetric_and_quasi1_is_not() {
    let s0 = initial84(100.0);
    let r2 = reversibility_error(&mut strang84(100.0, 0.1).unwrap(), &s0, 20);
    let r1 = reversibility_error(
        &mut quasi84(100.0, 0.1, QuasiExp::Diagonal).unwrap(),
        &s0,
        20,
    );
    // Round-off over 40 steps with velocities ~1: 1e-12; Lie–Trotter is off by O(H) per step.
    assert!(r2 < 1e-12, "{r2}");
    assert!(r1 > 1e-4, "{r1}");
}

#[test]
fn slow_error_is_uniform_in_omega() {
    let (h, t) = (0.01, 1.0);
    let errs: Vec<f64> = [100.0, 300.0, 1000.0]
        .iter()
        .map(|&w| {
            let s0 = initial84(w);
            let x_ref = reference(K84, w, &s0, t).q[0];
            slow_error(quasi84(w, h, QuasiExp::Diagonal).unwrap(), &s0, t, x_ref).unwrap()
        })
        .collect();
    let (lo, hi) = errs
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(a, b), &e| (a.min(e), b.max(e)));
    assert!(hi / lo < tol::UNIFORM_RATIO, "{errs:?}");
    // And it is an error at all (the method is first order, not exact): H = 0.01 → ~1e-3.
    assert!(lo > 1e-5, "{errs:?}");
}

#[test]
fn symplectic_exponential_matches_exact_diagonal_flow() {
    // Integrator 4.3.2 on a diagonal K vs the exact flow: ωH = 10, n = 12 → phase error ~1e-6.
    let (w, t) = (100.0, 1.0);
    let s0 = initial84(w);
    let mut a = quasi84(w, 0.1, QuasiExp::Diagonal).unwrap();
    let mut b = quasi84(w, 0.1, QuasiExp::Symplectic { squarings: 12 }).unwrap();
    let (mut sa, mut sb) = (s0, s0);
    a.integrate(&mut sa, (t / 0.1) as usize).unwrap();
    b.integrate(&mut sb, (t / 0.1) as usize).unwrap();
    assert!((sa.q - sb.q).amax() < 1e-6, "{} {}", sa.q, sb.q);
}

#[test]
fn bad_configuration_is_refused() {
    let d = QuasiExp::Diagonal;
    let make = |inv_eps: f64, h: f64, exp| {
        let sys = QuasiSystem::new(Ring, K84, inv_eps);
        Quasi1::<f64, Ring, K84, 2, 1, 1>::new(sys, h, QuasiParams { exp }).err()
    };
    assert_eq!(make(1e4, 0.0, d), Some(ConfigError::StepSize));
    assert_eq!(make(1e4, f64::NAN, d), Some(ConfigError::StepSize));
    assert_eq!(
        make(f64::NAN, 0.1, d),
        Some(ConfigError::NonFinite { name: "inv_eps" })
    );
    assert_eq!(
        make(-1.0, 0.1, d),
        Some(ConfigError::OutOfRange {
            name: "inv_eps",
            bound: "> 0"
        })
    );
    assert_eq!(
        make(1e300, 1e10, d),
        Some(ConfigError::Overflow {
            name: "inv_eps*h^2"
        })
    );
    let sq = |n| QuasiExp::Symplectic { squarings: n };
    assert_eq!(
        make(1e4, 0.1, sq(0)),
        Some(ConfigError::OutOfRange {
            name: "squarings",
            bound: "in 1..=40"
        })
    );
    assert_eq!(
        make(1e4, 0.1, sq(41)),
        Some(ConfigError::OutOfRange {
            name: "squarings",
            bound: "in 1..=40"
        })
    );
    assert!(make(1e4, 0.1, sq(10)).is_none());
    // N ≠ S + F.
    let sys = QuasiSystem::new(Ring, K84, 1e4);
    let bad = Quasi1::<f64, Ring, K84, 3, 1, 1>::new(sys, 0.1, QuasiParams { exp: d }).err();
    assert_eq!(bad, Some(ConfigError::Inconsistent { name: "N = S + F" }));
}

#[test]
fn step_errors_leave_the_state_untouched() {
    let mut m = quasi84(100.0, 0.1, QuasiExp::Diagonal).unwrap();
    let mut s = initial84(100.0);
    s.q[1] = f64::NAN;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::NonFiniteState));
    assert!(s.q[0] == before.q[0] && s.q[1].is_nan() && s.v == before.v && s.t == before.t);
    // Overflow inside the step: a huge slow velocity.
    let mut s = initial84(100.0);
    s.v[0] = 1e300;
    let before = s;
    assert_eq!(m.step(&mut s), Err(StepError::NonFiniteResult));
    assert_eq!(s, before);
    // The exact diagonal flow on a non-diagonal K (eq 4.85) is a precondition error.
    let p = QuasiParams {
        exp: QuasiExp::Diagonal,
    };
    let sys = QuasiSystem::new(Ring, K85, 1e4);
    let mut m = Quasi1::<f64, Ring, K85, 3, 1, 2>::new(sys, 0.1, p).unwrap();
    let mut s = initial85(100.0);
    let before = s;
    assert_eq!(
        m.step(&mut s),
        Err(StepError::precondition(
            PreconditionKind::StiffnessNotDiagonal
        ))
    );
    assert_eq!(s, before);
    assert_eq!(m.step_by(&mut s, 0.0), Err(StepError::StepSize));
    assert_eq!(s, before);
}

#[test]
fn f32_tracks_f64() {
    // f32 run of eq 4.84 (diagonal) and eq 4.85 (Integrator 4.3.2) against f64: T = 1, H = 0.1.
    let p32 = QuasiParams {
        exp: QuasiExp::Diagonal,
    };
    let sys32 = QuasiSystem::new(Ring, K84, 1.0e4_f32);
    let mut m32 = Quasi1::<f32, Ring, K84, 2, 1, 1>::new(sys32, 0.1, p32).unwrap();
    let mut s32: State<f32, 2> = initial84(100.0).cast();
    let mut s64 = initial84(100.0);
    m32.integrate(&mut s32, 10).unwrap();
    quasi84(100.0, 0.1, QuasiExp::Diagonal)
        .unwrap()
        .integrate(&mut s64, 10)
        .unwrap();
    // f32 relative precision 6e-8 times ωT = 100 radians of phase: ~1e-5 in x.
    assert!(
        (f64::from(s32.q[0]) - s64.q[0]).abs() < 1e-4,
        "{} {}",
        s32.q[0],
        s64.q[0]
    );
    let p32 = QuasiParams {
        exp: QuasiExp::Symplectic { squarings: 10 },
    };
    let sys32 = QuasiSystem::new(Ring, K85, 1.0e4_f32);
    let mut m32 = Quasi1::<f32, Ring, K85, 3, 1, 2>::new(sys32, 0.1, p32).unwrap();
    let mut s32: State<f32, 3> = initial85(100.0).cast();
    let mut s64 = initial85(100.0);
    m32.integrate(&mut s32, 10).unwrap();
    quasi85(100.0, 0.1, 10)
        .unwrap()
        .integrate(&mut s64, 10)
        .unwrap();
    // 10 squarings amplify f32 rounding by ~2¹⁰ in the exponential: 1e-4·|x| budget.
    assert!(
        (f64::from(s32.q[0]) - s64.q[0]).abs() < 1e-3,
        "{} {}",
        s32.q[0],
        s64.q[0]
    );
}

/// `reproduce quasi-quadratic --quick` (004 §4.3.8–4.3.9) through its `Results`: Quasi1's slow
/// error at fixed H does not grow with ω (Theorem 4.3.3), Quasi1 is first and Quasi2 second
/// order, both maps are symplectic, the non-diagonal example is accurate at H = 0.1, and at
/// ω = 1000 Quasi1 reaches 10⁻² with a step more than ten times Verlet's (a step ratio from the
/// error search, not a timing), which is where its speed-up comes from.
#[test]
fn quasi_quadratic_quick_results() {
    use host_tests::experiments::quasi_quadratic::QuasiQuadraticExperiment;
    use host_tests::experiments::Experiment;
    let r = QuasiQuadraticExperiment::compute(&QuasiQuadraticExperiment::quick());
    assert!(
        r.uniform_ratio > 0.5 && r.uniform_ratio < 2.0,
        "{}",
        r.uniform_ratio
    );
    assert!((r.order - 1.0).abs() < 0.2, "Quasi1 order {}", r.order);
    assert!(
        (r.order_strang - 2.0).abs() < 0.2,
        "Quasi2 order {}",
        r.order_strang
    );
    assert!(r.defects.iter().all(|d| *d < 1e-7), "{:?}", r.defects);
    assert!(r.nondiag_err < 1e-2, "{}", r.nondiag_err);
    let (_, study) = r
        .studies
        .iter()
        .find(|(w, _)| *w == 1000.0)
        .expect("ω = 1000 study");
    let step_at = |key: &str| {
        let curve = study.curves.iter().find(|c| c.key == key).expect(key);
        curve.found[0].as_ref().expect("target 1e-2 reached").p
    };
    let (verlet, quasi) = (step_at("verlet"), step_at("quasi"));
    assert!(
        quasi > 10.0 * verlet,
        "Quasi1 h = {quasi:e}, Verlet h = {verlet:e}"
    );
}
