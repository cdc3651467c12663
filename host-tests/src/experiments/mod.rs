//! The experiments behind `reproduce <name>`. Each prints a human table and `figure` lines.
//!
//! Add an experiment by writing a `pub fn run()` in a module of this folder, one entry in
//! [`EXPERIMENTS`] (the single registration table) and its figure names in
//! `host-tests/figures.txt`. Names are stable once published: add, don't rename.

pub mod accelerated_sampling;
pub mod autodiff;
pub mod baselines;
pub mod bdf2;
pub mod cart_pole;
pub mod constrained;
pub mod convert;
pub mod flavor;
pub mod forcing;
pub mod forcing_methods;
pub mod guards;
pub mod guards_overhead;
pub mod lc_circuit;
pub mod lj;
pub mod quasi_quadratic;
pub mod reference;
pub mod sim;
pub mod so3;
pub mod water;
pub mod work_precision;
pub mod zs;

/// An experiment: its name, the seed passage it reproduces, its expected run time, a one-line
/// description, and the function that runs it.
pub struct Experiment {
    /// The name given on the command line.
    pub name: &'static str,
    /// The seed document and passage (`000 §4.1 Fig 1`; see `shared/seeds/INDEX.md`), or
    /// `(self-check)` for checks of the tools themselves.
    pub seed: &'static str,
    /// Expected wall-clock seconds of the full (paper) setup in a release build on one core.
    pub seconds: f64,
    /// What it reproduces.
    pub about: &'static str,
    /// Runs it (prints to stdout).
    pub run: fn(),
}

