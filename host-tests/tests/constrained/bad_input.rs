//! Bad input: configuration errors, singular Jacobians, non-finite states, Newton failures,
//! off-manifold starts.

use super::*;

#[test]
fn config_errors() {
    let p = Pendulum::<f64>::paper();
    let (sys, g) = (p.system(), p.constraint());
    let d = ConstraintNewtonParams::<f64>::default();
    assert_eq!(
        Rattle::new(sys, g, 0.0, d).err(),
        Some(ConfigError::StepSize)
    );
    assert_eq!(
        Shake::new(sys, g, f64::NAN, d).err(),
        Some(ConfigError::StepSize)
    );
    let bad = ConstraintNewtonParams { tol: f64::NAN, ..d };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::NonFinite { name: "tol" })
    );
    let bad = ConstraintNewtonParams { tol: -1.0, ..d };
    assert_eq!(
        Reich4::new(sys, g, 0.1, Stage::Reich, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "tol",
            bound: "> 0"
        })
    );
    let bad = ConstraintNewtonParams { max_iter: 0, ..d };
    assert_eq!(
        Shake::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "max_iter",
            bound: ">= 1"
        })
    );
    let bad = ConstraintNewtonParams {
        manifold_tol: 0.0,
        ..d
    };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::OutOfRange {
            name: "manifold_tol",
            bound: "> 0"
        })
    );
    let bad = ConstraintNewtonParams {
        tol: 1e-10,
        manifold_tol: 1e-12,
        ..d
    };
    assert_eq!(
        Rattle::new(sys, g, 0.1, bad).err(),
        Some(ConfigError::Inconsistent {
            name: "tol <= manifold_tol"
        })
    );
    assert_eq!(
        MultiplierWindow::<f64, 1, 4>::new(vector![1.0], 5).err(),
        Some(ConfigError::OutOfRange {
            name: "len",
            bound: "in 1..=CAP"
        })
    );
    assert_eq!(
        MultiplierWindow::<f64, 1, 4>::new(vector![-1.0], 2).err(),
        Some(ConfigError::OutOfRange {
            name: "omega2",
            bound: "> 0"
        })
    );
}

/// Every error leaves the state bit-identical.
/// `i.step` from `s` fails with a [`StepError::Precondition`] of `kind` with a measured excess,
/// and leaves `s` untouched.
fn expect_precondition<I: Integrator<f64, N>, const N: usize>(
    i: &mut I,
    s: &State<f64, N>,
    kind: PreconditionKind,
) {
    let mut t = *s;
    match i.step(&mut t) {
        Err(StepError::Precondition { kind: k, excess }) => {
            assert_eq!(k, kind);
            assert!(excess.is_some_and(|e| e >= 1), "excess {excess:?}");
        }
        other => panic!("expected a {kind:?} precondition error, got {other:?}"),
    }
    assert_eq!(t.q.map(f64::to_bits), s.q.map(f64::to_bits));
    assert_eq!(t.v.map(f64::to_bits), s.v.map(f64::to_bits));
}

fn expect_err<I: Integrator<f64, N>, const N: usize>(i: &mut I, s: &State<f64, N>, e: StepError) {
    let mut t = *s;
    assert_eq!(i.step(&mut t), Err(e));
    assert_eq!(t.q.map(f64::to_bits), s.q.map(f64::to_bits));
    assert_eq!(t.v.map(f64::to_bits), s.v.map(f64::to_bits));
    assert_eq!(t.t.to_bits(), s.t.to_bits());
}

#[test]
fn rank_deficient_constraint_jacobian_is_singular() {
    // The same rod twice: g' has two equal rows.
    let link = Link::anchored(0, SVector::zeros(), 1.0);
    let g = PlanarDistances::<f64, 2, 2>::new([link, link]).unwrap();
    let sys = Pendulum::<f64>::paper().system();
    let s = State::at_rest(vector![1.0, 0.0]);
    let d = ConstraintNewtonParams::default();
    expect_err(
        &mut Rattle::new(sys, g, 0.1, d).unwrap(),
        &s,
        StepError::Singular,
    );
    expect_err(
        &mut Shake::new(sys, g, 0.1, d).unwrap(),
        &s,
        StepError::Singular,
    );
    expect_err(
        &mut Reich4::new(sys, g, 0.1, Stage::Reich, d).unwrap(),
        &s,
        StepError::Singular,
    );
}

