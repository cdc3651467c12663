//! Emits the planar 3-link arm of `arm3_pd` with `urdf2mech` from the URDF shipped with the tool
//! (`tools/urdf2mech/urdf/planar_arm3.urdf`) into `OUT_DIR/planar_arm3.rs`, which `arm3_pd.rs`
//! includes: the firmware runs the tool's output of the current URDF, never a stale copy.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let path = manifest.join("../../tools/urdf2mech/urdf/planar_arm3.urdf");
    println!("cargo::rerun-if-changed={}", path.display());
    let urdf = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let options = urdf2mech::Options {
        module: Some("planar_arm3".to_string()),
        source: Some("planar_arm3.urdf".to_string()),
    };
    let source = urdf2mech::emit_with(&urdf, &options)
        .unwrap_or_else(|e| panic!("urdf2mech refused {}: {e}", path.display()));
    let target = out.join("planar_arm3.rs");
    std::fs::write(&target, source)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
