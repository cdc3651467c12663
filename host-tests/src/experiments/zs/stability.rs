//! `reproduce zs-stability` (000 Thm 2.5): Z&S on the harmonic oscillator is unconditionally
//! stable for β = 1/4 and stable only below hω = 2/√(1 − 4β) for β < 1/4.

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::systems::HarmonicOscillator;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, Stepper};

/// Energy-norm amplification `max_k ‖(ωq_k, v_k)‖ / ‖(ωq₀, v₀)‖` of Z&S on `q̈ = −ω²q`
/// (ω = 1, step `hω`), over `steps` steps; stops early (returning the value reached) beyond 1e8.
pub fn zs_amplification(beta: f64, homega: f64, steps: usize) -> f64 {
    let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).expect("valid oscillator");
    // The raw linear map, also where it grows: the step guards would refuse those steps.
    let mut zs = ZhangSkeel::new(osc.system(), homega, ZsParams::with_beta(beta))
        .and_then(|z| z.with_guards(macrostep::Guards::off()))
        .expect("valid");
    let mut s = osc.initial_state();
    let mut worst: f64 = 1.0;
    for _ in 0..steps {
        if zs.step(&mut s).is_err() {
            return f64::INFINITY;
        }
        let n = (s.q[0] * s.q[0] + s.v[0] * s.v[0]).sqrt();
        worst = worst.max(n);
        if worst > 1e8 {
            break;
        }
    }
    worst
}

/// What to run.
pub struct Setup {
    /// Steps per amplification run.
    pub steps: usize,
    /// The hω grid (log-spaced from 0.1 to 10⁴).
    pub grid: Vec<f64>,
}

impl Setup {
    /// 10⁴ steps on 51 log-spaced hω.
    pub fn paper() -> Self {
        Self {
            steps: 10_000,
            grid: (0..=50)
                .map(|k| 0.1 * 10f64.powf(k as f64 * 5.0 / 50.0))
                .collect(),
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured.
pub struct Results {
    /// Per hω of the grid: amplification at β = 0.25 and at β = 0.2.
    pub amplification: Vec<(f64, f64, f64)>,
    /// Largest amplification at β = 0.25 over the grid.
    pub max_beta025: f64,
    /// The first unstable hω at β = 0.2 ("unstable" = amplification > 10 within the run).
    pub critical_beta020: f64,
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let steps = setup.steps;
    let amplification: Vec<(f64, f64, f64)> = setup
        .grid
        .iter()
        .map(|&hw| {
            (
                hw,
                zs_amplification(0.25, hw, steps),
                zs_amplification(0.2, hw, steps),
            )
        })
        .collect();
    let max_beta025 = amplification.iter().map(|a| a.1).fold(0.0, f64::max);
    let (mut lo, mut hi) = (1.0, 10.0);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if zs_amplification(0.2, mid, steps) > 10.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Results {
        amplification,
        max_beta025,
        critical_beta020: 0.5 * (lo + hi),
    }
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(out, &["h*omega", "beta=0.25", "beta=0.2"]);
    for &(hw, a, b) in &r.amplification {
        if (hw.log10() * 10.0).round() as i64 % 5 == 0 {
            t.row(&[sci(hw), sci(a), sci(b)]);
        }
    }
    let crit = r.critical_beta020;
    let analytic = 2.0 / (1.0f64 - 4.0 * 0.2).sqrt();
    crate::say!(
        out,
        "beta = 0.2: critical h*omega {crit:.6} (analytic 2/sqrt(1-4beta) = {analytic:.6}, rel. diff {:.2e})",
        (crit - analytic).abs() / analytic
    );
    figure("zs-stability.beta025.max_amplification", r.max_beta025);
    figure("zs-stability.beta020.critical_homega", crit);
}

/// `reproduce zs-stability`.
pub struct ZsStabilityExperiment;

impl Experiment for ZsStabilityExperiment {
    const NAME: &'static str = "zs-stability";
    const SEED: &'static str = "000 Thm 2.5";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str = "000 Thm 2.5: Z&S linear stability, beta = 0.25 vs 0.2";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