#[test]
fn nan_positions_are_rejected() {
    let p = Pendulum::<f64>::paper();
    let d = ConstraintNewtonParams::default();
    let s = State::at_rest(vector![f64::NAN, 0.0]);
    expect_err(
        &mut Rattle::new(p.system(), p.constraint(), 0.1, d).unwrap(),
        &s,
        StepError::NonFiniteState,
    );
    expect_err(
        &mut Shake::new(p.system(), p.constraint(), 0.1, d).unwrap(),
        &s,
        StepError::NonFiniteState,
    );
    let mut r = Rattle::new(p.system(), p.constraint(), 0.1, d).unwrap();
    let mut t = p.initial_state();
    assert_eq!(r.step_by(&mut t, 0.0), Err(StepError::StepSize));
}

#[test]
fn newton_not_converging_is_reported() {
    let p = Pendulum::<f64>::paper();
    let capped = ConstraintNewtonParams {
        max_iter: 1,
        ..ConstraintNewtonParams::default()
    };
    // A fast pendulum and a big step: one Newton update cannot reach 2e-13.
    let s = State::new(0.0, vector![0.0, -1.0], vector![3.0, 0.0]);
    expect_err(
        &mut Rattle::new(p.system(), p.constraint(), 0.3, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    expect_err(
        &mut Shake::new(p.system(), p.constraint(), 0.3, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    expect_err(
        &mut Reich4::new(p.system(), p.constraint(), 0.3, Stage::Reich, capped).unwrap(),
        &s,
        StepError::NotConverged,
    );
    // The default cap converges from the same start.
    let mut ok = s;
    Rattle::new(
        p.system(),
        p.constraint(),
        0.3,
        ConstraintNewtonParams::default(),
    )
    .unwrap()
    .step(&mut ok)
    .unwrap();
}

#[test]
fn off_manifold_start_is_rejected_or_projected_as_asked() {
    let p = Pendulum::<f64>::paper();
    let g = p.constraint();
    // Position off (|q| = 1.1) and velocity off (radial component).
    let off_q = State::at_rest(vector![1.1, 0.0]);
    let off_v = State::new(0.0, vector![1.0, 0.0], vector![0.2, 0.5]);
    let reject = ConstraintNewtonParams::default();
    for (s, kind) in [
        (off_q, PreconditionKind::OffManifold),
        (off_v, PreconditionKind::NotTangent),
    ] {
        expect_precondition(
            &mut Rattle::new(p.system(), g, 0.1, reject).unwrap(),
            &s,
            kind,
        );
        expect_precondition(
            &mut Reich4::new(p.system(), g, 0.1, Stage::Reich, reject).unwrap(),
            &s,
            kind,
        );
    }
    // SHAKE checks the position only (its mesh velocities are off the hidden constraint).
    expect_precondition(
        &mut Shake::new(p.system(), g, 0.1, reject).unwrap(),
        &off_q,
        PreconditionKind::OffManifold,
    );
    let mut t = off_v;
    Shake::new(p.system(), g, 0.1, reject)
        .unwrap()
        .step(&mut t)
        .unwrap();
    // Project: the step starts from the projection.
    let project = ConstraintNewtonParams {
        off_manifold: OffManifold::Project,
        ..reject
    };
    let mut r = Rattle::new(p.system(), g, 0.1, project).unwrap();
    for s in [off_q, off_v] {
        let mut a = s;
        r.step(&mut a).unwrap();
        let mut b = s;
        r.project(&mut b).unwrap();
        assert!(g.value(&b.q)[0].abs() < 1e-12);
        assert!((g.jacobian(&b.q) * b.v)[0].abs() < 1e-12);
        let mut rr = Rattle::new(p.system(), g, 0.1, reject).unwrap();
        rr.step(&mut b).unwrap();
        assert_eq!(a, b);
    }
}
