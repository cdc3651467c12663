//! The in-place constructors build the objects the by-value ones build, bit for bit, in `f32`
//! and `f64`: `MechanismBuilder::new_in` / `build_in` (point masses with a rail, springs,
//! dashpots and actuators; the two URDF arms with rigid bodies, joints and motors through the
//! emitted `build_in`) and `ZhangSkeel::new_in`; a refused construction leaves its slot empty.
//!
//! The objects are compared through their `Debug` text, which prints every field and every
//! number in its shortest round-trip form (two numbers print alike only when their bits are
//! equal; no NaN occurs here), so any difference in any field fails the comparison.

use host_tests::experiments::urdf_arms::models::{arm6, planar_arm3};
use macrostep::linalg::{Dense, DenseKept};
use macrostep::mechanism::MechanismBuilder;
use macrostep::model::System;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, ConstReal, Integrator, Real};

/// A point-mass mechanism with everything but bodies: a cart on a slanted rail, two free
/// masses (not 1 kg), rods, a spring, dashpots, a force and a torque actuator, gravity.
fn describe<T: Real>(b: &mut MechanismBuilder<T, 2, 5, 2, 1>) -> Result<(), ConfigError> {
    let l = T::lit;
    let cart = b.rail_node(l(1.5), [l(0.1), l(-0.2)], [l(3.0), l(1.0)], l(0.3))?;
    let p = b.node(l(0.4), [l(0.7), l(0.9)])?;
    let q = b.node(l(0.25), [l(1.3), l(0.2)])?;
    b.rod(p, cart)?;
    b.rod(q, p)?;
    b.spring_to_ground(q, [l(2.0), l(0.0)], l(40.0), l(0.5))?;
    b.dashpot(p, q, l(0.3))?;
    b.dashpot_to_ground(cart, l(1.1))?;
    b.force_actuator(cart, [l(3.0), l(1.0)])?;
    b.torque_actuator(q, p, cart)?;
    b.gravity(l(9.81))
}

fn same_point_mass_mechanism<T: ConstReal>() {
    let mut by_value = MechanismBuilder::<T, 2, 5, 2, 1>::new().unwrap();
    describe(&mut by_value).unwrap();
    let mech = by_value.build().unwrap();

    let mut builder = None;
    let b = MechanismBuilder::<T, 2, 5, 2, 1>::new_in(&mut builder).unwrap();
    assert_eq!(
        format!("{b:?}"),
        format!("{:?}", MechanismBuilder::<T, 2, 5, 2, 1>::new().unwrap())
    );
    describe(b).unwrap();
    let mut slot = None;
    let placed = b.build_in(&mut slot).unwrap();
    assert_eq!(format!("{placed:?}"), format!("{mech:?}"));
    assert!(
        placed.mass().as_diagonal().is_some(),
        "the diagonal mass path"
    );
}

/// Unit masses: the identity-mass path of the build.
fn same_unit_mass_pendulum<T: ConstReal>() {
    let describe = |b: &mut MechanismBuilder<T, 2, 4, 2>| {
        let a = b.node(T::one(), [T::lit(0.6), T::lit(-0.8)])?;
        let c = b.node(T::one(), [T::lit(1.1), T::lit(-1.7)])?;
        b.pin(a, [T::zero(); 2])?;
        b.rod(c, a)?;
        b.gravity(T::lit(9.81))
    };
    let mut by_value = MechanismBuilder::new().unwrap();
    describe(&mut by_value).unwrap();
    let (mut builder, mut slot) = (None, None);
    let b = MechanismBuilder::new_in(&mut builder).unwrap();
    describe(b).unwrap();
    let placed = b.build_in(&mut slot).unwrap();
    assert!(placed.mass().is_identity());
    assert_eq!(
        format!("{placed:?}"),
        format!("{:?}", by_value.build().unwrap())
    );
}

#[test]
fn build_in_builds_the_point_mass_mechanism_build_builds() {
    same_point_mass_mechanism::<f32>();
    same_point_mass_mechanism::<f64>();
    same_unit_mass_pendulum::<f32>();
    same_unit_mass_pendulum::<f64>();
}

/// The two URDF arms (rigid bodies, revolute joints in the plane and in space, motors): the
/// emitted `build_in` against the emitted `build`, `g` not the paper's.
fn same_arms<T: ConstReal>() {
    let g = T::lit(3.7);
    let (mech, ids) = planar_arm3::build::<T>(g).unwrap();
    let (mut builder, mut slot) = (None, None);
    let (placed, placed_ids) = planar_arm3::build_in(g, &mut builder, &mut slot).unwrap();
    assert_eq!(placed_ids, ids);
    assert_eq!(format!("{placed:?}"), format!("{mech:?}"));

    let (mech, ids) = arm6::build::<T>(g).unwrap();
    let (mut builder, mut slot) = (None, None);
    let (placed, placed_ids) = arm6::build_in(g, &mut builder, &mut slot).unwrap();
    assert_eq!(placed_ids, ids);
    assert_eq!(format!("{placed:?}"), format!("{mech:?}"));
}

