//! Guards the published `figure` names: `reproduce <experiment> --quick --figures-only` must
//! print exactly the names listed for it in `host-tests/figures.txt` (one `<experiment> <name>`
//! per line, in print order), and every experiment must have its names listed.
//!
//! Only the experiments in [`FAST`] are run (a few seconds in the test profile); the others
//! take tens of seconds to minutes even in their quick setup and are checked by running
//! `reproduce` by hand against the same file.

use host_tests::experiments::EXPERIMENTS;
use std::collections::BTreeMap;
use std::process::Command;

/// Experiments cheap enough to run here (`--paths 20` keeps `sim-langevin` short).
const FAST: &[&str] = &[
    "reference",
    "lc-circuit",
    "water",
    "accelerated-sampling",
    "baselines",
    "reich",
    "vs-vr",
    "multiplier",
    "chain",
    "flavor-stability",
    "zs-stability",
    "zs-order",
    "zs-symplectic",
    "penalty-scaling",
    "double-pendulum",
    "sim-uniform",
    "sim-langevin",
    "sim-stiff-friction",
    "guards",
    "so3",
    "bdf2",
    "lj",
    "work-precision",
    "work-precision-remedies",
    "forcing",
    "quasi-quadratic",
    "cart-pole",
    "linearise",
    "convert",
    "flavor-3dof",
    "vdp",
    "flavor-fpu",
    "flavor-molecule",
    "flavor-propane",
    "urdf-arms",
];

fn listed() -> BTreeMap<String, Vec<String>> {
    let text = include_str!("../figures.txt");
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (exp, name) = line
            .split_once(' ')
            .expect("`<experiment> <name>` per line");
        out.entry(exp.to_string())
            .or_default()
            .push(name.to_string());
    }
    out
}

fn printed(experiment: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_reproduce"))
        .args([experiment, "--quick", "--figures-only", "--paths", "20"])
        .output()
        .expect("reproduce runs");
    assert!(out.status.success(), "reproduce {experiment} failed");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    stdout
        .lines()
        .map(|l| {
            let mut words = l.split(' ');
            assert_eq!(words.next(), Some("figure"), "non-figure line `{l}`");
            let name = words.next().expect("a name").to_string();
            let value = words.next().expect("a value");
            assert!(value.parse::<f64>().is_ok(), "`{l}`: value is not a number");
            name
        })
        .collect()
}

#[test]
fn every_experiment_has_listed_figures() {
    let listed = listed();
    for e in EXPERIMENTS {
        assert!(
            listed.contains_key(e.name),
            "no figures listed for {}",
            e.name
        );
    }
    for name in listed.keys() {
        assert!(
            EXPERIMENTS.iter().any(|e| e.name == name),
            "figures.txt lists unknown experiment {name}"
        );
    }
}

#[test]
fn fast_experiments_print_the_listed_figure_names() {
    let listed = listed();
    for e in FAST {
        assert_eq!(printed(e), listed[*e], "figure names of {e}");
    }
}
