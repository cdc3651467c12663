//! The mechanism builder: bit-identity with the built-in models, typed errors with
//! the builder untouched, the rail linkage's and the springs' derivatives, a spring–mass
//! frequency, and the closed-loop cart-pole.

use host_tests::contract::assert_refused as refused;
use host_tests::experiments::cart_pole::{compute, Results, Setup};
use host_tests::fixtures::builder_models as cpb;
use macrostep::mechanism::MechanismBuilder;
use macrostep::model::{Constraint, Hessian, Potential, ThirdDerivative};
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::ConfigError;
use std::sync::OnceLock;

/// `reproduce cart-pole` (its quick setup is the paper's, ≈ 0.1 s).
fn results() -> &'static Results {
    static R: OnceLock<Results> = OnceLock::new();
    R.get_or_init(|| compute(&Setup::quick()))
}

#[test]
fn builder_double_pendulum_and_chain_are_bit_identical_to_the_built_in_models() {
    let r = results().identity.expect("the four comparisons run");
    assert!(r.dp_zs, "double pendulum, Z&S");
    assert!(r.dp_rattle, "double pendulum, RATTLE");
    assert!(r.chain_zs, "chain, Z&S");
    assert!(r.chain_rattle, "chain, RATTLE");
}

type B = MechanismBuilder<f64, 2, 3, 1>;

/// A fresh cart-pole builder with the cart (node 0, on the x axis) and the tip (node 1) added.
fn two_nodes() -> B {
    let mut b = B::new().unwrap();
    b.rail_node(1.0, [0.0, 0.0], [1.0, 0.0], 0.0).unwrap();
    b.node(0.1, [0.0, 0.5]).unwrap();
    b
}

#[test]
fn bad_input_is_a_typed_error_and_leaves_the_builder_untouched() {
    let b = two_nodes();
    let oor = |name, bound| ConfigError::OutOfRange { name, bound };
    let inc = |name| ConfigError::Inconsistent { name };
    refused(&b, oor("rod length", "> 0"), |b| b.rod_length(0, 1, 0.0));
    refused(&b, inc("rod ends distinct"), |b| b.rod(1, 1));
    refused(&b, oor("node", "< nodes"), |b| b.rod(0, 2));
    refused(&b, oor("node", "< nodes"), |b| b.pin(7, [0.0, 0.0]));
    refused(&b, oor("node", "< nodes"), |b| {
        b.force_actuator(2, [1.0, 0.0])
    });
    refused(
        &b,
        oor("actuator axis", "a non-zero vector of finite length"),
        |b| b.force_actuator(0, [0.0, 0.0]),
    );
    refused(&b, oor("damping", ">= 0"), |b| b.dashpot(0, 1, -1.0));
    refused(&b, oor("g", ">= 0"), |b| b.gravity(-9.81));
    refused(&b, ConfigError::NonFinite { name: "rod length" }, |b| {
        b.rod_length(0, 1, f64::NAN)
    });
    // Coincident ends: a pin at the tip's own start position has measured length zero.
    refused(&b, inc("rod ends coincide"), |b| b.pin(1, [0.0, 0.5]));
    // The two nodes use all N = 3 coordinates: one more does not fit.
    refused(&b, inc("coordinates = N"), |b| b.node(1.0, [1.0, 1.0]));
    // Counts: no rod yet (D = 1).
    refused(&b, inc("rods = D"), |b| b.build());

    let mut e = B::new().unwrap();
    refused(&e, oor("mass", "> 0"), |b| b.node(0.0, [0.0, 0.5]));
    refused(&e, oor("mass", "> 0"), |b| b.node(-1.0, [0.0, 0.5]));
    refused(
        &e,
        oor("rail direction", "a non-zero vector of finite length"),
        |b| b.rail_node(1.0, [0.0; 2], [0.0; 2], 0.0),
    );
    e.node(1.0, [0.0, 1.0]).unwrap();
    refused(&e, inc("coordinates = N"), |b| b.build());

    // Unsupported topology: the exact `Distances` form has no rails; a torque in 3-D.
    let mut full = two_nodes();
    full.rod(1, 0).unwrap();
    let mech = full.build().unwrap();
    assert_eq!(mech.distances().err(), Some(inc("topology")));
    let mut b3 = MechanismBuilder::<f64, 3, 9, 2>::new().unwrap();
    for i in 0..3 {
        b3.node(1.0, [i as f64, 0.0, 0.0]).unwrap();
    }
    let before = format!("{b3:?}");
    assert_eq!(b3.torque_actuator(1, 0, 2), Err(inc("topology")));
    assert_eq!(format!("{b3:?}"), before);
    assert_eq!(
        MechanismBuilder::<f64, 4, 4, 1>::new().err(),
        Some(inc("topology"))
    );
    // A command vector of the wrong length or non-finite: refused, `u` untouched.
    let mut u = SVector::<f64, 3>::repeat(7.0);
    let q = mech.initial_state().q;
    assert_eq!(
        mech.actuation(&[1.0], &q, &mut u),
        Err(inc("commands = actuators"))
    );
    assert_eq!(u, SVector::<f64, 3>::repeat(7.0));
}

