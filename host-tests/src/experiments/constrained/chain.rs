//! `reproduce chain`: the chain of 20 pendula (004 §5.4.3), RATTLE against SyLiPN on the
//! penalised chain.

use crate::experiments::Experiment;
use crate::report::{figure, Output, Table};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::{Integrator, State};

/// Sampled chain ends `[(t, (x₁, y₁, x_n, y_n))]`.
type Samples = Vec<(f64, [f64; 4])>;

/// `(x₁, y₁, x_n, y_n)` of a chain state.
fn chain_ends<const N: usize>(s: &State<f64, N>) -> [f64; 4] {
    [s.q[0], s.q[1], s.q[N - 2], s.q[N - 1]]
}

/// The first sample time at which two trajectories of chain ends (sampled at the same times)
/// differ by more than `tol` in max norm; `t_end` if never.
pub fn agree_until(a: &[(f64, [f64; 4])], b: &[(f64, [f64; 4])], tol: f64, t_end: f64) -> f64 {
    let mut last = t_end;
    for ((t, x), (_, y)) in a.iter().zip(b) {
        if (0..4).any(|i| (x[i] - y[i]).abs() > tol) {
            return *t;
        }
        last = *t;
    }
    // A run that stopped early agrees only as far as it got.
    if a.len().min(b.len()) < a.len().max(b.len()) {
        last
    } else {
        t_end
    }
}

/// One RATTLE run on the chain: samples, thread CPU time per step in ns, and the failed step (its
/// time and the error, Newton not converging), if any.
pub struct RattleRun {
    /// `[(t, ends)]`.
    pub samples: Samples,
    /// Thread CPU time per step, ns.
    pub ns: f64,
    /// The step size.
    pub h: f64,
    /// `(t, error)` of the step that failed.
    pub failed: Option<(f64, String)>,
}

impl RattleRun {
    /// The time of the failed step, if any.
    fn failed_at(&self) -> Option<f64> {
        self.failed.as_ref().map(|f| f.0)
    }

    /// Prints the failure line, if any.
    fn say_failure(&self, out: &Output) {
        if let Some((t, e)) = &self.failed {
            crate::say!(
                out,
                "RATTLE h = {}: step from t = {t:.3} failed: {e}",
                self.h
            );
        }
    }
}

/// RATTLE on the chain of `n = N/2` pendula from the horizontal start, sampled every `every`
/// steps; a failed step ends the run.
fn rattle_chain<const N: usize, const D: usize>(h: f64, t_end: f64, every: usize) -> RattleRun {
    use macrostep::systems::Chain;
    let chain = Chain::<f64, N, D>::horizontal();
    let params = ConstraintNewtonParams {
        tol: 1e-11,
        manifold_tol: 1e-10,
        ..ConstraintNewtonParams::default()
    };
    let mut ra = Rattle::new(chain.system(), chain.constraint(), h, params).expect("Rattle");
    let mut s = chain.initial_state();
    let n = (t_end / h).round() as usize;
    let mut out = Vec::new();
    let start = crate::timing::thread_cpu_seconds();
    let mut failed = None;
    let mut done = 0usize;
    for k in 1..=n {
        if let Err(e) = ra.step(&mut s) {
            failed = Some((s.t, format!("{e:?}")));
            break;
        }
        done = k;
        if k % every == 0 {
            out.push((s.t, chain_ends(&s)));
        }
    }
    let ns = (crate::timing::thread_cpu_seconds() - start) * 1e9 / done.max(1) as f64;
    RattleRun {
        samples: out,
        ns,
        h,
        failed,
    }
}

/// What to run (the chain of 20 pendula; the sizes of the cost sweep are fixed: n = 5 … 40).
pub struct Setup {
    /// Final time of the trajectory runs.
    pub t_end: f64,
    /// Final time of each cost-per-step run.
    pub cost_t_end: f64,
    /// Repetitions of each cost run (the best is kept).
    pub cost_reps: usize,
}

impl Setup {
    /// 004 §5.4.3: T = 20; cost runs to T = 2, best of 5.
    pub fn paper() -> Self {
        Self {
            t_end: 20.0,
            cost_t_end: 2.0,
            cost_reps: 5,
        }
    }

    /// T = 5, before RATTLE h = 0.05 fails (t ≈ 19.5) and SyLiPN h = 0.1 diverges (t ≈ 6);
    /// cost runs to T = 0.5, one repetition.
    pub fn quick() -> Self {
        Self {
            t_end: 5.0,
            cost_t_end: 0.5,
            cost_reps: 1,
        }
    }
}

/// The RATTLE runs: h = 0.05, 0.025, 0.0125 and the converged reference h = 1e-3, 5e-4.
pub struct RattleRuns {
    /// h = 0.05.
    pub h05: RattleRun,
    /// h = 0.025.
    pub h025: RattleRun,
    /// h = 0.0125.
    pub h0125: RattleRun,
    /// h = 1e-3.
    pub h1e3: RattleRun,
    /// h = 5e-4.
    pub h5e4: RattleRun,
}

