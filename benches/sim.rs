//! SIM1/2/4 vs velocity Verlet at its stability-limited step, per unit of simulated time.
//!
//! Group `integrate-T1/fpu-w1000/n6`: the FPU chain (m = 3, ω = 1000) integrated over one unit
//! of time. SIM steps are macroscopic (`H = 0.01`, `ωH = 10`; the error in `q` is uniform in ω,
//! Theorem 4.2.2); Verlet must take `h = 1.8/ω` (90 % of its stability limit `2/ω`). The ratio of
//! the times is the speedup per simulated time at *stability*, not at equal accuracy.
//! Short mode for CI: `MACROSTEP_BENCH_SHORT=1 cargo bench --bench sim`.

mod common;

use common::{bench_span, config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::VelocityVerlet;
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, Sim2, Sim4, SimSystem};
use macrostep::systems::Fpu;
use macrostep::{Real, Stepper};

const OMEGA: f64 = 1000.0;
const H_SIM: f64 = 0.01;

fn bench_scalar<T: Real>(c: &mut Criterion, label: &str) {
    let fpu = Fpu::<T, 6>::new(T::lit(OMEGA)).expect("fpu");
    let split = fpu.split();
    let sys = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    let fast = FastParams::default();
    let h_sim = T::lit(H_SIM);
    let n_sim = (1.0 / H_SIM).round() as usize;
    let h_vv = 1.8 / OMEGA;
    let n_vv = (1.0 / h_vv).round() as usize;
    let s0 = fpu.initial_state();
    let mut sim1 = Sim1::new(sys, h_sim, fast).expect("sim1");
    let mut sim2 = Sim2::new(sys, h_sim, fast).expect("sim2");
    let mut sim4 = Sim4::new(sys, h_sim, fast).expect("sim4");
    // At 90 % of its stability limit Verlet's energy error is a multiple of the stiff springs'
    // energy, beyond the default run guard (0.2 of the run's scale): this group measures the raw
    // method's cost at its stability limit, so the guards are off for it.
    let mut vv = VelocityVerlet::new(fpu.system(), T::lit(h_vv))
        .expect("verlet")
        .with_guards(macrostep::Guards::off())
        .expect("guards off");
    let mut g = c.benchmark_group("integrate-T1/fpu-w1000/n6");
    bench_span(
        &mut g,
        format!("baselines::verlet/{label}"),
        &mut vv,
        s0,
        n_vv,
    );
    bench_span(&mut g, format!("sim::sim1/{label}"), &mut sim1, s0, n_sim);
    bench_span(&mut g, format!("sim::sim2/{label}"), &mut sim2, s0, n_sim);
    bench_span(&mut g, format!("sim::sim4/{label}"), &mut sim4, s0, n_sim);
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_scalar::<f64>(c, "f64");
    bench_scalar::<f32>(c, "f32");
}

criterion_group! {
    name = sim;
    config = config();
    targets = benches
}
criterion_main!(sim);
