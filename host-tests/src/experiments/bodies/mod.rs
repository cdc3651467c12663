//! `reproduce bodies`: rigid bodies and joints built with the mechanism builder (affine bodies
//! of `DIM + 1` point masses, 000 §4.5), checked against generalised-coordinate references.
//!
//! - the planar double compound pendulum (two bodies, two revolute joints, pivot off the
//!   origin) against its Lagrangian in angle coordinates: joint-angle error at `T` vs `h` and
//!   the fitted order per method, the constraint residual and the energy error;
//! - the compound pendulum: the penalty methods' model error vs `ω` (slope ≈ −2), and `f32`;
//! - the free body in space with a full inertia tensor: the Dzhanibekov flip time against
//!   Euler's equations, angular-momentum drift, energy error;
//! - the spherical pendulum with a rigid bob: vertical angular momentum about the pivot,
//!   energy, joint residual.

pub mod free;
pub mod planar;
pub mod run;

use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::reference::{self, TIGHT};
use crate::report::{figure, sci, Output, Table};
use crate::say;
use free::{free_run, reference_flip_time, spherical_run, FreeRun, SphericalRun};
use planar::Arm;
use run::{run, Method};

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Span of the pendulum runs (s).
    pub t_end: f64,
    /// Steps for the order fit (s).
    pub hs: Vec<f64>,
    /// Penalty frequency of the order runs.
    pub omega: f64,
    /// Penalty frequencies of the model-error runs.
    pub omegas: Vec<f64>,
    /// Step of the model-error runs (s).
    pub h_model: f64,
    /// Span of the free-body run (s), long enough for a flip.
    pub t_free: f64,
    /// RATTLE's step on the free body and the spherical pendulum (s).
    pub h_free: f64,
    /// Z&S's step there (s): `ω h ≤ 0.2`, the regime in which the penalty methods follow the
    /// slow motion (at `ω h ≫ 1` they stay stable but lose it).
    pub h_free_penalty: f64,
    /// Penalty frequency of the free-body and spherical-pendulum runs.
    pub omega_free: f64,
}

impl Setup {
    /// The full setup.
    pub fn paper() -> Self {
        Self {
            t_end: 1.0,
            hs: vec![2e-4, 1e-4, 5e-5, 2.5e-5],
            omega: 1000.0,
            omegas: vec![1000.0, 2000.0, 4000.0, 8000.0],
            h_model: 2.5e-5,
            t_free: 6.0,
            h_free: 1e-3,
            h_free_penalty: 1e-4,
            omega_free: 2000.0,
        }
    }

    /// The quick setup: the same runs, fewer steps.
    pub fn quick() -> Self {
        Self {
            hs: vec![2e-4, 1e-4, 5e-5],
            omegas: vec![1000.0, 2000.0, 4000.0],
            h_model: 5e-5,
            ..Self::paper()
        }
    }
}

/// The order fit of one method on the double compound pendulum.
#[derive(Clone, Debug)]
pub struct Order {
    /// The method.
    pub method: Method,
    /// Max joint-angle error at `T` per `h` (rad), against the method's own model: the
    /// Lagrangian reference for RATTLE, the penalised system (DOP853, tight) for Z&S and SyLiPN.
    pub errors: Vec<f64>,
    /// Max joint-angle error at `T` against the Lagrangian reference at the smallest `h`
    /// (the penalty methods' model error included).
    pub total: f64,
    /// The fitted slope of `log error` vs `log h`.
    pub order: f64,
    /// Max constraint residual at the smallest `h`.
    pub residual: f64,
    /// Max `|E − E₀|` at the smallest `h` (J).
    pub max_de: f64,
    /// Whether any run failed.
    pub failed: bool,
}

/// What `compute` measured.
#[derive(Clone, Debug)]
pub struct Results {
    /// The setup.
    pub setup: Setup,
    /// Per method.
    pub orders: Vec<Order>,
    /// Compound pendulum, Z&S: angle error at `T` per `ω` (rad).
    pub model_errors: Vec<f64>,
    /// Its fitted slope vs `ω`.
    pub model_slope: f64,
    /// Compound pendulum, RATTLE at `h = 1 ms`: angle error at `T` in `f64` and `f32`.
    pub single_f64: f64,
    /// As `single_f64`, in `f32`.
    pub single_f32: f64,
    /// The reference flip time (s).
    pub flip_reference: Option<f64>,
    /// The free body, RATTLE and Z&S.
    pub free: Vec<(Method, FreeRun)>,
    /// The spherical pendulum, RATTLE and Z&S.
    pub spherical: Vec<(Method, SphericalRun)>,
}

