//! Verification of the constrained conversion (003 §3, stages S1–S4,
//! `macrostep::convert::ConvertedConstrained`) on the rigid pendulum and double pendulum in
//! Cartesian coordinates: the converted maps' `ORDER` (equal to the source's), `SYMPLECTIC` on
//! the constraint manifold (defect ≤ 1e-9 where the source is not symplectic), the constraint
//! residual, bounded energy where the source drifts, the exact tangent map of the constrained
//! RK layer, f32 and f64, and every error path.

use host_tests::experiments::convert::{compute_constrained, ConstrainedRow, ConstrainedSetup};
use host_tests::{for_scalars, Tolerance};
use macrostep::constrained::{ConstraintNewtonParams, OffManifold};
use macrostep::convert::{
    ConstrainedRk, ConvertParams, ConvertedConstrained, Euler, Heun, Rk4, StandardLayer,
};
use macrostep::model::Constraint;
use macrostep::nalgebra::{vector, SMatrix, SVector};
use macrostep::systems::Pendulum;
use macrostep::systems::{LinearPotential, PlanarDistances};
use macrostep::Stepper;
use macrostep::{ConfigError, Guards, Integrator, PreconditionKind, Real, State, StepError};
use std::sync::OnceLock;

/// The quick constrained measurements, computed once for the tests that read them.
fn quick() -> &'static [ConstrainedRow] {
    static R: OnceLock<Vec<ConstrainedRow>> = OnceLock::new();
    R.get_or_init(|| compute_constrained(&ConstrainedSetup::quick()))
}

// ---------------------------------------------------------------------------------------------
// Tolerances.

/// Converted vs source observed order (same `h`): they must agree to 0.15 (Euler's converted
/// slope is 0.91 at h = 0.04 … 0.01, pre-asymptotic; the others are within 0.03).
const SAME_ORDER_TOL: f64 = 0.15;
/// Observed vs claimed order of the converted method: 0.15 for the same reason.
const CLAIMED_ORDER_TOL: f64 = 0.15;
/// The required symplecticity defect bound (central differences with step 1e-6 leave
/// ~1e-10 of differencing error).
const DEFECT_MAX: f64 = 1e-9;
/// Relative constraint residual of a converted run: the projection's Newton tolerance is
/// 1000 ε, and one more update after it is met leaves roundoff (measured ≤ 7e-16).
const RESIDUAL_MAX: f64 = 1e-12;

#[test]
fn constrained_order_equals_the_source_order() {
    for r in quick() {
        let name = format!("{} {}", r.model, r.method.name());
        assert!(
            (r.order - r.source_order).abs() < SAME_ORDER_TOL,
            "{name}: converted slope {} vs source slope {} (errors {:?} / {:?})",
            r.order,
            r.source_order,
            r.errors,
            r.source_errors
        );
        assert!(
            (r.order - f64::from(r.claimed)).abs() < CLAIMED_ORDER_TOL,
            "{name}: converted slope {} vs ORDER {}",
            r.order,
            r.claimed
        );
    }
}

#[test]
fn constrained_converted_maps_are_symplectic_on_the_manifold() {
    for r in quick() {
        let name = format!("{} {}", r.model, r.method.name());
        assert!(
            r.defect <= DEFECT_MAX,
            "{name}: converted defect {}",
            r.defect
        );
        // The same measurement sees the non-symplectic source (O(h^{r+1}) at h = 0.05: 3e-9
        // for RK4 on the pendulum), so the bound above is not vacuous.
        assert!(
            r.source_defect > 2e-9 && r.source_defect > 10.0 * r.defect,
            "{name}: source defect {} vs converted {}",
            r.source_defect,
            r.defect
        );
    }
}

#[test]
fn constrained_converted_runs_stay_on_the_constraint() {
    for r in quick() {
        let name = format!("{} {}", r.model, r.method.name());
        assert!(
            r.converted.failed_at.is_none(),
            "{name}: converted run failed"
        );
        assert!(
            r.converted.residual_max <= RESIDUAL_MAX,
            "{name}: residual {}",
            r.converted.residual_max
        );
        // The source drifts off (RK4 at h = 0.05 by 1e-5 within t = 10).
        assert!(
            r.source.residual_max > 1e-6,
            "{name}: source residual {}",
            r.source.residual_max
        );
    }
}

