//! The cart-pole loops as built for the device against the plain construction: the mechanism
//! built in place ([`mechanism_in`]) is the by-value one, the actuator's constant map
//! ([`unit_force`]) gives the forces `Mechanism::actuation` gives, and the recorded runs of
//! `control_cart_pole` (plant built in place, `Controlled` with the constant map) and
//! `rattle_cart_pole` equal, bit for bit, a loop built by value that maps every command through
//! `Mechanism::actuation`.
//! `cargo test --manifest-path firmware/scenarios/Cargo.toml --test cart_pole`

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::linalg::DenseKept;
use macrostep::mechanism::Mechanism;
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConstReal, Integrator, Real, State};
use macrostep_scenarios::{
    lqr_gain, mechanism, mechanism_in, run, unit_force, LqrWeights, Sink, CART_POLE_GAINS,
    CART_POLE_H,
};

/// The states a scenario records, by step.
struct Records<T: Real>(Vec<(u32, State<T, 3>)>);

impl<T: Real> Sink<T> for Records<T> {
    fn begin(&mut self, _: &'static str, _: u32, _: u32) {}
    fn record<const N: usize>(&mut self, _: &'static str, step: u32, s: &State<T, N>) {
        let mut x = State::<T, 3>::at_rest(SVector::zeros());
        x.t = s.t;
        for i in 0..N.min(3) {
            x.q[i] = s.q[i];
            x.v[i] = s.v[i];
        }
        self.0.push((step, x));
    }
}

fn bits<T: Real>(s: &State<T, 3>) -> Vec<u64> {
    let mut out = vec![s.t.to_f64().to_bits()];
    out.extend(s.q.iter().chain(s.v.iter()).map(|x| x.to_f64().to_bits()));
    out
}

fn same_mechanism<T: ConstReal>() {
    let by_value = mechanism::<T>().expect("mechanism");
    let (mut builder, mut slot) = (None, None);
    let in_place = mechanism_in::<T>(&mut builder, &mut slot).expect("mechanism_in");
    assert_eq!(format!("{in_place:?}"), format!("{by_value:?}"));
}

#[test]
fn the_mechanism_built_in_place_is_the_mechanism_built_by_value() {
    same_mechanism::<f32>();
    same_mechanism::<f64>();
}

fn unit_map_is_the_actuation<T: Real>() {
    let mech = mechanism::<T>().expect("mechanism");
    let unit = unit_force(&mech).expect("unit force");
    let mut q = mech.initial_state().q;
    for f in [1.0, -1.0, 3.25, -17.5, 1e-30, -1e30, 0.123_456_789] {
        let f = T::lit(f);
        // The map is constant: any `q` gives the same force.
        q[2] += T::lit(0.01);
        let mut u = SVector::<T, 3>::repeat(T::lit(f64::NAN));
        mech.actuation(&[f], &q, &mut u).expect("actuation");
        let v = unit * f;
        for i in 0..3 {
            assert!(v[i] == u[i], "component {i} for F = {f:?}: {v:?} vs {u:?}");
        }
        assert_eq!(v[0].to_f64().to_bits(), u[0].to_f64().to_bits());
    }
}

#[test]
fn the_constant_map_gives_the_forces_of_the_actuation() {
    unit_map_is_the_actuation::<f32>();
    unit_map_is_the_actuation::<f64>();
}

/// `F = −K (s, θ, ṡ, θ̇)` at `s`.
fn control<T: Real>(k: &[T; 4], s: &State<T, 3>) -> T {
    let (dx, dy) = (s.q[1] - s.q[0], s.q[2]);
    let (dvx, dvy) = (s.v[1] - s.v[0], s.v[2]);
    let theta = dx.atan2(dy);
    let omega = (dvx * dy - dx * dvy) / (dx * dx + dy * dy);
    -(k[0] * s.q[0] + k[1] * theta + k[2] * s.v[0] + k[3] * omega)
}

/// The loop built by value: every tick `F = −K x` mapped through `Mechanism::actuation`,
/// `set_force`, one plant step; the state every 500 ticks.
fn reference<T: Real, I: Integrator<T, 3> + Actuate<T, 3>>(
    mech: &Mechanism<T, 2, 3, 1>,
    plant: &mut I,
    gain: &[T; 4],
) -> Vec<(u32, State<T, 3>)> {
    let mut s = mech.initial_state();
    let mut out = vec![(0, s)];
    let mut u = SVector::zeros();
    for k in 1..=5000 {
        let f = control(gain, &s);
        mech.actuation(&[f], &s.q, &mut u).expect("actuation");
        plant.set_force(&u).expect("force");
        plant.step(&mut s).expect("step");
        if k % 500 == 0 {
            out.push((k, s));
        }
    }
    out
}

fn recorded<T: ConstReal>(name: &str) -> Vec<(u32, State<T, 3>)> {
    let mut rec = Records(Vec::new());
    run::<T, _>(name, &mut rec)
        .expect("a scenario")
        .expect("its run");
    rec.0
}

fn assert_same<T: Real>(got: &[(u32, State<T, 3>)], want: &[(u32, State<T, 3>)]) {
    assert_eq!(got.len(), want.len());
    for ((k, a), (j, b)) in got.iter().zip(want) {
        assert_eq!(k, j);
        assert_eq!(bits(a), bits(b), "tick {k}: {a:?} vs {b:?}");
    }
}

fn control_loop_is_the_by_value_loop<T: ConstReal>() {
    let mech = mechanism::<T>().expect("mechanism");
    let pen = mech.penalised(T::lit(500.0)).expect("penalty");
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let params = ZsParams::with_beta(T::lit(0.4));
    let mut plant =
        ZhangSkeel::with_solver(sys, T::lit(CART_POLE_H), params, DenseKept::new()).expect("plant");
    let gain = lqr_gain(T::lit(CART_POLE_H), &LqrWeights::cart_pole()).expect("gain");
    let want = reference(&mech, &mut plant, &gain);
    assert_same(&recorded::<T>("control_cart_pole"), &want);
}

#[test]
fn control_cart_pole_runs_the_loop_built_by_value() {
    control_loop_is_the_by_value_loop::<f32>();
    control_loop_is_the_by_value_loop::<f64>();
}

fn rattle_loop_is_the_by_value_loop<T: ConstReal>() {
    let mech = mechanism::<T>().expect("mechanism");
    let exact = mech.system();
    let sys = System::new(exact.mass, Actuated::new(exact.potential));
    let (h, params) = (T::lit(CART_POLE_H), ConstraintNewtonParams::default());
    let mut plant = Rattle::new(sys, mech.constraint(), h, params).expect("plant");
    let want = reference(&mech, &mut plant, &CART_POLE_GAINS.map(T::lit));
    assert_same(&recorded::<T>("rattle_cart_pole"), &want);
}

#[test]
fn rattle_cart_pole_runs_the_loop_built_by_value() {
    rattle_loop_is_the_by_value_loop::<f32>();
    rattle_loop_is_the_by_value_loop::<f64>();
}