/// The cart-pole mechanism at a generic configuration, for derivative checks.
fn cart_pole() -> macrostep::mechanism::Mechanism<f64, 2, 3, 1> {
    let mut b = B::new().unwrap();
    // A slanted rail, so the rail direction enters every derivative.
    b.rail_node(1.0, [0.1, -0.2], [3.0, 1.0], 0.3).unwrap();
    b.node(0.1, [0.4, 0.5]).unwrap();
    b.rod(1, 0).unwrap();
    b.gravity(9.81).unwrap();
    b.build().unwrap()
}

#[test]
fn rail_linkage_derivatives_match_central_differences() {
    let pen = cart_pole().penalised(30.0).unwrap().potential;
    let q = SVector::<f64, 3>::new(0.2, 0.45, 0.6);
    let a = SVector::<f64, 3>::new(0.3, -0.2, 0.5);
    let h = 1e-5;
    let e = |i: usize| SVector::<f64, 3>::from_fn(|r, _| if r == i { h } else { 0.0 });
    let grad = pen.gradient(&q);
    let hess = pen.hessian(&q);
    let mut added = SMatrix::<f64, 3, 3>::zeros();
    pen.add_hessian(&q, 1.0, &mut added);
    for i in 0..3 {
        let fd = (pen.energy(&(q + e(i))) - pen.energy(&(q - e(i)))) / (2.0 * h);
        // Central differences: error O(h²·V''') ≈ 1e-10·1e3, plus roundoff ε·V/h ≈ 1e-10.
        assert!(
            (fd - grad[i]).abs() < 1e-6 * (1.0 + grad[i].abs()),
            "gradient {i}"
        );
        let fdh = (pen.gradient(&(q + e(i))) - pen.gradient(&(q - e(i)))) / (2.0 * h);
        assert!(
            (fdh - hess.column(i)).amax() < 1e-6 * (1.0 + hess.amax()),
            "hessian {i}"
        );
    }
    assert!((added - hess).amax() < 1e-12 * hess.amax(), "add_hessian");
    // a·V'''·a = d²/dε² ∇V(q + εa) at 0.
    let t = pen.third_contraction(&q, &a);
    let fd3 = (pen.gradient(&(q + a * h)) - pen.gradient(&q) * 2.0 + pen.gradient(&(q - a * h)))
        / (h * h);
    assert!(
        (fd3 - t).amax() < 1e-4 * (1.0 + t.amax()),
        "third contraction"
    );
}

