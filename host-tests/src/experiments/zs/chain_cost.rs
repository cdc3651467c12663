//! `reproduce zs-chain-cost` (000 §4.3, 004 §5.4.1): the cost per Z&S step on a chain of n
//! pendula grows linearly in n with the banded solver (cubically with the dense one), and a
//! step costs about the sum of its pieces (gradient, third-derivative contraction, solve).

use super::{dp_penalised, dp_start};
use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::report::{figure, Output, Table};
use crate::timing::{compare, Timing};
use macrostep::baselines::VelocityVerlet;
use macrostep::linalg::{Banded, Dense, ShiftedSolve};
use macrostep::model::{Potential, ThirdDerivative};
use macrostep::systems::Chain;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};
use nalgebra::vector;
use std::hint::black_box as bb;

/// A step of `integ` from `s0`, resetting every 64 steps (one FSAL miss per reset).
fn stepper<I: Integrator<f64, N>, const N: usize>(mut integ: I, s0: State<f64, N>) -> impl FnMut() {
    let mut s = s0;
    let mut k = 0usize;
    move || {
        if k.is_multiple_of(64) {
            s = s0;
        }
        k += 1;
        integ.step(std::hint::black_box(&mut s)).expect("stable");
    }
}

/// Thread CPU nanoseconds per call of each closure, timed against each other in `rounds`
/// interleaved rotated rounds of ≥ 2 ms samples (medians).
fn ns_per_call<const K: usize>(rounds: usize, fs: [&mut dyn FnMut(); K]) -> [f64; K] {
    let mut fs = fs;
    let m = compare(&mut fs, &Timing::rounds(rounds));
    core::array::from_fn(|i| m[i].median * 1e9)
}

/// (Verlet, dense Z&S, banded Z&S, sum of the banded step's pieces) in ns for a chain of `D`.
fn chain_costs<const N: usize, const D: usize>(rounds: usize) -> [f64; 4] {
    let chain = Chain::<f64, N, D>::slanted();
    let sys = chain.penalised(20.0).expect("valid");
    let s0 = chain.initial_state();
    let (h, p) = (0.05, ZsParams::with_beta(0.4));
    let mut vv = stepper(VelocityVerlet::new(sys, h / 20.0).expect("valid"), s0);
    let mut dense = stepper(ZhangSkeel::new(sys, h, p).expect("valid"), s0);
    let mut banded = stepper(
        ZhangSkeel::with_solver(sys, h, p, Banded::<4>).expect("valid"),
        s0,
    );
    let q = s0.q + nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.01 * (i as f64).sin());
    let a = nalgebra::SVector::<f64, N>::from_fn(|i, _| 0.1 * (i as f64).cos());
    let pot = sys.potential;
    let mut solver = Banded::<4>;
    let [vv, dense, banded, grad, third, solve] = ns_per_call(
        rounds,
        [
            &mut vv,
            &mut dense,
            &mut banded,
            &mut || _ = bb(pot.gradient(bb(&q))),
            &mut || _ = bb(pot.third_contraction(bb(&q), &a)),
            &mut || {
                bb(solver
                    .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
                    .expect("regular"));
            },
        ],
    );
    [vv, dense, banded, grad + third + solve]
}

/// What to run.
pub struct Setup {
    /// Interleaved rounds (medians) of the CPU-time comparison at each size.
    pub rounds: usize,
}

impl Setup {
    /// 7 rounds.
    pub fn paper() -> Self {
        Self { rounds: 7 }
    }

    /// 3 rounds.
    pub fn quick() -> Self {
        Self { rounds: 3 }
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
fn double_pendulum_costs(rounds: usize) -> [f64; 4] {
    let sys = dp_penalised(20.0);
    let (h, p) = (0.1, ZsParams::with_beta(0.4));
    let mut s0 = dp_start();
    ZhangSkeel::new(sys, h, p)
        .expect("valid")
        .integrate(&mut s0, 20)
        .expect("stable");
    let mut step = stepper(ZhangSkeel::new(sys, h, p).expect("valid"), s0);
    let q = s0.q;
    let a = vector![0.1, -0.2, 0.05, 0.3];
    let pot = sys.potential;
    let mut dense = Dense;
    ns_per_call(
        rounds,
        [
            &mut step,
            &mut || _ = bb(pot.gradient(bb(&q))),
            &mut || _ = bb(pot.third_contraction(bb(&q), &a)),
            &mut || {
                bb(dense
                    .solve(&sys.mass, &pot, bb(&q), 0.4 * h * h, &a)
                    .expect("regular"));
            },
        ],
    )
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let rounds = setup.rounds;
    Results {
        ns: [5.0, 10.0, 20.0, 40.0],
        rows: [
            chain_costs::<10, 5>(rounds),
            chain_costs::<20, 10>(rounds),
            chain_costs::<40, 20>(rounds),
            chain_costs::<80, 40>(rounds),
        ],
        double_pendulum: double_pendulum_costs(rounds),
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