#[test]
fn emitted_build_in_builds_the_arms_build_builds() {
    same_arms::<f32>();
    same_arms::<f64>();
}

/// A refused build gives `build`'s error and empties the slot, even when it held a mechanism:
/// a rod short, and a rod whose length is not the start distance of its ends.
#[test]
fn build_in_refusals_match_build_and_empty_the_slot() {
    let mut pendulum = MechanismBuilder::<f64, 2, 2, 1>::new().unwrap();
    pendulum.node(1.0, [0.0, -1.0]).unwrap();
    let mut slot = None;
    let full = |slot: &mut Option<_>| {
        let mut ok = pendulum;
        ok.pin(0, [0.0, 0.0]).unwrap();
        ok.build_in(slot).unwrap();
        assert!(slot.is_some());
    };

    full(&mut slot);
    let short = pendulum;
    let want = short.build().err();
    assert_eq!(want, Some(ConfigError::Inconsistent { name: "rods = D" }));
    assert_eq!(short.build_in(&mut slot).err(), want);
    assert!(slot.is_none(), "a refused build leaves no mechanism behind");

    full(&mut slot);
    let mut long = pendulum;
    long.pin_length(0, [0.0, 0.0], 1.5).unwrap();
    let want = long.build().err();
    assert!(matches!(
        want,
        Some(ConfigError::StartMismatch { name: "rod", .. })
    ));
    assert_eq!(long.build_in(&mut slot).err(), want);
    assert!(slot.is_none(), "a refused build leaves no mechanism behind");
}

/// `ZhangSkeel::new_in` builds the method `with_solver` builds on the same system: the same
/// object and the same 60 steps of the penalised URDF arm (`ω = 300`, `β = 0.3`, `h = 2 ms`,
/// a moving start, not the paper's), with the dense and the kept-factor strategies.
fn same_zhang_skeel<T: ConstReal>() {
    let (mech, _) = planar_arm3::build::<T>(T::lit(9.81)).unwrap();
    let sys = mech.penalised(T::lit(300.0)).unwrap();
    let (h, params) = (T::lit(2e-3), ZsParams::with_beta(T::lit(0.3)));
    let mut start = mech.initial_state();
    start.v[3] = T::lit(0.4);
    start.v[4] = T::lit(-0.2);

    let mut plain = ZhangSkeel::with_solver(sys, h, params, Dense).unwrap();
    let mut slot = None;
    let placed = ZhangSkeel::new_in(&mut slot, &sys, h, params, Dense).unwrap();
    assert_eq!(format!("{placed:?}"), format!("{plain:?}"));
    let (mut a, mut b) = (start, start);
    plain.integrate(&mut a, 60).unwrap();
    placed.integrate(&mut b, 60).unwrap();
    assert_eq!(a, b);
    assert!(a.q != start.q);

    let mut kept = ZhangSkeel::with_solver(sys, h, params, DenseKept::new()).unwrap();
    let mut kept_slot = None;
    let placed = ZhangSkeel::new_in(&mut kept_slot, &sys, h, params, DenseKept::new()).unwrap();
    assert_eq!(format!("{placed:?}"), format!("{kept:?}"));
    let (mut a, mut b) = (start, start);
    kept.integrate(&mut a, 60).unwrap();
    placed.integrate(&mut b, 60).unwrap();
    assert_eq!(a, b);
}

#[test]
fn zhang_skeel_new_in_builds_the_method_with_solver_builds() {
    same_zhang_skeel::<f32>();
    same_zhang_skeel::<f64>();
}

/// A refused step size or `β` gives `with_solver`'s error and empties the slot, even when it
/// held a method.
#[test]
fn zhang_skeel_new_in_refusals_match_with_solver_and_empty_the_slot() {
    let (mech, _) = planar_arm3::build::<f64>(9.81).unwrap();
    let sys: System<f64, _, { planar_arm3::N }> = mech.penalised(300.0).unwrap();
    let mut slot = None;
    ZhangSkeel::new_in(&mut slot, &sys, 1e-3, ZsParams::default(), Dense).unwrap();
    for (h, beta) in [
        (-1e-3, 0.25),
        (f64::NAN, 0.25),
        (1e-3, -0.5),
        (1e-3, f64::INFINITY),
    ] {
        let params = ZsParams::with_beta(beta);
        let want = ZhangSkeel::with_solver(sys, h, params, Dense).err();
        assert!(want.is_some());
        ZhangSkeel::new_in(&mut slot, &sys, 1e-3, ZsParams::default(), Dense).unwrap();
        assert_eq!(
            ZhangSkeel::new_in(&mut slot, &sys, h, params, Dense).err(),
            want
        );
        assert!(slot.is_none(), "h = {h}, beta = {beta}");
    }
}
