//! FLAVOR: structure (symplecticity, reversibility), linear stability (Theorem 2.5.1), the τ
//! clock, and bad input.

use host_tests::experiments::flavor::stability;
use host_tests::fixtures::{coords_2100, nonintrusive_se, system_2100, system_293, SeMap};
use host_tests::measure::{integrator_defect, reversibility_error};
use host_tests::{for_scalars, Tolerance};
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::flavor::Artificial;
use macrostep::flavor::{
    ExplicitEuler, LegacyMap, Nonintrusive, Params, StiffOde, Stiffness, Switched, Symmetric,
    NEEDS_ADJOINT,
};
use macrostep::model::Quadratic;
use macrostep::nalgebra::{vector, SVector};
use macrostep::systems::QuarticBond;
use macrostep::Stepper;
use macrostep::{ConfigError, Integrator, Real, State, StepError};

/// System 2.100 with a moderate ε so that a few FLAVOR steps move everything.
const EPS: f64 = 1e-4;

fn s0_2100<T: Real>() -> State<T, 3> {
    State::new(
        T::zero(),
        vector![0.8, 0.811, 0.721].map(T::lit),
        vector![0.1, -0.2, 0.3].map(T::lit),
    )
}

fn se_2100(ordering: EulerOrdering) -> SeMap<f64, QuarticBond<f64, 3>, Quadratic<f64, 3>, 3> {
    let se = SymplecticEuler::new(system_2100::<f64>(EPS, 1.1, 0.97), 1e-3, ordering).unwrap();
    Switched::symplectic_euler(se).unwrap()
}

// Central differences with step 1e-5: roundoff ~1e-16·|DΦ|²/1e-5 ~ 1e-9 with |DΦ| ~ 10 (the
// stiff kick ατ = 10), truncation ~1e-10·|D³Φ| (only the soft x⁴ has a third derivative).
const DEFECT_TOL: f64 = 1e-9;

fn symplectic_claim<I: Integrator<f64, 3>>(_: &I) -> bool {
    I::SYMPLECTIC
}

#[test]
fn nonintrusive_over_symplectic_euler_is_symplectic() {
    let mut f = nonintrusive_se(system_2100::<f64>(EPS, 1.1, 0.97), 0.01, 1e-3);
    let s0 = s0_2100::<f64>();
    let mass = macrostep::model::Mass::identity();
    let d = integrator_defect(&mut f, &mass, &s0, 5, 1e-5);
    assert!(d <= DEFECT_TOL, "defect {d:e}");
    assert!(symplectic_claim(&f));
}

#[test]
fn symmetric_flavor_is_symplectic_and_reversible() {
    let mut f = Symmetric::new(
        se_2100(EulerOrdering::KickDrift),
        Params::new(0.01, 1e-3).unwrap(),
    )
    .unwrap();
    let s0 = s0_2100::<f64>();
    let mass = macrostep::model::Mass::identity();
    let d = integrator_defect(&mut f, &mass, &s0, 5, 1e-5);
    assert!(d <= DEFECT_TOL, "defect {d:e}");
    // 20 steps forth and back: roundoff only (|v| up to ~10 here).
    let r = reversibility_error(&mut f, &s0, 20);
    assert!(r <= 1e-12, "reversibility {r:e}");
}

#[test]
fn symmetric_flavor_over_verlet_is_reversible() {
    let vv = VelocityVerlet::new(system_2100::<f64>(EPS, 1.1, 0.97), 1e-3).unwrap();
    let mut f = Symmetric::new(
        Switched::verlet(vv).unwrap(),
        Params::new(0.01, 1e-3).unwrap(),
    )
    .unwrap();
    let r = reversibility_error(&mut f, &s0_2100::<f64>(), 20);
    assert!(r <= 1e-12, "reversibility {r:e}");
}

