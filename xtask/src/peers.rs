//! `cargo xtask peers [--quick] [--only chain-peers|arm-peers] [-- REPRODUCE-ARGS…]`: the peer
//! comparisons of `reproduce chain-peers` and `reproduce arm-peers` (both unless `--only`),
//! opt-in (not part of `cargo xtask test`: rapier takes minutes to build
//! and the paper setup minutes to run).
//!
//! Installs MuJoCo's Python package in a virtual environment under `target/peers-venv` (once;
//! `python3 -m venv` and `pip install mujoco`), then runs each experiment in release with
//! the `peers` feature (the rapier peer) and `MACROSTEP_PEERS_PYTHON` pointing at the venv's
//! interpreter (the MuJoCo peer). Without Python or network the MuJoCo step is skipped with a
//! message and the run goes on without it.

use crate::{cargo, root, run, Result};
use std::process::Command;

/// The venv's interpreter, installing `mujoco` into it first if needed; `None` (with the reason
/// printed) when that fails.
pub fn mujoco_python() -> Option<String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), std::path::PathBuf::from);
    let venv = target.join("peers-venv");
    let py = venv.join("bin").join("python");
    let has = |py: &std::path::Path| {
        Command::new(py)
            .args(["-c", "import mujoco"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has(&py) {
        return Some(py.display().to_string());
    }
    let made = run(
        "python3 -m venv target/peers-venv",
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
    )
    .and_then(|()| {
        run(
            "pip install mujoco",
            Command::new(&py).args(["-m", "pip", "install", "--quiet", "mujoco"]),
        )
    });
    match made {
        Ok(()) if has(&py) => Some(py.display().to_string()),
        Ok(()) => {
            eprintln!("xtask: mujoco installed but not importable: the MuJoCo peer is skipped");
            None
        }
        Err(e) => {
            eprintln!("xtask: cannot install mujoco ({e}): the MuJoCo peer is skipped");
            None
        }
    }
}

/// The experiments `cargo xtask peers` runs.
const EXPERIMENTS: [&str; 2] = ["chain-peers", "arm-peers"];

pub fn peers(args: &[String]) -> Result {
    let quick = args.iter().any(|a| a == "--quick");
    let head: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
    let only = match head.iter().position(|a| *a == "--only") {
        Some(k) => match head.get(k + 1) {
            Some(name) if EXPERIMENTS.contains(&name.as_str()) => Some(name.as_str()),
            other => {
                return Err(format!(
                    "peers: --only takes one of {EXPERIMENTS:?}, got {other:?}"
                ))
            }
        },
        None => None,
    };
    let rest: Vec<&String> = args.iter().skip_while(|a| *a != "--").skip(1).collect();
    let py = mujoco_python();
    for name in EXPERIMENTS.iter().filter(|n| only.is_none_or(|o| o == **n)) {
        let mut cmd = cargo();
        cmd.args([
            "run",
            "--release",
            "-p",
            "host-tests",
            "--features",
            "peers",
        ])
        .args(["--bin", "reproduce", "--", name]);
        if quick {
            cmd.arg("--quick");
        }
        cmd.args(&rest);
        if let Some(py) = &py {
            cmd.env("MACROSTEP_PEERS_PYTHON", py);
        }
        run(&format!("reproduce {name} (rapier, MuJoCo)"), &mut cmd)?;
    }
    Ok(())
}
