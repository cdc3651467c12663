//! Which models are emitted planar (`DIM = 2`), and their plane's coordinates.

use urdf2mech::model;
use urdf2mech::planar::classify;

const ARM6: &str = include_str!("../urdf/arm6.urdf");
const PLANAR3: &str = include_str!("../urdf/planar_arm3.urdf");

/// A two-link arm: joint axes `a1`, `a2` (the second joint of `kind2`), the second joint at
/// `o2` in the first link's frame, the second link's COM at `c2`.
fn arm(a1: &str, a2: &str, kind2: &str, o2: &str, c2: &str) -> String {
    format!(
        r#"<robot name="two"><link name="base"/>
        <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/>
          <origin xyz="0 0 1"/><axis xyz="{a1}"/></joint>
        <link name="l1"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
          <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.08" iyz="0" izz="0.08"/></inertial></link>
        <joint name="j2" type="{kind2}"><parent link="l1"/><child link="l2"/>
          <origin xyz="{o2}"/><axis xyz="{a2}"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
        <link name="l2"><inertial><origin xyz="{c2}"/><mass value="1"/>
          <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.08" iyz="0" izz="0.08"/></inertial></link>
        </robot>"#
    )
}

#[test]
fn vertical_arm_is_planar_with_gravity_in_the_plane() {
    let p = classify(&model::read(PLANAR3).unwrap()).unwrap();
    // Hinges about world y: planar x = world x, planar y = world z (up), normal x × z = −y.
    assert_eq!(
        (p.e1, p.e2, p.normal),
        ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0])
    );
    assert_eq!(p.gravity, 1.0);
    assert_eq!(p.axis_sign([0.0, 1.0, 0.0]), -1.0);
    assert_eq!(p.project([0.7, 0.0, 0.5]), [0.7, 0.5]);
    let src = urdf2mech::emit(PLANAR3).unwrap();
    assert!(src.contains("pub const DIM: usize = 2;"));
    assert!(src.contains("pub const AXIS_SIGN: [f64; JOINTS] = [-1.0, -1.0, -1.0];"));
}

#[test]
fn horizontal_arm_is_planar_without_gravity() {
    let p = classify(&model::read(&arm("0 0 1", "0 0 1", "revolute", "1 0 0", "0.5 0 0")).unwrap())
        .unwrap();
    assert_eq!(
        (p.e1, p.e2, p.normal),
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])
    );
    assert_eq!(p.gravity, 0.0);
    let src = urdf2mech::emit(&arm("0 0 1", "0 0 -1", "revolute", "1 0 0", "0.5 0 0")).unwrap();
    assert!(src.contains("pub const GRAVITY_IN_PLANE: f64 = 0.0;"));
    assert!(src.contains("pub const AXIS_SIGN: [f64; JOINTS] = [1.0, -1.0];"));
}

#[test]
fn tilted_plane_keeps_the_in_plane_part_of_gravity() {
    // Hinges about (0, cos 0.3, sin 0.3): the plane is tilted 0.3 rad from vertical, so world
    // z projects onto it with length |P z| = cos 0.3.
    let (s, c) = 0.3f64.sin_cos();
    let axis = format!("0 {c} {s}");
    let u = arm(&axis, &axis, "revolute", "1 0 0", "0.5 0 0");
    let p = classify(&model::read(&u).unwrap()).unwrap();
    assert!((p.gravity - c).abs() < 1e-12, "{}", p.gravity);
}

#[test]
fn slider_in_the_plane_is_planar_and_out_of_it_is_spatial() {
    let inside = arm("0 1 0", "1 0 0", "prismatic", "1 0 0", "0.5 0 0");
    assert!(classify(&model::read(&inside).unwrap()).is_ok());
    let outside = arm("0 1 0", "0 1 0", "prismatic", "1 0 0", "0.5 0 0");
    let why = classify(&model::read(&outside).unwrap()).unwrap_err();
    assert!(why.contains("'j2'"), "{why}");
    assert!(urdf2mech::emit(&outside)
        .unwrap()
        .contains("pub const DIM: usize = 3;"));
}

#[test]
fn out_of_plane_points_or_axes_make_a_model_spatial() {
    let com = arm("0 1 0", "0 1 0", "revolute", "1 0 0", "0.5 0.01 0");
    assert!(classify(&model::read(&com).unwrap())
        .unwrap_err()
        .contains("centre of mass of body 'l2'"));
    let anchor = arm("0 1 0", "0 1 0", "revolute", "1 0.01 0", "0.5 -0.01 0");
    assert!(classify(&model::read(&anchor).unwrap())
        .unwrap_err()
        .contains("anchor of joint 'j2'"));
    let axis = arm("0 1 0", "0 0 1", "revolute", "1 0 0", "0.5 0 0");
    assert!(classify(&model::read(&axis).unwrap())
        .unwrap_err()
        .contains("'j2'"));
    let why = classify(&model::read(ARM6).unwrap()).unwrap_err();
    assert!(why.contains("shoulder_lift_joint"), "{why}");
    assert!(urdf2mech::emit(ARM6)
        .unwrap()
        .contains("pub const DIM: usize = 3;"));
}