/// The measurement can fail: the nonintrusive FLAVOR is not symmetric, and a FLAVOR over a
/// non-symplectic legacy map is not symplectic.
#[test]
fn nonintrusive_is_not_reversible_and_euler_flavor_is_not_symplectic() {
    let mut f = nonintrusive_se(system_2100::<f64>(EPS, 1.1, 0.97), 0.01, 1e-3);
    let r = reversibility_error(&mut f, &s0_2100::<f64>(), 20);
    assert!(r > 1e-4, "nonintrusive unexpectedly reversible: {r:e}");

    // Forward Euler on the same Hamiltonian (as a first-order ODE in (q, v)).
    struct Ham;
    impl StiffOde<f64, 6> for Ham {
        fn soft(&self, _: f64, u: &SVector<f64, 6>) -> SVector<f64, 6> {
            let x = u[0];
            vector![u[3], u[4], u[5], -4.0 * x * x * x, 0.0, 0.0]
        }
        fn stiff(&self, _: f64, u: &SVector<f64, 6>) -> SVector<f64, 6> {
            let (d1, d2) = (u[1] - u[0], u[2] - u[1]);
            vector![0.0, 0.0, 0.0, 1.1 * d1, -1.1 * d1 + 0.97 * d2, -0.97 * d2]
        }
    }
    let p = Params::new(0.01, 1e-3).unwrap();
    let mut fe = Nonintrusive::new(ExplicitEuler::new(Ham, 1.0 / EPS).unwrap(), p).unwrap();
    let u0 = vector![0.8, 0.811, 0.721, 0.1, -0.2, 0.3];
    let d = host_tests::measure::symplecticity_defect(
        |x| {
            let mut s = State::at_rest(SVector::<f64, 6>::from_column_slice(x.as_slice()));
            fe.step(&mut s).unwrap();
            macrostep::nalgebra::DVector::from_column_slice(s.q.as_slice())
        },
        &macrostep::nalgebra::DVector::from_column_slice(u0.as_slice()),
        1e-6,
    );
    assert!(
        d > 1e-3,
        "forward-Euler FLAVOR unexpectedly symplectic: {d:e}"
    );
}

#[test]
fn artificial_flavor_is_symplectic() {
    let mut a = Artificial::new(
        system_2100::<f64>(EPS, 1.1, 0.97),
        coords_2100(),
        Params::new(0.02, 1e-3).unwrap(),
    )
    .unwrap();
    let d = integrator_defect(
        &mut a,
        &macrostep::model::Mass::identity(),
        &s0_2100::<f64>(),
        5,
        1e-5,
    );
    assert!(d <= DEFECT_TOL, "defect {d:e}");
}

/// The artificial FLAVOR keeps the stiff coordinates frozen during the long step: with the stiff
/// sub-step's kick removed (`α = 0`), `y − x` and `z − y` change only by `τ·(their rates)`.
#[test]
fn artificial_freezes_stiff_coordinates() {
    let mut sys = system_2100::<f64>(EPS, 1.1, 0.97);
    sys.potential.alpha = 0.0;
    let mut a = Artificial::new(sys, coords_2100(), Params::new(0.1, 1e-3).unwrap()).unwrap();
    let s0 = s0_2100::<f64>();
    let mut s = s0;
    a.step(&mut s).unwrap();
    let g = coords_2100::<f64>();
    let dy = g * (s.q - s0.q);
    let v1 = s.v; // velocity after the soft kick
    let expected = g * v1 * 1e-3;
    assert!((dy - expected).amax() < 1e-14, "{dy} vs {expected}");
}

/// Theorem 2.5.1 (cheap version of `reproduce flavor-stability`, without Fig 2.2): thresholds
/// δ < 2 − τω²/2 and δ < 2√2 on system 2.93 with ω = 100, τ = 1e-6, within 1 %, by the spectral
/// radius of the step matrix, which agrees with the thesis's written-out products; no unstable δ
/// below either threshold; and the stability is real: 2000 steps just below stay bounded, just
/// above blow up.
#[test]
fn theorem_2_5_1_thresholds() {
    let (tau, omega) = (1e-6, 100.0);
    let r = stability::compute(&stability::Setup {
        taus: vec![],
        grid: 200,
        ..stability::Setup::paper()
    });
    assert!(
        r.matrix_rel_diff < 1e-12,
        "vs eqs 2.94/2.97: {}",
        r.matrix_rel_diff
    );
    assert_eq!(
        (r.nonintrusive_unstable_below, r.artificial_unstable_below),
        (0, 0)
    );
    let thr = r.nonintrusive;
    assert!((thr - 1.99498).abs() / 1.99498 < 1e-4, "nonintrusive {thr}");
    assert!((thr - 2.0).abs() / 2.0 < 0.01);
    let thr_a = r.artificial;
    assert!(
        (thr_a - 2.0 * 2f64.sqrt()).abs() / 2.8284 < 0.01,
        "artificial {thr_a}"
    );

    let run = |delta: f64| {
        let mut f = nonintrusive_se(system_293::<f64>(omega), delta, tau);
        // The raw map at its stability limit: symplectic Euler's energy swings there exceed the
        // default guards (each switched sub-step starts a new guarded run).
        f.set_guards(macrostep::Guards::off()).unwrap();
        let mut s = State::new(0.0, vector![0.8, 0.8 + 1.1 / omega], vector![0.0, 0.0]);
        for _ in 0..2000 {
            if f.step(&mut s).is_err() {
                return f64::INFINITY;
            }
        }
        s.q.amax().max(s.v.amax())
    };
    assert!(run(0.98 * thr) < 10.0);
    assert!(run(1.02 * thr) > 1e6);
}

