//! Multiscale problems where only slow quantities are asked for:
//!
//! - FPU (004 §4.2.6, m = 3, ω = 200): SIM1, SIM2 and SIM4 vs velocity Verlet, error in the stiff
//!   spring energies `I_j` (two problems: in `ΣI`, an adiabatic invariant, and in `max_j I_j`),
//!   sampled every 1 over `[0, span]` against DOP853 at 1e-12;
//! - the trimer (004 eq 2.100, ε = 1e-6, ω = (1.1, 0.97), start (0.8, 0.811, 0.721) at rest):
//!   the fused and the symplectic-Euler nonintrusive FLAVOR (τ fixed, δ swept) vs the legacy
//!   symplectic Euler (h swept), error in the slow variable (x + y + z)/3 at t = 1, 2, …
//!   against DOP853 at 1e-11.

use super::run_fixed;
use super::search::{Method, Outcome, Problem};
use crate::experiments::flavor::{nonintrusive_fused, nonintrusive_se, system_2100};
use crate::experiments::sim::{fpu_sim1, fpu_sim2};
use crate::reference;
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim4, SimSystem};
use macrostep::systems::Fpu;
use macrostep::{ConfigError, Integrator, State};
use nalgebra::SVector;

/// Output times `1, 2, …, span`.
fn unit_outputs(span: f64) -> Vec<f64> {
    (1..=span.round() as usize).map(|k| k as f64).collect()
}

/// `I_1, I_2, I_3` of an FPU state.
fn energies(fpu: &Fpu<f64, 6>, s: &State<f64, 6>, out: &mut Vec<f64>) {
    for j in 0..3 {
        out.push(fpu.stiff_spring_energy(s, j).unwrap_or(f64::NAN));
    }
}

/// `I_j` at `1, …, span` from DOP853 at `rtol = atol = tol`, flattened.
pub fn fpu_reference(span: f64, tol: f64) -> Vec<f64> {
    let fpu = Fpu::<f64, 6>::paper();
    let out = reference::solve_system(
        &fpu.system(),
        &fpu.initial_state(),
        &unit_outputs(span),
        tol,
        tol,
    );
    let mut flat = Vec::new();
    for s in &out {
        energies(&fpu, s, &mut flat);
    }
    flat
}

/// Which slow error of the FPU a problem matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FpuError {
    /// `max_k |ΣI(t_k) − ΣI_ref(t_k)|`.
    Sum,
    /// `max_k max_j |I_j(t_k) − I_j,ref(t_k)|`.
    Each,
}

/// The error of flattened `I_j` samples against the reference.
fn fpu_error(which: FpuError, a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    let rows = a.chunks(3).zip(b.chunks(3));
    match which {
        FpuError::Sum => rows
            .map(|(x, y)| (x.iter().sum::<f64>() - y.iter().sum::<f64>()).abs())
            .fold(0.0, f64::max),
        FpuError::Each => rows
            .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
            .fold(0.0, f64::max),
    }
}

/// SIM4 (004 §4.2, fourth order, noise-free) on the FPU chain with step `h`, as
/// [`fpu_sim1`]/[`fpu_sim2`].
fn fpu_sim4(fpu: &Fpu<f64, 6>, h: f64) -> Result<impl Integrator<f64, 6>, ConfigError> {
    let split = fpu.split();
    let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    Sim4::new(system, h, FastParams::default())
}