/// `(error vs own model, error vs Lagrangian, residual, max |ΔE|, failed)` of a
/// double-pendulum run: max joint-angle errors at `T`.
fn double_error(
    arm: &Arm,
    method: Method,
    h: f64,
    t_end: f64,
    omega: f64,
) -> (f64, f64, f64, f64, bool) {
    let m = arm.double::<f64>().expect("double pendulum");
    let steps = (t_end / h).round() as usize;
    let s0 = m.initial_state();
    let out = run(&m, method, s0, h, steps, steps, omega);
    let t = steps as f64 * h;
    let lagrange = arm.double_reference(&[0.0, t])[1];
    let own = if method == Method::Rattle {
        lagrange
    } else {
        let pen = m.penalised(omega).expect("penalty");
        let r = reference::solve_system(&pen, &s0, &[0.0, t], TIGHT.0, TIGHT.1);
        let q = r[r.len() - 1].q;
        [0, 1].map(|j| m.joint_angle(j, &q).unwrap_or(f64::NAN))
    };
    let s = out.samples.last().copied().unwrap_or(s0);
    let (mut e_own, mut e_total) = (0.0_f64, 0.0_f64);
    for j in 0..2 {
        let got = m.joint_angle(j, &s.q).unwrap_or(f64::NAN);
        e_own = e_own.max((got - own[j]).abs());
        e_total = e_total.max((got - lagrange[j]).abs());
    }
    let failed = out.error.is_some() || out.samples.len() < 2;
    (e_own, e_total, out.max_residual, out.max_de, failed)
}

/// Compound-pendulum angle error at `t_end` in `T`.
fn single_error<T: macrostep::Real>(
    arm: &Arm,
    method: Method,
    h: f64,
    t_end: f64,
    omega: f64,
) -> f64 {
    let m = arm.single::<T>().expect("compound pendulum");
    let steps = (t_end / h).round() as usize;
    let out = run(&m, method, m.initial_state(), h, steps, steps, omega);
    if out.error.is_some() || out.samples.len() < 2 {
        return f64::INFINITY;
    }
    let want = arm.single_reference(&[0.0, steps as f64 * h])[1];
    let s = out.samples[out.samples.len() - 1];
    (m.joint_angle(0, &s.q).map_or(f64::NAN, |x| x.to_f64()) - want).abs()
}

/// Runs everything.
pub fn compute(setup: &Setup) -> Results {
    let arm = Arm::standard();
    let orders = Method::ALL
        .iter()
        .map(|&method| {
            let runs: Vec<_> = setup
                .hs
                .iter()
                .map(|&h| double_error(&arm, method, h, setup.t_end, setup.omega))
                .collect();
            let errors: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let nan = f64::NAN;
            let last = runs.last().copied().unwrap_or((nan, nan, nan, nan, true));
            Order {
                method,
                order: loglog_slope(&setup.hs, &errors),
                errors,
                total: last.1,
                residual: last.2,
                max_de: last.3,
                failed: runs.iter().any(|r| r.4),
            }
        })
        .collect();
    let model_errors: Vec<f64> = setup
        .omegas
        .iter()
        .map(|&w| single_error::<f64>(&arm, Method::Zs, setup.h_model, setup.t_end, w))
        .collect();
    // f64 against f32 at a macro step: RATTLE's discretisation error (≈ 5e-5 rad) against
    // f32 round-off over 1000 steps.
    let h_min = 1e-3;
    let step = |m: Method| {
        if m == Method::Rattle {
            setup.h_free
        } else {
            setup.h_free_penalty
        }
    };
    let free = [Method::Rattle, Method::Zs]
        .iter()
        .map(|&m| {
            (
                m,
                free_run::<f64>(m, step(m), setup.t_free, setup.omega_free),
            )
        })
        .collect();
    let spherical = [Method::Rattle, Method::Zs]
        .iter()
        .map(|&m| {
            (
                m,
                spherical_run::<f64>(m, step(m), setup.t_end, setup.omega_free),
            )
        })
        .collect();
    Results {
        setup: setup.clone(),
        orders,
        model_slope: loglog_slope(&setup.omegas, &model_errors),
        model_errors,
        single_f64: single_error::<f64>(&arm, Method::Rattle, h_min, setup.t_end, setup.omega),
        single_f32: single_error::<f32>(&arm, Method::Rattle, h_min, setup.t_end, setup.omega),
        flip_reference: reference_flip_time(setup.t_free),
        free,
        spherical,
    }
}

