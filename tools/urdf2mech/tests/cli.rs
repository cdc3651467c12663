//! The command line: writes the source, or says why not with a non-zero exit.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_urdf2mech");
const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/urdf");

#[test]
fn writes_the_module_to_a_file() {
    let out = std::env::temp_dir().join(format!("urdf2mech-cli-{}.rs", std::process::id()));
    let status = Command::new(BIN)
        .args([
            &format!("{DIR}/arm6.urdf"),
            "-o",
            out.to_str().unwrap(),
            "--module",
            "ur5",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(text.contains("pub mod ur5 {"));
    assert!(text.contains("from the URDF `arm6.urdf`"));
}

#[test]
fn refusal_exits_non_zero_naming_the_joint() {
    let out = Command::new(BIN)
        .arg(format!("{DIR}/mimic.urdf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("'right_finger_joint' mimics joint 'left_finger_joint'"),
        "{err}"
    );
}

#[test]
fn missing_argument_is_a_usage_error() {
    let out = Command::new(BIN).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
