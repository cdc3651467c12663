//! Forward-mode AD (`macrostep::autodiff`) against hand-derived closed forms (f32 and f64) and
//! against central differences at random seeded points (f64).

use host_tests::experiments::autodiff::{compute, Setup};
use host_tests::{for_scalars, Tolerance};
use macrostep::autodiff::{AdScalar, AutoDiff, ConstraintFn, Energy};
use macrostep::model::{Constraint, Hessian, Penalty, Potential, ThirdDerivative};
use macrostep::Real;
use nalgebra::{SMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// Closed-form tolerance (normwise relative).
fn closed_form_tol<T: Tolerance>() -> f64 {
    if T::EPS > 1e-10 {
        // f32: the AD and the closed form follow different roundings of the same chain rule,
        // each a few ulp per elementary function (observed ≤ 7.6e-7 ≈ 6 ulp); 1e-5 ≈ 80 ulp.
        1e-5
    } else {
        // f64: the required accuracy (observed ≤ 1.2e-15).
        1e-12
    }
}

/// Gradient, Hessian–vector product, Hessian and `a·V‴·a` equal the hand-derived closed forms
/// of polynomial, trigonometric, exponential, √, Coulomb, gravitating-pair and Morse energies.
fn closed_forms<T: Real + Tolerance>() {
    let tol = closed_form_tol::<T>();
    let r = compute(&Setup::quick());
    let errors = if T::EPS > 1e-10 {
        r.errors_f32
    } else {
        r.errors_f64
    };
    assert_eq!(errors.len(), 7);
    for e in &errors {
        assert!(e.points >= 9, "{}: only {} points", e.name, e.points);
        // `x <= tol` is false for NaN, so a NaN derivative fails too.
        for (what, x) in [
            ("gradient", e.gradient),
            ("hessian_vector", e.hessian_vector),
            ("hessian", e.hessian),
            ("third", e.third),
        ] {
            assert!(
                x <= tol,
                "{} {what}: relative error {x:e} > {tol:e}",
                e.name
            );
        }
    }
}
for_scalars!(closed_forms);

/// Two atoms in the plane and a third coordinate pair: every elementary function of `AdScalar`.
struct Everything;
impl<T: Real> Energy<T, 6> for Everything {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 6]) -> S {
        let dx = q[0] - q[2];
        let dy = q[1] - q[3];
        let r = (dx * dx + dy * dy + T::lit(0.5)).sqrt();
        let morse = {
            let w = -((r - T::one()) * -T::lit(1.3)).exp() + T::one();
            w * w * T::lit(2.0)
        };
        let angle = dy.atan2(dx).sin() * T::lit(0.7);
        let coulomb = r.recip() * T::lit(0.4) + r.powf(T::lit(-1.5)) * T::lit(0.2);
        let trig = q[4].cos() * q[5].tan() * T::lit(0.1) + (q[4] * T::lit(0.5)).asin()
            - (q[5] * T::lit(0.3)).acos()
            + q[4].atan() * q[5];
        let hyp = (q[0] * T::lit(0.3)).sinh() * (q[1] * T::lit(0.2)).cosh() + (q[2] * q[5]).tanh();
        let logs = (q[3] * q[3] + T::one()).ln() + (q[4] * q[4] + T::lit(2.0)).cbrt();
        let pw = (q[0] + T::lit(3.0)).powi(3) * T::lit(0.01)
            + (q[1] - T::lit(3.0)).powi(-2)
            + (q[2] - T::lit(5.0)).abs() * q[3]
            + q[4] / (q[5] * q[5] + T::one());
        // The compound assignments are part of the interface too.
        let mut acc = morse + angle;
        acc += coulomb;
        acc -= trig * S::lit(-1.0);
        acc *= S::lit(1.5);
        acc /= S::cst(T::lit(1.5));
        acc + hyp + logs + pw
    }
}

fn random_point(rng: &mut Pcg64, scale: f64) -> SVector<f64, 6> {
    SVector::from_fn(|_, _| rng.random_range(-scale..scale))
}