/// Prints the tables and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let s = &r.setup;
    say!(
        out,
        "double compound pendulum (2 bodies, 2 revolute joints), T = {} s, ω = {} for Z&S/SyLiPN; joint-angle error at T vs the method's model (RATTLE: the Lagrangian reference; Z&S, SyLiPN: the penalised system), and vs the Lagrangian at the smallest h (total)",
        s.t_end,
        s.omega
    );
    let mut head = vec!["method".to_string()];
    head.extend(s.hs.iter().map(|h| format!("h={h}")));
    head.extend(["order", "total", "residual", "max|ΔE| J", "failed"].map(String::from));
    let refs: Vec<&str> = head.iter().map(String::as_str).collect();
    let t = Table::new(out, &refs);
    for o in &r.orders {
        let mut row = vec![o.method.key().to_string()];
        row.extend(o.errors.iter().map(|&e| sci(e)));
        row.extend([
            format!("{:.2}", o.order),
            sci(o.total),
            sci(o.residual),
            sci(o.max_de),
            o.failed.to_string(),
        ]);
        t.row(&row);
        let k = o.method.key();
        figure(&format!("bodies.{k}.order"), o.order);
        figure(&format!("bodies.{k}.residual"), o.residual);
        figure(&format!("bodies.{k}.total_error"), o.total);
        figure(&format!("bodies.{k}.max_de"), o.max_de);
    }
    say!(
        out,
        "compound pendulum, Z&S at h = {}: angle error vs ω {:?}: {:?}, slope {:.2}",
        s.h_model,
        s.omegas,
        r.model_errors.iter().map(|&e| sci(e)).collect::<Vec<_>>(),
        r.model_slope
    );
    figure("bodies.zs.model_slope", r.model_slope);
    say!(
        out,
        "compound pendulum, RATTLE: angle error at T {} (f64), {} (f32)",
        sci(r.single_f64),
        sci(r.single_f32)
    );
    figure("bodies.rattle.f64_error", r.single_f64);
    figure("bodies.rattle.f32_error", r.single_f32);
    let flip = r.flip_reference.unwrap_or(f64::NAN);
    say!(
        out,
        "free body (Dzhanibekov), RATTLE h = {}, Z&S h = {} ω = {}: reference flip time {flip:.6} s",
        s.h_free,
        s.h_free_penalty,
        s.omega_free
    );
    figure("bodies.free.reference_flip_time", flip);
    for (m, f) in &r.free {
        let k = m.key();
        let ft = f.flip_time.unwrap_or(f64::NAN);
        say!(
            out,
            "  {k}: flip {ft:.6} s (error {}), |ΔL|/L {}, |ΔE|/E {}, residual {}{}",
            sci(ft - flip),
            sci(f.l_drift),
            sci(f.max_de),
            sci(f.residual),
            if f.failed { " (a step failed)" } else { "" }
        );
        let name = if *m == Method::Rattle {
            "free".to_string()
        } else {
            format!("free.{k}")
        };
        figure(&format!("bodies.{name}.flip_time"), ft);
        figure(&format!("bodies.{name}.l_drift"), f.l_drift);
        figure(&format!("bodies.{name}.max_de"), f.max_de);
    }
    say!(
        out,
        "spherical pendulum with a rigid bob, T = {} s:",
        s.t_end
    );
    for (m, f) in &r.spherical {
        let k = m.key();
        say!(
            out,
            "  {k}: |ΔL_z|/|L| {}, |ΔE|/T₀ {}, residual {}, pivot gap {} m",
            sci(f.lz_drift),
            sci(f.max_de),
            sci(f.residual),
            sci(f.pivot_gap)
        );
        figure(&format!("bodies.spherical.{k}.lz_drift"), f.lz_drift);
        figure(&format!("bodies.spherical.{k}.residual"), f.residual);
        figure(&format!("bodies.spherical.{k}.max_de"), f.max_de);
    }
}

/// `reproduce bodies`.
pub struct BodiesExperiment;

impl Experiment for BodiesExperiment {
    const NAME: &'static str = "bodies";
    const SEED: &'static str = "000 §4.5";
    const SECONDS: f64 = 2.0;
    const ABOUT: &'static str = "rigid bodies and joints (affine bodies): compound pendulums vs Lagrangian references, Dzhanibekov flip, spherical pendulum";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