/// Every experiment, in the order `reproduce list` prints them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "guards",
        seed: "000 §4.1 (random at-rest starts)",
        seconds: 2.0,
        about: "step guards on a diverging double pendulum (silent garbage, recovery) and the f32 clock",
        run: guards::run_paper,
    },
    Experiment {
        name: "reference",
        seed: "(self-check)",
        seconds: 0.1,
        about: "self-checks of the DOP853 reference solver and the rigid pendulum references",
        run: reference::run,
    },
    Experiment {
        name: "baselines",
        seed: "(self-check)",
        seconds: 0.0,
        about: "order, symplecticity, reversibility, energy drift of symplectic Euler and Verlet",
        run: baselines::run,
    },
    Experiment {
        name: "reich",
        seed: "002 §5 Tables 1–2",
        seconds: 0.0,
        about: "002 §5 Tables 1–2: Reich's 4th-order constrained Yoshida composition vs RATTLE, pendulum",
        run: constrained::reich::run,
    },
    Experiment {
        name: "vs-vr",
        seed: "001 §3–4 Fig 2",
        seconds: 0.0,
        about: "001 §3–4, Fig 2: SHAKE (VS) vs RATTLE (VR) on the 6-node spring chain",
        run: constrained::vs_vr::run,
    },
    Experiment {
        name: "bdf2",
        seed: "001 §7.3 Figs 3–5",
        seconds: 1.0,
        about: "001 §7.3 Figs 3–5: RATTLE vs the BDF2 baseline on the spring chain (error, energy error, energy over time)",
        run: bdf2::run_experiment,
    },
    Experiment {
        name: "convert",
        seed: "003 §2–3 (S0, unconstrained)",
        seconds: 10.0,
        about: "003: explicit Euler/Heun/RK4, symplectic Euler, Verlet converted to variational integrators: order, symplecticity defect, long-run energy on the penalised pendulum and double pendulum",
        run: convert::run,
    },
    Experiment {
        name: "lj",
        seed: "001 §7.4 Figs 6–7",
        seconds: 5.0,
        about: "001 §7.4 Figs 6–7: RATTLE vs BDF2 on the 7-atom Lennard-Jones chain (vibration, energy, largest converging step)",
        run: lj::run_experiment,
    },
    Experiment {
        name: "multiplier",
        seed: "000 Thm 1.3, Fig 2b",
        seconds: 0.2,
        about: "000 Thm 1.3 / Fig 2b: Lagrange multiplier recovered from a penalty run vs RATTLE's",
        run: constrained::multiplier::run,
    },
    Experiment {
        name: "chain",
        seed: "004 §5.4.3",
        seconds: 0.1,
        about: "004 §5.4.3: chain of 20 pendula, SyLiPN (penalty) vs RATTLE, cost per step",
        run: constrained::chain::run,
    },
    Experiment {
        name: "flavor-stability",
        seed: "004 Thm 2.5.1, Fig 2.2",
        seconds: 0.0,
        about: "FLAVOR linear stability: Theorem 2.5.1 and Fig 2.2 on system 2.93 (004 §2.5.1)",
        run: flavor::stability::run,
    },
    Experiment {
        name: "flavor-3dof",
        seed: "004 §2.6.2 Fig 2.5",
        seconds: 15.0,
        about:
            "nonintrusive FLAVOR on the 3-DOF system 2.100: slow/fast accuracy, Fig 2.5, speed-up",
        run: flavor::three_dof::run,
    },
    Experiment {
        name: "vdp",
        seed: "004 §2.6.1",
        seconds: 43.0,
        about: "nonintrusive FLAVOR on the hidden Van der Pol oscillator 2.101 (004 §2.6.1)",
        run: flavor::vdp::run,
    },
    Experiment {
        name: "kapitza",
        seed: "004 §2.6.6",
        seconds: 128.0,
        about: "FLAVOR (eq 2.115, tau clock) on Kapitza's inverted pendulum (004 §2.6.6)",
        run: flavor::kapitza::run,
    },
    Experiment {
        name: "flavor-langevin",
        seed: "004 §2.6.8–2.6.9, §2.4.6",
        seconds: 330.0,
        about: "Langevin FLAVORs vs GLA (004 §2.6.8, §2.6.9) and the Metropolis-adjusted FLAVOR",
        run: flavor::langevin::run,
    },
    Experiment {
        name: "flavor-fpu",
        seed: "004 §2.6.3",
        seconds: 6.4,
        about: "artificial and nonintrusive FLAVORs on the FPU chain over T = 2 omega (004 §2.6.3)",
        run: flavor::fpu::run,
    },
    Experiment {
        name: "flavor-molecule",
        seed: "004 §2.6.4",
        seconds: 16.0,
        about: "nonintrusive FLAVOR on the 2-D primitive molecule 2.108 (004 §2.6.4)",
        run: flavor::molecule::run,
    },
    Experiment {
        name: "flavor-propane",
        seed: "004 §2.6.5",
        seconds: 3.6,
        about: "nonintrusive FLAVOR on the united-atom propane clip 2.109–2.112 (004 §2.6.5)",
        run: flavor::propane::run,
    },
    Experiment {
        name: "zs-stability",
        seed: "000 Thm 2.5",
        seconds: 0.1,
        about: "000 Thm 2.5: Z&S linear stability, beta = 0.25 vs 0.2",
        run: zs::stability::run,
    },
    Experiment {
        name: "zs-order",
        seed: "000 Cor 2.8, Rem 2.11",
        seconds: 0.1,
        about: "000 Cor 2.8, Rem 2.11: order of Z&S, Z&Ss, stiff Z&Ss, composed Z&S",
        run: zs::order::run,
    },
    Experiment {
        name: "zs-symplectic",
        seed: "000 Thm 2.12, 2.4, Rem 2.14",
        seconds: 0.0,
        about: "000 Thm 2.12, 2.4, Rem 2.14: symplecticity defects",
        run: zs::symplectic::run,
    },
    Experiment {
        name: "penalty-scaling",
        seed: "000 Thm 1.3, Fig 2a",
        seconds: 0.1,
        about: "000 Thm 1.3 / Rem A.3 / Fig 2a: omega^2 max|g| bounded for the penalised double pendulum",
        run: zs::penalty_scaling::run,
    },
    Experiment {
        name: "double-pendulum",
        seed: "000 §4.1 Fig 1",
        seconds: 0.3,
        about: "000 §4.1 Fig 1: Z&S, Z&Ss, Newmark, one-iteration Newmark, Verlet vs rigid reference",
        run: zs::double_pendulum::run,
    },
    Experiment {
        name: "dna",
        seed: "000 §4.4",
        seconds: 6.8,
        about: "000 §4.4: DNA model, Z&S h = 2 vs Verlet stability limit, mean-angle transitions",
        run: zs::dna::run,
    },
    Experiment {
        name: "zs-chain-cost",
        seed: "000 §4.3, 004 §5.4.1",
        seconds: 1.5,
        about: "000 §4.3 / 004 §5.4.1: Z&S cost per step on a chain of n pendula, dense vs banded",
        run: zs::chain_cost::run,
    },
    Experiment {
        name: "fpu-sim",
        seed: "004 §4.2.6 Fig 4.3",
        seconds: 27.0,
        about: "004 §4.2.6 Fig 4.3: SIM1/SIM2 on FPU (ω = 200, T = 5ω) vs a Verlet reference",
        run: sim::fpu::run,
    },
    Experiment {
        name: "sim-uniform",
        seed: "004 Thm 4.2.2",
        seconds: 0.1,
        about:
            "004 Thm 4.2.2: SIM error in q uniform in ω at fixed H; Verlet blows up; orders 1/2/4",
        run: sim::uniform::run,
    },
    Experiment {
        name: "sim-langevin",
        seed: "004 §4.2.5 Fig 4.2",
        seconds: 147.0,
        about: "004 §4.2.5 Fig 4.2: SIM1 moments at macroscopic H vs a Richardson GLA reference",
        run: sim::langevin::run,
    },
    Experiment {
        name: "sim-stiff-friction",
        seed: "004 Rem 4.2.5",
        seconds: 0.1,
        about: "004 Remark 4.2.5: stiff friction c = O(ω): SIM accurate at macroscopic H, GLA not",
        run: sim::stiff_friction::run,
    },
    Experiment {
        name: "autodiff",
        seed: "(self-check)",
        seconds: 3.8,
        about: "forward-mode AD vs hand-derived gradient, Hessian and a·V'''·a (7 energies, f64 and f32)",
        run: autodiff::run,
    },
    Experiment {
        name: "so3",
        seed: "000 §4.5 Figs 9–10",
        seconds: 20.0,
        about: "000 §4.5 Figs 9–10: linearised Z&S on SO(3) vs the Cayley benchmark, orders, cost", run: so3::run },
    Experiment {
        name: "work-precision",
        seed: "000 §4.1, 004 §5.4.3, §4.2.6, eq 2.100",
        seconds: 35.0,
        about: "work–precision at equal accuracy: dp ω = 100 (10 methods + DOP853 peer), chains of 5–40, FPU SIM1/2/4 vs Verlet, FLAVOR trimer; Z&S cap",
        run: work_precision::run,
    },
    Experiment {
        name: "work-precision-omega",
        seed: "000 §4.1, penalty ω = 20 … 2000",
        seconds: 10.0,
        about: "double pendulum over penalty ω = 20 … 2000: largest stable steps, costs at equal error, Z&S ÷ Verlet",
        run: work_precision::omega::run,
    },
    Experiment {
        name: "work-precision-remedies",
        seed: "000 §4.1, eq 1.2–1.3; 002 §5",
        seconds: 10.0,
        about: "Z&S stability-cap remedies on the penalised double pendulum: β, distance form, Gauss–Newton matrix (h_max at ω = 100, 1000; order, symplecticity, symmetry)",
        run: work_precision::remedies::run,
    },
    Experiment {
        name: "forcing",
        seed: "Marsden & West 2001 §3.2; 000 eq 1.8",
        seconds: 10.0,
        about: "external forces (order, energy balance, forced symplecticity), damping, reaction forces",
        run: forcing::run,
    },
    Experiment {
        name: "quasi-quadratic",
        seed: "004 §4.3.8",
        seconds: 0.2,
        about: "004 §4.3.8–4.3.9: quasi-quadratic stiff potentials, error uniform in ω, symplecticity, speed-up vs Verlet",
        run: quasi_quadratic::run,
    },
    Experiment {
        name: "lc-circuit",
        seed: "004 §7.1.6 Fig 7.2",
        seconds: 8.0,
        about: "004 §7.1: noisy LC circuit, variational + stochastic variational integrator: Fig 7.2 variances, orders, Gibbs statistics",
        run: lc_circuit::run,
    },
    Experiment {
        name: "cart-pole",
        seed: "(application: 1 kHz LQR loop)",
        seconds: 0.2,
        about: "LQR cart-pole at 1 kHz built with the mechanism builder (Z&S penalty and RATTLE plants); builder bit-identity",
        run: cart_pole::run,
    },
    Experiment {
        name: "accelerated-sampling",
        seed: "004 Ch 6 Figs 6.3–6.6",
        seconds: 42.0,
        about: "004 Ch 6: friction-tuned and annealed GLA (AnnealTuneGLA, eq 6.6) on the LJ double well: time to reach B-G vs GLA, cooling schedules",
        run: accelerated_sampling::run,
    },
    Experiment {
        name: "water",
        seed: "000 §4.3 Fig 4",
        seconds: 25.0,
        about: "000 §4.3: TIP3P water cluster with Langevin (GLA), simplified Z&Ss vs SHAKE: O-O distribution, temperature, cost",
        run: water::run,
    },
];

impl Experiment {
    /// The expected run time, rounded for `reproduce list`.
    pub fn expected_time(&self) -> String {
        match self.seconds {
            s if s < 1.0 => "< 1 s".into(),
            s if s < 120.0 => format!("{s:.0} s"),
            s => format!("{:.0} min", s / 60.0),
        }
    }
}

/// Looks an experiment up by name.
pub fn find(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}
