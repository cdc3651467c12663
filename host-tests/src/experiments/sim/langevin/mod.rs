//! `reproduce sim-langevin` (004 §4.2.5, Fig 4.2): SIM1 moments at macroscopic H on the
//! two-spring Langevin system against a Richardson GLA reference, a control start without the
//! coherent stiff oscillation, the linear variant with exact laws, and the cost per trajectory.

mod charts;
pub mod filters;
pub mod linear;
pub mod report;
pub mod study;

pub use filters::{AliasFilter, GlaLevels, KickFilter};
pub use linear::{linear_law_study, report_linear, van_loan, LinearStats, LinearTwoSpring};
pub use report::{report_langevin, sim_compliance};
pub use study::{
    langevin_steps, langevin_study, max_abs_z, Acc, LangevinSetup, SimStats, LANGEVIN_LABELS,
    MOMENTS,
};

use crate::experiments::Experiment;
use crate::report::{figure, Output};
use crate::timing::{self, Timing};
use macrostep::langevin::{Gla, GlaParams, StochasticIntegrator};
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::TwoSpring;
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// What to run.
pub struct Setup {
    /// The Monte-Carlo study (paths, GLA steps, stiff start).
    pub study: LangevinSetup,
    /// Trajectories and final time of the cost comparison.
    pub speed: (usize, f64),
}

impl Setup {
    /// The published setting: 5000 paths of 10⁴ GLA steps.
    pub fn paper() -> Self {
        Self::over(5000)
    }
    /// The same study over 500 paths.
    pub fn quick() -> Self {
        Self::over(500)
    }
    fn over(paths: usize) -> Self {
        Self {
            study: LangevinSetup {
                paths,
                steps: 10_000,
                stiff_start: true,
            },
            speed: (200, 10.0),
        }
    }
}

/// What the experiment measured.
pub struct Results {
    /// The study setup.
    pub study: LangevinSetup,
    /// From the Fig. 4.2 start, with its CPU seconds.
    pub stats: (Vec<SimStats>, f64),
    /// The control from `x(0) = 0`.
    pub control: Vec<SimStats>,
    /// The linear variant.
    pub linear: Vec<LinearStats>,
    /// CPU seconds per trajectory of GLA at `h = 0.1/ω` and of SIM1 at the resonant `H`.
    pub speed: (f64, f64),
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let study = setup.study;
    let (stats, cpu) = timing::process_cpu_seconds_of(|| langevin_study(study));
    let control = langevin_study(LangevinSetup {
        stiff_start: false,
        ..study
    });
    let linear = linear_law_study(study.paths, study.steps);
    let (_, h_res, _) = langevin_steps(100.0);
    let (paths, t_end) = setup.speed;
    Results {
        study,
        stats: (stats, cpu),
        control,
        linear,
        speed: langevin_speed(paths, t_end, h_res),
    }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let setup = r.study;
    let (h, h_res, h_nr) = langevin_steps(100.0);
    crate::say!(
        out,
        "two-spring Langevin (004 §4.2.5): ω = 100, c = 0.1, β = 10; {} paths, T = {:.3}",
        setup.paths,
        setup.steps as f64 * h
    );
    crate::say!(
        out,
        "GLA grid h = {h:.6e} (≈ 0.1/ω), levels h, h/2, h/4, h/8 on one Brownian path; reference \
         (4E[h/8] − E[h/4])/3. SIM1 at H = {h_res:.5} (ωH = 6π, resonant) and H = {h_nr:.5} \
         (ωH = {:.2}), soft bias extrapolated out by 2E[H/2] − E[H] (resonant family: \
         3E[τ] − 3E[2τ] + E[3τ], τ = 2π/ω) on the same path, stiff impulse-kick bias allowed for \
         per path by the exact linear response of x (KickFilter), its aliasing in the force on \
         y by the tangent response of y (AliasFilter).",
        100.0 * h_nr
    );
    crate::say!(out, "(study CPU {:.1} s, all threads)", r.stats.1);
    report_langevin(&setup, &r.stats.0, "sim-langevin", out);
    charts::fig4_2(&r.stats.0, setup.paths, out);
    crate::say!(
        out,
        "\n== control: the same study from x(0) = 0, y(0) = 1.1 (no coherent stiff oscillation)"
    );
    let control = LangevinSetup {
        stiff_start: false,
        ..setup
    };
    report_langevin(&control, &r.control, "sim-langevin.control_x0_zero", out);
    crate::say!(
        out,
        "\n== linear variant (soft spring ½k(y − x)², k = 1): exact law and SIM1's law in closed \
         form (Van Loan), SIM1 and GLA by Monte Carlo ({} paths)",
        setup.paths
    );
    report_linear(&r.linear, out);
    crate::say!(
        out,
        "(linear: sim_vs_own_law tests the implementation's B(H), Σ(H), sampling and seeding \
         against SIM1's law computed independently; max_abs_z is |(SIM − exact bias) − GLA \
         ref| / combined SE; gla_ref_vs_exact checks the Richardson reference pipeline.)"
    );
    let (g, s) = r.speed;
    crate::say!(
        out,
        "\nCPU per trajectory to T = 10: GLA h = 0.1/ω {g:.3e} s, SIM1 H = {h_res:.4} {s:.3e} s"
    );
    // Not at equal accuracy: GLA at the resolved step 0.1/ω vs SIM1 at H. Both names print the
    // same value: `sim-langevin.speedup` is a published name (names are stable), the second says
    // what it is.
    figure("sim-langevin.speedup", g / s);
    figure("sim-langevin.speedup_vs_gla_resolved", g / s);
}

