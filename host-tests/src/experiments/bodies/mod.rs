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
    /// Step of the free-body and spherical-pendulum runs (s).
    pub h_free: f64,
    /// Penalty frequency of the free-body and spherical-pendulum runs.
    pub omega_free: f64,
}

impl Setup {
    /// The full setup.
    pub fn paper() -> Self {
        Self {
            t_end: 2.0,
            hs: vec![8e-3, 4e-3, 2e-3, 1e-3],
            omega: 2e4,
            omegas: vec![200.0, 400.0, 800.0, 1600.0],
            h_model: 2.5e-4,
            t_free: 6.0,
            h_free: 1e-3,
            omega_free: 2e4,
        }
    }

    /// The quick setup: the same runs, shorter.
    pub fn quick() -> Self {
        Self {
            t_end: 1.0,
            hs: vec![8e-3, 4e-3, 2e-3],
            omegas: vec![200.0, 400.0, 800.0],
            h_model: 5e-4,
            ..Self::paper()
        }
    }
}

/// The order fit of one method on the double compound pendulum.
#[derive(Clone, Debug)]
pub struct Order {
    /// The method.
    pub method: Method,
    /// Max joint-angle error at `T` per `h` (rad).
    pub errors: Vec<f64>,
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
    /// Compound pendulum, RATTLE at the smallest `h`: angle error at `T` in `f64` and `f32`.
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

/// Max joint-angle error at the end of a double-pendulum run.
fn double_error(arm: &Arm, method: Method, h: f64, t_end: f64, omega: f64) -> (f64, f64, f64, bool) {
    let m = arm.double::<f64>().expect("double pendulum");
    let steps = (t_end / h).round() as usize;
    let out = run(&m, method, m.initial_state(), h, steps, steps, omega);
    let want = arm.double_reference(&[0.0, steps as f64 * h]);
    let s = out.samples.last().copied().unwrap_or_else(|| m.initial_state());
    let mut err = 0.0_f64;
    for (j, w) in want[1].iter().enumerate() {
        let got = m.joint_angle(j, &s.q).unwrap_or(f64::NAN);
        err = err.max((got - w).abs());
    }
    let failed = out.error.is_some() || out.samples.len() < 2;
    (err, out.max_residual, out.max_de, failed)
}

/// Compound-pendulum angle error at `t_end` in `T`.
fn single_error<T: macrostep::Real>(arm: &Arm, method: Method, h: f64, t_end: f64, omega: f64) -> f64 {
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
            let last = runs.last().copied().unwrap_or((f64::NAN, f64::NAN, f64::NAN, true));
            Order {
                method,
                order: loglog_slope(&setup.hs, &errors),
                errors,
                residual: last.1,
                max_de: last.2,
                failed: runs.iter().any(|r| r.3),
            }
        })
        .collect();
    let model_errors: Vec<f64> = setup
        .omegas
        .iter()
        .map(|&w| single_error::<f64>(&arm, Method::Zs, setup.h_model, setup.t_end, w))
        .collect();
    let h_min = setup.hs.last().copied().unwrap_or(1e-3);
    let free = [Method::Rattle, Method::Zs]
        .iter()
        .map(|&m| (m, free_run::<f64>(m, setup.h_free, setup.t_free, setup.omega_free)))
        .collect();
    let spherical = [Method::Rattle, Method::Zs]
        .iter()
        .map(|&m| (m, spherical_run::<f64>(m, setup.h_free, setup.t_end, setup.omega_free)))
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
        "double compound pendulum (2 bodies, 2 revolute joints), T = {} s, ω = {} for Z&S/SyLiPN; joint-angle error at T vs a Lagrangian reference",
        s.t_end,
        s.omega
    );
    let mut head = vec!["method".to_string()];
    head.extend(s.hs.iter().map(|h| format!("h={h}")));
    head.extend(["order", "residual", "max|ΔE| J"].map(String::from));
    let refs: Vec<&str> = head.iter().map(String::as_str).collect();
    let t = Table::new(out, &refs);
    for o in &r.orders {
        let mut row = vec![o.method.key().to_string()];
        row.extend(o.errors.iter().map(|&e| sci(e)));
        row.extend([format!("{:.2}", o.order), sci(o.residual), sci(o.max_de)]);
        t.row(&row);
        let k = o.method.key();
        figure(&format!("bodies.{k}.order"), o.order);
        figure(&format!("bodies.{k}.residual"), o.residual);
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
    say!(out, "free body (Dzhanibekov), h = {}: reference flip time {flip:.6} s", s.h_free);
    figure("bodies.free.reference_flip_time", flip);
    for (m, f) in &r.free {
        let k = m.key();
        let ft = f.flip_time.unwrap_or(f64::NAN);
        say!(
            out,
            "  {k}: flip {ft:.6} s (error {}), |ΔL|/L {}, |ΔE|/E {}, residual {}",
            sci(ft - flip),
            sci(f.l_drift),
            sci(f.max_de),
            sci(f.residual)
        );
        let name = if *m == Method::Rattle { "free".to_string() } else { format!("free.{k}") };
        figure(&format!("bodies.{name}.flip_time"), ft);
        figure(&format!("bodies.{name}.l_drift"), f.l_drift);
        figure(&format!("bodies.{name}.max_de"), f.max_de);
    }
    say!(out, "spherical pendulum with a rigid bob, T = {} s:", s.t_end);
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
