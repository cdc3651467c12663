//! The emitted text against files and lines written by hand (not produced by the tool).

const PLANAR3: &str = include_str!("../urdf/planar_arm3.urdf");
const ARM6: &str = include_str!("../urdf/arm6.urdf");

#[test]
fn planar_arm3_source_matches_the_hand_written_file() {
    let options = urdf2mech::Options {
        source: Some("planar_arm3.urdf".into()),
        ..Default::default()
    };
    let got = urdf2mech::emit_with(PLANAR3, &options).unwrap();
    let want = include_str!("golden/planar_arm3.rs");
    for (k, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", k + 1);
    }
    assert_eq!(got, want);
}

#[test]
fn arm6_source_has_the_hand_computed_bodies_and_joints() {
    let got = urdf2mech::emit(ARM6).unwrap();
    // Upper arm: COM 0.28 along world x from the shoulder-lift origin; inertia rotated by
    // Ry(π/2) (see tests/poses.rs): [[izz, 0, −ixz], [0, iyy, 0], [−ixz, 0, ixx]].
    let upper = "let b1 = b.body(Body { mass: l(8.393), com: [l(0.28), l(0.13585), l(0.089159)], \
        inertia: [[l(0.0151074), l(0.0), l(-0.0035)], [l(0.0), l(0.2268908), l(0.0)], [l(-0.0035), l(0.0), l(0.2268908)]] })?;";
    assert!(got.contains(upper), "{got}");
    let wrist2 = "let j4 = b.revolute(Link::Body(b3), Link::Body(b4), [l(0.81725), l(0.10915), l(0.089159)], \
        [l(0.0), l(0.0), l(-1.0)])?; // wrist_2_joint";
    assert!(got.contains(wrist2), "{got}");
    assert!(got.contains("pub const D: usize = BODIES * body_constraints(DIM) + 6 * JointKind::rows(JointKind::Revolute, DIM);"));
    assert!(got.contains("pub const BODY_LINKS: [&str; BODIES] = [\"shoulder_link\", \"upper_arm_link\", \"forearm_link\", \"wrist_1_link\", \"wrist_2_link\", \"wrist_3_link\"];"));
    assert!(got.contains("/// | 5 | wrist_3_link, ee_link | 0.1879 |"));
    assert!(got.contains("/// Ground: world, base_link."));
    assert!(got.contains("        [-6.28318530718, 6.28318530718, 150.0, 3.15],"));
}

#[test]
fn numbers_are_rounded_to_twelve_digits_and_signed_zero_is_plain() {
    assert_eq!(urdf2mech::num(0.4 + 0.15), "0.55");
    assert_eq!(urdf2mech::num(6.123233995736766e-17), "0.0");
    assert_eq!(urdf2mech::num(-0.0), "0.0");
    assert_eq!(urdf2mech::num(1e-5), "1e-5");
    assert_eq!(urdf2mech::num(f64::NEG_INFINITY), "f64::NEG_INFINITY");
    assert_eq!(urdf2mech::num(1.0 / 3.0), "0.333333333333");
}

#[test]
fn module_names_are_snake_case_identifiers() {
    assert_eq!(urdf2mech::module_name("PlanarArm"), "planar_arm");
    assert_eq!(urdf2mech::module_name("UR5e-arm v2"), "ur5e_arm_v2");
    assert_eq!(urdf2mech::module_name("6dof"), "robot_6dof");
    assert_eq!(urdf2mech::module_name("--"), "robot");
}
