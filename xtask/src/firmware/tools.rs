//! The tools the firmware stage needs, installed when missing: QEMU and `defmt-print`.

use crate::{output, run, Result};
use std::path::PathBuf;
use std::process::Command;

pub(super) fn ensure_qemu() -> Result {
    if Command::new("qemu-system-arm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    let root_user = output(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut c = if root_user {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    run("apt-get update", &mut apt(&["update", "-q"]))?;
    run(
        "apt-get install qemu-system-arm",
        &mut apt(&["install", "-y", "-q", "qemu-system-arm"]),
    )
}

pub(super) fn defmt_print() -> PathBuf {
    // `cargo install` puts it in $CARGO_HOME/bin, which may not be on PATH.
    if Command::new("defmt-print")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return PathBuf::from("defmt-print");
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    home.join("bin").join("defmt-print")
}

pub(super) fn ensure_defmt_print() -> Result {
    if Command::new(defmt_print())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    run(
        "cargo install defmt-print (decodes the firmware's defmt output)",
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args([
            "install",
            "--locked",
            "defmt-print",
        ]),
    )
}