/// Normwise relative difference `‖a − b‖∞ / ‖b‖∞` (NaN fails every `<` comparison).
fn rel(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0_f64, |m, d| if d.is_nan() { f64::NAN } else { m.max(d) });
    diff / scale.max(1e-300)
}

/// Central-difference tolerance: truncation `O(h²)` with `h = 1e-5` (≈1e-10 × a third
/// derivative of order 1–10) plus roundoff `ε|V|/h` ≈ 1e-11; 1e-7 leaves a wide margin while
/// still catching any wrong derivative (errors of order 1).
const FD_TOL: f64 = 1e-7;
const H: f64 = 1e-5;

/// Central difference of a vector-valued function along `a`.
fn fd<const M: usize>(
    f: impl Fn(&SVector<f64, 6>) -> SVector<f64, M>,
    q: &SVector<f64, 6>,
    a: &SVector<f64, 6>,
) -> SVector<f64, M> {
    (f(&(q + a * H)) - f(&(q - a * H))) / (2.0 * H)
}

fn unit(j: usize) -> SVector<f64, 6> {
    SVector::from_fn(|i, _| if i == j { 1.0 } else { 0.0 })
}

#[test]
fn ad_matches_central_differences_at_random_points() {
    let v = AutoDiff(Everything);
    let mut rng = Pcg64::seed_from_u64(0x00ad_0001);
    for _ in 0..20 {
        let q = random_point(&mut rng, 0.9);
        let a = random_point(&mut rng, 1.0);
        // ∇V vs differences of V.
        let g = v.gradient(&q);
        let g_fd = SVector::<f64, 6>::from_fn(|j, _| {
            fd(|x| SVector::<f64, 1>::new(v.energy(x)), &q, &unit(j))[0]
        });
        assert!(
            rel(g.as_slice(), g_fd.as_slice()) < FD_TOL,
            "gradient at {q}"
        );
        // Hess V vs differences of ∇V (column j), and Hess V·a vs Hess V times a.
        let h = v.hessian(&q);
        let h_fd = SMatrix::<f64, 6, 6>::from_fn(|i, j| fd(|x| v.gradient(x), &q, &unit(j))[i]);
        assert!(
            rel(h.as_slice(), h_fd.as_slice()) < FD_TOL,
            "hessian at {q}"
        );
        assert_eq!(h, h.transpose(), "hessian not symmetric");
        let hv = v.hessian_vector(&q, &a);
        assert!(rel(hv.as_slice(), (h * a).as_slice()) < 1e-13);
        // a·V‴·a = d/dt (Hess V(q + t a) a).
        let t = v.third_contraction(&q, &a);
        let t_fd = fd(|x| v.hessian_vector(x, &a), &q, &a);
        assert!(rel(t.as_slice(), t_fd.as_slice()) < FD_TOL, "third at {q}");
    }
}

/// Two constraints on six coordinates: a bond length and a nonlinear coupling.
struct Links;
impl<T: Real> ConstraintFn<T, 6, 2> for Links {
    fn eval<S: AdScalar<T>>(&self, q: &[S; 6]) -> [S; 2] {
        let (dx, dy) = (q[0] - q[2], q[1] - q[3]);
        [
            dx * dx + dy * dy - T::one(),
            q[4].sin() * q[5].exp() - q[0] * q[3] * q[3],
        ]
    }
}

