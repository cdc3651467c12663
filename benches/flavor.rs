//! FLAVOR cost per unit simulated time against its legacy integrator at the micro-step. Each
//! benchmark advances the same span `δ`: one FLAVOR step, or `δ/τ` legacy steps,
//! so the ratio of the times is the wall-clock speed-up (ideal `δ/τ`).
//!
//! - `flavor::nonintrusive_fused`: the nonintrusive FLAVOR (eq 2.45) over
//!   [`FusedEuler`](macrostep::flavor::FusedEuler) ([`Nonintrusive::fused_euler`]; stiff
//!   step drift–kick eq 2.50, soft step kick–drift eq 2.49, the two kicks fused): one soft and
//!   one stiff gradient per FLAVOR step, the cost of one legacy step — expect ≈ `δ/τ`.
//! - `flavor::nonintrusive`: over symplectic Euler ([`Nonintrusive::symplectic_euler`], kick–drift
//!   for both sub-steps): two
//!   soft gradients and one stiff, expect `δ/τ · c_full/(c_full + c_soft)`.
//!
//! Short mode for CI: `MACROSTEP_BENCH_SHORT=1 cargo bench --bench flavor`.

mod common;

use common::{bench_span, config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::Nonintrusive;
use macrostep::systems::SpringTrimer;
use macrostep::State;

fn trimer(c: &mut Criterion) {
    let model = SpringTrimer::<f64>::paper();
    let (delta, tau): (f64, f64) = (0.01, 2e-5);
    let ratio = (delta / tau).round() as usize;
    let mut group = c.benchmark_group("step/trimer/n3");
    let s0: State<f64, 3> = model.initial_state();

    let mut se = SymplecticEuler::new(model.system(), tau, EulerOrdering::KickDrift).unwrap();
    let id = format!("baselines::symplectic_euler_x{ratio}/f64");
    bench_span(&mut group, id, &mut se, s0, ratio);

    let mut fused = Nonintrusive::fused_euler(model.system(), delta, tau).unwrap();
    bench_span(
        &mut group,
        "flavor::nonintrusive_fused/f64",
        &mut fused,
        s0,
        1,
    );

    let mut flavor = Nonintrusive::symplectic_euler(model.system(), delta, tau).unwrap();
    bench_span(&mut group, "flavor::nonintrusive/f64", &mut flavor, s0, 1);
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = trimer
}
criterion_main!(benches);