/// The Fig 2.4 parameters on 2.100 (ε = 1e-6, δ = 0.01, τ = 5e-4) blow up; τ = 1e-4 does not.
#[test]
fn fig_2_4_parameters_are_unstable() {
    let run = |tau: f64| {
        let mut f = nonintrusive_se(system_2100::<f64>(1e-6, 1.1, 0.97), 0.01, tau);
        let mut s = State::new(0.0, vector![0.8, 0.811, 0.721], SVector::zeros());
        for _ in 0..500 {
            if f.step(&mut s).is_err() {
                return f64::INFINITY;
            }
        }
        s.q.amax()
    };
    assert!(run(5e-4) > 1e3);
    assert!(run(1e-4) < 2.0);
}

/// f32 and f64: the nonintrusive FLAVOR tracks the slow variable of 2.93 (s̈ = −s/2 in the
/// limit) over T = 2, and the f32 run agrees with the f64 one.
fn slow_variable_tracked<T: Real + Tolerance>() {
    let mut f = nonintrusive_se(system_293::<T>(100.0), T::lit(0.01), T::lit(1e-4));
    let mut s = State::new(
        T::zero(),
        vector![T::lit(0.8), T::lit(0.811)],
        SVector::zeros(),
    );
    f.integrate(&mut s, 200).unwrap();
    let slow = (s.q[0] + s.q[1]).to_f64() / 2.0;
    let exact = 0.8055 * (2.0 / 2f64.sqrt()).cos();
    // FLAVOR error O(δ) + O(1/ω²) coupling ≈ 1e-2 here.
    assert!((slow - exact).abs() < 0.03, "slow {slow} vs {exact}");
}
for_scalars!(slow_variable_tracked);

/// Bad FLAVOR parameters → typed errors.
#[test]
fn bad_parameters_are_rejected() {
    let se =
        || SymplecticEuler::new(system_293::<f64>(100.0), 1e-4, EulerOrdering::KickDrift).unwrap();
    let map = Switched::symplectic_euler(se()).unwrap();
    // Raw step sizes reach a FLAVOR through `Params::new`.
    let nonintrusive = |delta, tau| Params::new(delta, tau).and_then(|p| Nonintrusive::new(map, p));
    assert_eq!(
        nonintrusive(0.01, 0.01).unwrap_err(),
        ConfigError::Inconsistent {
            name: "tau < delta"
        }
    );
    assert_eq!(
        nonintrusive(0.01, 0.02).unwrap_err(),
        ConfigError::Inconsistent {
            name: "tau < delta"
        }
    );
    assert_eq!(
        nonintrusive(0.01, 0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "tau",
            bound: "> 0"
        }
    );
    assert_eq!(
        nonintrusive(0.01, -1e-4).unwrap_err(),
        ConfigError::OutOfRange {
            name: "tau",
            bound: "> 0"
        }
    );
    assert_eq!(
        Params::new(0.01, 0.01)
            .and_then(|p| Symmetric::new(map, p))
            .unwrap_err(),
        ConfigError::Inconsistent {
            name: "tau < delta"
        }
    );
    // τ ≥ δ cannot reach a FLAVOR constructor: `Params` has private fields (a struct literal is
    // a compile error, the `compile_fail` doctest on `Params`) and `Params::new` refuses it.
    assert_eq!(
        Params::new(0.01, 0.02).unwrap_err(),
        ConfigError::Inconsistent {
            name: "tau < delta"
        }
    );
}

