//! 004 §7.1.7 (Figs 7.3–7.4): the variational circuit integrator FLAVORized by rule (2.8) on the
//! multiscale circuit `C₂ = ε`, against a small-step variational benchmark and the exact flow.
//!
//! Two cases. [`Case::seed`] is the seed's as printed: `ε = 10⁻³`, `τ = 10⁻⁴`, `δ = 10⁻³`
//! (`H = 0.1 = Mδ`, `M = 100`), benchmark `h = 10⁻⁴`, `q̃₀ = (1, 0)`. There `δ < √ε` (the fast
//! period is `2π√ε ≈ 0.2`), outside FLAVOR's regime `τ ≪ √ε ≪ δ ≪ τ/√ε` (Theorem 2.1.1), and
//! `q̃₀ = (1, 0)` puts almost all the energy in the fast mode (charge on the tiny `C₂`): the
//! slow mode is barely excited. [`Case::regime`] is our choice inside the regime: `ε = 10⁻⁶`,
//! `τ = 10⁻⁴`, `δ = 10⁻²`, benchmark `h = 10⁻⁵`, `q̃₀ = (0, 1)` (charge on `C₁`: the slow mode).

use super::model::{linear_sde, phase, state};
use macrostep::circuit::{Circuit, CircuitParams, CircuitVi};
use macrostep::flavor::{Nonintrusive, Params as FlavorParams, Switched};
use macrostep::nalgebra::Vector4;
use macrostep::Integrator;

/// One FLAVOR comparison.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// `ε = C₂`.
    pub eps: f64,
    /// FLAVOR micro-step `τ`.
    pub tau: f64,
    /// FLAVOR meso-step `δ`.
    pub delta: f64,
    /// Benchmark step.
    pub h_bench: f64,
    /// Initial mesh charges (currents zero).
    pub q0: [f64; 2],
}

impl Case {
    /// The seed's printed parameters.
    pub fn seed() -> Self {
        Self {
            eps: 1e-3,
            tau: 1e-4,
            delta: 1e-3,
            h_bench: 1e-4,
            q0: [1.0, 0.0],
        }
    }

    /// Inside FLAVOR's regime, slow mode excited.
    pub fn regime() -> Self {
        Self {
            eps: 1e-6,
            tau: 1e-4,
            delta: 1e-2,
            h_bench: 1e-5,
            q0: [0.0, 1.0],
        }
    }
}

/// The §7.1.7 comparison.
#[derive(Clone, Debug, Default)]
pub struct FlavorResults {
    /// Sample times (every `0.01`).
    pub times: Vec<f64>,
    /// Per sample: exact, benchmark and FLAVOR `(q̃₂, ṽ₂, q̃₁)`.
    pub exact: Vec<[f64; 3]>,
    /// Benchmark samples.
    pub bench: Vec<[f64; 3]>,
    /// FLAVOR samples.
    pub flavor: Vec<[f64; 3]>,
    /// `max |·|` over the samples of the slow `(q̃₂, ṽ₂)` error: FLAVOR, benchmark.
    pub slow_error: [f64; 2],
    /// Same for the fast charge `q̃₁` (FLAVOR captures it only in the averaged sense).
    pub fast_error: [f64; 2],
    /// Legacy steps per unit time, benchmark over FLAVOR (two legacy steps per `δ`).
    pub steps_ratio: f64,
}

fn pick(x: &Vector4<f64>) -> [f64; 3] {
    [x[1], x[3], x[0]]
}

/// Runs the comparison up to `t_end`, sampling every `0.01`.
pub fn compute(case: &Case, t_end: f64) -> FlavorResults {
    let params = CircuitParams::<f64, 4, 2>::lc_paper(case.eps, 0.0);
    let circuit = Circuit::new(params).expect("valid circuit");
    let (a, _, _) = linear_sde(&params);
    let x0 = Vector4::new(case.q0[0], case.q0[1], 0.0, 0.0);
    let mut bench = CircuitVi::new(circuit, case.h_bench).expect("valid");
    let legacy = CircuitVi::new(circuit, case.tau).expect("valid");
    let switched = Switched::new(legacy, 1.0 / case.eps, |vi, alpha| {
        // α is 1/ε or 0, both validated values: the call cannot fail.
        let _ = vi.set_inverse_capacitance(3, alpha);
    })
    .expect("finite stiffness");
    let mut flavor = Nonintrusive::new(
        switched,
        FlavorParams::new(case.delta, case.tau).expect("τ < δ"),
    )
    .expect("τ < δ");
    let (mut sb, mut sf) = (state(&x0), state(&x0));
    let mut r = FlavorResults::default();
    let dt = 0.01;
    let (nb, nf) = (
        (dt / case.h_bench).round() as usize,
        (dt / case.delta).round() as usize,
    );
    for k in 1..=(t_end / dt).round() as usize {
        bench.integrate(&mut sb, nb).expect("benchmark step");
        flavor.integrate(&mut sf, nf).expect("FLAVOR step");
        let t = k as f64 * dt;
        let ex = pick(&((a * t).exp() * x0));
        let (b, f) = (pick(&phase(&sb)), pick(&phase(&sf)));
        for (err, y) in [(0, &f), (1, &b)] {
            let slow = (y[0] - ex[0]).abs().max((y[1] - ex[1]).abs());
            r.slow_error[err] = r.slow_error[err].max(slow);
            r.fast_error[err] = r.fast_error[err].max((y[2] - ex[2]).abs());
        }
        r.times.push(t);
        r.exact.push(ex);
        r.bench.push(b);
        r.flavor.push(f);
    }
    r.steps_ratio = (1.0 / case.h_bench) / (2.0 / case.delta);
    r
}
