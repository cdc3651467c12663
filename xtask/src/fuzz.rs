//! `cargo xtask fuzz [--cases N] [--seed S] [--jobs J] [--filter SUBSTRING]`: hostile-input runs
//! of every contract entry point.
//!
//! Builds `host-tests`' `fuzz` binary in the `fuzz` profile (release optimisation with
//! overflow checks and debug assertions, see the root `Cargo.toml`) and runs it with the given
//! arguments: `N` (default 10⁶) seeded cases per entry point, panics caught per case, one table
//! row per entry point. Fails when any case panicked or broke the contract. Not part of
//! `cargo xtask test` (the full run takes minutes; CI runs the proptest cases of
//! `host-tests/tests/contract.rs` instead). The last full table is kept in `docs/fuzz.md`.

use crate::{cargo, root, run, Result};
use std::process::Command;

pub fn fuzz(args: &[String]) -> Result {
    run(
        "build the fuzz runner (profile `fuzz`)",
        cargo().args([
            "build",
            "-p",
            "host-tests",
            "--profile",
            "fuzz",
            "--bin",
            "fuzz",
        ]),
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), std::path::PathBuf::from);
    let exe = target.join("fuzz").join("fuzz");
    run(
        "fuzz: every contract entry point",
        Command::new(exe).args(args).current_dir(root()),
    )
}