/// Energy over a long run on the pendulum (released horizontally, h = 0.05, t = 400): the RK4
/// source drifts (the error in the second half of the run is larger than in the first), the
/// converted map's error is bounded (same maximum in both halves).
#[test]
fn constrained_energy_is_bounded_where_the_source_drifts() {
    let p = Pendulum::<f64>::paper();
    let layer =
        ConstrainedRk::<f64, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), 0.05).unwrap();
    let mut src = layer.with_guards(Guards::off()).unwrap();
    let mut c = convert(layer);
    let e0 = p.system().energy(&p.initial_state());
    let (mut s, mut r) = (p.initial_state(), p.initial_state());
    let (mut conv, mut source) = ([0.0f64; 2], [0.0f64; 2]);
    let n = 8000;
    for k in 0..n {
        c.step(&mut s).unwrap();
        src.step(&mut r).unwrap();
        let half = usize::from(2 * k >= n);
        conv[half] = conv[half].max((p.system().energy(&s) - e0).abs());
        source[half] = source[half].max((p.system().energy(&r) - e0).abs());
    }
    assert!(source[1] > 1.5 * source[0], "source: halves {source:?}");
    assert!(conv[1] < 1.1 * conv[0], "converted: halves {conv:?}");
    assert!(
        conv[1] < source[1] / 10.0,
        "converted {conv:?} vs source {source:?}"
    );
}

/// `ORDER` is the source's, `SYMPLECTIC` is claimed, `SYMMETRIC` is not.
#[test]
fn constrained_claims() {
    type L<K> = ConstrainedRk<f64, LinearPotential<f64, 2>, PlanarDistances<f64, 2, 1>, K, 2, 1>;
    type C<K> = ConvertedConstrained<f64, L<K>, 2, 1>;
    assert_eq!(<C<Euler> as Integrator<f64, 2>>::ORDER, 1);
    assert_eq!(<C<Heun> as Integrator<f64, 2>>::ORDER, 2);
    assert_eq!(<C<Rk4> as Integrator<f64, 2>>::ORDER, 4);
    const { assert!(<C<Rk4> as Integrator<f64, 2>>::SYMPLECTIC) };
    const { assert!(!<C<Rk4> as Integrator<f64, 2>>::SYMMETRIC) };
    const { assert!(!<L<Rk4> as Integrator<f64, 2>>::SYMPLECTIC) };
}

fn convert<K: macrostep::convert::Tableau>(
    layer: ConstrainedRk<f64, LinearPotential<f64, 2>, PlanarDistances<f64, 2, 1>, K, 2, 1>,
) -> ConvertedConstrained<
    f64,
    ConstrainedRk<f64, LinearPotential<f64, 2>, PlanarDistances<f64, 2, 1>, K, 2, 1>,
    2,
    1,
> {
    ConvertedConstrained::new(
        layer,
        ConvertParams::default(),
        ConstraintNewtonParams::default(),
    )
    .unwrap()
    .with_guards(Guards::off())
    .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The layer's tangent map (003 §4.1).

/// The constrained RK4 segment: its end is the integrator's step, and its tangent map and
/// action derivatives match central differences of the segment itself.
#[test]
fn constrained_rk4_segment_matches_its_step_and_differences() {
    let p = Pendulum::<f64>::paper();
    let mut rk =
        ConstrainedRk::<f64, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), 0.1).unwrap();
    // Off the manifold on purpose: the layer is defined on all of ℝ²ᴺ.
    let (q, v) = (vector![0.6, -0.85], vector![0.4, 0.3]);
    let seg = rk.segment(&q, &v, 0.1);
    let mut s = State::new(0.0, q, v);
    rk.step(&mut s).unwrap();
    assert!((seg.q - s.q).amax() < 1e-15, "segment end vs step");
    let eps = 1e-6;
    for k in 0..4 {
        let mut dq = SVector::<f64, 2>::zeros();
        let mut dv = SVector::<f64, 2>::zeros();
        if k < 2 {
            dq[k] = eps
        } else {
            dv[k - 2] = eps
        }
        let a = rk.segment(&(q + dq), &(v + dv), 0.1);
        let b = rk.segment(&(q - dq), &(v - dv), 0.1);
        let fd_q = (a.q - b.q) / (2.0 * eps);
        let fd_s = (a.s - b.s) / (2.0 * eps);
        let (col, ds) = if k < 2 {
            (seg.q_q.column(k).into_owned(), seg.s_q[k])
        } else {
            (seg.q_v.column(k - 2).into_owned(), seg.s_v[k - 2])
        };
        // Central differences: O(ε²) truncation + O(ε_mach/ε) rounding ≈ 1e-10.
        assert!((fd_q - col).amax() < 1e-8, "column {k}: {fd_q} vs {col}");
        assert!((fd_s - ds).abs() < 1e-8, "action {k}: {fd_s} vs {ds}");
    }
}

