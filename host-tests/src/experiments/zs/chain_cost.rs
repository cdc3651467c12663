//! `reproduce zs-chain-cost` (000 §4.3, 004 §5.4.1): the cost per Z&S step on a chain of n
//! pendula grows linearly in n with the banded solver (cubically with the dense one), and a
//! step costs about the sum of its pieces (gradient, third-derivative contraction, solve).

use super::{dp_penalised, dp_start};
use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::report::{figure, Output, Table};
use macrostep::baselines::VelocityVerlet;
use macrostep::linalg::{Banded, Dense, ShiftedSolve};
use macrostep::model::{Potential, ThirdDerivative};
use macrostep::systems::Chain;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use nalgebra::vector;
use std::hint::black_box as bb;
use std::time::Instant;

/// Mean wall-clock nanoseconds of `f` over `reps` calls (after a warm-up of `reps / 10`).
fn time_ns(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..reps / 10 {
        f();
    }
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}

/// ns per step of `integ` from `s0`, resetting every 64 steps (one FSAL miss per reset).
fn step_ns<I: Integrator<f64, N>, const N: usize>(
    mut integ: I,
    s0: State<f64, N>,
    reps: usize,
) -> f64 {
    let mut s = s0;
    let mut k = 0usize;
    time_ns(reps, || {
        if k.is_multiple_of(64) {
            s = s0;
        }
        k += 1;
        integ.step(std::hint::black_box(&mut s)).expect("stable");
    })
}

/// (Verlet, dense Z&S, banded Z&S, sum of the banded step's pieces) in ns for a chain of `D`.
fn chain_costs<const N: usize, const D: usize>(reps: usize) -> [f64; 4] {
    let chain = Chain::<f64, N, D>::slanted();
    let sys = chain.penalised(20.0).expect("valid");
    let s0 = chain.initial_state();
    let (h, p) = (0.05, ZsParams::with_beta(0.4));
    let vv = step_ns(VelocityVerlet::new(sys, h / 20.0).expect("valid"), s0, reps);
    let dense = step_ns(ZhangSkeel::new(sys, h, p).expect("valid"), s0, reps);
    let banded = step_ns(
        ZhangSkeel::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s0,
        reps,
    );
    let q = s0.q + nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.01 * (i as f64).sin());
    let a = nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.1 * (i as f64).cos());
    let pot = sys.potential;
    let grad = time_ns(reps, || {
        bb(pot.gradient(bb(&q)));
    });
    let third = time_ns(reps, || {
        bb(pot.third_contraction(bb(&q), &a));
    });
    let mut solver = Banded::<4>;
    let solve = time_ns(reps, || {
        bb(solver
            .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
            .expect("regular"));
    });
    [vv, dense, banded, grad + third + solve]
}

/// What to run.
pub struct Setup {
    /// Timed repeats at n = 5, 10 (a quarter at 20, a sixteenth at 40, five times on the
    /// double pendulum).
    pub reps: usize,
}

impl Setup {
    /// 20 000 repeats.
    pub fn paper() -> Self {
        Self { reps: 20_000 }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// What the experiment measured.
pub struct Results {
    /// The chain sizes n.
    pub ns: [f64; 4],
    /// Per n: (Verlet, dense Z&S, banded Z&S, sum of the banded step's pieces) in ns.
    pub rows: [[f64; 4]; 4],
    /// The double pendulum with the dense solver: step, gradient, contraction, solve in ns.
    pub double_pendulum: [f64; 4],
}

/// Z&S step and its pieces on the penalised double pendulum with the dense solver, in ns.
fn double_pendulum_costs(reps: usize) -> [f64; 4] {
    let sys = dp_penalised(20.0);
    let (h, p) = (0.1, ZsParams::with_beta(0.4));
    let mut s0 = dp_start();
    ZhangSkeel::new(sys, h, p)
        .expect("valid")
        .integrate(&mut s0, 20)
        .expect("stable");
    let step = step_ns(ZhangSkeel::new(sys, h, p).expect("valid"), s0, reps);
    let q = s0.q;
    let a = vector![0.1, -0.2, 0.05, 0.3];
    let pot = sys.potential;
    let grad = time_ns(reps, || {
        bb(pot.gradient(bb(&q)));
    });
    let third = time_ns(reps, || {
        bb(pot.third_contraction(bb(&q), &a));
    });
    let mut dense = Dense;
    let solve = time_ns(reps, || {
        bb(dense
            .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
            .expect("regular"));
    });
    [step, grad, third, solve]
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let reps = setup.reps;
    Results {
        ns: [5.0, 10.0, 20.0, 40.0],
        rows: [
            chain_costs::<10, 5>(reps),
            chain_costs::<20, 10>(reps),
            chain_costs::<40, 20>(reps / 4),
            chain_costs::<80, 40>(reps / 16),
        ],
        double_pendulum: double_pendulum_costs(reps * 5),
    }
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let t = Table::new(
        out,
        &[
            "n",
            "verlet ns",
            "zs dense ns",
            "zs banded ns",
            "pieces ns",
            "ratio",
        ],
    );
    for (n, r) in r.ns.iter().zip(&r.rows) {
        t.row(&[
            format!("{n}"),
            format!("{:.0}", r[0]),
            format!("{:.0}", r[1]),
            format!("{:.0}", r[2]),
            format!("{:.0}", r[3]),
            format!("{:.2}", r[2] / r[3]),
        ]);
        figure(&format!("zs-chain-cost.n{n}.banded_ns"), r[2]);
        figure(&format!("zs-chain-cost.n{n}.dense_ns"), r[1]);
        figure(&format!("zs-chain-cost.n{n}.overhead_ratio"), r[2] / r[3]);
    }
    let [step, grad, third, solve] = r.double_pendulum;
    let pieces = grad + third + solve;
    crate::say!(
        out,
        "double pendulum: Z&S step {step:.0} ns; gradient {grad:.0} + contraction {third:.0} + Hessian, factor and solve {solve:.0} = {pieces:.0} ns; ratio {:.2}",
        step / pieces
    );
    figure(
        "zs-chain-cost.double_pendulum.overhead_ratio",
        step / pieces,
    );
    let col = |k: usize| r.rows.iter().map(|r| r[k]).collect::<Vec<_>>();
    figure("zs-chain-cost.banded.slope", loglog_slope(&r.ns, &col(2)));
    figure("zs-chain-cost.dense.slope", loglog_slope(&r.ns, &col(1)));
    figure("zs-chain-cost.verlet.slope", loglog_slope(&r.ns, &col(0)));
}

/// `reproduce zs-chain-cost`.
pub struct ZsChainCostExperiment;

impl Experiment for ZsChainCostExperiment {
    const NAME: &'static str = "zs-chain-cost";
    const SEED: &'static str = "000 §4.3, 004 §5.4.1";
    const SECONDS: f64 = 1.5;
    const ABOUT: &'static str =
        "000 §4.3 / 004 §5.4.1: Z&S cost per step on a chain of n pendula, dense vs banded";
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