#[test]
fn constraint_ad_matches_central_differences() {
    let g = AutoDiff(Links);
    let mut rng = Pcg64::seed_from_u64(0x00ad_0002);
    for _ in 0..20 {
        let q = random_point(&mut rng, 1.0);
        let a = random_point(&mut rng, 1.0);
        let w = SVector::<f64, 2>::new(rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0));
        let j = g.jacobian(&q);
        let j_fd = SMatrix::<f64, 2, 6>::from_fn(|i, k| fd(|x| g.value(x), &q, &unit(k))[i]);
        assert!(
            rel(j.as_slice(), j_fd.as_slice()) < FD_TOL,
            "jacobian at {q}"
        );
        // Σ wᵢ Hess gᵢ = ∂(Jᵀw)/∂q.
        let wh = g.weighted_hessian(&q, &w);
        let wh_fd =
            SMatrix::<f64, 6, 6>::from_fn(|i, k| fd(|x| g.jacobian(x).tr_mul(&w), &q, &unit(k))[i]);
        assert!(
            rel(wh.as_slice(), wh_fd.as_slice()) < FD_TOL,
            "weighted hessian at {q}"
        );
        // Row i of hessian_times is d/dt ∇gᵢ(q + t a).
        let ht = g.hessian_times(&q, &a);
        let ht_fd = SMatrix::<f64, 2, 6>::from_fn(|i, k| {
            fd(|x| g.jacobian(x).row(i).transpose(), &q, &a)[k]
        });
        assert!(
            rel(ht.as_slice(), ht_fd.as_slice()) < FD_TOL,
            "hessian_times at {q}"
        );
        // Σ wᵢ a·gᵢ‴·a = d/dt (Σ wᵢ Hess gᵢ(q + t a)) a.
        let t = g.weighted_third_contraction(&q, &w, &a);
        let t_fd = fd(|x| g.weighted_hessian(x, &w) * a, &q, &a);
        assert!(
            rel(t.as_slice(), t_fd.as_slice()) < FD_TOL,
            "weighted third at {q}"
        );
    }
}

/// The penalty potential `V + ½ Σ ωᵢ² gᵢ²` (ω = 30, 7) written directly as one energy.
struct PenaltyByHand;
impl<T: Real> Energy<T, 6> for PenaltyByHand {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 6]) -> S {
        let [g0, g1] = Links.eval(q);
        Everything.energy(q)
            + g0 * g0 * T::lit(0.5 * 30.0 * 30.0)
            + g1 * g1 * T::lit(0.5 * 7.0 * 7.0)
    }
}

/// `Penalty` assembles its derivatives from those of `V` and `g` (000 eq 1.7 and its chain
/// rule); with both from AD it must equal AD of the penalty energy written out.
#[test]
fn penalty_of_ad_parts_equals_ad_of_penalty_energy() {
    let assembled = Penalty::per_constraint(
        AutoDiff(Everything),
        AutoDiff(Links),
        SVector::<f64, 2>::new(30.0, 7.0),
    )
    .unwrap();
    let direct = AutoDiff(PenaltyByHand);
    let mut rng = Pcg64::seed_from_u64(0x00ad_0003);
    for _ in 0..10 {
        let q = random_point(&mut rng, 0.9);
        let a = random_point(&mut rng, 1.0);
        // Two roundings of the same exact quantities, summed in different orders; terms of size
        // ω² = 900 cancel partly, so allow 1e-12 relative (≈ 5000 ulp).
        let g = assembled.gradient(&q);
        assert!(rel(g.as_slice(), direct.gradient(&q).as_slice()) < 1e-12);
        let h = assembled.hessian(&q);
        assert!(rel(h.as_slice(), direct.hessian(&q).as_slice()) < 1e-12);
        let t = assembled.third_contraction(&q, &a);
        assert!(rel(t.as_slice(), direct.third_contraction(&q, &a).as_slice()) < 1e-12);
    }
}

/// The model traits of `AutoDiff` agree with the free functions and with plain evaluation.
#[test]
fn wrapper_energy_is_plain_evaluation() {
    let q = SVector::<f64, 6>::new(0.1, -0.2, 0.3, 0.4, -0.5, 0.6);
    let plain: [f64; 6] = q.into();
    assert_eq!(AutoDiff(Everything).energy(&q), Everything.energy(&plain));
    let (v, g) = macrostep::autodiff::value_gradient(&Everything, &q);
    assert_eq!(v, Everything.energy(&plain));
    assert_eq!(g, AutoDiff(Everything).gradient(&q));
}