/// A symmetric FLAVOR over a map without an adjoint, and bad legacy maps → typed errors.
#[test]
fn maps_without_adjoint_and_bad_legacy_maps_are_rejected() {
    let se =
        || SymplecticEuler::new(system_293::<f64>(100.0), 1e-4, EulerOrdering::KickDrift).unwrap();
    // A legacy map without an adjoint asked for the symmetric form: symplectic Euler wrapped
    // as a generic integrator (not symmetric, no adjoint given), and forward Euler.
    let generic = Switched::new(se(), 1e4, |i, a| i.system_mut().potential.alpha = a).unwrap();
    assert!(!generic.has_adjoint());
    assert_eq!(
        Symmetric::new(generic, Params::new(0.01, 1e-4).unwrap()).unwrap_err(),
        ConfigError::Inconsistent {
            name: NEEDS_ADJOINT
        }
    );
    #[derive(Debug)]
    struct Decay;
    impl StiffOde<f64, 1> for Decay {
        fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> {
            SVector::zeros()
        }
        fn stiff(&self, _: f64, u: &SVector<f64, 1>) -> SVector<f64, 1> {
            -u
        }
    }
    let euler = ExplicitEuler::new(Decay, 1e3).unwrap();
    assert_eq!(
        Symmetric::new(euler, Params::new(0.01, 1e-4).unwrap()).unwrap_err(),
        ConfigError::Inconsistent {
            name: NEEDS_ADJOINT
        }
    );
    assert_eq!(
        ExplicitEuler::<f64, Decay, 1>::new(Decay, f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "alpha" }
    );
    // Dependent stiff coordinates.
    assert_eq!(
        Artificial::new(
            system_293::<f64>(100.0),
            macrostep::nalgebra::matrix![-1.0, 1.0; 2.0, -2.0],
            Params::new(0.01, 1e-4).unwrap()
        )
        .unwrap_err(),
        ConfigError::NotPositiveDefinite { name: "coords" }
    );
}

/// A failing step leaves the state bit-identical: a non-finite input, a zero step, and a blow-up
/// in the middle of a macro-step.
#[test]
fn failed_steps_leave_the_state_untouched() {
    let mut f = nonintrusive_se(system_293::<f64>(100.0), 0.01, 1e-4);
    let mut s = State::new(0.0, vector![f64::NAN, 0.0], vector![0.0, 0.0]);
    let before = s;
    assert_eq!(f.step(&mut s), Err(StepError::NonFiniteState));
    assert_eq!(format!("{s:?}"), format!("{before:?}"));
    let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
    let before = s;
    assert_eq!(f.step_by(&mut s, 0.0), Err(StepError::StepSize));
    assert_eq!(s, before);
    // Unstable parameters (δτω² = 2e4·… ≫ 4): the macro-step fails part-way and commits nothing.
    let mut g = nonintrusive_se(system_293::<f64>(1e4), 0.5, 1e-3);
    let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
    let before = s;
    // The blow-up ends in a typed error: the energy guard of the legacy map, or overflow.
    assert!(matches!(
        g.macro_step(&mut s, 1000),
        Err(StepError::NonFiniteResult | StepError::Diverged { .. })
    ));
    assert_eq!(s, before);
    let mut sym = Symmetric::new(
        Switched::symplectic_euler(
            SymplecticEuler::new(system_293::<f64>(1e4), 1e-3, EulerOrdering::KickDrift).unwrap(),
        )
        .unwrap(),
        Params::new(0.5, 1e-3).unwrap(),
    )
    .unwrap();
    let mut ok = 0;
    let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
    loop {
        let before = s;
        match sym.step(&mut s) {
            Ok(()) => ok += 1,
            Err(e) => {
                assert!(matches!(
                    e,
                    StepError::NonFiniteResult | StepError::Diverged { .. }
                ));
                assert_eq!(s, before);
                break;
            }
        }
        assert!(ok < 10_000, "expected a blow-up");
    }
}