/// `reproduce sim-langevin` (`--quick`: 500 paths; `--paths N` sets the paths).
pub struct SimLangevinExperiment;

impl Experiment for SimLangevinExperiment {
    const NAME: &'static str = "sim-langevin";
    const SEED: &'static str = "004 §4.2.5 Fig 4.2";
    const SECONDS: f64 = 147.0;
    const ABOUT: &'static str =
        "004 §4.2.5 Fig 4.2: SIM1 moments at macroscopic H vs a Richardson GLA reference";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn with_paths(mut setup: Setup, paths: usize) -> Setup {
        setup.study.paths = paths;
        setup
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}

/// CPU seconds per trajectory of GLA at `h = 0.1/ω` and of SIM1 at `H` over `T`: thread CPU
/// time, interleaved rotated rounds (`timing::compare`), each sample `paths` trajectories.
pub fn langevin_speed(paths: usize, t_end: f64, h_sim: f64) -> (f64, f64) {
    let model = TwoSpring::<f64>::paper();
    let lp = model.langevin();
    let split = model.split();
    let h = 0.1 / model.omega();
    let gla_params = GlaParams::from_noise(lp.c, lp.sigma).expect("gla");
    let mut gla = Gla::new(model.system(), h, gla_params).expect("gla");
    let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    let fast = FastParams::langevin(lp.c, lp.sigma);
    let mut sim = Sim1::new(system, h_sim, fast).expect("sim");
    let mut rng_gla = Pcg32::seed_from_u64(99);
    let mut rng_sim = Pcg32::seed_from_u64(98);
    let (n_gla, n_sim) = (
        (t_end / h).round() as usize,
        (t_end / h_sim).round() as usize,
    );
    let mut sink = 0.0;
    let mut run_gla = || {
        for _ in 0..paths {
            let mut s = model.initial_state();
            gla.integrate_noisy(&mut s, n_gla, &mut rng_gla)
                .expect("gla");
            sink += s.q[0];
        }
    };
    let mut sink_sim = 0.0;
    let mut run_sim = || {
        for _ in 0..paths {
            let mut s = model.initial_state();
            sim.integrate_noisy(&mut s, n_sim, &mut rng_sim)
                .expect("sim");
            sink_sim += s.q[0];
        }
    };
    let m = timing::compare(&mut [&mut run_gla, &mut run_sim], &Timing::rounds(5));
    std::hint::black_box((sink, sink_sim));
    (m[0].median / paths as f64, m[1].median / paths as f64)
}
