//! Unit tests: each elementary derivative against its textbook formula (evaluated with `libm`),
//! nesting, and the seeding of the derivative drivers on small polynomials.

use super::*;
use nalgebra::{Matrix2, Vector2};

const X: f64 = 0.37;

fn d1(f: impl Fn(Dual<f64>) -> Dual<f64>, x: f64) -> (f64, f64) {
    let y = f(Dual::new(x, 1.0));
    (y.re, y.eps)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0)
}

#[test]
fn elementary_first_derivatives_match_textbook_formulas() {
    // (name, value and derivative by AD, expected value, expected derivative)
    let cases: [(&str, (f64, f64), f64, f64); 18] = [
        ("sin", d1(|x| x.sin(), X), libm::sin(X), libm::cos(X)),
        ("cos", d1(|x| x.cos(), X), libm::cos(X), -libm::sin(X)),
        (
            "tan",
            d1(|x| x.tan(), X),
            libm::tan(X),
            1.0 / (libm::cos(X) * libm::cos(X)),
        ),
        (
            "asin",
            d1(|x| x.asin(), X),
            libm::asin(X),
            1.0 / libm::sqrt(1.0 - X * X),
        ),
        (
            "acos",
            d1(|x| x.acos(), X),
            libm::acos(X),
            -1.0 / libm::sqrt(1.0 - X * X),
        ),
        (
            "atan",
            d1(|x| x.atan(), X),
            libm::atan(X),
            1.0 / (1.0 + X * X),
        ),
        ("sinh", d1(|x| x.sinh(), X), libm::sinh(X), libm::cosh(X)),
        ("cosh", d1(|x| x.cosh(), X), libm::cosh(X), libm::sinh(X)),
        (
            "tanh",
            d1(|x| x.tanh(), X),
            libm::tanh(X),
            1.0 / (libm::cosh(X) * libm::cosh(X)),
        ),
        ("exp", d1(|x| x.exp(), X), libm::exp(X), libm::exp(X)),
        ("ln", d1(|x| x.ln(), X), libm::log(X), 1.0 / X),
        (
            "sqrt",
            d1(|x| x.sqrt(), X),
            libm::sqrt(X),
            0.5 / libm::sqrt(X),
        ),
        (
            "cbrt",
            d1(|x| x.cbrt(), X),
            libm::cbrt(X),
            libm::pow(X, -2.0 / 3.0) / 3.0,
        ),
        (
            "powi",
            d1(|x| x.powi(-3), X),
            1.0 / (X * X * X),
            -3.0 / (X * X * X * X),
        ),
        (
            "powf",
            d1(|x| x.powf(2.5), X),
            libm::pow(X, 2.5),
            2.5 * libm::pow(X, 1.5),
        ),
        ("recip", d1(|x| x.recip(), X), 1.0 / X, -1.0 / (X * X)),
        ("abs-", d1(|x| x.abs(), -X), X, -1.0),
        (
            "div",
            d1(|x| (x * x + 1.0) / (x - 2.0), X),
            (X * X + 1.0) / (X - 2.0),
            (2.0 * X * (X - 2.0) - (X * X + 1.0)) / ((X - 2.0) * (X - 2.0)),
        ),
    ];
    for (name, (v, d), ev, ed) in cases {
        assert!(close(v, ev), "{name}: value {v} vs {ev}");
        assert!(close(d, ed), "{name}: derivative {d} vs {ed}");
    }
}

#[test]
fn powi_zero_has_zero_derivative_at_zero() {
    let (v, d) = d1(|x| x.powi(0), 0.0);
    assert_eq!((v, d), (1.0, 0.0));
}

#[test]
fn atan2_partials() {
    // ∂atan2(y, x)/∂y = x/(x²+y²), ∂/∂x = −y/(x²+y²).
    let (x, y) = (-0.8, 0.3);
    let r2 = x * x + y * y;
    let gy = Dual::new(y, 1.0).atan2(Dual::new(x, 0.0));
    let gx = Dual::new(y, 0.0).atan2(Dual::new(x, 1.0));
    assert!(close(gy.re, libm::atan2(y, x)));
    assert!(close(gy.eps, x / r2));
    assert!(close(gx.eps, -y / r2));
    let v = VDual::<f64, 2>::variable(y, 0).atan2(VDual::variable(x, 1));
    assert!(close(v.grad[0], x / r2) && close(v.grad[1], -y / r2));
}