/// The SyLiPN runs (h = 0.1 and 0.0125, ω = 100) and the cost sweep.
pub struct SylipnRuns {
    /// h = 0.1: samples and ns per step.
    pub coarse: (Samples, f64),
    /// h = 0.0125: samples.
    pub fine: Samples,
    /// ns per step (best of the repetitions) for n = 5, 10, 20, 40 pendula.
    pub costs: [f64; 4],
}

/// What the experiment measured.
pub struct Results {
    /// Final time.
    pub t_end: f64,
    /// RATTLE.
    pub rattle: RattleRuns,
    /// SyLiPN.
    pub sylipn: SylipnRuns,
}

/// Runs RATTLE and SyLiPN on the chain of 20 pendula and the SyLiPN cost sweep.
pub fn compute(setup: &Setup) -> Results {
    let t_end = setup.t_end;
    // Samples every 0.1.
    let rattle = RattleRuns {
        h05: rattle_chain::<40, 20>(0.05, t_end, 2),
        h025: rattle_chain::<40, 20>(0.025, t_end, 4),
        h0125: rattle_chain::<40, 20>(0.0125, t_end, 8),
        h1e3: rattle_chain::<40, 20>(1e-3, t_end, 100),
        h5e4: rattle_chain::<40, 20>(5e-4, t_end, 200),
    };
    let coarse = sylipn_chain::<40, 20>(0.1, 100.0, t_end, 1);
    let (fine, _) = sylipn_chain::<40, 20>(0.0125, 100.0, t_end, 8);
    // Cost per step against n (short runs: the cost per step does not depend on the state).
    let best = |f: &dyn Fn() -> f64| {
        (0..setup.cost_reps)
            .map(|_| f())
            .fold(f64::INFINITY, f64::min)
    };
    let tc = setup.cost_t_end;
    let costs = [
        best(&|| sylipn_chain::<10, 5>(0.1, 100.0, tc, 1000).1),
        best(&|| sylipn_chain::<20, 10>(0.1, 100.0, tc, 1000).1),
        best(&|| sylipn_chain::<40, 20>(0.1, 100.0, tc, 1000).1),
        best(&|| sylipn_chain::<80, 40>(0.1, 100.0, tc, 1000).1),
    ];
    Results {
        t_end,
        rattle,
        sylipn: SylipnRuns {
            coarse,
            fine,
            costs,
        },
    }
}

/// Prints the RATTLE agreement lines, the SyLiPN comparison, the cost table and the `figure`
/// lines.
pub fn report(r: &Results, out: &Output) {
    let t_end = r.t_end;
    let ra = &r.rattle;
    crate::say!(
        out,
        "004 §5.4.3: chain of 20 pendula, horizontal at rest, L = 1, g = 1, T = {t_end}"
    );
    ra.h05.say_failure(out);
    ra.h025.say_failure(out);
    ra.h0125.say_failure(out);
    let fail05 = ra.h05.failed_at();
    // A failed run stops early: the comparison ends there (agree_until ≤ its last sample).
    let end05 = fail05.unwrap_or(t_end);
    let chaos = agree_until(&ra.h05.samples, &ra.h025.samples, 0.05, end05);
    let end025 = ra.h025.failed_at().unwrap_or(t_end);
    let chaos2 = agree_until(&ra.h025.samples, &ra.h0125.samples, 0.05, end025);
    crate::say!(
        out,
        "RATTLE h = 0.05 vs h = 0.025 agree (|Δ| ≤ 0.05 in x₁, y₁, x₂₀, y₂₀) until t = {chaos}"
    );
    crate::say!(
        out,
        "RATTLE h = 0.025 vs h = 0.0125 agree until t = {chaos2}"
    );
    figure(
        "chain.n20.rattle_h0.05_failed_at",
        fail05.unwrap_or(f64::NAN),
    );
    figure("chain.n20.rattle_h0.05_vs_h0.025_agree_until", chaos);
    figure("chain.n20.rattle_h0.025_vs_h0.0125_agree_until", chaos2);
    figure("chain.n20.rattle_ns_per_step", ra.h05.ns);
    figure("chain.n20.rattle_h0.025_ns_per_step", ra.h025.ns);
    // The converged reference: RATTLE at h = 1e-3 and 5e-4 (same samples every 0.1).
    ra.h1e3.say_failure(out);
    ra.h5e4.say_failure(out);
    let converged = agree_until(&ra.h1e3.samples, &ra.h5e4.samples, 0.05, t_end);
    let coarse = agree_until(&ra.h0125.samples, &ra.h5e4.samples, 0.05, t_end);
    crate::say!(
        out,
        "RATTLE h = 1e-3 vs h = 5e-4 agree until t = {converged} (the converged reference)"
    );
    crate::say!(
        out,
        "RATTLE h = 0.0125 vs h = 5e-4 agree until t = {coarse}"
    );
    figure("chain.n20.rattle_h0.001_vs_h0.0005_agree_until", converged);
    figure("chain.n20.rattle_h0.0125_vs_h0.0005_agree_until", coarse);
    report_sylipn(r, out);
}