#[test]
fn linkage_without_rails_agrees_with_distances() {
    let m = cpb::double_pendulum().unwrap();
    let (l, d) = (m.constraint(), m.distances().unwrap());
    let q = SVector::<f64, 4>::new(0.3, -0.9, 1.2, -1.7);
    let a = SVector::<f64, 4>::new(0.1, 0.2, -0.3, 0.4);
    let w = SVector::<f64, 2>::new(3.0, 5.0);
    let tol = 1e-13; // both are the same few products summed in a different order
    assert!((l.value(&q) - d.value(&q)).amax() < tol);
    assert!((l.jacobian(&q) - d.jacobian(&q)).amax() < tol);
    assert!((l.weighted_hessian(&q, &w) - d.weighted_hessian(&q, &w)).amax() < tol);
    assert!((l.hessian_times(&q, &a) - d.hessian_times(&q, &a)).amax() < tol);
    assert!((l.penalty_gradient(&q, &w) - d.penalty_gradient(&q, &w)).amax() < tol);
    assert!(
        (l.penalty_third_contraction(&q, &w, &a) - d.penalty_third_contraction(&q, &w, &a)).amax()
            < tol
    );
    let (mut hl, mut hd) = (SMatrix::<f64, 4, 4>::zeros(), SMatrix::<f64, 4, 4>::zeros());
    l.add_penalty_hessian(&q, &w, 2.0, &mut hl);
    d.add_penalty_hessian(&q, &w, 2.0, &mut hd);
    assert!((hl - hd).amax() < tol);
    assert_eq!(l.residual(&q), d.residual(&q));
}

#[test]
fn dashpots_and_actuators_map_to_generalised_coordinates() {
    let mut b = B::new().unwrap();
    b.rail_node(2.0, [0.0, 0.0], [0.0, 2.0], 0.0).unwrap(); // a vertical rail
    b.node(1.0, [1.0, 0.0]).unwrap();
    b.rod(1, 0).unwrap();
    b.dashpot(0, 1, 3.0).unwrap();
    b.dashpot_to_ground(1, 0.5).unwrap();
    b.force_actuator(0, [0.0, -4.0]).unwrap(); // along −y: −1 along the rail
    b.force_actuator(1, [3.0, 4.0]).unwrap();
    let m = b.build().unwrap();
    // B = (e_y ∂s − I ∂(x, y)): C = 3 [[1, 0, −1], [0, 1, 0], [−1, 0, 1]] + 0.5 diag(0, 1, 1).
    let c = SMatrix::<f64, 3, 3>::new(3.0, 0.0, -3.0, 0.0, 3.5, 0.0, -3.0, 0.0, 3.5);
    assert_eq!(m.damping(), c);
    let mut u = SVector::zeros();
    m.actuation(&[2.0, 5.0], &m.initial_state().q, &mut u)
        .unwrap();
    assert_eq!(u, SVector::<f64, 3>::new(-2.0, 3.0, 4.0));
    // Gravity: none set; mass: the rail node's m on its one coordinate.
    assert_eq!(
        m.mass().matrix().diagonal(),
        SVector::<f64, 3>::new(2.0, 1.0, 1.0)
    );
}

#[test]
fn cart_pole_lqr_settles_from_a_0_2_rad_tilt() {
    let r = results();
    for (name, run) in [("Z&S", &r.zs), ("RATTLE", &r.rattle)] {
        assert_eq!(run.error, None, "{name}: no step error");
        // Settled (|θ| ≤ 4 mrad, |s| ≤ 2 cm for good) well inside the 10 s run.
        assert!(
            run.settle_time < 5.0,
            "{name}: settle time {}",
            run.settle_time
        );
        // The LQR loop converges exponentially: at 10 s the pole is upright to 1e-4 rad.
        assert!(
            run.final_error.0 < 1e-4,
            "{name}: final angle {:?}",
            run.final_error
        );
        // A 0.2 rad tilt needs ≈ K_θ·0.2 ≈ 14 N; a force far above would be a wrong gain sign.
        assert!(run.max_force < 20.0, "{name}: max force {}", run.max_force);
    }
    // The penalty rod stretches by about the tip's load over the rod stiffness ω²(2L)² = ω²:
    // m_p (g + centripetal) / ω² ≈ 4e-6 m; 2e-5 allows the load transients.
    assert!(
        r.zs.max_constraint_err < 2e-5,
        "{}",
        r.zs.max_constraint_err
    );
    // Energy balance E − E₀ − W of a forced variational step: O(h²) per unit time, measured
    // 2e-6 J; 1e-4 J is a hundredth of the pole's initial potential-energy deficit (≈ 0.01 J).
    assert!(r.zs.max_balance < 1e-4, "{}", r.zs.max_balance);
    assert!(r.bit_identical);
}

