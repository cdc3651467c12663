//! Bad bodies, joints, capacities and dampers: typed errors that leave the builder untouched.

use super::*;
use host_tests::contract::assert_refused as refused;

#[test]
fn bad_bodies_and_joints_are_typed_errors_and_leave_the_builder_untouched() {
    // Room for a third body, so that the third is refused by its coordinates.
    type B = MechanismBuilder<f64, 3, 24, 17, 0, 3, 2>;
    let mut b = B::new().unwrap();
    let l1 = b.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    let l2 = b.body(body3(1.0, [0.5, 0.0, 1.0])).unwrap();
    let (p, a) = ([0.25, 0.0, 1.0], [0.0, 0.0, 1.0]);
    let inc = |name| ConfigError::Inconsistent { name };
    let body = |inertia| Body {
        mass: 1.0,
        com: [0.0; 3],
        inertia,
    };
    // Bodies: no room left, a non-positive-definite tensor, a flat plate (J₃ = J₁ + J₂), an
    // asymmetric tensor, a non-positive mass.
    refused(&b, inc("coordinates = N"), |b| b.body(body3(1.0, [0.0; 3])));
    let mut small = MechanismBuilder::<f64, 3, 36, 17, 0, 3, 0>::new().unwrap();
    small.body(body3(1.0, [0.0; 3])).unwrap();
    small.body(body3(1.0, [1.0, 0.0, 0.0])).unwrap();
    refused(&small, inc("rods = D"), |b| {
        b.body(body3(1.0, [2.0, 0.0, 0.0]))
    });
    let npd = ConfigError::NotPositiveDefinite { name: "inertia" };
    refused(&small, npd, |b| {
        b.body(body([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]))
    });
    let plate = ConfigError::NotPositiveDefinite {
        name: "second moment",
    };
    refused(&small, plate, |b| {
        b.body(body([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]))
    });
    let asym = ConfigError::NotSymmetric { name: "inertia" };
    refused(&small, asym, |b| {
        b.body(body([[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    });
    let mass = ConfigError::OutOfRange {
        name: "mass",
        bound: "> 0",
    };
    refused(&small, mass, |b| {
        b.body(Body {
            mass: 0.0,
            ..body3(1.0, [0.0; 3])
        })
    });
    // Joints: a zero axis, a missing body, a body joined to itself, the ground as a child, a
    // non-finite anchor.
    let zero_axis = ConfigError::OutOfRange {
        name: "joint axis",
        bound: "a non-zero vector of finite length",
    };
    refused(&b, zero_axis, |b| {
        b.revolute(Link::Ground, Link::Body(l1), p, [0.0; 3])
    });
    let missing = ConfigError::OutOfRange {
        name: "body",
        bound: "< bodies",
    };
    refused(&b, missing, |b| {
        b.revolute(Link::Body(7), Link::Body(l1), p, a)
    });
    refused(&b, missing, |b| b.spherical(Link::Ground, Link::Body(2), p));
    refused(&b, inc("joint links distinct"), |b| {
        b.fixed(Link::Body(l1), Link::Body(l1), p)
    });
    refused(&b, inc("joint child is a body"), |b| {
        b.fixed(Link::Body(l1), Link::Ground, p)
    });
    let nan = ConfigError::NonFinite { name: "anchor" };
    refused(&b, nan, |b| {
        b.spherical(Link::Ground, Link::Body(l1), [f64::NAN, 0.0, 0.0])
    });
    // Closed loops: a second parent for a body, and a joint making a body its own ancestor.
    let tree = b;
    let j1 = b
        .revolute(Link::Ground, Link::Body(l1), [0.0, 0.0, 1.2], a)
        .unwrap();
    let lp = inc("joint tree (no closed loops)");
    refused(&b, lp, |b| b.revolute(Link::Ground, Link::Body(l1), p, a));
    let mut chain = tree;
    chain
        .revolute(Link::Body(l1), Link::Body(l2), p, a)
        .unwrap();
    refused(&chain, lp, |b| {
        b.spherical(Link::Body(l2), Link::Body(l1), p)
    });
    // Rows beyond D, motors and dampers on a weld, an unknown joint.
    refused(&b, inc("rods = D"), |b| {
        b.fixed(Link::Body(l1), Link::Body(l2), p)
    });
    let mut welded = MechanismBuilder::<f64, 3, 24, 18, 0, 2, 1>::new().unwrap();
    let w1 = welded.body(body3(1.0, [0.0; 3])).unwrap();
    let w2 = welded.body(body3(1.0, [0.5, 0.0, 0.0])).unwrap();
    let weld = welded.fixed(Link::Body(w1), Link::Body(w2), p).unwrap();
    let motor = inc("joint motor on a revolute or prismatic joint");
    refused(&welded, motor, |b| b.joint_motor(weld));
    refused(&welded, inc("joint damping on a fixed joint"), |b| {
        b.joint_damping(weld, 1.0)
    });
    let unknown = ConfigError::OutOfRange {
        name: "joint",
        bound: "< joints",
    };
    refused(&b, unknown, |b| b.joint_motor(j1 + 1));
    // Sizes: fewer rows than D.
    assert_eq!(tree.build().err(), Some(inc("rods = D")));
    assert_eq!(JointKind::Fixed.rows(3), 6);
    assert_eq!(JointKind::Revolute.rows(2), 2);
}

/// Body and joint storage is a capacity (`B`, `J`): a point-mass builder (both 0 by default)
/// refuses a body, and one body or joint beyond the capacity is a typed error that leaves the
/// builder unchanged, even when the coordinates and rows would fit.
#[test]
fn bodies_and_joints_beyond_their_capacity_are_typed_errors() {
    let inc = |name| ConfigError::Inconsistent { name };
    let points = MechanismBuilder::<f64, 3, 24, 12>::new().unwrap();
    refused(&points, inc("bodies <= B"), |b| {
        b.body(body3(1.0, [0.0; 3]))
    });
    let (p, a) = ([0.25, 0.0, 1.0], [0.0, 0.0, 1.0]);
    // Room for the coordinates and rows of two bodies and a joint, but for one body only.
    let mut one = MechanismBuilder::<f64, 3, 24, 17, 0, 1, 1>::new().unwrap();
    one.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    refused(&one, inc("bodies <= B"), |b| {
        b.body(body3(1.0, [0.5, 0.0, 1.0]))
    });
    // Two bodies, room for one joint: the second joint is refused.
    let mut two = MechanismBuilder::<f64, 3, 24, 22, 0, 2, 1>::new().unwrap();
    let b1 = two.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    let b2 = two.body(body3(1.0, [0.5, 0.0, 1.0])).unwrap();
    two.revolute(Link::Ground, Link::Body(b1), [0.0, 0.0, 1.2], a)
        .unwrap();
    refused(&two, inc("joints <= J"), |b| {
        b.revolute(Link::Body(b1), Link::Body(b2), p, a)
    });
    // No joint storage at all: room for the rows, none for a joint record.
    let mut none = MechanismBuilder::<f64, 3, 12, 9, 0, 1, 0>::new().unwrap();
    let l0 = none.body(body3(1.0, [0.0, 0.0, 1.0])).unwrap();
    refused(&none, inc("joints <= J"), |b| {
        b.spherical(Link::Ground, Link::Body(l0), p)
    });
    // A capacity is an upper bound: fewer bodies and joints than `B`, `J` build.
    let mut roomy = MechanismBuilder::<f64, 3, 12, 11, 0, 4, 3>::new().unwrap();
    let l = roomy.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let j = roomy.revolute(Link::Ground, Link::Body(l), p, a).unwrap();
    let m = roomy.build().unwrap();
    assert_eq!((m.bodies(), m.joints()), (1, 1));
    assert!(m.joint_angle(j, &m.initial_state().q).is_some());
}

/// Joint dampers on one body, each twice as strong as the last, until their sum overflows:
/// every accepted call leaves a finite damping matrix, and the one that overflows is refused
/// as `Overflow "damping"` with the builder unchanged (the dashpots are checked before any is
/// written).
fn joint_damping_until_it_overflows<const D: usize>(
    join: impl Fn(&mut MechanismBuilder<f64, 3, 12, D, 0, 1, 1>, usize) -> usize,
) {
    let mut b = MechanismBuilder::<f64, 3, 12, D, 0, 1, 1>::new().unwrap();
    let l = b.body(body3(1.2, [0.4, 1.0, -0.3])).unwrap();
    let j = join(&mut b, l);
    let mut c = 1e300;
    for accepted in 0.. {
        let before = format!("{b:?}");
        match b.joint_damping(j, c) {
            Ok(()) => {
                let m = b.build().unwrap().damping();
                assert!(m.iter().all(|x| x.is_finite()), "accepted {m}");
                assert!(accepted < 64, "never refused");
                c *= 2.0;
            }
            Err(e) => {
                assert_eq!(e, ConfigError::Overflow { name: "damping" });
                assert_eq!(
                    format!("{b:?}"),
                    before,
                    "builder changed by a refused damper"
                );
                assert!(accepted > 0, "the first damper (c = 1e300) fits");
                return;
            }
        }
    }
}

#[test]
fn a_joint_damper_that_overflows_is_refused_and_leaves_the_builder_untouched() {
    let (p, a) = ([0.1, 1.0, -0.3], [0.0, 0.3, 1.0]);
    const HINGE: usize = body_constraints(3) + JointKind::Revolute.rows(3);
    joint_damping_until_it_overflows::<HINGE>(|b, l| {
        b.revolute(Link::Ground, Link::Body(l), p, a).unwrap()
    });
    const SLIDER: usize = body_constraints(3) + JointKind::Prismatic.rows(3);
    joint_damping_until_it_overflows::<SLIDER>(|b, l| {
        b.prismatic(Link::Ground, Link::Body(l), p, a).unwrap()
    });
    const BALL: usize = body_constraints(3) + JointKind::Spherical.rows(3);
    joint_damping_until_it_overflows::<BALL>(|b, l| {
        b.spherical(Link::Ground, Link::Body(l), p).unwrap()
    });
}
