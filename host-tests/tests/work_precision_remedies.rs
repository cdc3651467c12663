//! `reproduce work-precision-remedies` on its quick setup, and the two model
//! variants checked against closed forms and finite differences (not against themselves).

use host_tests::experiments::work_precision::remedies::{compute, Results, Setup};
use host_tests::fixtures::penalised_dp::{DistanceForm, GaussNewton};
use macrostep::model::{Hessian, Potential, ThirdDerivative};
use macrostep::systems::DoublePendulum;
use nalgebra::{Matrix2, Matrix4, SVector, Vector4};
use std::sync::OnceLock;

fn results() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| compute(&Setup::quick()))
}

/// Off the manifold: both rods stretched and turned.
fn off() -> Vector4<f64> {
    Vector4::new(0.3, -1.05, 1.2, -2.2)
}

/// The distance-form energy is gravity plus `½ Σ ωᵢ² (|dᵢ| − Lᵢ)²`, with `ωᵢ = ω` or, matched,
/// `2ωLᵢ` (closed form at a stretched configuration); zero penalty on the manifold.
#[test]
fn distance_form_energy_matches_the_closed_form() {
    let omega = 7.0;
    let start = DoublePendulum::<f64>::paper().initial_state().q;
    let sys = DistanceForm::paper(omega, false);
    assert!((sys.potential.energy(&start) - (start[1] + start[3])).abs() < 1e-12);
    let q = off();
    let r1 = (q[0] * q[0] + q[1] * q[1]).sqrt();
    let r2 = ((q[2] - q[0]).powi(2) + (q[3] - q[1]).powi(2)).sqrt();
    let (d1, d2) = (r1 - 1.0, r2 - 2f64.sqrt());
    let gravity = q[1] + q[3];
    let plain = gravity + 0.5 * omega * omega * (d1 * d1 + d2 * d2);
    let matched = gravity + 0.5 * 4.0 * omega * omega * (d1 * d1 + 2.0 * d2 * d2);
    assert!((sys.potential.energy(&q) - plain).abs() < 1e-12 * plain.abs());
    let m = DistanceForm::paper(omega, true).potential.energy(&q);
    assert!((m - matched).abs() < 1e-12 * matched.abs());
    // The guards see the rods' residual.
    assert!(
        sys.potential
            .constraint_residual(&q)
            .expect("penalises rods")
            > 1e-3
    );
}

/// The Gauss–Newton matrix is the exact Hessian minus `ω² Σ gᵢ ∇²gᵢ` (for the squared distances
/// `∇²g₁ = 2 diag(1, 1, 0, 0)`, `∇²g₂ = 2 [[I, −I], [−I, I]]`); energy and gradient are exact.
#[test]
fn gauss_newton_drops_the_g_times_curvature_term() {
    let omega = 7.0;
    let q = off();
    let exact = DoublePendulum::<f64>::paper().penalised(omega).unwrap();
    let gn = GaussNewton::paper(omega, false).potential;
    assert_eq!(gn.gradient(&q), exact.potential.gradient(&q));
    let g1 = q[0] * q[0] + q[1] * q[1] - 1.0;
    let g2 = (q[2] - q[0]).powi(2) + (q[3] - q[1]).powi(2) - 2.0;
    let i2 = Matrix2::<f64>::identity();
    let mut curv = Matrix4::<f64>::zeros();
    curv.fixed_view_mut::<2, 2>(0, 0)
        .copy_from(&(i2 * (2.0 * g1 + 2.0 * g2)));
    curv.fixed_view_mut::<2, 2>(2, 2)
        .copy_from(&(i2 * (2.0 * g2)));
    curv.fixed_view_mut::<2, 2>(0, 2)
        .copy_from(&(i2 * (-2.0 * g2)));
    curv.fixed_view_mut::<2, 2>(2, 0)
        .copy_from(&(i2 * (-2.0 * g2)));
    let want = exact.potential.hessian(&q) - curv * (omega * omega);
    let got = gn.hessian(&q);
    assert!((got - want).amax() < 1e-12 * want.amax(), "{got} vs {want}");
    // On the manifold the two matrices agree.
    let s = DoublePendulum::<f64>::paper().initial_state().q;
    assert!((gn.hessian(&s) - exact.potential.hessian(&s)).amax() < 1e-10);
}

/// The Gauss–Newton third contraction is the derivative of its matrix: `(a·∂G·a)ᵢ =
/// ∂ᵢ (aᵀ G a)`, by central differences of `hessian`.
#[test]
fn gauss_newton_third_contraction_is_the_derivative_of_its_matrix() {
    let gn = GaussNewton::paper(7.0, false).potential;
    let (q, a) = (off(), Vector4::new(0.4, -0.3, 0.2, 0.7));
    let eps = 1e-5;
    let fd = SVector::<f64, 4>::from_fn(|i, _| {
        let e = SVector::<f64, 4>::from_fn(|j, _| if i == j { eps } else { 0.0 });
        let f = |x: &Vector4<f64>| a.dot(&(gn.hessian(x) * a));
        (f(&(q + e)) - f(&(q - e))) / (2.0 * eps)
    });
    let got = gn.third_contraction(&q, &a);
    assert!((got - fd).amax() < 1e-6 * fd.amax(), "{got} vs {fd}");
}

/// Every remedy completes its first grid step (ωh = 0.5) at ω = 100 and 1000, and every figure
/// key is present once.
#[test]
fn every_remedy_has_a_finite_cap() {
    let r = results();
    let setup = Setup::quick();
    assert_eq!(r.caps.len(), setup.omegas.len());
    for (w, caps) in &r.caps {
        assert_eq!(caps.len(), setup.remedies().len());
        for c in caps {
            assert!(
                c.h_max.is_finite() && c.h_max * w >= 0.5,
                "{} at ω = {w}: {} ({})",
                c.method,
                c.h_max,
                c.failure
            );
        }
    }
}

/// The measured properties: all four second order (ω = 20, quick steps 4e-3 … 1e-3) and
/// symmetric; the exact Z&S symplectic to the finite-difference floor, the Gauss–Newton Z&S
/// not (the finding of the study: `G ≠ ∇²V` breaks the discrete Lagrangian of 000 eq 1.2).
#[test]
fn gauss_newton_keeps_order_and_symmetry_but_not_symplecticity() {
    let r = results();
    let get = |k: &str| r.props.iter().find(|p| p.key == k).expect(k);
    for p in &r.props {
        assert!(
            (1.75..2.2).contains(&p.order),
            "{}: order {}",
            p.key,
            p.order
        );
        assert!(p.reversibility < 1e-10, "{}: {}", p.key, p.reversibility);
    }
    let zs = get("zs").symplectic_defect;
    let gn = get("zs_gauss_newton").symplectic_defect;
    assert!(zs < 1e-8, "exact Z&S defect {zs}");
    assert!(gn > 1e3 * zs && gn > 1e-4, "GN defect {gn} vs exact {zs}");
}