/// The τ clock (eq 2.115): the stiff sub-step of step n sees the clock nτ, not nδ.
#[test]
fn stiff_forcing_sees_the_tau_clock() {
    struct Clock;
    // u̇ = α·c (the stiff "force" is the clock itself): one step adds α·τ·(clock at its start).
    impl StiffOde<f64, 1> for Clock {
        fn soft(&self, _: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> {
            SVector::zeros()
        }
        fn stiff(&self, c: f64, _: &SVector<f64, 1>) -> SVector<f64, 1> {
            vector![c]
        }
    }
    let p = Params::new(0.5, 0.125).unwrap();
    let mut f = Nonintrusive::new(ExplicitEuler::new(Clock, 1.0).unwrap(), p).unwrap();
    let mut s = State::at_rest(vector![0.0]);
    for _ in 0..3 {
        f.step(&mut s).unwrap();
    }
    // Clocks 0, τ, 2τ: u = τ·(0 + τ + 2τ) = 3τ².
    assert!((s.q[0] - 3.0 * 0.125 * 0.125).abs() < 1e-15, "{}", s.q[0]);
    assert!((s.t - 1.5).abs() < 1e-15);
    let mut e = ExplicitEuler::new(Clock, 1.0).unwrap();
    let mut x = State::at_rest(vector![1.0]);
    e.step(&mut x, 0.5, Stiffness::Off).unwrap();
    assert_eq!(x.q[0], 1.0);
}

/// Cheap version of `reproduce flavor-3dof`: on 2.100 with ε = 1e-6, δ = 0.01,
/// τ = 2e-5, the slow variable (x+y+z)/3 stays within 1e-2 of a DOP853 reference over T = 5.
#[test]
fn three_dof_slow_variable_matches_reference() {
    use host_tests::measure::trajectory;
    use host_tests::reference::reference_samples;
    let s0 = State::new(0.0, vector![0.8, 0.811, 0.721], SVector::zeros());
    let sys = system_2100::<f64>(1e-6, 1.1, 0.97);
    let reference = reference_samples(&sys, &s0, 5.0, 0.01);
    let mut f = nonintrusive_se(sys, 0.01, 2e-5);
    let traj = trajectory(&mut f, &s0, 500);
    let slow = |s: &State<f64, 3>| (s.q[0] + s.q[1] + s.q[2]) / 3.0;
    let err = traj
        .iter()
        .zip(&reference)
        .map(|(a, b)| (slow(a) - slow(b)).abs())
        .fold(0.0, f64::max);
    // The experiment measures 8.5e-3 over T = 50; the error grows with time.
    assert!(err < 1e-2, "slow error {err:e}");
    // The full (stiff) run is far off for the fast variables pointwise but the slow one is not:
    // check the measurement can fail by comparing against a shifted reference.
    let shifted = (slow(&traj[250]) - slow(&reference[260])).abs();
    assert!(shifted > err, "the comparison is not sensitive");
}

/// Cheap version of `reproduce vdp` (without the forward-Euler benchmark): FLAVOR over
/// forward Euler on the hidden Van der Pol oscillator (1/ε = 1000, δ = 0.01, τ = 5e-5) captures
/// the relaxation period of the Cartesian system within 3 % (measured 1.9 %; at ε = 1e-2 the
/// weaker scale separation gives 5.8 %).
#[test]
fn hidden_vdp_period() {
    use host_tests::fixtures::HiddenVdp;
    use host_tests::measure::{crossings, mean_period};
    let eps = 1e-3;
    let t_end = 3.5 / eps;
    let mut f = Nonintrusive::new(
        ExplicitEuler::new(HiddenVdp { eps }, 1.0 / eps).unwrap(),
        Params::new(0.01, 5e-5).unwrap(),
    )
    .unwrap();
    let mut s = State::at_rest(vector![2f64.sqrt(), std::f64::consts::FRAC_PI_4]);
    let mut samples = vec![(0.0, 1.0)];
    while s.t < t_end {
        f.step(&mut s).unwrap();
        samples.push((s.t, s.q[0] * s.q[1].cos()));
    }
    let p = mean_period(&crossings(&samples));
    let p_ref = HiddenVdp { eps }.reference_period(t_end, 50_000);
    assert!((p - p_ref).abs() / p_ref < 0.03, "period {p} vs {p_ref}");
}
