//! Cost per step on SO(3) (000 §4.5): the linearised Z&S (first-order and trapezoidal forms)
//! against the Cayley variational benchmark with its Newton solve, on the paper's magnetised
//! body from the paper's start, in f32 and f64.
//!
//! Group `step/so3_magnetised/n9`, ids `lie::<method>/<scalar>`; the benchmark is in the group so
//! ratios come from one run. Short mode for CI: `MACROSTEP_BENCH_SHORT=1 cargo bench --bench so3`.

mod common;

use common::{bench_stepper, config, Criterion, Group};
use criterion::{criterion_group, criterion_main};
use macrostep::lie::{BodyState, CayleyVariational, LinearizedZs, RigidBody, So3ZsParams};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Integrator, Real};

fn scalar<T: Real>(g: &mut Group<'_>, name: &str) {
    let h = T::lit(0.1);
    let body = RigidBody::<T>::paper();
    let s0 = BodyState::<T>::paper();
    fn zs<T: Real, const S: bool>(
        g: &mut Group<'_>,
        id: String,
        body: RigidBody<T>,
        h: T,
        s0: BodyState<T>,
    ) {
        let mut integ = LinearizedZs::<T, S>::new(body, h, So3ZsParams::default()).expect("valid");
        bench_stepper(g, id, s0.to_relaxed(), move |s| {
            integ.step(s).expect("stable");
        });
    }
    zs::<T, false>(g, format!("lie::LinearizedZs1/{name}"), body, h, s0);
    zs::<T, true>(g, format!("lie::LinearizedZs2/{name}"), body, h, s0);
    let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default()).expect("valid");
    bench_stepper(
        g,
        format!("lie::CayleyVariational/{name}"),
        s0.to_relaxed(),
        move |s| {
            cay.step(s).expect("stable");
        },
    );
}

fn so3(c: &mut Criterion) {
    let mut g = c.benchmark_group("step/so3_magnetised/n9");
    scalar::<f64>(&mut g, "f64");
    scalar::<f32>(&mut g, "f32");
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = so3
}
criterion_main!(benches);