#[test]
fn nested_duals_give_second_and_third_derivatives() {
    // f = x⁴ sin x: compare f'' and f''' with the product rule written out.
    let f = |x: Dual<Dual<Dual<f64>>>| x.powi(4) * x.sin();
    let x = Dual::new(
        Dual::new(Dual::new(X, 1.0), Dual::new(1.0, 0.0)),
        Dual::new(Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)),
    );
    let y = f(x);
    let (s, c) = (libm::sin(X), libm::cos(X));
    let x2 = X * X;
    let f1 = 4.0 * X * x2 * s + x2 * x2 * c;
    let f2 = 12.0 * x2 * s + 8.0 * X * x2 * c - x2 * x2 * s;
    let f3 = 24.0 * X * s + 36.0 * x2 * c - 12.0 * X * x2 * s - x2 * x2 * c;
    assert!(close(y.re.eps.re, f1) && close(y.eps.re.re, f1) && close(y.re.re.eps, f1));
    assert!(close(y.eps.eps.re, f2) && close(y.re.eps.eps, f2));
    assert!(close(y.eps.eps.eps, f3), "{} vs {f3}", y.eps.eps.eps);
}

/// `V = x³y + 2y⁴ − xy`, the test polynomial with hand-derived derivatives.
struct Poly;
impl Energy<f64, 2> for Poly {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 2]) -> S {
        let (x, y) = (q[0], q[1]);
        x * x * x * y + y.powi(4) * 2.0 - x * y
    }
}

#[test]
fn drivers_on_a_polynomial() {
    let q = Vector2::new(0.7, -1.3);
    let a = Vector2::new(0.4, 2.5);
    let (x, y) = (q[0], q[1]);
    let (v, g) = value_gradient(&Poly, &q);
    assert!(close(v, x * x * x * y + 2.0 * y.powi(4) - x * y));
    assert!(close(g[0], 3.0 * x * x * y - y) && close(g[1], x * x * x + 8.0 * y * y * y - x));
    let h = hessian(&Poly, &q);
    let he = Matrix2::new(
        6.0 * x * y,
        3.0 * x * x - 1.0,
        3.0 * x * x - 1.0,
        24.0 * y * y,
    );
    assert!((h - he).norm() <= 1e-14 * he.norm());
    assert!((hessian_vector(&Poly, &q, &a) - he * a).norm() <= 1e-14 * (he * a).norm());
    // (a·V‴·a)_x = 6y a₀² + 12x a₀a₁, (a·V‴·a)_y = 6x a₀² + 48y a₁².
    let t = third_contraction(&Poly, &q, &a);
    let te = Vector2::new(
        6.0 * y * a[0] * a[0] + 12.0 * x * a[0] * a[1],
        6.0 * x * a[0] * a[0] + 48.0 * y * a[1] * a[1],
    );
    assert!((t - te).norm() <= 1e-14 * te.norm(), "{t} vs {te}");
}

/// Two constraints `g₀ = x²y`, `g₁ = sin x + y`.
struct Cons;
impl ConstraintFn<f64, 2, 2> for Cons {
    fn eval<S: AdScalar<f64>>(&self, q: &[S; 2]) -> [S; 2] {
        [q[0] * q[0] * q[1], q[0].sin() + q[1]]
    }
}

