//! The exact law of a linear circuit (004 §7.1): the reduced SDE (7.20) built from the circuit
//! parameters (independently of [`Circuit`](macrostep::circuit::Circuit)) and its exact mean
//! and covariance (7.24) by the Van Loan matrix exponential.

use macrostep::circuit::CircuitParams;
use macrostep::nalgebra::{Matrix2, Matrix4, SMatrix, Vector4};

/// The reduced linear SDE (7.20) `dx = A x dt + Ḡ dW` in `x = (q̃, p̃)`, built from the
/// parameters here; also returns `S`.
pub fn linear_sde(p: &CircuitParams<f64, 4, 2>) -> (Matrix4<f64>, Matrix4<f64>, Matrix2<f64>) {
    let k2 = p.loops;
    let diag = |v: &Vector4<f64>| Matrix4::from_diagonal(v);
    let l = k2.transpose() * diag(&p.inductance) * k2;
    let s = k2.transpose() * diag(&p.inverse_capacitance) * k2;
    let d = k2.transpose() * diag(&p.resistance) * k2;
    let g = k2.transpose() * diag(&p.noise);
    let li = l.try_inverse().expect("regular mesh inductance");
    let mut a = Matrix4::zeros();
    a.fixed_view_mut::<2, 2>(0, 2).copy_from(&li);
    a.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-s));
    a.fixed_view_mut::<2, 2>(2, 2).copy_from(&(-d * li));
    let mut gbar = Matrix4::zeros();
    gbar.fixed_view_mut::<2, 4>(2, 0).copy_from(&g);
    (a, gbar, s)
}

/// Exact mean and covariance (7.24) at `t` from `x₀` (Van Loan: `exp([[−A, ḠḠᵀ], [0, Aᵀ]] t)`).
pub fn exact_moments(
    a: &Matrix4<f64>,
    gbar: &Matrix4<f64>,
    x0: &Vector4<f64>,
    t: f64,
) -> (Vector4<f64>, Matrix4<f64>) {
    let mut c = SMatrix::<f64, 8, 8>::zeros();
    c.fixed_view_mut::<4, 4>(0, 0).copy_from(&(-a));
    c.fixed_view_mut::<4, 4>(0, 4)
        .copy_from(&(gbar * gbar.transpose()));
    c.fixed_view_mut::<4, 4>(4, 4).copy_from(&a.transpose());
    let e = (c * t).exp();
    let f12 = e.fixed_view::<4, 4>(0, 4).into_owned();
    let f22 = e.fixed_view::<4, 4>(4, 4).into_owned();
    ((a * t).exp() * x0, f22.transpose() * f12)
}
