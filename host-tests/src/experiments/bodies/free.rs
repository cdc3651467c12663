//! The free rigid body in space (Dzhanibekov flip) and the spherical pendulum with a rigid bob.
//!
//! Free body: principal moments `(0.3, 0.5, 0.7)` kg·m², turned by a fixed rotation `R₀` so
//! the world inertia `R₀ diag(…) R₀ᵀ` is full (off-diagonal), mass 1.5 kg, COM at
//! `(1, 2, −0.5)` moving at `(0.3, −0.2, 0.1)` m/s, spinning at `ω = R₀ (0.02, 4, 0.02)` rad/s —
//! mostly about the intermediate axis, which is unstable: the spin flips. The reference is
//! Euler's equations `I ω̇ = (I ω) × ω` in the principal frame (DOP853, tight); the flip time is
//! the first zero of the intermediate component of `ω`.

use super::run::{run, Method, Outcome};
use crate::reference::{self, linspace, TIGHT};
use macrostep::mechanism::{
    body_constraints, body_coordinates, Body, Link, Mechanism, MechanismBuilder,
};
use macrostep::nalgebra::{Matrix3, Rotation3, SVector, Vector3};
use macrostep::{Real, State};

/// The free body's principal moments (kg·m²).
pub const MOMENTS: [f64; 3] = [0.3, 0.5, 0.7];
/// The spin in the principal frame at the start (rad/s).
pub const SPIN: [f64; 3] = [0.02, 4.0, 0.02];
const N1: usize = body_coordinates(3);
const D1: usize = body_constraints(3);

/// `R₀`, the principal axes in the world.
pub fn r0() -> Matrix3<f64> {
    Rotation3::from_scaled_axis(Vector3::new(0.4, -0.3, 0.5)).into_inner()
}

/// The free body and its start state (at the build pose with its twist).
///
/// # Panics
/// When the builder refuses it (a bug).
pub fn free_body<T: Real>() -> (Mechanism<T, 3, N1, D1, 0, 1, 0>, State<T, N1>) {
    let r = r0();
    let j = r * Matrix3::from_diagonal(&Vector3::from(MOMENTS)) * r.transpose();
    let mut b = MechanismBuilder::<T, 3, N1, D1, 0, 1, 0>::new().expect("builder");
    let l = b
        .body(Body {
            mass: T::lit(1.5),
            com: [1.0, 2.0, -0.5].map(T::lit),
            inertia: core::array::from_fn(|a| core::array::from_fn(|c| T::lit(j[(a, c)]))),
        })
        .expect("free body");
    let m = b.build().expect("build");
    let mut s = m.initial_state();
    let w = r * Vector3::from(SPIN);
    m.set_body_twist(
        l,
        &s.q,
        [0.3, -0.2, 0.1].map(T::lit),
        [w[0], w[1], w[2]].map(T::lit),
        &mut s.v,
    )
    .expect("twist");
    (m, s)
}

/// The first time the sampled series `y` (at spacing `dt` from 0) crosses zero downwards,
/// linearly interpolated.
pub fn first_down_crossing(y: &[f64], dt: f64) -> Option<f64> {
    y.windows(2)
        .position(|w| w[0] > 0.0 && w[1] <= 0.0)
        .map(|k| {
            let (a, b) = (y[k], y[k + 1]);
            (k as f64 + a / (a - b)) * dt
        })
}

/// The reference flip time (Euler's equations, DOP853 at `TIGHT`, sampled every 1 ms: the
/// linear interpolation of a crossing errs by `O(dt² ω̈)`, ≈ 1e-7 s here).
pub fn reference_flip_time(t_end: f64) -> Option<f64> {
    let [i1, i2, i3] = MOMENTS;
    let f = move |_t: f64, w: &[f64], dw: &mut [f64]| {
        dw[0] = (i2 - i3) * w[1] * w[2] / i1;
        dw[1] = (i3 - i1) * w[2] * w[0] / i2;
        dw[2] = (i1 - i2) * w[0] * w[1] / i3;
    };
    let n = (t_end / 1e-3).round() as usize;
    let times = linspace(0.0, t_end, n);
    let ys = reference::solve(f, 0.0, &SPIN, t_end, TIGHT.0, TIGHT.1, &times);
    let w2: Vec<f64> = ys.iter().map(|y| y[1]).collect();
    first_down_crossing(&w2, t_end / n as f64)
}

/// What the free-body run measured.
#[derive(Clone, Debug)]
pub struct FreeRun {
    /// The flip time of the mechanism (s), `None` when it did not flip.
    pub flip_time: Option<f64>,
    /// Max `|L(t) − L(0)| / |L(0)|`, `L` about the origin.
    pub l_drift: f64,
    /// Max `|E − E₀| / E₀` of the method's Hamiltonian.
    pub max_de: f64,
    /// Max constraint residual.
    pub residual: f64,
    /// Whether a step failed.
    pub failed: bool,
}