// ---------------------------------------------------------------------------------------------
// f32 and f64.

/// The converted RK4 on the pendulum in `T`: on the rod to the scalar's roundoff and energy
/// bounded over 400 steps of h = 0.05.
fn constrained_rk4_pendulum<T: Real + Tolerance>() {
    let p = Pendulum::<T>::paper();
    let layer =
        ConstrainedRk::<T, _, _, Rk4, 2, 1>::new(p.system(), p.constraint(), T::lit(0.05)).unwrap();
    let mut c = ConvertedConstrained::new(
        layer,
        ConvertParams::default(),
        ConstraintNewtonParams::default(),
    )
    .unwrap()
    .with_guards(Guards::off())
    .unwrap();
    let mut s = p.initial_state();
    let e0 = p.system().energy(&s).to_f64();
    let (mut res, mut de) = (0.0f64, 0.0f64);
    for _ in 0..400 {
        c.step(&mut s).unwrap();
        res = res.max((s.q.norm().to_f64() - 1.0).abs());
        de = de.max((p.system().energy(&s).to_f64() - e0).abs());
    }
    // A few hundred roundoffs of T (f32: 1e-5; f64: 1e-13).
    assert!(res < 100.0 * T::EPS, "residual {res}");
    // RK4's O(h⁴) energy error (2e-7 in f64) plus f32 roundoff of the energy sum.
    assert!(de < 1e-6 + 1e3 * T::EPS, "energy {de}");
}
for_scalars!(constrained_rk4_pendulum);

// ---------------------------------------------------------------------------------------------
// Errors.

fn pendulum_layer(
    h: f64,
) -> ConstrainedRk<f64, LinearPotential<f64, 2>, PlanarDistances<f64, 2, 1>, Rk4, 2, 1> {
    let p = Pendulum::<f64>::paper();
    ConstrainedRk::new(p.system(), p.constraint(), h).unwrap()
}

#[test]
fn constrained_bad_parameters_are_refused() {
    let p = ConvertParams {
        alpha_minus: -0.5,
        ..Default::default()
    };
    assert_eq!(
        ConvertedConstrained::new(pendulum_layer(0.1), p, ConstraintNewtonParams::default()).err(),
        Some(ConfigError::OutOfRange {
            name: "alpha_minus",
            bound: "0 for a constrained conversion"
        })
    );
    let p = ConvertParams {
        max_iter: 0,
        ..Default::default()
    };
    assert!(matches!(
        ConvertedConstrained::new(pendulum_layer(0.1), p, ConstraintNewtonParams::default()).err(),
        Some(ConfigError::OutOfRange {
            name: "max_iter",
            ..
        })
    ));
    let n = ConstraintNewtonParams {
        tol: -1.0,
        ..Default::default()
    };
    assert!(ConvertedConstrained::new(pendulum_layer(0.1), ConvertParams::default(), n).is_err());
    let pend = Pendulum::<f64>::paper();
    assert_eq!(
        ConstrainedRk::<f64, _, _, Rk4, 2, 1>::new(pend.system(), pend.constraint(), 0.0).err(),
        Some(ConfigError::StepSize)
    );
}

fn assert_fails_untouched<I: Integrator<f64, N>, const N: usize>(
    c: &mut I,
    s0: State<f64, N>,
    e: StepError,
) {
    let mut s = s0;
    match (c.step(&mut s), e) {
        // A precondition: the kind, and an excess that was measured.
        (
            Err(StepError::Precondition { kind, excess }),
            StepError::Precondition { kind: want, .. },
        ) => {
            assert_eq!(kind, want);
            assert!(excess.is_some_and(|x| x >= 1), "{excess:?}");
        }
        (got, _) => assert_eq!(got, Err(e)),
    }
    assert_eq!(s.t.to_bits(), s0.t.to_bits());
    for k in 0..N {
        assert_eq!(s.q[k].to_bits(), s0.q[k].to_bits());
        assert_eq!(s.v[k].to_bits(), s0.v[k].to_bits());
    }
}

