//! `arm3_pd` on the host: the law reaches its target, the gravity compensation holds the arm,
//! and the penalised Z&S plant follows RATTLE on the exact joints.
//! `cargo test --manifest-path firmware/scenarios/Cargo.toml --test arm3_pd -- --nocapture`

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::driver::Method;
use macrostep::forcing::{Actuate, Actuated};
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::ConstReal;
use macrostep::{Guards, Integrator, Real, State, Stepper};
use macrostep_scenarios::{
    arm3_gravity_torque, arm3_mechanism, arm3_pd, arm3_pd_in, arm3_plant, Arm3Pd, Arm3Slots, Sink,
    ARM3_H, ARM3_N, ARM3_SETTLE_TOL, ARM3_TICKS,
};

/// Collects the values the scenario records after its run.
#[derive(Default)]
struct Values(Vec<(&'static str, Vec<f64>)>);

impl<T: Real> Sink<T> for Values {
    fn begin(&mut self, _: &'static str, _: u32, _: u32) {}
    fn record<const N: usize>(&mut self, _: &'static str, _: u32, _: &State<T, N>) {}
    fn values(&mut self, _: &'static str, name: &'static str, xs: &[T]) {
        self.0.push((name, xs.iter().map(|x| x.to_f64()).collect()));
    }
}

fn value(v: &Values, name: &str) -> Vec<f64> {
    v.0.iter()
        .find(|x| x.0 == name)
        .map(|x| x.1.clone())
        .expect(name)
}

/// The arm the firmware builds in place (`Arm3Pd::build_in`, the emitted `build_in`,
/// `ZhangSkeel::new_in`) is the arm built by value, bit for bit: the same mechanism and plant
/// (their `Debug` text prints every field, every number in round-trip form) and the same run.
fn same_arm<T: ConstReal>() {
    let (mech, ids) = arm3_mechanism::<T>().expect("mechanism");
    let plant = arm3_plant(&mech).expect("plant");
    let mut slots = Arm3Slots::<T>::new();
    let arm = Arm3Pd::build_in(&mut slots).expect("in place");
    assert_eq!(arm.ids, ids);
    assert_eq!(format!("{:?}", arm.mech), format!("{mech:?}"));
    assert_eq!(format!("{:?}", arm.plant), format!("{plant:?}"));
    let (mut by_value, mut in_place) = (Values::default(), Values::default());
    arm3_pd::<T, _>(&mut by_value).expect("by value");
    arm3_pd_in::<T, _>(&mut in_place, &mut Arm3Slots::new()).expect("in place");
    assert_eq!(by_value.0, in_place.0);
}

#[test]
fn arm3_pd_in_place_is_the_arm_by_value() {
    same_arm::<f32>();
    same_arm::<f64>();
}

#[test]
fn arm3_pd_reaches_the_target_and_settles_in_f32_and_f64() {
    let mut v64 = Values::default();
    arm3_pd::<f64, _>(&mut v64).expect("f64 run");
    let mut v32 = Values::default();
    arm3_pd::<f32, _>(&mut v32).expect("f32 run");
    let end = f64::from(ARM3_TICKS) * ARM3_H;
    for (name, v) in [("f64", &v64), ("f32", &v32)] {
        let err = value(v, "joint_error");
        let settle = value(v, "settle_time")[0];
        println!("{name}: final joint errors {err:?} rad, settle time {settle} s");
        assert_eq!(err.len(), 3);
        // The penalised joints sag under the link weights by O(g/ω²) (µrad at ω = 10⁴): the
        // steady-state error is far below the settle tolerance.
        assert!(err.iter().all(|e| e.abs() < 1e-3), "{name}: {err:?}");
        assert!(
            settle > 0.1 && settle < 0.7 * end,
            "{name}: settle {settle}"
        );
    }
}

/// The loop built in place (as the firmware builds it) with the PD gains' effect removed: started at
/// a pose, the gravity compensation alone must keep it there. With wrong link data in
/// `ARM3_MASS`/`ARM3_COM`/`ARM3_LINK` the arm drifts (a 1 % error in the shoulder's moment
/// drifts it by ≈ 1e-2 rad in 0.5 s).
///
/// The run guard gets an energy floor of `HOLD_ENERGY_SCALE` here (the plant's energy
/// resolution, what a controls engineer sets); the default guards hold the arm too
/// ([`held_at_rest_with_default_guards_steps_on`]).
#[test]
fn arm3_pd_gravity_compensation_holds_the_arm() {
    let mut slots = Arm3Slots::new();
    let mut arm: Arm3Pd<f64> = Arm3Pd::build_in(&mut slots).expect("built");
    let floor = Guards {
        energy_scale: Some(HOLD_ENERGY_SCALE),
        ..Guards::default()
    };
    arm.plant.set_guards(floor).expect("guards");
    // Start at rest at the zero configuration; apply only G(θ) as motor torques.
    let (s, u) = hold_from_rest(&mut arm, 500).unwrap_or_else(|e| panic!("{e}"));
    let (th, om) = arm.joints(&s);
    println!("held: angles {th:?} rad, rates {om:?} rad/s after 0.5 s");
    assert!(th.iter().all(|x| x.abs() < 1e-4), "{th:?}");
    // Without compensation the same arm falls: a check that this test can fail.
    let mut s = arm.mech.initial_state();
    arm.plant.set_force(&u.map(|_| 0.0)).expect("force");
    for _ in 0..500 {
        arm.plant.step(&mut s).expect("step");
    }
    assert!(arm.joints(&s).0[0] < -0.5);
}

/// The energy floor of the holding test: the potential energy of lowering the arm's 2.1 kg by
/// half a millimetre, the resolution at which a controller holding it cares.
const HOLD_ENERGY_SCALE: f64 = 1e-2;

/// The holding test with the default guards, for 10 s: a user who holds the arm still from the
/// start. Held from rest, the arm's only motion is its rods' ringing under the load (the run's
/// scale `S = 4.1e-4 J`, its kinetic energy at most `0.17·S`), and Z&S at `hω = 10` shows an
/// energy deficit of up to `0.83·S` on it: the run guard's quiet-run rule (`src/guard/allowance.rs`)
/// accepts that deficit, the start-up allowance alone refused step 3 (drift `0.72·S > 2S/3`).
#[test]
fn held_at_rest_with_default_guards_steps_on() {
    let mut slots = Arm3Slots::new();
    let mut arm: Arm3Pd<f64> = Arm3Pd::build_in(&mut slots).expect("built");
    assert_eq!(arm.plant.guards(), Guards::default());
    let (s, _) = hold_from_rest(&mut arm, 10_000).unwrap_or_else(|e| panic!("{e}"));
    let (th, _) = arm.joints(&s);
    println!("held with default guards: angles {th:?} rad after 10 s");
    // The rods' ringing under the load moves the joint angles by up to 1.7e-4 rad over the
    // 10 s (measured); a 1 % error in the compensation drifts them by 1e-2 rad in 0.5 s.
    assert!(th.iter().all(|x| x.abs() < 1e-3), "{th:?}");
}

/// `ticks` ticks from rest at the zero configuration with only the gravity torques `G(θ)` as
/// motor commands: the final state and the last held force, or which step failed and how.
fn hold_from_rest(
    arm: &mut Arm3Pd<'_, f64>,
    ticks: usize,
) -> Result<(State<f64, ARM3_N>, SVector<f64, ARM3_N>), String> {
    let mut s = arm.mech.initial_state();
    let mut u = SVector::<f64, ARM3_N>::zeros();
    for k in 0..ticks {
        let (th, _) = arm.joints(&s);
        let g = arm3_gravity_torque(th);
        let mut cmd = [0.0; 3];
        for (i, &m) in arm.ids.motors.iter().enumerate() {
            cmd[m] = g[i];
        }
        arm.mech.actuation(&cmd, &s.q, &mut u).expect("actuation");
        arm.plant.set_force(&u).expect("force");
        if let Err(e) = arm.plant.step(&mut s) {
            return Err(format!("step {}: {e:?} at angles {th:?}", k + 1));
        }
    }
    Ok((s, u))
}

/// The closed loop on the penalised Z&S plant against the same law on RATTLE with the exact
/// joints (h = 1 ms, default Newton parameters): joint angles agree within 1e-3 rad over the run
/// (measured 6.9e-4 against RATTLE at h/10, mostly the penalty model error at ω = 10⁴; at
/// ω = 1000 it is 1.6e-2, so the test fails for a too-soft penalty).
#[test]
fn arm3_pd_tracks_rattle() {
    let mut slots = Arm3Slots::new();
    let mut arm: Arm3Pd<f64> = Arm3Pd::build_in(&mut slots).expect("built");
    let mech = *arm.mech;
    let sys = System::new(mech.mass(), Actuated::new(mech.gravity()));
    let mut rattle = Rattle::new(
        sys,
        mech.constraint(),
        ARM3_H,
        ConstraintNewtonParams::default(),
    )
    .expect("rattle");
    let (mut a, mut b) = (mech.initial_state(), mech.initial_state());
    let mut next = a;
    let mut u = macrostep::nalgebra::SVector::<f64, ARM3_N>::zeros();
    let mut worst = 0.0f64;
    for _ in 0..ARM3_TICKS {
        next.clone_from(&a);
        arm.propose(&a, ARM3_H, &mut next).expect("z&s tick");
        next.t = a.t + ARM3_H;
        a = next;
        let tau = arm.torques(&b);
        let mut cmd = [0.0; 3];
        for (k, &m) in arm.ids.motors.iter().enumerate() {
            cmd[m] = tau[k];
        }
        mech.actuation(&cmd, &b.q, &mut u).expect("actuation");
        rattle.set_force(&u).expect("force");
        rattle.step(&mut b).expect("rattle tick");
        let (ta, tb) = (arm.joints(&a).0, arm.joints(&b).0);
        for k in 0..3 {
            worst = worst.max((ta[k] - tb[k]).abs());
        }
    }
    println!("Z&S (ω = 1e4) vs RATTLE: max joint-angle difference {worst:.3e} rad");
    assert!(worst < 1e-3, "{worst}");
    assert!(ARM3_SETTLE_TOL > 10.0 * worst);
}