#[test]
fn constraint_drivers() {
    use crate::model::Constraint;
    let c = AutoDiff(Cons);
    let q = Vector2::new(0.5, 2.0);
    let (x, y) = (q[0], q[1]);
    let a = Vector2::new(-1.0, 0.5);
    let w = Vector2::new(3.0, -2.0);
    assert!((c.value(&q) - Vector2::new(x * x * y, libm::sin(x) + y)).norm() < 1e-15);
    let j = Matrix2::new(2.0 * x * y, x * x, libm::cos(x), 1.0);
    assert!((c.jacobian(&q) - j).norm() < 1e-15);
    let h0 = Matrix2::new(2.0 * y, 2.0 * x, 2.0 * x, 0.0);
    let h1 = Matrix2::new(-libm::sin(x), 0.0, 0.0, 0.0);
    assert!((c.weighted_hessian(&q, &w) - (h0 * w[0] + h1 * w[1])).norm() < 1e-14);
    let rows = c.hessian_times(&q, &a);
    assert!((rows.row(0).transpose() - h0 * a).norm() < 1e-15);
    assert!((rows.row(1).transpose() - h1 * a).norm() < 1e-15);
    // g₀‴: ∂xxy = 2, others 0 → (a·g₀‴·a) = (4a₀a₁, 2a₀²); g₁‴: ∂xxx = −cos x.
    let t0 = Vector2::new(4.0 * a[0] * a[1], 2.0 * a[0] * a[0]);
    let t1 = Vector2::new(-libm::cos(x) * a[0] * a[0], 0.0);
    let t = c.weighted_third_contraction(&q, &w, &a);
    assert!((t - (t0 * w[0] + t1 * w[1])).norm() < 1e-14);
}

#[test]
fn widest_value_is_o_of_n() {
    // The module docs promise 3(N + 1) scalars for the third-derivative type (492 bytes at
    // N = 40 in f32), 4(N + 1) for the nested alternative, no N × N storage.
    assert_eq!(core::mem::size_of::<Jet2<VDual<f32, 40>>>(), 3 * 41 * 4);
    assert_eq!(
        core::mem::size_of::<Dual<Dual<VDual<f32, 40>>>>(),
        4 * 41 * 4
    );
    assert_eq!(core::mem::size_of::<Dual<VDual<f64, 40>>>(), 2 * 41 * 8);
}

#[test]
fn core_potentials_ad_equals_their_hand_derivatives() {
    use crate::model::{Hessian, Penalty, Potential, Quadratic, Split, ThirdDerivative, Zero};
    use nalgebra::Matrix3;
    let k = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, -0.25, 0.5, -0.25, 2.0);
    let mut quad = Quadratic::new(k);
    quad.rest = nalgebra::Vector3::new(0.1, -0.2, 0.3);
    quad.linear = nalgebra::Vector3::new(1.0, 0.0, -2.0);
    let q = nalgebra::Vector3::new(0.7, -0.4, 1.1);
    let a = nalgebra::Vector3::new(0.2, 1.0, -0.6);
    let ad = AutoDiff(quad);
    // Both `Potential::energy` and `Energy::energy` apply to `quad`: name the trait.
    assert!(libm::fabs(ad.energy(&q) - Potential::energy(&quad, &q)) < 1e-14);
    assert!((ad.gradient(&q) - quad.gradient(&q)).norm() < 1e-14);
    assert!((ad.hessian(&q) - k).norm() < 1e-14);
    assert_eq!(ad.third_contraction(&q, &a), nalgebra::Vector3::zeros());
    let z: AutoDiff<Zero> = AutoDiff(Zero);
    assert_eq!(
        Potential::<f64, 3>::gradient(&z, &q),
        nalgebra::Vector3::zeros()
    );

    /// `g = |q|² − 1` and `g = q₀q₁q₂`.
    struct G;
    impl ConstraintFn<f64, 3, 2> for G {
        fn eval<S: AdScalar<f64>>(&self, q: &[S; 3]) -> [S; 2] {
            [
                q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0,
                q[0] * q[1] * q[2],
            ]
        }
    }
    let split_off = Split::new(quad, Quadratic::new(k * 2.0), 0.0);
    let split_on = Split::new(quad, Quadratic::new(k * 2.0), 3.0);
    // α = 0 ignores the stiff part; α = 3 adds 3 × (2K).
    assert!((AutoDiff(split_on).hessian(&q) - k * 7.0).norm() < 1e-13);
    assert!((AutoDiff(split_off).hessian(&q) - k).norm() < 1e-13);
    let pen = Penalty::per_constraint(quad, G, nalgebra::Vector2::new(5.0, 2.0)).unwrap();
    let pen_hand =
        Penalty::per_constraint(quad, AutoDiff(G), nalgebra::Vector2::new(5.0, 2.0)).unwrap();
    let ad = AutoDiff(pen);
    let scale = pen_hand.hessian(&q).norm();
    assert!((ad.gradient(&q) - pen_hand.gradient(&q)).norm() < 1e-13 * scale);
    assert!((ad.hessian(&q) - pen_hand.hessian(&q)).norm() < 1e-13 * scale);
    let t = pen_hand.third_contraction(&q, &a);
    assert!((ad.third_contraction(&q, &a) - t).norm() < 1e-13 * t.norm());
}

