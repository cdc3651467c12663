//! `reproduce sim-stiff-friction` (004 Remark 4.2.5): with stiff friction c = O(ω) SIM1 stays
//! accurate at macroscopic H while GLA needs H ≪ 1/c.

use crate::experiments::Experiment;
use crate::reference;
use crate::report::{figure, sci, Output, Table};
use macrostep::langevin::{Gla, GlaParams, StochasticIntegrator};
use macrostep::model::Mass;
use macrostep::nalgebra::Vector2;
use macrostep::sim::{FastParams, Sim1, SimSystem};
use macrostep::systems::TwoSpring;
use macrostep::Integrator;
use rand::SeedableRng;
use rand_pcg::Pcg32;

/// Final `max |q(T) − q_ref(T)|` on the two-spring system with `ω = 100`, stiff friction `c`
/// and no noise: SIM1 (`sim = true`) or GLA (noise switched off by `β = 10³⁰⁰`) with step `h`;
/// `∞` on blow-up.
pub fn stiff_friction_error(c: f64, sim: bool, h: f64, t_end: f64, q_ref: &Vector2<f64>) -> f64 {
    let model = TwoSpring::<f64>::new(100.0, c, 10.0).expect("model");
    let split = model.split();
    let n = (t_end / h).round() as usize;
    let mut s = model.initial_state();
    let ok = if sim {
        let system = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
        let mut sim1 = Sim1::new(system, h, FastParams::langevin(c, 0.0)).expect("sim");
        // Sim1 is also a StochasticIntegrator (in scope for GLA): name the deterministic step.
        Integrator::integrate(&mut sim1, &mut s, n)
    } else {
        let params = GlaParams {
            friction: c,
            inverse_temperature: 1e300,
        };
        let mut gla = Gla::new(model.system(), h, params).expect("gla");
        let mut rng = Pcg32::seed_from_u64(0);
        gla.integrate_noisy(&mut s, n, &mut rng)
    };
    let e = (s.q - q_ref).amax();
    if ok.is_err() || !e.is_finite() || e > 1e6 {
        f64::INFINITY
    } else {
        e
    }
}

/// DOP853 reference `q(T)` of the damped two-spring system (no noise).
pub fn stiff_friction_reference(c: f64, t_end: f64) -> Vector2<f64> {
    let model = TwoSpring::<f64>::new(100.0, c, 10.0).expect("model");
    let sys = model.system();
    let s0 = model.initial_state();
    let y = reference::solve_to(
        |_t, y, dy| {
            let q = Vector2::new(y[0], y[1]);
            let a = sys.acceleration(&q);
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = a[0] - c * y[2];
            dy[3] = a[1] - c * y[3];
        },
        0.0,
        &[s0.q[0], s0.q[1], 0.0, 0.0],
        t_end,
        1e-12,
        1e-12,
    );
    Vector2::new(y[0], y[1])
}

/// What to run.
pub struct Setup {
    /// Final time.
    pub t_end: f64,
    /// The frictions.
    pub cs: Vec<f64>,
    /// The runs per friction: `(SIM1?, H)`.
    pub runs: Vec<(bool, f64)>,
}

impl Setup {
    /// T = 2, c = 100 and 1000, SIM1 at H = 0.1 … 0.01, GLA at H = 0.05 … 10⁻⁴.
    pub fn paper() -> Self {
        Self {
            t_end: 2.0,
            cs: vec![100.0, 1000.0],
            runs: vec![
                (true, 0.1),
                (true, 0.05),
                (true, 0.01),
                (false, 0.05),
                (false, 0.01),
                (false, 1e-3),
                (false, 1e-4),
            ],
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured: `(c, SIM1?, H, error in q)` per run.
pub struct Results {
    /// Final time.
    pub t_end: f64,
    /// The runs.
    pub errors: Vec<(f64, bool, f64, f64)>,
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let mut errors = vec![];
    for &c in &setup.cs {
        let r = stiff_friction_reference(c, setup.t_end);
        for &(sim, h) in &setup.runs {
            errors.push((c, sim, h, stiff_friction_error(c, sim, h, setup.t_end, &r)));
        }
    }
    Results {
        t_end: setup.t_end,
        errors,
    }
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    crate::say!(
        out,
        "Remark 4.2.5: two-spring system ω = 100 with stiff friction c = O(ω) (ε^(-1/2)), σ = 0; \
         error in q at T = {} vs DOP853",
        r.t_end
    );
    let tab = Table::new(out, &["c", "method", "H", "err q"]);
    for &(c, sim, h, e) in &r.errors {
        let name = if sim { "sim1" } else { "gla" };
        tab.row(&[format!("{c}"), name.into(), format!("{h}"), sci(e)]);
        figure(&format!("sim-stiff-friction.c{c}.{name}.H{h}.err_q"), e);
    }
}

/// `reproduce sim-stiff-friction`.
pub struct SimStiffFrictionExperiment;

impl Experiment for SimStiffFrictionExperiment {
    const NAME: &'static str = "sim-stiff-friction";
    const SEED: &'static str = "004 Rem 4.2.5";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "004 Remark 4.2.5: stiff friction c = O(ω): SIM accurate at macroscopic H, GLA not";
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
