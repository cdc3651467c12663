//! The experiments behind `reproduce <name>`. Each prints a human table and `figure` lines.
//!
//! Add an experiment by writing a `pub fn run()` in a module of this folder and one line in
//! [`EXPERIMENTS`]. Names are stable once published: add, don't rename.

pub mod autodiff;
pub mod baselines;
pub mod constrained;
pub mod reference;
pub mod sim;

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
    Experiment {
        name: "fpu-sim",
        about: "004 §4.2.6 Fig 4.3: SIM1/SIM2 on FPU (ω = 200, T = 5ω) vs a Verlet reference",
        run: sim::run_fpu,
    },
    Experiment {
        name: "sim-uniform",
        about:
            "004 Thm 4.2.2: SIM error in q uniform in ω at fixed H; Verlet blows up; orders 1/2/4",
        run: sim::run_uniform,
    },
    Experiment {
        name: "sim-langevin",
        about: "004 §4.2.5 Fig 4.2: SIM1 moments at macroscopic H vs a Richardson GLA reference",
        run: sim::run_langevin,
    },
    Experiment {
        name: "sim-stiff-friction",
        about: "004 Remark 4.2.5: stiff friction c = O(ω): SIM accurate at macroscopic H, GLA not",
        run: sim::run_stiff_friction,
    },
    Experiment {
        name: "autodiff",
        about: "forward-mode AD vs hand-derived gradient, Hessian and a·V'''·a (7 energies, f64 and f32)",
        run: autodiff::run,
    },
];

/// Looks an experiment up by name.
pub fn find(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}