/// Every elementary function, in three variables.
struct AllFunctions;
impl Energy<f64, 3> for AllFunctions {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 3]) -> S {
        let (x, y, z) = (q[0], q[1], q[2]);
        let r2 = x * x + y * y + z * z;
        x.sin() * y.cos()
            + (z * 0.3).tan()
            + (x * 0.4).asin() * (y * 0.2).acos()
            + (x * y).atan()
            + y.atan2(x) * z
            + (z * 0.5).sinh() * (x * 0.1).cosh()
            + (x - z).tanh()
            + (x * z).exp()
            + (r2 + 1.0).ln()
            + r2.sqrt()
            + (r2 + 2.0).cbrt()
            + x.powi(5) * y.powi(-2)
            + x.powi(0)
            + y.powi(1)
            + (r2 + 0.5).powf(-1.5)
            + (y + 3.0).recip()
            + (x - y).abs() * z
            + x / (z * z + 1.0)
    }
}

#[test]
fn jet_and_nested_duals_agree_on_every_function() {
    use nalgebra::Vector3;
    let points = [
        Vector3::new(0.7, -0.4, 1.1),
        Vector3::new(-0.9, 0.8, -0.3),
        Vector3::new(0.2, 1.5, 0.6),
    ];
    let a = Vector3::new(0.3, -1.2, 0.8);
    for q in points {
        let jet = third_contraction(&AllFunctions, &q, &a);
        let nested = derivatives::third_contraction_nested(&AllFunctions, &q, &a);
        assert!(
            (jet - nested).norm() <= 1e-13 * nested.norm(),
            "{jet} vs {nested} at {q}"
        );
        // The jet's first coefficients are the value, ∇V·a and the Hessian–vector product.
        let x: [Jet2<VDual<f64, 3>>; 3] = core::array::from_fn(|i| {
            Jet2::new(VDual::variable(q[i], i), VDual::cst(a[i]), VDual::cst(0.0))
        });
        let y = AllFunctions.energy(&x);
        let (v, g) = value_gradient(&AllFunctions, &q);
        assert!(close(y.c0.re, v));
        assert!((y.c0.grad - g).norm() <= 1e-14 * g.norm());
        let ga = g.dot(&a);
        assert!(
            libm::fabs(y.c1.re - ga) <= 1e-14 * libm::fabs(ga),
            "{} vs {ga}",
            y.c1.re
        );
        let hv = hessian_vector(&AllFunctions, &q, &a);
        assert!((y.c1.grad - hv).norm() <= 1e-13 * hv.norm());
        assert!(libm::fabs(2.0 * y.c2.re - hv.dot(&a)) <= 1e-13 * libm::fabs(hv.dot(&a)));
    }
}

#[test]
fn jet_powi_edge_cases() {
    // x⁰ = 1 and x¹ = x at x = 0: no 0 · ∞.
    let x = Jet2::new(0.0_f64, 1.0, 0.0);
    assert_eq!(x.powi(0), Jet2::new(1.0, 0.0, 0.0));
    assert_eq!(x.powi(1), x);
    assert_eq!(x.powi(2), Jet2::new(0.0, 0.0, 1.0));
}
