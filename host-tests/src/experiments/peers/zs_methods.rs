//! The crate's two penalty methods as the peer comparisons search them: Z&S (000 eq 1.3) and
//! Z&Ss = SyLiPN (000 eq 2.7) on a penalised system, β = 0.4, with a given linear solve.

use super::fixed;
use crate::experiments::work_precision::leak;
use crate::experiments::work_precision::run_fixed;
use crate::experiments::work_precision::search::Method;
use macrostep::linalg::ShiftedSolve;
use macrostep::model::{System, ThirdDerivative};
use macrostep::zs::{Sylipn, ZhangSkeel, ZsParams};
use macrostep::State;

/// One run's setting: the penalised system at ω, its start, and what and where to observe.
pub struct PenaltyRun<P, O, S, const N: usize> {
    /// The penalised system.
    pub system: System<f64, P, N>,
    /// Its ω (for the labels).
    pub omega: f64,
    /// Start.
    pub s0: State<f64, N>,
    /// Output spacing and number of outputs.
    pub dt: f64,
    /// See [`PenaltyRun::dt`].
    pub n_out: usize,
    /// The observables of a state, appended.
    pub obs: O,
    /// The linear solve, and its name in the labels (`", banded"`, or `""` for dense).
    pub solver: (S, &'static str),
    /// The finest step the search may reach.
    pub h_min: f64,
}

/// Z&S (key `zs`) and Z&Ss = SyLiPN (key `sylipn`) on `run`'s system, β = 0.4; SyLiPN first
/// when `sylipn_first` (the order the study times and charts them in).
pub fn zs_and_sylipn<'a, P, O, S, const N: usize>(
    run: PenaltyRun<P, O, S, N>,
    sylipn_first: bool,
) -> Vec<Method<'a>>
where
    P: ThirdDerivative<f64, N> + Copy + 'a,
    O: Fn(&State<f64, N>, &mut Vec<f64>) + Copy + 'a,
    S: ShiftedSolve<f64, N> + Copy + 'a,
{
    let PenaltyRun {
        system,
        omega,
        s0,
        dt,
        n_out,
        obs,
        solver: (solver, solver_name),
        h_min,
    } = run;
    let p = ZsParams::with_beta(0.4);
    let zs = fixed(
        "zs",
        leak(format!("Z&S (000 eq 1.3){solver_name}, ω = {omega}")),
        dt,
        h_min,
        Box::new(move |h| {
            let integ = ZhangSkeel::with_solver(system, h, p, solver);
            run_fixed(integ, s0, dt, n_out, obs)
        }),
    );
    let sylipn = fixed(
        "sylipn",
        leak(format!(
            "Z&Ss = SyLiPN (000 eq 2.7){solver_name}, ω = {omega}"
        )),
        dt,
        h_min,
        Box::new(move |h| {
            let integ = Sylipn::with_solver(system, h, p, solver);
            run_fixed(integ, s0, dt, n_out, obs)
        }),
    );
    if sylipn_first {
        vec![sylipn, zs]
    } else {
        vec![zs, sylipn]
    }
}
