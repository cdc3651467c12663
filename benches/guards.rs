//! The cost of the step guards: each method with the default guards, with the residual guard
//! only, and with every guard off, in one group per method so the ratios come from one run
//! (`reproduce guards` prints the same ratios from interleaved repeats as `guards.overhead`).
//!
//! Groups `guards/overhead/<method>` on the penalised double pendulum (000 §4.1, ω = 20) from
//! its paper start; ids `default`, `residual_only`, `off`.

mod common;

use common::{bench_steps, config, Criterion};
use criterion::{criterion_group, criterion_main};
use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State};

/// The three guard settings of one integrator, in one group.
fn trio<I: Integrator<f64, 4> + Clone>(
    c: &mut Criterion,
    method: &str,
    integ: I,
    s0: State<f64, 4>,
) {
    let mut g = c.benchmark_group(format!("guards/overhead/{method}"));
    let residual_only = Guards {
        energy_run: None,
        energy_step: None,
        ..Guards::default()
    };
    bench_steps(&mut g, "default", integ.clone(), s0);
    bench_steps(
        &mut g,
        "residual_only",
        integ.clone().with_guards(residual_only).expect("valid"),
        s0,
    );
    bench_steps(
        &mut g,
        "off",
        integ.with_guards(Guards::off()).expect("valid"),
        s0,
    );
    g.finish();
}

fn overhead(c: &mut Criterion) {
    let dp = DoublePendulum::<f64>::paper();
    let sys = dp.penalised(20.0).expect("valid");
    let s0 = dp.initial_state();
    let p = ZsParams::default();
    trio(
        c,
        "verlet",
        VelocityVerlet::new(sys, 0.005).expect("valid"),
        s0,
    );
    trio(c, "zs", ZhangSkeel::new(sys, 0.03, p).expect("valid"), s0);
    trio(c, "sylipn", Sylipn::new(sys, 0.03, p).expect("valid"), s0);
    let rattle = Rattle::new(
        dp.system(),
        dp.constraint(),
        0.01,
        ConstraintNewtonParams::default(),
    )
    .expect("valid");
    trio(c, "rattle", rattle, s0);
}

criterion_group! {
    name = benches;
    config = config();
    targets = overhead
}
criterion_main!(benches);
