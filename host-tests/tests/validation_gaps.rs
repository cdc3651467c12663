//! Validation that cannot be bypassed: each test reproduces a configuration or start that used
//! to be accepted (or stepped `Ok` into garbage) and checks it is refused with a typed error.
//!
//! - RATTLE with a Newton tolerance below round-off over a tiny step;
//! - rigid bodies with degenerate inertia or a start `R` that is not a rotation;
//! - damped RATTLE on a mechanism with non-isotropic dashpots and unequal masses;
//! - a mechanism whose start positions violate its own rods;
//! - what a `Precondition` error says.

use macrostep::constrained::{ConstraintNewtonParams, Rattle, Shake};
use macrostep::forcing::Damped;
use macrostep::lie::{BodyState, CayleyVariational, LinearizedZs2, RigidBody, So3ZsParams};
use macrostep::mechanism::MechanismBuilder;
use macrostep::model::Constraint;
use macrostep::nalgebra::{vector, Matrix3, Vector3};
use macrostep::systems::DoublePendulum;
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{ConfigError, Guards, Integrator, PreconditionKind, State, StepError, Stepper};

/// The reproduction: a Newton tolerance far below round-off (`4.99e-77`) and a step of
/// `1e-30` from an on-manifold tangent start. A step either fails with a typed error and leaves
/// the state untouched, or returns a state the next step accepts with a velocity change in
/// proportion to the step; never `Ok` followed by `Precondition`.
#[test]
fn rattle_with_a_tolerance_below_round_off_never_returns_garbage() {
    let dp = DoublePendulum::<f64>::paper();
    let params = ConstraintNewtonParams {
        tol: 4.99e-77,
        manifold_tol: 2.22e-12,
        ..ConstraintNewtonParams::default()
    };
    let mut rattle = Rattle::new(dp.system(), dp.constraint(), 1e-30, params).unwrap();
    let project = Rattle::new(
        dp.system(),
        dp.constraint(),
        1e-30,
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut garbage = 0;
    let mut ok = 0;
    for i in 0..200 {
        let x = f64::from(i);
        let mut s = State::at_rest(dp.from_angles(0.3 + 0.013 * x, -1.1 + 0.021 * x));
        s.v = vector![0.3, -0.2 + 0.01 * x, 1.1, 0.5 - 0.004 * x];
        project.project(&mut s).unwrap();
        let before = s;
        match rattle.step(&mut s) {
            Ok(()) => {
                ok += 1;
                let jv = (dp.constraint().jacobian(&s.q) * s.v).amax();
                let dv = (s.v - before.v).amax();
                let mut t = s;
                let next = rattle.step(&mut t);
                if jv > params.manifold_tol
                    || dv > 1e-6
                    || matches!(next, Err(StepError::Precondition { .. }))
                {
                    garbage += 1;
                }
            }
            Err(e) => {
                assert!(
                    matches!(e, StepError::Precondition { .. } | StepError::NotConverged),
                    "{e:?}"
                );
                assert_eq!(s, before);
            }
        }
    }
    assert_eq!(garbage, 0, "{garbage} of {ok} Ok steps returned garbage");
}

/// SHAKE with the same tolerance and step: its velocities are not projected, so an `Ok` step
/// must change the velocity by no more than the step's forces can (`|Δv| ≤ 1e-6` here).
#[test]
fn shake_with_a_tolerance_below_round_off_never_returns_garbage() {
    let dp = DoublePendulum::<f64>::paper();
    let params = ConstraintNewtonParams {
        tol: 4.99e-77,
        manifold_tol: 2.22e-12,
        ..ConstraintNewtonParams::default()
    };
    let mut shake = Shake::new(dp.system(), dp.constraint(), 1e-30, params).unwrap();
    let mut garbage = 0;
    let mut ok = 0;
    for i in 0..200 {
        let x = f64::from(i);
        // Exactly on the rods (positions from angles), so the start residual is round-off.
        let mut s = State::at_rest(dp.from_angles(0.3 + 0.013 * x, -1.1 + 0.021 * x));
        s.v = vector![0.3, -0.2 + 0.01 * x, 1.1, 0.5 - 0.004 * x];
        let before = s;
        match shake.step(&mut s) {
            Ok(()) => {
                ok += 1;
                if (s.v - before.v).amax() > 1e-6 {
                    garbage += 1;
                }
            }
            Err(_) => assert_eq!(s, before),
        }
    }
    assert_eq!(garbage, 0, "{garbage} of {ok} Ok steps returned garbage");
    assert!(ok > 0, "a start on the manifold steps");
}

#[test]
fn rigid_body_constructors_refuse_inertia_whose_inverse_overflows() {
    let body = RigidBody {
        inertia: Vector3::repeat(5e-324_f64),
        b_mu: 1.0,
    };
    let overflow = Some(ConfigError::Overflow { name: "1/inertia" });
    assert_eq!(
        LinearizedZs2::new(body, 0.01, So3ZsParams::default()).err(),
        overflow
    );
    assert_eq!(
        CayleyVariational::new(body, 0.01, ImplicitNewtonParams::default()).err(),
        overflow
    );
    let body = RigidBody {
        inertia: Vector3::repeat(1e-45_f32),
        b_mu: 1.0,
    };
    assert_eq!(
        LinearizedZs2::new(body, 0.01, So3ZsParams::default()).err(),
        Some(ConfigError::Overflow { name: "1/inertia" })
    );
}

/// A relaxed start whose `R` is not a rotation (`1.5 I`, `diag(3.5e280, 1, 1)`) is refused by
/// every SO(3) method, with every guard off, and the state is untouched.
#[test]
fn rigid_body_steps_refuse_a_start_that_is_not_a_rotation() {
    let body = RigidBody::<f64>::paper();
    let mut zs = LinearizedZs2::new(body, 0.01, So3ZsParams::default()).unwrap();
    let mut cay = CayleyVariational::new(body, 0.01, ImplicitNewtonParams::default()).unwrap();
    zs.set_guards(Guards::off()).unwrap();
    cay.set_guards(Guards::off()).unwrap();
    for r in [
        Matrix3::identity() * 1.5,
        Matrix3::from_diagonal(&vector![3.5e280, 1.0, 1.0]),
    ] {
        let start = BodyState {
            t: 0.0,
            rotation: r,
            omega: vector![1.0, 0.2, 0.1],
        };
        assert!(BodyState::new(r, start.omega).is_err());
        let s0 = start.to_relaxed();
        let (mut a, mut b) = (s0, s0);
        for res in [zs.step(&mut a), cay.step(&mut b)] {
            assert!(
                matches!(
                    res,
                    Err(StepError::Precondition {
                        kind: PreconditionKind::NotOrthogonal,
                        ..
                    })
                ),
                "{res:?}"
            );
        }
        let mut s = s0;
        let _ = zs.step(&mut s);
        assert_eq!(format!("{s:?}"), format!("{s0:?}"));
    }
    // A rotation still steps.
    let mut s = BodyState::<f64>::paper().to_relaxed();
    zs.step(&mut s).unwrap();
    s = BodyState::<f64>::paper().to_relaxed();
    cay.step(&mut s).unwrap();
}

/// The planar 3-link arm of the issue: pinned at the origin, masses 1.0 / 0.7 / 0.4, dashpots
/// `c = 0.2` on every joint (so `C` is not a multiple of `M`), gravity, links along a bent line.
fn arm<T: macrostep::Real>() -> macrostep::mechanism::Mechanism<T, 2, 6, 3> {
    let l = |x: f64| T::lit(x);
    let mut b = MechanismBuilder::<T, 2, 6, 3>::new().unwrap();
    let n0 = b.node(l(1.0), [l(0.6), l(-0.8)]).unwrap();
    let n1 = b.node(l(0.7), [l(1.4), l(-1.4)]).unwrap();
    let n2 = b.node(l(0.4), [l(2.4), l(-1.4)]).unwrap();
    b.pin(n0, [l(0.0), l(0.0)]).unwrap();
    b.rod(n0, n1).unwrap();
    b.rod(n1, n2).unwrap();
    b.gravity(l(9.81)).unwrap();
    b.dashpot_to_ground(n0, l(0.2)).unwrap();
    b.dashpot(n0, n1, l(0.2)).unwrap();
    b.dashpot(n1, n2, l(0.2)).unwrap();
    b.build().unwrap()
}

fn damped_rattle_arm_runs<T: macrostep::Real>(tol: f64) {
    let m = arm::<T>();
    let rattle = Rattle::new(
        m.system(),
        m.constraint(),
        T::lit(1e-3),
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut damped = Damped::new(rattle, m.mass(), m.damping()).unwrap();
    let mut s = m.initial_state();
    let e0 = m.system().energy(&s);
    for k in 0..3000 {
        damped
            .step(&mut s)
            .unwrap_or_else(|e| panic!("step {k}: {e}"));
        let jv = (m.constraint().jacobian(&s.q) * s.v).amax();
        assert!(jv <= T::lit(tol), "step {k}: |g'v| = {jv:?}");
    }
    // Damped: the energy went down, the arm still hangs together.
    assert!(m.system().energy(&s) < e0);
    assert!(m.constraint().value(&s.q).amax() <= T::lit(tol));
}

#[test]
fn damped_rattle_on_a_mechanism_keeps_the_velocity_tangent() {
    // f64: within RATTLE's default manifold tolerance 1e4 ε = 2.2e-12.
    damped_rattle_arm_runs::<f64>(2.2e-12);
    // f32: 1e4 ε = 1.2e-3.
    damped_rattle_arm_runs::<f32>(1.2e-3);
}

/// The damped constrained kick is second order with the run: halving `h` divides the error
/// at `t = 0.5` against a fine reference by about 4.
#[test]
fn damped_rattle_on_a_mechanism_is_second_order() {
    let m = arm::<f64>();
    let run = |h: f64, n: usize| {
        let r = Rattle::new(
            m.system(),
            m.constraint(),
            h,
            ConstraintNewtonParams::default(),
        )
        .unwrap();
        let mut d = Damped::new(r, m.mass(), m.damping() * 5.0).unwrap();
        let mut s = m.initial_state();
        d.integrate(&mut s, n).unwrap();
        s.q
    };
    let reference = run(0.5 / 3200.0, 3200);
    let e1 = (run(0.01, 50) - reference).amax();
    let e2 = (run(0.005, 100) - reference).amax();
    let slope = (e1 / e2).log2();
    assert!(
        (1.8..2.3).contains(&slope),
        "slope {slope} ({e1:e}, {e2:e})"
    );
}

#[test]
fn build_refuses_start_positions_that_violate_a_rod() {
    let mut b = MechanismBuilder::<f64, 2, 4, 2>::new().unwrap();
    let a = b.node(1.0, [1.0, 0.0]).unwrap();
    let c = b.node(1.0, [2.0, 0.0]).unwrap();
    b.pin(a, [0.0, 0.0]).unwrap();
    let mut bad = b;
    bad.rod_length(a, c, 1.5).unwrap();
    assert_eq!(
        bad.build().err(),
        Some(ConfigError::StartMismatch {
            name: "rod",
            index: 1,
            excess: Some(8) // |1 − 2.25| / 2.25 = 0.56 against √ε = 1.5e-8
        })
    );
    let mut pinned = MechanismBuilder::<f64, 2, 4, 2>::new().unwrap();
    let a = pinned.node(1.0, [0.0, -1.0 - 1e-6]).unwrap();
    let c = pinned.node(1.0, [0.0, -2.0]).unwrap();
    pinned.pin_length(a, [0.0, 0.0], 1.0).unwrap();
    pinned.rod(a, c).unwrap();
    assert!(matches!(
        pinned.build().err(),
        Some(ConfigError::StartMismatch {
            name: "rod",
            index: 0,
            ..
        })
    ));
    // The same lengths with matching start positions build.
    let mut good = b;
    good.rod_length(a, c, 1.0).unwrap();
    assert!(good.build().is_ok());
    assert_eq!(
        ConfigError::StartMismatch {
            name: "rod",
            index: 1,
            excess: Some(8)
        }
        .to_string(),
        "start state violates rod 1 (up to 1e8 times the tolerance)"
    );
}

#[test]
fn a_precondition_error_says_which_and_by_how_much() {
    let e = StepError::exceeded(PreconditionKind::NotTangent, 2.8e-11_f64, 2.2e-12);
    assert_eq!(
        e,
        StepError::Precondition {
            kind: PreconditionKind::NotTangent,
            excess: Some(2)
        }
    );
    assert_eq!(
        e.to_string(),
        "state violates the method's precondition: velocity not tangent to the constraint \
         manifold (up to 1e2 times the tolerance)"
    );
    assert_eq!(
        StepError::precondition(PreconditionKind::NoAdjoint).to_string(),
        "state violates the method's precondition: map has no adjoint"
    );
    assert_eq!(
        StepError::exceeded(PreconditionKind::OffManifold, f64::NAN, 1.0),
        StepError::Precondition {
            kind: PreconditionKind::OffManifold,
            excess: None
        }
    );
}
