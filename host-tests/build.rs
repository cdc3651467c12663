//! Turns the URDFs shipped with `urdf2mech` (`tools/urdf2mech/urdf/`) into Rust source in
//! `OUT_DIR`, which `experiments::urdf_arms::models` includes: the emitted code is compiled (and
//! run by `reproduce urdf-arms` and `tests/urdf_arms.rs`) on every build.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let dir = manifest.join("../tools/urdf2mech/urdf");
    for name in ["planar_arm3", "arm6"] {
        let path = dir.join(format!("{name}.urdf"));
        println!("cargo::rerun-if-changed={}", path.display());
        let urdf = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let options = urdf2mech::Options {
            module: Some(name.to_string()),
            source: Some(format!("{name}.urdf")),
        };
        let source = urdf2mech::emit_with(&urdf, &options)
            .unwrap_or_else(|e| panic!("urdf2mech refused {}: {e}", path.display()));
        let target = out.join(format!("{name}.rs"));
        std::fs::write(&target, source)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
    }
}