/// The FPU problem (`fpu_sum` or `fpu_each`) over `[0, span]` against `refi`.
pub fn fpu_problem<'a>(which: FpuError, span: f64, refi: &'a [f64]) -> Problem<'a> {
    let fpu = Fpu::<f64, 6>::paper();
    let s0 = fpu.initial_state();
    let n_out = span.round() as usize;
    let obs = move |s: &State<f64, 6>, out: &mut Vec<f64>| energies(&fpu, s, out);
    let fixed = |key, label, p_max, p_min, run: Box<dyn Fn(f64) -> Outcome + 'a>| Method {
        key,
        label,
        param_name: "h",
        p_max,
        p_min,
        snap: Some(1.0),
        run,
    };
    let methods = vec![
        fixed(
            "sim1",
            "SIM1 (004 Int. 4.2.1)",
            0.5,
            1e-4,
            Box::new(move |h| run_fixed(Ok(fpu_sim1(&fpu, h)), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "sim2",
            "SIM2 (004 Int. 4.2.3)",
            0.5,
            1e-4,
            Box::new(move |h| run_fixed(Ok(fpu_sim2(&fpu, h)), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "sim4",
            "SIM4 (004 Rem. 4.2.4)",
            0.5,
            1e-4,
            Box::new(move |h| run_fixed(fpu_sim4(&fpu, h), s0, 1.0, n_out, obs)),
        ),
        fixed(
            "verlet",
            "Velocity Verlet",
            0.01,
            2e-5,
            Box::new(move |h| run_fixed(VelocityVerlet::new(fpu.system(), h), s0, 1.0, n_out, obs)),
        ),
    ];
    let (key, label) = match which {
        FpuError::Sum => ("fpu_sum", "max |ΣI − ΣI_ref| over t = 1..T"),
        FpuError::Each => ("fpu_each", "max_j |I_j − I_j,ref| over t = 1..T"),
    };
    Problem {
        key,
        title: format!("FPU m = 3, ω = 200, T = {span}: {label}"),
        error_label: label,
        span,
        error: Box::new(move |obs| fpu_error(which, obs, refi)),
        methods,
        targets: vec![1e-2, 1e-3],
        ratios: vec![("verlet", "sim1"), ("verlet", "sim2"), ("verlet", "sim4")],
    }
}

/// The trimer's ε, ω₁, ω₂ and start (as `reproduce flavor-3dof`).
const EPS: f64 = 1e-6;
const W: (f64, f64) = (1.1, 0.97);

fn trimer_start() -> State<f64, 3> {
    State::new(0.0, SVector::from([0.8, 0.811, 0.721]), SVector::zeros())
}

/// The FLAVORs' micro-step τ (the smallest of `reproduce flavor-3dof`'s choices; stable for
/// δ up to ≈ 4/(τ λ_max/ε) ≈ 0.13).
pub const TAU: f64 = 1e-5;

fn slow(s: &State<f64, 3>, out: &mut Vec<f64>) {
    out.push((s.q[0] + s.q[1] + s.q[2]) / 3.0);
}

/// The slow variable at `1, …, span` from DOP853 at 1e-11.
pub fn trimer_reference(span: f64) -> Vec<f64> {
    let sys = system_2100::<f64>(EPS, W.0, W.1);
    let out = reference::solve_system(&sys, &trimer_start(), &unit_outputs(span), 1e-11, 1e-11);
    let mut flat = Vec::new();
    for s in &out {
        slow(s, &mut flat);
    }
    flat
}

/// The `trimer` problem over `[0, span]` against `refs`.
pub fn trimer_problem<'a>(span: f64, refs: &'a [f64]) -> Problem<'a> {
    let s0 = trimer_start();
    let n_out = span.round() as usize;
    let sys = || system_2100::<f64>(EPS, W.0, W.1);
    let method =
        |key, label, param_name, p_max, p_min, run: Box<dyn Fn(f64) -> Outcome + 'a>| Method {
            key,
            label,
            param_name,
            p_max,
            p_min,
            snap: Some(1.0),
            run,
        };
    let methods = vec![
        method(
            "legacy",
            "symplectic Euler (legacy)",
            "h",
            1e-3,
            1e-6,
            Box::new(move |h| {
                run_fixed(
                    SymplecticEuler::new(sys(), h, EulerOrdering::KickDrift),
                    s0,
                    1.0,
                    n_out,
                    slow,
                )
            }),
        ),
        method(
            "fused",
            "fused FLAVOR (τ = 1e-5)",
            "delta",
            0.1,
            2e-5,
            Box::new(move |d| {
                run_fixed(Ok(nonintrusive_fused(sys(), d, TAU)), s0, 1.0, n_out, slow)
            }),
        ),
        method(
            "flavor_se",
            "FLAVOR over sympl. Euler (τ = 1e-5)",
            "delta",
            0.1,
            2e-5,
            Box::new(move |d| run_fixed(Ok(nonintrusive_se(sys(), d, TAU)), s0, 1.0, n_out, slow)),
        ),
    ];
    Problem {
        key: "trimer",
        title: format!("trimer 2.100, ε = 1e-6, T = {span}: slow-variable error"),
        error_label: "max |(x+y+z)/3 − ref| over t = 1..T",
        span,
        error: Box::new(move |obs| {
            if obs.len() != refs.len() {
                return f64::INFINITY;
            }
            obs.iter()
                .zip(refs)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
        }),
        methods,
        targets: vec![1e-2, 1e-3],
        ratios: vec![("legacy", "fused"), ("legacy", "flavor_se")],
    }
}