#[test]
fn stored_lqr_gains_are_the_riccati_solution() {
    let k = results().gains;
    // The example stores the gains as literals: each must be the solver's value, printed.
    let example = include_str!("../../examples/cart_pole.rs");
    for g in k {
        assert!(
            example.contains(&format!("{g:?}")),
            "examples/cart_pole.rs lacks {g:?}"
        );
    }
}

#[test]
fn firmware_lqr_gains_are_the_riccati_solution() {
    let k = results().gains;
    // Same solver, same machine arithmetic: the stored literals are its printed values.
    assert_eq!(macrostep_scenarios::CART_POLE_GAINS, k);
    assert_eq!(macrostep_scenarios::CART_POLE_H, results().h);
}

/// A cart-pole with three springs: rail cart ↔ tip (`L₀ = 0.3`), tip → ground (`L₀ = 0`, a
/// zero-length spring) and cart → ground (`L₀ = 0.7`), on a slanted rail.
type Sb = MechanismBuilder<f64, 2, 3, 1, 3>;
fn sprung() -> macrostep::mechanism::Mechanism<f64, 2, 3, 1, 3> {
    let mut b = Sb::new().unwrap();
    b.rail_node(1.0, [0.1, -0.2], [3.0, 1.0], 0.3).unwrap();
    b.node(0.1, [0.4, 0.5]).unwrap();
    b.rod(1, 0).unwrap();
    b.gravity(9.81).unwrap();
    b.spring(0, 1, 40.0, 0.3).unwrap();
    b.spring_to_ground(1, [1.0, 2.0], 7.0, 0.0).unwrap();
    b.spring_to_ground(0, [-0.5, 0.3], 25.0, 0.7).unwrap();
    b.build().unwrap()
}

/// Gradient, Hessian (and `add_hessian`) and `a·V‴·a` of `p` against central differences.
fn check_fd<P: ThirdDerivative<f64, 3>>(p: &P, q: &SVector<f64, 3>, a: &SVector<f64, 3>) {
    let h = 1e-5;
    let e = |i: usize| SVector::<f64, 3>::from_fn(|r, _| if r == i { h } else { 0.0 });
    let (grad, hess) = (p.gradient(q), p.hessian(q));
    let mut added = SMatrix::<f64, 3, 3>::zeros();
    p.add_hessian(q, 1.0, &mut added);
    // Central differences: truncation O(h²·V‴) ≈ 1e-10·1e3, roundoff ε·V/h ≈ 1e-10.
    let tol = 1e-6;
    for i in 0..3 {
        let fd = (p.energy(&(q + e(i))) - p.energy(&(q - e(i)))) / (2.0 * h);
        assert!(
            (fd - grad[i]).abs() < tol * (1.0 + grad[i].abs()),
            "gradient {i}"
        );
        let fdh = (p.gradient(&(q + e(i))) - p.gradient(&(q - e(i)))) / (2.0 * h);
        assert!(
            (fdh - hess.column(i)).amax() < tol * (1.0 + hess.amax()),
            "hessian {i}"
        );
    }
    assert!((hess - hess.transpose()).amax() < 1e-12 * hess.amax());
    assert!((added - hess).amax() < 1e-12 * hess.amax(), "add_hessian");
    // a·V‴·a = d/dε Hess V(q + εa)·a at 0.
    let t = p.third_contraction(q, a);
    let fd3 = (p.hessian(&(q + a * h)) * a - p.hessian(&(q - a * h)) * a) / (2.0 * h);
    assert!(
        (fd3 - t).amax() < tol * (1.0 + t.amax()),
        "third contraction"
    );
}

