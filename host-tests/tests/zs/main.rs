//! The Zhang–Skeel family: order, symmetry, symplecticity, stability, cost, bad input, cross-checks.

use host_tests::fixtures::{hh, hh_split, hh_start, HenonHeiles, PendulumPotential};
use host_tests::measure::{integrator_defect, loglog_slope, reversibility_error};
use host_tests::zs_support::{dyn_zs, hh_grad, hh_hess, hh_third, DynPotential, FpuChain};
use host_tests::{for_scalars, Tolerance};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::linalg::{BandMut, Banded};
use macrostep::model::{Hessian, Mass, Potential, Quadratic, Split, System, ThirdDerivative};
use macrostep::systems::HarmonicOscillator;
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkOneIteration, NewmarkParams, PushForwardNewmark,
    StiffSylipn, Sylipn, ZhangSkeel, ZsParams,
};
use macrostep::{ConfigError, Integrator, Real, State, StepError, Stepper};
use nalgebra::{matrix, vector, DVector, SMatrix, SVector};
use std::cell::Cell;

mod cost_and_errors;
mod cross_checks;
mod order;
mod structure;

fn p(beta: f64) -> ZsParams<f64> {
    ZsParams::with_beta(beta)
}

fn pn(beta: f64, newton: ImplicitNewtonParams<f64>) -> NewmarkParams<f64> {
    NewmarkParams { beta, newton }
}

/// Error at T of a run with step h against a run with h/2 (Richardson form): the successive
/// differences shrink like h^p, so their slope is the order. The expected value (the order) is a
/// number from the paper, not from the code under test.
fn successive_difference_slope<I: Integrator<f64, 2>>(
    make: impl Fn(f64) -> I,
    s0: State<f64, 2>,
    t_end: f64,
    hs: &[f64],
) -> f64 {
    let run = |h: f64| {
        let mut integ = make(h);
        let mut s = s0;
        let n = (t_end / h).round() as usize;
        integ.integrate(&mut s, n).unwrap();
        s
    };
    let sols: Vec<_> = hs.iter().map(|&h| run(h)).collect();
    let mut x = vec![];
    let mut e = vec![];
    for k in 0..hs.len() - 1 {
        let d = (sols[k].q - sols[k + 1].q)
            .amax()
            .max((sols[k].v - sols[k + 1].v).amax());
        x.push(hs[k]);
        e.push(d);
    }
    loglog_slope(&x, &e)
}