/// `reproduce chain`: 004 §5.4.3, chain of 20 pendula (x_i(0) = i, y_i(0) = 0, L_i = 1, T = 20).
pub struct ChainExperiment;

impl Experiment for ChainExperiment {
    const NAME: &'static str = "chain";
    const SEED: &'static str = "004 §5.4.3";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "004 §5.4.3: chain of 20 pendula, SyLiPN (penalty) vs RATTLE, cost per step";
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

/// SyLiPN (004 Integrator 5.2.3, banded solver) on the penalised chain of `n = N/2` pendula from
/// the horizontal start: samples every `every` steps (up to the first failed step, where the
/// default guards stop a diverging run) and ns per step.
fn sylipn_chain<const N: usize, const D: usize>(
    h: f64,
    omega: f64,
    t_end: f64,
    every: usize,
) -> (Samples, f64) {
    use macrostep::linalg::Banded;
    use macrostep::systems::Chain;
    use macrostep::zs::{Sylipn, ZsParams};
    let chain = Chain::<f64, N, D>::horizontal();
    let sys = chain.penalised(omega).expect("penalty");
    let mut zs =
        Sylipn::with_solver(sys, h, ZsParams::with_beta(0.4), Banded::<4>).expect("SyLiPN");
    let mut s = chain.initial_state();
    let n = (t_end / h).round() as usize;
    let mut out = Vec::new();
    let start = crate::timing::thread_cpu_seconds();
    let mut done = 0;
    for k in 1..=n {
        if zs.step(&mut s).is_err() {
            break;
        }
        done = k;
        if k % every == 0 {
            out.push((s.t, chain_ends(&s)));
        }
    }
    (
        out,
        (crate::timing::thread_cpu_seconds() - start) * 1e9 / done.max(1) as f64,
    )
}

/// The SyLiPN half of `reproduce chain`: agreement with RATTLE, cost per step, cost slope in n.
fn report_sylipn(r: &Results, out: &Output) {
    let t_end = r.t_end;
    let (r05, r025) = (&r.rattle.h05.samples, &r.rattle.h025.samples);
    let converged = &r.rattle.h5e4.samples;
    let (zs, ns) = (&r.sylipn.coarse.0, r.sylipn.coarse.1);
    let zs_fine = &r.sylipn.fine;
    // At ωh = 10 the run diverges (energy growing without bound from t ≈ 6); the step guards
    // end it there and every comparison below covers the steps before that.
    let zs_end = zs.last().map_or(0.0, |x| x.0);
    crate::say!(out, "SyLiPN (h = 0.1, ω = 100) ran to t = {zs_end:.2} of {t_end} before a step guard stopped it");
    figure("chain.n20.sylipn_ran_until", zs_end);
    // RATTLE h = 0.05 stops at its failure; the comparison covers its samples only.
    let end05 = r05.last().map_or(0.0, |x| x.0);
    let a05 = agree_until(zs, r05, 0.05, end05);
    let a025 = agree_until(zs, r025, 0.05, t_end);
    crate::say!(out, "SyLiPN (h = 0.1, β = 0.4, ω = 100, banded) vs RATTLE h = 0.05: agree until t = {a05} (RATTLE ran to {end05:.2})");
    crate::say!(out, "SyLiPN vs RATTLE h = 0.025: agree until t = {a025}");
    // Is the early departure SyLiPN's step or the finite-ω penalty model? Refine SyLiPN's step.
    let a_fine = agree_until(zs_fine, r025, 0.05, t_end);
    crate::say!(out, "SyLiPN h = 0.0125 (ω = 100) vs RATTLE h = 0.025: agree until t = {a_fine} — the penalty model (finite ω), not the step, limits the agreement");
    figure("chain.n20.agree_until", a05);
    figure("chain.n20.sylipn_h0.0125_agree_until", a_fine);
    figure("chain.n20.agree_until_rattle_h0.025", a025);
    let a_conv = agree_until(zs, converged, 0.05, t_end);
    let a_fine_conv = agree_until(zs_fine, converged, 0.05, t_end);
    crate::say!(out, "against RATTLE h = 5e-4: SyLiPN h = 0.1 agrees until t = {a_conv}, SyLiPN h = 0.0125 until t = {a_fine_conv}");
    figure("chain.n20.agree_until_rattle_h0.0005", a_conv);
    figure(
        "chain.n20.sylipn_h0.0125_agree_until_rattle_h0.0005",
        a_fine_conv,
    );
    figure("chain.n20.zss_ns_per_step", ns);
    let ns_list = [5.0, 10.0, 20.0, 40.0];
    let costs = r.sylipn.costs;
    let table = Table::new(out, &["n", "SyLiPN ns/step"]);
    for (n, c) in ns_list.iter().zip(&costs) {
        table.row(&[format!("{n}"), format!("{c:.0}")]);
    }
    let slope = crate::measure::loglog_slope(&ns_list, &costs);
    figure("chain.cost_slope", slope);
}