#[test]
fn spring_derivatives_match_central_differences() {
    let m = sprung();
    let q = SVector::<f64, 3>::new(0.2, 0.45, 0.6);
    let a = SVector::<f64, 3>::new(0.3, -0.2, 0.5);
    // The energy from the positions, written out here: ½ k (|p_a − p_b| − L₀)².
    let (cart, tip) = (m.position(0, &q).unwrap(), m.position(1, &q).unwrap());
    let v = |k: f64, d: SVector<f64, 2>, l0: f64| 0.5 * k * (d.norm() - l0).powi(2);
    let by_hand = v(40.0, cart - tip, 0.3)
        + v(7.0, tip - SVector::<f64, 2>::new(1.0, 2.0), 0.0)
        + v(25.0, cart - SVector::<f64, 2>::new(-0.5, 0.3), 0.7);
    let springs = m.springs();
    assert!((springs.energy(&q) - by_hand).abs() < 1e-13 * by_hand);
    let gravity = m.gravity().energy(&q);
    assert!((m.loads().energy(&q) - by_hand - gravity).abs() < 1e-13 * by_hand);
    check_fd(&springs, &q, &a);
    check_fd(&m.loads(), &q, &a);
    check_fd(&m.penalised_with_springs(30.0).unwrap().potential, &q, &a);
    // Another configuration: the cart–tip spring compressed (the factor 1 − L₀/r changes sign).
    let q2 = SVector::<f64, 3>::new(-0.4, 0.0, -0.3);
    let (c2, t2) = (m.position(0, &q2).unwrap(), m.position(1, &q2).unwrap());
    assert!((c2 - t2).norm() < 0.3, "compressed");
    check_fd(&springs, &q2, &a);
}

#[test]
fn spring_mass_oscillates_at_sqrt_k_over_m() {
    use macrostep::zs::{ZhangSkeel, ZsParams};
    use macrostep::Integrator;
    // A 2 kg bob on a spring k = 50 N/m, L₀ = 1 m from a pin, under gravity, released 0.1 m
    // below its equilibrium y* = −(L₀ + m g / k): y(t) = y* − 0.1 cos(ω t), ω = √(k/m) = 5.
    let (mass, k, g, l0, amp) = (2.0, 50.0, 9.81, 1.0, 0.1);
    let y_eq = -(l0 + mass * g / k);
    let mut b = MechanismBuilder::<f64, 2, 2, 0, 1>::new().unwrap();
    let bob = b.node(mass, [0.0, y_eq - amp]).unwrap();
    b.spring_to_ground(bob, [0.0, 0.0], k, l0).unwrap();
    b.gravity(g).unwrap();
    let mech = b.build().unwrap();
    let h = 1e-3;
    let mut zs = ZhangSkeel::new(mech.system_with_springs(), h, ZsParams::default()).unwrap();
    let mut s = mech.initial_state();
    let omega = (k / mass).sqrt();
    let steps = 600; // t = 0.6 s, about half a period (T = 1.257 s)
    zs.integrate(&mut s, steps).unwrap();
    let t = h * steps as f64;
    let y = y_eq - amp * (omega * t).cos();
    // Second order: phase error ≈ (ωh)² ω t / 24 ≈ 3e-6 rad, times the amplitude 0.1.
    assert!((s.q[1] - y).abs() < 1e-6, "y {} vs {y}", s.q[1]);
    assert_eq!(s.q[0], 0.0, "no sideways force");
}

