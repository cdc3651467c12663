//! FLAVOR cost per unit simulated time against its legacy integrator at the micro-step (issue 7,
//! item 8). Each benchmark advances the same span `δ`: one FLAVOR step, or `δ/τ` legacy steps,
//! so the ratio of the two times is the wall-clock speed-up (ideal `δ/τ`; a nonintrusive FLAVOR
//! takes two legacy steps per meso-step, the second without the stiff force, so expect
//! `δ/τ · c_full/(c_full + c_soft)`).

use criterion::{criterion_group, criterion_main, Criterion};
use macrostep::baselines::{Ordering, SymplecticEuler};
use macrostep::flavor::{Nonintrusive, Params, Switched};
use macrostep::models::SpringTrimer;
use macrostep::{Integrator, State};
use std::hint::black_box;

fn trimer(c: &mut Criterion) {
    let model = SpringTrimer::<f64>::paper();
    let (delta, tau): (f64, f64) = (0.01, 2e-5);
    let ratio = (delta / tau).round() as usize;
    let mut group = c.benchmark_group("step/trimer/n3");
    let s0: State<f64, 3> = model.initial_state();

    let mut se = SymplecticEuler::new(model.system(), tau, Ordering::KickDrift).unwrap();
    group.bench_function(format!("baselines::symplectic_euler_x{ratio}/f64"), |b| {
        let mut s = s0;
        b.iter(|| {
            se.integrate(black_box(&mut s), ratio).unwrap();
            if s.t > 1e3 {
                s = s0;
            }
        })
    });

    let se = SymplecticEuler::new(model.system(), tau, Ordering::KickDrift).unwrap();
    let mut flavor = Nonintrusive::new(
        Switched::symplectic_euler(se).unwrap(),
        Params::new(delta, tau).unwrap(),
    );
    group.bench_function("flavor::nonintrusive/f64", |b| {
        let mut s = s0;
        b.iter(|| {
            flavor.step(black_box(&mut s)).unwrap();
            if s.t > 1e3 {
                s = s0;
            }
        })
    });
    group.finish();
}

criterion_group!(benches, trimer);
criterion_main!(benches);
