//! LQR gains of the cart-pole from each method's linearisation of the step, against the
//! gain from the zero-order-hold linearisation of the continuous model
//! ([`cart_pole::discrete_model`]), and the cart-pole regulated with them.
//!
//! The model linearised is the cart-pole in `(s, θ)` with its mass matrix frozen at the upright
//! (`M₀ = [[m_c + m_p, m_p L], [m_p L, m_p L²]]`, `V = m_p g L cos θ`, the force on `s`): the
//! crate's methods need a constant mass matrix, and at the upright equilibrium at rest this model
//! has exactly the linearisation of the full cart-pole (the `cos θ` of the mass matrix and the
//! velocity terms enter only at second order). The plant regulated is the full cart-pole of
//! `reproduce cart-pole` (the mechanism, penalty form, Z&S at 1 kHz).

use super::super::cart_pole::{self, G, H, LENGTH, M_CART, M_TIP, OMEGA, Q, R};
use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::control::{lqr, RiccatiParams};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::linearise::Linearise;
use macrostep::model::{Mass, Split, System, Zero};
use macrostep::nalgebra::{matrix, vector, SMatrix, SVector};
use macrostep::zs::{StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

/// `V = m_p g L cos θ` on `q = (s, θ)`.
#[derive(Clone, Copy, Debug)]
pub struct Upright;

impl Energy<f64, 2> for Upright {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 2]) -> S {
        q[1].cos() * (M_TIP * G * LENGTH)
    }
}

/// The frozen-mass cart-pole with a held generalized force.
pub fn system() -> System<f64, Actuated<f64, AutoDiff<Upright>, 2>, 2> {
    System::new(mass(), Actuated::new(AutoDiff(Upright)))
}

/// `M₀`.
pub fn mass() -> Mass<f64, 2> {
    let c = M_TIP * LENGTH;
    Mass::full(matrix![M_CART + M_TIP, c; c, M_TIP * LENGTH * LENGTH]).expect("SPD")
}

/// The LQR weights of `reproduce cart-pole`.
fn weights() -> (SMatrix<f64, 4, 4>, SMatrix<f64, 1, 1>) {
    (
        SMatrix::from_diagonal(&SVector::from(Q)),
        SMatrix::<f64, 1, 1>::new(R),
    )
}

/// The gain from a method's linearisation at the upright, at rest, zero force.
fn gain<I: Linearise<f64, 2>>(m: &I) -> Result<[f64; 4], String> {
    let j = m
        .linearise(&State::at_rest(vector![0.0, 0.0]))
        .map_err(|e| e.to_string())?;
    let a: SMatrix<f64, 4, 4> = j.a();
    let b: SMatrix<f64, 4, 2> = j.b();
    let b = b.fixed_columns::<1>(0).into_owned();
    let (q, r) = weights();
    let k = lqr(&a, &b, &q, &r, &RiccatiParams::default()).map_err(|e| e.to_string())?;
    Ok([k.k[0], k.k[1], k.k[2], k.k[3]])
}

/// The gain from the zero-order-hold linearisation of the continuous model at step `h`.
///
/// # Panics
/// When the Riccati solve fails (a bug: the pair is controllable).
pub fn zoh_gain(h: f64) -> [f64; 4] {
    let (a, b) = cart_pole::discrete_model(h);
    let (q, r) = weights();
    let b = SMatrix::<f64, 4, 1>::from_column_slice(b.as_slice());
    let k = lqr(&a, &b, &q, &r, &RiccatiParams::default()).expect("ZOH LQR");
    [k.k[0], k.k[1], k.k[2], k.k[3]]
}

/// The method names of [`gains`], in order.
pub const METHODS: [&str; 6] = [
    "zs",
    "sylipn",
    "stiff_sylipn",
    "verlet",
    "symplectic_euler_kd",
    "symplectic_euler_dk",
];

/// Each method's gain at step `h` (stiff Z&Ss with the whole potential as the stiff part).
///
/// # Panics
/// When a built-in configuration is refused (a bug).
pub fn gains(h: f64) -> Vec<Result<[f64; 4], String>> {
    let p = ZsParams::default();
    let split = System::new(
        mass(),
        Split::new(Actuated::new(Zero), AutoDiff(Upright), 1.0),
    );
    vec![
        gain(&ZhangSkeel::new(system(), h, p).expect("zs")),
        gain(&Sylipn::new(system(), h, p).expect("sylipn")),
        gain(&StiffSylipn::new(split, h, p).expect("stiff")),
        gain(&VelocityVerlet::new(system(), h).expect("verlet")),
        gain(&SymplecticEuler::new(system(), h, EulerOrdering::KickDrift).expect("euler")),
        gain(&SymplecticEuler::new(system(), h, EulerOrdering::DriftKick).expect("euler")),
    ]
}

/// `max |K − K_zoh| / max |K_zoh|`.
pub fn gap(k: &[f64; 4], zoh: &[f64; 4]) -> f64 {
    let err = k
        .iter()
        .zip(zoh)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    err / zoh.iter().map(|x| x.abs()).fold(0.0, f64::max)
}

/// One regulated run of the full cart-pole from `tilt` for `seconds`: `(max |θ|, |θ|, |s|)` over
/// the last second, or the step's error.
pub fn regulate(gains: &[f64; 4], tilt: f64, seconds: f64) -> Result<(f64, f64, f64), String> {
    let mech = cart_pole::mechanism(tilt).map_err(|e| e.to_string())?;
    let pen = mech.penalised(OMEGA).map_err(|e| e.to_string())?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let mut zs = ZhangSkeel::new(sys, H, ZsParams::default()).map_err(|e| e.to_string())?;
    let mut s = mech.initial_state();
    let mut u = SVector::<f64, 3>::zeros();
    let steps = (seconds / H).round() as usize;
    let mut last = 0.0f64;
    for k in 0..steps {
        let x = cart_pole::observe(&s);
        let f = cart_pole::control(gains, &x);
        mech.actuation(&[f], &s.q, &mut u)
            .map_err(|e| format!("{e:?}"))?;
        zs.set_force(&u).map_err(|e| e.to_string())?;
        zs.step(&mut s).map_err(|e| e.to_string())?;
        if (k + 1) as f64 * H > seconds - 1.0 {
            last = last.max(cart_pole::observe(&s)[1].abs());
        }
    }
    let x = cart_pole::observe(&s);
    Ok((last, x[1].abs(), x[0].abs()))
}
