//! The double pendulum at penalty ω = 100 (seed 000 §4.1 start, β = 0.4): penalty methods
//! (Z&S, SyLiPN, stiff Z&Ss, Z&S4 = triple jump over Z&S, Newmark, velocity Verlet on the
//! penalised model), the constrained methods (RATTLE, SHAKE, Reich4) and the peer DOP853 in
//! angle coordinates, all against the rigid reference; and the
//! Z&S stability cap.

use super::run_fixed;
use super::search::{Method, Outcome, Problem};
use crate::fixtures::penalised_dp::stiff_split;
use crate::reference;
use crate::rigid::DoublePendulum as RigidDp;
use macrostep::baselines::VelocityVerlet;
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Reich4, Shake, Stage};
use macrostep::model::{Hessian, System};
use macrostep::systems::{DoublePendulum, GravityPenalty};
use macrostep::zs::{Newmark, NewmarkParams, StiffSylipn, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State, Stepper};

/// The penalised double pendulum.
type Pen = System<f64, GravityPenalty<f64, 4, 2>, 4>;

/// Output times `1, 2, …, span`.
fn outputs(span: f64) -> Vec<f64> {
    (1..=span.round() as usize).map(|k| k as f64).collect()
}

/// Max |q − q_ref| over outputs and coordinates (both flattened, 4 per output).
fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The rigid reference positions at `1, …, span` (angle coordinates, DOP853 at 1e-13),
/// flattened.
pub fn rigid_reference(span: f64) -> Vec<f64> {
    let (q0, v0) = RigidDp::seed_initial();
    RigidDp::seed()
        .solve(&q0, &v0, &outputs(span), 1e-13, 1e-13)
        .into_iter()
        .flat_map(|s| s.q)
        .collect()
}

/// The exact penalised solution's distance from the rigid one (the penalty model error, the
/// floor of every penalty method): DOP853 at 1e-12 on the Cartesian penalised system.
pub fn model_error(omega: f64, span: f64, rigid: &[f64]) -> f64 {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(omega).expect("valid");
    let out = reference::solve_system(&sys, &dp.initial_state(), &outputs(span), 1e-12, 1e-12);
    let flat: Vec<f64> = out.iter().flat_map(|s| s.q.iter().copied()).collect();
    max_diff(&flat, rigid)
}

/// The peer: DOP853 (`differential-equations`, one solve with dense output through
/// [`reference::try_solve_dense`]) in angle coordinates at `rtol = atol = tol`, positions
/// mapped to Cartesian.
fn dop853_angles(tol: f64, span: f64) -> Outcome {
    let dp = RigidDp::seed();
    let (q0, v0) = RigidDp::seed_initial();
    let y0 = dp.from_cartesian(&q0, &v0);
    let ys = reference::try_solve_dense(dp.rhs(), 0.0, &y0, tol, tol, &outputs(span))?;
    Ok(ys.iter().flat_map(|y| dp.cartesian(y).0).collect())
}

/// The stiff peer: Radau5 (`differential-equations`) on the same penalised system the penalty
/// methods integrate, at `rtol = atol = tol`.
fn radau5_penalty(pen: &Pen, s0: &State<f64, 4>, tol: f64, span: f64) -> Outcome {
    let states = reference::try_solve_radau5_system::<_, 4, 8>(pen, s0, &outputs(span), tol)?;
    Ok(states.iter().flat_map(|s| s.q.iter().copied()).collect())
}

fn newton() -> ConstraintNewtonParams<f64> {
    ConstraintNewtonParams::default()
}

/// A fixed-step method of the problem (parameter `h`, steps snapped to divide 1).
fn fixed<'a>(
    key: &'static str,
    label: &'static str,
    p_max: f64,
    p_min: f64,
    run: Box<dyn Fn(f64) -> Outcome + 'a>,
) -> Method<'a> {
    Method {
        key,
        label,
        param_name: "h",
        p_max,
        p_min,
        snap: Some(1.0),
        run,
    }
}

/// Observes the positions.
fn obs(s: &State<f64, 4>, out: &mut Vec<f64>) {
    out.extend(s.q.iter());
}

/// The methods of the `dp_w<ω>` problem over `[0, span]`.
fn methods<'a>(omega: f64, span: f64) -> Vec<Method<'a>> {
    let mut m = penalty_methods(omega, span);
    m.extend(constrained_methods(span));
    m.extend(peer_methods(omega, span));
    m
}