#[test]
fn constrained_start_off_the_manifold_is_refused_or_projected() {
    let mut c = convert(pendulum_layer(0.1));
    // Off the rod.
    assert_fails_untouched(
        &mut c,
        State::new(0.0, vector![1.01, 0.0], vector![0.0, 0.0]),
        StepError::precondition(PreconditionKind::OffManifold),
    );
    // On the rod with a velocity along it.
    assert_fails_untouched(
        &mut c,
        State::new(0.0, vector![1.0, 0.0], vector![0.1, 0.2]),
        StepError::precondition(PreconditionKind::NotTangent),
    );
    assert_fails_untouched(
        &mut c,
        State::new(0.0, vector![f64::NAN, 0.0], vector![0.0, 0.0]),
        StepError::NonFiniteState,
    );
    // With OffManifold::Project the start is brought onto the manifold first.
    let n = ConstraintNewtonParams {
        off_manifold: OffManifold::Project,
        ..Default::default()
    };
    // (Guards off: the projection changes the energy, which the energy guard would flag.)
    let mut c = ConvertedConstrained::new(pendulum_layer(0.1), ConvertParams::default(), n)
        .unwrap()
        .with_guards(Guards::off())
        .unwrap();
    let mut s = State::new(0.0, vector![1.01, 0.0], vector![0.1, 0.2]);
    c.step(&mut s).unwrap();
    assert!((s.q.norm() - 1.0).abs() < RESIDUAL_MAX);
    assert!(s.q.dot(&s.v).abs() < 1e-14, "velocity along the rod");
}

#[test]
fn constrained_non_convergence_is_a_typed_error() {
    let s0 = State::new(0.0, vector![0.6, -0.8], vector![0.8, 0.6]);
    // One fixed-point iteration is not enough (contraction O(h)).
    let p = ConvertParams {
        max_iter: 1,
        ..Default::default()
    };
    let mut c =
        ConvertedConstrained::new(pendulum_layer(0.1), p, ConstraintNewtonParams::default())
            .unwrap();
    assert_fails_untouched(&mut c, s0, StepError::NotConverged);
    // One Newton update of ℙ is not enough either (the RK4 end is off the rod by O(h⁵)).
    let n = ConstraintNewtonParams {
        max_iter: 1,
        ..Default::default()
    };
    let mut c =
        ConvertedConstrained::new(pendulum_layer(0.1), ConvertParams::default(), n).unwrap();
    assert_fails_untouched(&mut c, s0, StepError::NotConverged);
    // The same step converges with the defaults.
    let mut c = convert(pendulum_layer(0.1));
    let mut s = s0;
    c.step(&mut s).unwrap();
    assert!(c.iterations() > 1);
}

/// Two copies of the rod constraint: `g′M⁻¹g′ᵀ` is singular.
#[derive(Clone, Copy)]
struct TwiceTheRod;

impl Constraint<f64, 2, 2> for TwiceTheRod {
    fn value(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        let g = q.norm_squared() - 1.0;
        vector![g, g]
    }
    fn jacobian(&self, q: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        let r = q.transpose() * 2.0;
        SMatrix::from_rows(&[r, r])
    }
    fn weighted_hessian(&self, _: &SVector<f64, 2>, w: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        SMatrix::identity() * (2.0 * (w[0] + w[1]))
    }
    fn hessian_times(&self, _: &SVector<f64, 2>, a: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        let r = a.transpose() * 2.0;
        SMatrix::from_rows(&[r, r])
    }
    fn weighted_third_contraction(
        &self,
        _: &SVector<f64, 2>,
        _: &SVector<f64, 2>,
        _: &SVector<f64, 2>,
    ) -> SVector<f64, 2> {
        SVector::zeros()
    }
}

