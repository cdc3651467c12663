//! The experiments behind `reproduce <name>`. Each prints a human table and `figure` lines.
//!
//! Add an experiment by writing a `pub fn run()` in a module of this folder and one line in
//! [`EXPERIMENTS`]. Names are stable once published: add, don't rename.

pub mod baselines;
pub mod constrained;
pub mod reference;

/// An experiment: its name, a one-line description, and the function that runs it.
pub struct Experiment {
    /// The name given on the command line.
    pub name: &'static str,
    /// What it reproduces.
    pub about: &'static str,
    /// Runs it (prints to stdout).
    pub run: fn(),
}

/// Every experiment, in the order `reproduce list` prints them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "reference",
        about: "self-checks of the DOP853 reference solver and the rigid pendulum references",
        run: reference::run,
    },
    Experiment {
        name: "baselines",
        about: "order, symplecticity, reversibility, energy drift of symplectic Euler and Verlet",
        run: baselines::run,
    },
    Experiment {
        name: "reich",
        about: "002 §5 Tables 1–2: Reich's 4th-order constrained Yoshida composition vs RATTLE, pendulum",
        run: constrained::reich,
    },
    Experiment {
        name: "vs-vr",
        about: "001 §3–4, Fig 2: SHAKE (VS) vs RATTLE (VR) on the 6-node spring chain",
        run: constrained::vs_vr,
    },
    Experiment {
        name: "multiplier",
        about: "000 Thm 1.3 / Fig 2b: Lagrange multiplier recovered from a penalty run vs RATTLE's",
        run: constrained::multiplier,
    },
    Experiment {
        name: "chain",
        about: "004 §5.4.3: chain of 20 pendula, SyLiPN (penalty) vs RATTLE, cost per step",
        run: constrained::chain,
    },
];

/// Looks an experiment up by name.
pub fn find(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}