/// The fixed-step methods on the penalised system.
fn penalty_methods<'a>(omega: f64, span: f64) -> Vec<Method<'a>> {
    let dp = DoublePendulum::<f64>::paper();
    let pen: Pen = dp.penalised(omega).expect("valid");
    let s0 = dp.initial_state();
    let n_out = span.round() as usize;
    let p = ZsParams::with_beta(0.4);
    vec![
        fixed(
            "zs",
            "Z&S (000 eq 1.3), β = 0.4",
            0.25,
            1e-4,
            Box::new(move |h| run_fixed(ZhangSkeel::new(pen, h, p), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "sylipn",
            "Z&Ss = SyLiPN (000 eq 2.7), β = 0.4",
            0.25,
            1e-4,
            Box::new(move |h| run_fixed(Sylipn::new(pen, h, p), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "stiff_sylipn",
            "stiff Z&Ss (000 eq 2.8), β = 0.4",
            0.25,
            1e-4,
            Box::new(move |h| {
                run_fixed(
                    StiffSylipn::new(stiff_split(omega), h, p),
                    s0,
                    1.0,
                    n_out,
                    obs,
                )
            }),
        ),
        fixed(
            "zs4",
            "Z&S4: triple jump over Z&S (002 eq 27)",
            0.25,
            1e-4,
            Box::new(move |h| {
                let zs = ZhangSkeel::new(pen, h, p);
                let m = zs.and_then(|z| SymmetricComposition::new(z, Scheme::TripleJump));
                run_fixed(m, s0, 1.0, n_out, obs)
            }),
        ),
        fixed(
            "newmark",
            "Newmark γ = ½, β = 0.4, Newton (000 Int. 2.1)",
            0.25,
            1e-4,
            Box::new(move |h| {
                run_fixed(
                    Newmark::new(pen, h, NewmarkParams::with_beta(p.beta)),
                    s0,
                    1.0,
                    n_out,
                    obs,
                )
            }),
        ),
        fixed(
            "verlet",
            "Velocity Verlet on the penalty system",
            // Stable only for ωh < 2: start the sweep just above (0.05 at ω = 100).
            (5.0 / omega).min(0.25),
            1e-5,
            Box::new(move |h| run_fixed(VelocityVerlet::new(pen, h), s0, 1.0, n_out, obs)),
        ),
    ]
}

/// The constrained methods on the rigid system.
fn constrained_methods<'a>(span: f64) -> Vec<Method<'a>> {
    let dp = DoublePendulum::<f64>::paper();
    let (sys, g, s0) = (dp.system(), dp.constraint(), dp.initial_state());
    let n_out = span.round() as usize;
    vec![
        fixed(
            "rattle",
            "RATTLE (001 eqs 24–28)",
            0.5,
            1e-4,
            Box::new(move |h| run_fixed(Rattle::new(sys, g, h, newton()), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "shake",
            "SHAKE (001 eqs 15–18)",
            0.5,
            1e-4,
            Box::new(move |h| run_fixed(Shake::new(sys, g, h, newton()), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "reich4",
            "Reich4 (002 eq 27)",
            0.5,
            1e-4,
            Box::new(move |h| {
                let m = Reich4::new(sys, g, h, Stage::Reich, newton());
                run_fixed(m, s0, 1.0, n_out, obs)
            }),
        ),
    ]
}

/// The adaptive peers (tolerance sweeps): DOP853 in angles, Radau5 on the penalty system.
fn peer_methods<'a>(omega: f64, span: f64) -> Vec<Method<'a>> {
    let dp = DoublePendulum::<f64>::paper();
    let pen: Pen = dp.penalised(omega).expect("valid");
    let s0 = dp.initial_state();
    vec![
        Method {
            key: "dop853_angles",
            label: "DOP853 in angle coordinates (peer)",
            param_name: "tol",
            // DOP853 reaches 2e-5 already at tol 1e-2 here: start the sweep loose.
            p_max: 1.0,
            p_min: 1e-13,
            snap: None,
            run: Box::new(move |tol| dop853_angles(tol, span)),
        },
        Method {
            key: "radau5_penalty",
            label: "Radau5 on the penalty system (peer)",
            param_name: "tol",
            // Like DOP853, Radau5 is far more accurate than its tolerance here: start loose.
            p_max: 1.0,
            p_min: 1e-12,
            snap: None,
            run: Box::new(move |tol| radau5_penalty(&pen, &s0, tol, span)),
        },
    ]
}

/// The `dp_w<ω>` problem over `[0, span]`, error against `rigid` (from [`rigid_reference`]).
pub fn problem<'a>(omega: f64, span: f64, rigid: &'a [f64]) -> Problem<'a> {
    let methods = methods(omega, span);
    Problem {
        key: super::leak(format!("dp_w{omega}")),
        title: format!("double pendulum, penalty ω = {omega}, T = {span}: error vs rigid"),
        error_label: "max |q − q_rigid| over t = 1..T",
        span,
        error: Box::new(move |obs| max_diff(obs, rigid)),
        methods,
        targets: vec![1e-2, 1e-3],
        ratios: vec![
            ("verlet", "zs"),
            ("rattle", "zs"),
            ("dop853_angles", "zs"),
            ("radau5_penalty", "zs"),
            ("rattle", "sylipn"),
            ("zs", "stiff_sylipn"),
        ],
    }
}

/// The stability cap of a linearly implicit method at one β: the largest step on a grid
/// (ratio `2^(1/8)` from 0.01 up) below which every grid step completes `[0, span]`, and what
/// the first failing step says.
#[derive(Clone, Debug)]
pub struct Cap {
    /// `zs` or `stiff_sylipn` (000 eq 2.8, the penalty alone in the matrix: one of the cap
    /// remedies, and one the core offers).
    pub method: &'static str,
    /// β.
    pub beta: f64,
    /// Whether the default guards were on.
    pub guards: bool,
    /// Largest completing step (every smaller grid step completes too).
    pub h_max: f64,
    /// The first failing grid step.
    pub h_fail: f64,
    /// Its error and the time it happened.
    pub failure: String,
    /// min over the failing run's steps (before the failure) of the smallest eigenvalue of
    /// `M + βh²∇²V(q)` (`M = I` for the seed's unit masses; gravity is linear, so this is also
    /// the stiff Z&Ss matrix): negative means the linear system went indefinite.
    pub min_eig: f64,
}

/// One run of `integ` over `[0, span]`: the failure (if any) and the smallest eigenvalue of
/// `I + βh²∇²V` met on the way.
fn cap_run<I: Integrator<f64, 4>>(
    mut integ: I,
    pen: &Pen,
    beta: f64,
    span: f64,
) -> (Option<String>, f64) {
    let h = integ.step_size();
    let n = (span / h).round() as usize;
    let mut s = DoublePendulum::<f64>::paper().initial_state();
    let mut min_eig = f64::INFINITY;
    for _ in 0..n {
        let a = nalgebra::Matrix4::identity() + pen.potential.hessian(&s.q) * (beta * h * h);
        min_eig = min_eig.min(a.symmetric_eigenvalues().min());
        if let Err(e) = integ.step(&mut s) {
            return (Some(format!("{e:?} at t = {:.3}", s.t)), min_eig);
        }
    }
    (None, min_eig)
}

/// Measures [`Cap`] on the penalised double pendulum at `omega`; `stiff` selects stiff Z&Ss
/// instead of Z&S.
pub fn cap(omega: f64, beta: f64, guards: bool, stiff: bool, span: f64) -> Cap {
    let dp = DoublePendulum::<f64>::paper();
    let pen: Pen = dp.penalised(omega).expect("valid");
    let g = if guards {
        Guards::default()
    } else {
        Guards::off()
    };
    let p = ZsParams::with_beta(beta);
    let try_h = |h: f64| {
        if stiff {
            let m = StiffSylipn::new(stiff_split(omega), h, p).and_then(|m| m.with_guards(g));
            cap_run(m.expect("valid"), &pen, beta, span)
        } else {
            let m = ZhangSkeel::new(pen, h, p).and_then(|m| m.with_guards(g));
            cap_run(m.expect("valid"), &pen, beta, span)
        }
    };
    let mut out = Cap {
        method: if stiff { "stiff_sylipn" } else { "zs" },
        beta,
        guards,
        h_max: f64::NAN,
        h_fail: f64::NAN,
        failure: "none up to h = 2".into(),
        min_eig: f64::NAN,
    };
    let mut h = 0.01;
    while h <= 2.0 {
        match try_h(h) {
            (None, _) => out.h_max = h,
            (Some(failure), eig) => {
                out.h_fail = h;
                out.failure = failure;
                out.min_eig = eig;
                return out;
            }
        }
        h *= 2f64.powf(0.125);
    }
    out
}