#[test]
fn dependent_constraints_are_a_typed_error() {
    let p = Pendulum::<f64>::paper();
    let s0 = State::new(0.0, vector![0.6, -0.8], vector![0.8, 0.6]);
    let mut src = ConstrainedRk::<f64, _, _, Rk4, 2, 2>::new(p.system(), TwiceTheRod, 0.1).unwrap();
    assert_fails_untouched(&mut src, s0, StepError::Singular);
    let layer = ConstrainedRk::<f64, _, _, Rk4, 2, 2>::new(p.system(), TwiceTheRod, 0.1).unwrap();
    let mut c = ConvertedConstrained::new(
        layer,
        ConvertParams::default(),
        ConstraintNewtonParams::default(),
    )
    .unwrap();
    let mut s = s0;
    let e = c.step(&mut s).unwrap_err();
    assert!(
        matches!(e, StepError::Singular | StepError::NonFiniteResult),
        "{e:?}"
    );
    assert_eq!(s, s0);
}

// ---------------------------------------------------------------------------------------------
// A non-isotropic mass matrix.

/// The double pendulum with unequal masses `(1, 3)` and rods `(1, 1.5)` (`M = diag(1, 1, 3, 3)`,
/// so the `M`-orthogonal and the orthogonal projections of the construction differ): the
/// converted RK4 keeps order 4 against the rigid reference, stays on the rods and is symplectic
/// on the manifold.
#[test]
fn constrained_unequal_masses_order_and_symplecticity() {
    use host_tests::manifold::{from_x, manifold_defect, to_x};
    use macrostep::constrained::Rattle;
    use macrostep::systems::DoublePendulum;
    let dp = DoublePendulum::<f64>::new([1.0, 3.0], 1.0, [1.0, 1.5]).unwrap();
    let (sys, g) = (dp.system(), dp.constraint());
    let s0 = State::at_rest(dp.from_angles(1.0, -0.5));
    let reference = host_tests::rigid::DoublePendulum {
        m1: 1.0,
        m2: 3.0,
        g: 1.0,
        l1: 1.0,
        l2: 1.5,
    };
    let arr = |x: &SVector<f64, 4>| [x[0], x[1], x[2], x[3]];
    let exact = &reference.solve(&arr(&s0.q), &arr(&s0.v), &[2.0], 1e-13, 1e-13)[0];
    let make = |h: f64| {
        let layer = ConstrainedRk::<f64, _, _, Rk4, 4, 2>::new(sys, g, h).unwrap();
        ConvertedConstrained::new(
            layer,
            ConvertParams::default(),
            ConstraintNewtonParams::default(),
        )
        .unwrap()
        .with_guards(Guards::off())
        .unwrap()
    };
    let hs = [0.04, 0.02, 0.01];
    let mut errs = Vec::new();
    for &h in &hs {
        let mut c = make(h);
        let mut s = s0;
        c.integrate(&mut s, (2.0 / h).round() as usize).unwrap();
        assert!(
            g.residual(&s.q) <= RESIDUAL_MAX,
            "residual {}",
            g.residual(&s.q)
        );
        let e = (s.q - SVector::from(exact.q))
            .amax()
            .max((s.v - SVector::from(exact.v)).amax());
        errs.push(e);
    }
    let slope = host_tests::measure::loglog_slope(&hs, &errs);
    assert!(
        (slope - 4.0).abs() < CLAIMED_ORDER_TOL,
        "slope {slope}, errors {errs:?}"
    );
    let mass = sys.mass;
    let rattle = Rattle::new(sys, g, 0.05, ConstraintNewtonParams::default()).unwrap();
    let mut c = make(0.05);
    let mut moving = State::at_rest(dp.from_angles(0.5, -0.3));
    rattle.project(&mut moving).unwrap();
    moving.v = vector![0.4, 0.2, 0.9, 0.1];
    rattle.project(&mut moving).unwrap();
    let defect = manifold_defect(
        &g,
        &mass,
        &to_x(&moving, &mass),
        |x| {
            let mut s = from_x(x, &mass);
            c.step(&mut s).unwrap();
            to_x(&s, &mass)
        },
        |x| {
            let mut s = from_x(x, &mass);
            rattle.project(&mut s).unwrap();
            to_x(&s, &mass)
        },
        1e-6,
    );
    assert!(defect <= DEFECT_MAX, "defect {defect}");
}