#[test]
fn spring_bad_input_is_a_typed_error_and_leaves_the_builder_untouched() {
    let mut b = Sb::new().unwrap();
    b.rail_node(1.0, [0.0, 0.0], [1.0, 0.0], 0.0).unwrap();
    b.node(0.1, [0.0, 0.5]).unwrap();
    let oor = |name, bound| ConfigError::OutOfRange { name, bound };
    let inc = |name| ConfigError::Inconsistent { name };
    refused(&b, oor("stiffness", ">= 0"), |b| b.spring(0, 1, -1.0, 0.5));
    refused(&b, oor("rest length", ">= 0"), |b| {
        b.spring(0, 1, 1.0, -0.5)
    });
    refused(&b, ConfigError::NonFinite { name: "stiffness" }, |b| {
        b.spring(0, 1, f64::NAN, 0.5)
    });
    refused(
        &b,
        ConfigError::NonFinite {
            name: "rest length",
        },
        |b| b.spring(0, 1, 1.0, f64::INFINITY),
    );
    refused(&b, oor("node", "< nodes"), |b| b.spring(0, 2, 1.0, 0.5));
    refused(&b, oor("node", "< nodes"), |b| {
        b.spring_to_ground(5, [0.0, 0.0], 1.0, 0.5)
    });
    refused(&b, inc("spring ends distinct"), |b| {
        b.spring(1, 1, 1.0, 0.5)
    });
    refused(&b, ConfigError::NonFinite { name: "anchor" }, |b| {
        b.spring_to_ground(1, [f64::NAN, 0.0], 1.0, 0.5)
    });
    // L₀ > 0 with both ends at one point (the tip's start) is singular; L₀ = 0 is not.
    refused(&b, inc("spring ends coincide"), |b| {
        b.spring_to_ground(1, [0.0, 0.5], 1.0, 0.5)
    });
    let mut c = b;
    c.spring_to_ground(1, [0.0, 0.5], 1.0, 0.0).unwrap();
    // Counts: S = 3 springs; fewer is refused at build, a fourth when added.
    c.rod(1, 0).unwrap();
    refused(&c, inc("springs = S"), |b| b.build());
    c.spring(0, 1, 1.0, 0.5).unwrap();
    c.spring(0, 1, 2.0, 0.5).unwrap();
    refused(&c, inc("springs = S"), |b| b.spring(0, 1, 3.0, 0.5));
    assert!(c.build().is_ok());
}

/// The firmware's cart-pole mechanism (`Mechanism<f32, 2, 3, 1>`) and its builder stay small.
///
/// Why the bounds: the device builds this mechanism under a 2 KiB stack budget
/// (`firmware/expected/{control,rattle}_cart_pole.size`), where the construction holds the
/// builder and the mechanism it returns, and the loop the built mechanism beside the
/// integrator. A point-mass mechanism stores its `N` places, the mass, gravity, its `D` rods
/// (as rods and as linkage rows), the `N × N` damping, `N` actuators, the start and the node
/// masses: 560 B here (64-bit `usize`; the builder 344 B), less on the 32-bit device. The
/// bounds leave 16 B for layout and fail at any record sized by `N` or `D` that a point mass
/// does not use (a body record alone holds eight floats, 32 B). Body and joint storage sized by
/// `N` would make the mechanism 920 B, the builder 880 B and the scenarios' stack 4.3–4.6 KB.
#[test]
fn cart_pole_mechanism_stores_no_body_or_joint_records() {
    use core::mem::size_of;
    use macrostep::mechanism::Mechanism;
    type M = Mechanism<f32, 2, 3, 1>;
    type Mb = MechanismBuilder<f32, 2, 3, 1>;
    let (m, mb) = (size_of::<M>(), size_of::<Mb>());
    eprintln!("Mechanism<f32, 2, 3, 1>: {m} B, its builder {mb} B");
    eprintln!(
        "of which: a linkage row {} B (a rod {} B), the mass {} B",
        size_of::<macrostep::mechanism::Row<f32, 2>>(),
        size_of::<macrostep::mechanism::Rod<f32, 2>>(),
        size_of::<macrostep::model::Mass<f32, 3>>()
    );
    assert!(m <= 560 + 16, "Mechanism<f32, 2, 3, 1> is {m} B");
    assert!(mb <= 344 + 16, "MechanismBuilder<f32, 2, 3, 1> is {mb} B");
    // Body and joint capacity is what a mechanism pays for: one of each adds their records
    // (more than the bounds' slack).
    let one_each = size_of::<Mechanism<f32, 2, 3, 1, 0, 1, 1>>();
    assert!(one_each > m + 16, "one body and one joint: {one_each} B");
}
