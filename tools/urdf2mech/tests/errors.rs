//! Each refusal is its own typed error naming the joint or link at fault.

use urdf2mech::{emit, Error};

const FLOATING: &str = include_str!("../urdf/floating_base.urdf");
const MIMIC: &str = include_str!("../urdf/mimic.urdf");

/// A link `name` with mass 1 and inertia `diag(ixx, iyy, izz)` (plus `ixy`).
fn link(name: &str, i: [f64; 4]) -> String {
    format!(
        r#"<link name="{name}"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
        <inertia ixx="{}" ixy="{}" ixz="0" iyy="{}" iyz="0" izz="{}"/></inertial></link>"#,
        i[0], i[3], i[1], i[2]
    )
}

/// A joint `name` of `kind` from `parent` to `child` about y.
fn joint(name: &str, kind: &str, parent: &str, child: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>
        <origin xyz="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"#
    )
}

const GOOD: [f64; 4] = [0.001, 0.004, 0.004, 0.0];

fn robot(parts: &[String]) -> String {
    format!(
        "<robot name=\"r\"><link name=\"base\"/>{}</robot>",
        parts.concat()
    )
}

#[test]
fn floating_base_file_is_refused_naming_the_joint() {
    let e = emit(FLOATING).unwrap_err();
    assert_eq!(
        e,
        Error::FloatingBase {
            joint: "base_free".into(),
            kind: "floating"
        }
    );
    assert!(e.to_string().contains("'base_free'"));
}

#[test]
fn mimic_file_is_refused_naming_both_joints() {
    let e = emit(MIMIC).unwrap_err();
    assert_eq!(
        e,
        Error::Mimic {
            joint: "right_finger_joint".into(),
            mimics: "left_finger_joint".into()
        }
    );
    assert!(e
        .to_string()
        .contains("'right_finger_joint' mimics joint 'left_finger_joint'"));
}

#[test]
fn planar_joint_is_a_floating_base() {
    let u = robot(&[link("a", GOOD), joint("slide_xy", "planar", "base", "a")]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::FloatingBase {
            joint: "slide_xy".into(),
            kind: "planar"
        }
    );
}

#[test]
fn unknown_joint_type_is_named() {
    let u = robot(&[link("a", GOOD), joint("j", "ball", "base", "a")]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::UnknownJointType {
            joint: "j".into(),
            kind: "ball".into()
        }
    );
}

#[test]
fn a_link_with_two_parents_is_a_loop() {
    let u = robot(&[
        link("a", GOOD),
        link("b", GOOD),
        joint("ja", "revolute", "base", "a"),
        joint("jb", "revolute", "a", "b"),
        joint("close", "revolute", "base", "b"),
    ]);
    let e = emit(&u).unwrap_err();
    assert_eq!(
        e,
        Error::MultipleParents {
            link: "b".into(),
            first: "jb".into(),
            second: "close".into()
        }
    );
}

#[test]
fn a_loop_detached_from_the_root_is_named() {
    let u = robot(&[
        link("a", GOOD),
        link("b", GOOD),
        link("c", GOOD),
        joint("ja", "revolute", "base", "a"),
        joint("bc", "revolute", "b", "c"),
        joint("cb", "revolute", "c", "b"),
    ]);
    assert_eq!(emit(&u).unwrap_err(), Error::Loop { link: "b".into() });
}

#[test]
fn two_roots_are_refused() {
    let u = robot(&[
        link("a", GOOD),
        link("b", GOOD),
        joint("ja", "revolute", "base", "a"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::Roots {
            roots: vec!["base".into(), "b".into()]
        }
    );
}

#[test]
fn unknown_link_is_named() {
    let u = robot(&[link("a", GOOD), joint("ja", "revolute", "base", "nowhere")]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::UnknownLink {
            joint: "ja".into(),
            link: "nowhere".into()
        }
    );
}

#[test]
fn a_moved_link_without_inertial_is_named_with_its_joint() {
    let u = robot(&[
        "<link name=\"a\"/>".into(),
        joint("ja", "revolute", "base", "a"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::MissingInertial {
            link: "a".into(),
            joint: "ja".into()
        }
    );
    // A massless link is fine when a link with mass is welded to it.
    let u = robot(&[
        "<link name=\"a\"/>".into(),
        link("b", GOOD),
        joint("ja", "revolute", "base", "a"),
        joint("weld", "fixed", "a", "b"),
    ]);
    assert!(emit(&u).is_ok());
}

#[test]
fn non_positive_definite_inertia_is_named() {
    // ixy larger than √(ixx iyy): indefinite.
    let u = robot(&[
        link("a", [0.001, 0.004, 0.004, 0.003]),
        joint("ja", "revolute", "base", "a"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::NonPositiveDefiniteInertia { link: "a".into() }
    );
    let u = robot(&[
        link("a", [-0.001, 0.004, 0.004, 0.0]),
        joint("ja", "revolute", "base", "a"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::NonPositiveDefiniteInertia { link: "a".into() }
    );
}

#[test]
fn negative_mass_is_named() {
    let u = robot(&[
        link("a", GOOD).replace("value=\"1\"", "value=\"-1\""),
        joint("ja", "revolute", "base", "a"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::NonPositiveMass { link: "a".into() }
    );
}

#[test]
fn a_body_failing_the_triangle_inequality_is_degenerate_in_space() {
    // izz = ixx + iyy (a flat plate) is positive definite but Σ = ½tr(J)I − J is singular; two
    // non-parallel hinges make the model spatial.
    let plate = [0.001, 0.004, 0.005, 0.0];
    let u = robot(&[
        link("a", GOOD),
        link("b", plate),
        joint("ja", "revolute", "base", "a"),
        joint("jb", "revolute", "a", "b").replace("0 1 0", "0 0 1"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::DegenerateBody { link: "b".into() }
    );
}

#[test]
fn zero_axis_is_named() {
    let u = robot(&[
        link("a", GOOD),
        joint("ja", "revolute", "base", "a").replace("0 1 0", "0 0 0"),
    ]);
    assert_eq!(
        emit(&u).unwrap_err(),
        Error::ZeroAxis { joint: "ja".into() }
    );
}

#[test]
fn nothing_moving_is_refused() {
    let u = robot(&[link("a", GOOD), joint("weld", "fixed", "base", "a")]);
    assert_eq!(emit(&u).unwrap_err(), Error::NoBodies);
}

#[test]
fn malformed_xml_is_a_parse_error() {
    assert!(matches!(
        emit("<robot name=\"r\"><link name=\"a\">"),
        Err(Error::Parse(_))
    ));
}