/// Runs the free body with `method` for `t_end` at step `h`.
pub fn free_run<T: Real>(method: Method, h: f64, t_end: f64, omega: f64) -> FreeRun {
    let (m, s0) = free_body::<T>();
    let steps = (t_end / h).round() as usize;
    let out: Outcome<T, N1> = run(&m, method, s0, h, steps, 1, omega);
    let l0 = m.angular_momentum(&s0.q, &s0.v).map(|x| x.to_f64());
    let e0 = m.kinetic_energy(&s0.v).to_f64();
    let rt = r0().transpose();
    let mut l_drift = 0.0_f64;
    let mut w2 = Vec::with_capacity(out.samples.len());
    for s in &out.samples {
        let l = m.angular_momentum(&s.q, &s.v).map(|x| x.to_f64());
        l_drift = l_drift.max((l - l0).norm() / l0.norm());
        let (_, a) = m.body_pose(0, &s.q).expect("body");
        let (_, w) = m.body_twist(0, &s.q, &s.v).expect("body");
        let a = a.map(|x| x.to_f64());
        let wb = rt * a.transpose() * w.map(|x| x.to_f64());
        w2.push(wb[1]);
    }
    FreeRun {
        flip_time: first_down_crossing(&w2, h),
        l_drift,
        max_de: out.max_de / e0,
        residual: out.max_residual,
        failed: out.error.is_some(),
    }
}

/// The spherical pendulum: a 1 kg bob of full inertia on a ball joint at `PIVOT`, its COM
/// `(0.3, 0.1, −0.4)` from the pivot, spun about the pivot at `ω = (0.5, −0.3, 2.5)` rad/s.
pub const PIVOT: [f64; 3] = [0.5, -0.2, 1.0];
const N_SP: usize = body_coordinates(3);
const D_SP: usize = body_constraints(3) + 3;

/// The spherical pendulum and its start state.
///
/// # Panics
/// When the builder refuses it (a bug).
pub fn spherical<T: Real>() -> (Mechanism<T, 3, N_SP, D_SP, 0, 1, 1>, State<T, N_SP>) {
    let inertia = [
        [0.02, 0.003, -0.002],
        [0.003, 0.03, 0.004],
        [-0.002, 0.004, 0.025],
    ];
    let rc = Vector3::new(0.3, 0.1, -0.4);
    let com = Vector3::from(PIVOT) + rc;
    let mut b = MechanismBuilder::<T, 3, N_SP, D_SP, 0, 1, 1>::new().expect("builder");
    let l = b
        .body(Body {
            mass: T::one(),
            com: [com[0], com[1], com[2]].map(T::lit),
            inertia: inertia.map(|r| r.map(T::lit)),
        })
        .expect("bob");
    b.spherical(Link::Ground, Link::Body(l), PIVOT.map(T::lit))
        .expect("ball joint");
    b.gravity(T::lit(9.81)).expect("gravity");
    let m = b.build().expect("build");
    let mut s = m.initial_state();
    let w = Vector3::new(0.5, -0.3, 2.5);
    let vc = w.cross(&rc);
    m.set_body_twist(
        l,
        &s.q,
        [vc[0], vc[1], vc[2]].map(T::lit),
        [w[0], w[1], w[2]].map(T::lit),
        &mut s.v,
    )
    .expect("twist");
    (m, s)
}

/// What the spherical-pendulum run measured.
#[derive(Clone, Debug)]
pub struct SphericalRun {
    /// Max `|L_z(t) − L_z(0)|`, `L` about the pivot (conserved: gravity and the pivot force
    /// have no vertical moment about it), relative to `|L(0)|`.
    pub lz_drift: f64,
    /// Max `|E − E₀|` of the method's Hamiltonian relative to the kinetic energy at the start.
    pub max_de: f64,
    /// Max constraint residual (rods and joint rows).
    pub residual: f64,
    /// Max distance of the body's pivot point from the pivot (m).
    pub pivot_gap: f64,
    /// Whether a step failed.
    pub failed: bool,
}

/// Runs the spherical pendulum with `method`.
pub fn spherical_run<T: Real>(method: Method, h: f64, t_end: f64, omega: f64) -> SphericalRun {
    let (m, s0) = spherical::<T>();
    let steps = (t_end / h).round() as usize;
    let out = run(&m, method, s0, h, steps, 1, omega);
    let p = Vector3::from(PIVOT);
    let about = |s: &State<T, N_SP>| {
        let l = m.angular_momentum(&s.q, &s.v).map(|x| x.to_f64());
        let mom = m.momentum(&s.v).map(|x| x.to_f64());
        l - p.cross(&mom)
    };
    let l0 = about(&s0);
    let ke0 = m.kinetic_energy(&s0.v).to_f64();
    let mut lz_drift = 0.0_f64;
    let mut gap = 0.0_f64;
    for s in &out.samples {
        lz_drift = lz_drift.max((about(s)[2] - l0[2]).abs() / l0.norm());
        // The body point at the pivot: COM + A (pivot − COM₀).
        let (c, a) = m.body_pose(0, &s.q).expect("body");
        let (c0, _) = m.body_pose(0, &s0.q).expect("body");
        let r: SVector<f64, 3> = p - c0.map(|x| x.to_f64());
        let x = c.map(|x| x.to_f64()) + a.map(|x| x.to_f64()) * r;
        gap = gap.max((x - p).norm());
    }
    SphericalRun {
        lz_drift,
        max_de: out.max_de / ke0,
        residual: out.max_residual,
        pivot_gap: gap,
        failed: out.error.is_some(),
    }
}
