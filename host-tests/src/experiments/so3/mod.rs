//! `reproduce so3`: the magnetised rigid body of 000 §4.5 (Figs 9–10).
//!
//! The paper runs the linearised Z&S (`h = 0.1`, `ω = 10`, `β = 0.4`) and the Cayley
//! variational benchmark (`h = 0.1`) from `R(0) = I`, `Ω(0) = (1, 0.2, 0.1)` and compares both
//! with the benchmark at `h = 10⁻⁴`, reporting three curves each (Fig 10): the deviation
//! `‖R − R_ref‖` (here the Frobenius norm), the energy error and the orthogonality defect
//! `‖RᵀR − I‖_F`. It claims the linearised Z&S is comparable in accuracy at a fraction of the
//! cost (0.03 s against 1.45 s). The paper gives neither `Bμ` nor the final time: this uses
//! `Bμ = 1` (the core's [`RigidBody::paper`]) and `T = 10` (over `T = 50` both methods'
//! phase errors at `h = 0.1` saturate at `O(1)`: 1.40 and 0.94).
//!
//! Energies: for the relaxed Z&S the conserved quantity of its modified (penalised) system,
//! `½tr(ṘJ_dṘᵀ) + BμR₃₃ + ½ω²‖RᵀR − I‖²`; for the benchmark `½|Ω|² + BμR₃₃`. Both start at the
//! same value (`R(0) = I`: no penalty energy).
//!
//! Orders are slopes against DOP853 (`rtol = atol = 10⁻¹³`) of each method's own continuous
//! system: the penalised relaxed system for Z&S (a fixed-`ω` method converges to it, not to the
//! rigid body), the rigid body for the benchmark. The cost ratio is at equal `max ‖R − R_ref‖`
//! over `[0, T]`: the benchmark's step is scaled (first order) until it matches the Z&S error,
//! then both runs are timed alternately and the medians compared.

mod charts;
mod report;

use crate::measure::loglog_slope;
use macrostep::lie::{
    matrix_of, orthogonality_error, BodyState, CayleyVariational, LinearizedZs, RigidBody,
    So3ZsParams,
};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Guards, Integrator, State};
use nalgebra::Matrix3;

pub use crate::rigid::so3::*;

/// The measurement setup.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Final time of the accuracy comparison.
    pub t_end: f64,
    /// Step of the methods under test (`0.1`).
    pub h: f64,
    /// Step of the benchmark used as the reference (`10⁻⁴`).
    pub h_ref: f64,
    /// Penalty parameters (`ω = 10`, `β = 0.4`).
    pub params: So3ZsParams<f64>,
    /// Final time of the order runs.
    pub t_order: f64,
    /// Steps of the long energy run at `h`.
    pub long_steps: usize,
    /// Timing repeats per method (interleaved).
    pub timing_reps: usize,
    /// Simulated time of each timed run (long enough to time: 10⁵ Z&S steps in the paper
    /// setup).
    pub timing_t: f64,
}

impl Setup {
    /// The paper's setting with `T = 10`, 10⁶ steps for the energy bound.
    pub fn paper() -> Self {
        Self {
            t_end: 10.0,
            h: 0.1,
            h_ref: 1e-4,
            params: So3ZsParams::default(),
            t_order: 2.0,
            long_steps: 1_000_000,
            timing_reps: 7,
            timing_t: 1e4,
        }
    }

    /// A cheap version for tests (`T = 5`, 10⁴ long steps, reference `h = 10⁻³`).
    pub fn quick() -> Self {
        Self {
            t_end: 5.0,
            h_ref: 1e-3,
            long_steps: 10_000,
            timing_reps: 3,
            timing_t: 100.0,
            ..Self::paper()
        }
    }
}

/// Everything `reproduce so3` prints.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// Trapezoidal linearised Z&S at `h` (the default, `so3.zs.*`).
    pub zs: RunErrors,
    /// First-order linearised Z&S at `h`.
    pub zs1: RunErrors,
    /// Cayley benchmark at `h`.
    pub cayley: RunErrors,
    /// Trapezoidal Z&S in `f32` at `h`.
    pub zs_f32: RunErrors,
    /// `max ‖R_f32 − R_f64‖_F` of the trapezoidal Z&S at `h`.
    pub f32_vs_f64: f64,
    /// Observed orders (first-order form, trapezoidal form, benchmark).
    pub order_zs1: f64,
    /// Trapezoidal form.
    pub order_zs2: f64,
    /// Benchmark.
    pub order_cayley: f64,
    /// The order runs' `(h, error at t_order)`: first-order Z&S, trapezoidal Z&S, benchmark.
    pub order_points: [Vec<(f64, f64)>; 3],
    /// Final time of the order runs.
    pub t_order: f64,
    /// Fig 10 curves `[t, ‖R − R_ref‖_F, |E − E₀|, ‖RᵀR − I‖_F]` every step at `h`: trapezoidal
    /// Z&S, benchmark.
    pub fig10: [Vec<[f64; 4]>; 2],
    /// Symplecticity defects of 10 steps in the canonical ℝ¹⁸ coordinates (trapezoidal, first
    /// order).
    pub defect_zs2: f64,
    /// First-order form.
    pub defect_zs1: f64,
    /// `max |E − E_0|` of the trapezoidal Z&S over `long_steps` steps, and in the last tenth.
    pub long_energy_err: f64,
    /// Maximum of the orthogonality defect over the long run.
    pub long_orth_err: f64,
    /// Benchmark step giving the Z&S error, and the error it reaches.
    pub h_equal: f64,
    /// The error matched (the Z&S `max ‖R − R_ref‖`).
    pub err_equal: f64,
    /// The benchmark's `(h, max ‖R − R_ref‖)` on the step grid.
    pub grid: Vec<(f64, f64)>,
    /// Median seconds per unit simulated time: benchmark at `h_equal`, Z&S at `h`.
    pub cost_cayley: f64,
    /// Z&S seconds per unit time.
    pub cost_zs: f64,
    /// Median seconds per unit time of the benchmark at `h` (the paper's equal-step comparison).
    pub cost_cayley_same_h: f64,
    /// Steps of the long energy run.
    pub long_steps: usize,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The curves of 000 Fig 10 at every step: `[t, ‖R − R_ref‖_F, |E − E₀|, ‖RᵀR − I‖_F]` of the
/// trapezoidal Z&S (energy of its penalised system) and of the benchmark (rigid-body energy),
/// as [`zs_errors`] and [`cayley_errors`] measure them.
fn fig10_curves(
    body: &RigidBody<f64>,
    omega: f64,
    h: f64,
    zs: &[State<f64, 9>],
    cayley: &[BodyState<f64>],
    r_ref: &[Matrix3<f64>],
) -> [Vec<[f64; 4]>; 2] {
    let e0 = body.relaxed_energy(&zs[0], omega);
    let zs = zs
        .iter()
        .zip(r_ref)
        .enumerate()
        .map(|(k, (s, rr))| {
            let r = matrix_of(&s.q);
            let de = (body.relaxed_energy(s, omega) - e0).abs();
            [k as f64 * h, (r - rr).norm(), de, orthogonality_error(&r)]
        })
        .collect();
    let e0 = body.energy(&cayley[0]);
    let cayley = cayley
        .iter()
        .zip(r_ref)
        .enumerate()
        .map(|(k, (s, rr))| {
            let de = (body.energy(s) - e0).abs();
            let r = s.rotation;
            [k as f64 * h, (r - rr).norm(), de, orthogonality_error(&r)]
        })
        .collect();
    [zs, cayley]
}

/// Runs every measurement of the setup.
pub fn compute(setup: &Setup) -> Results {
    let body = RigidBody::<f64>::paper();
    let s0 = BodyState::<f64>::paper();
    let p = setup.params;
    let n = (setup.t_end / setup.h).round() as usize;
    let every = (setup.h / setup.h_ref).round() as usize;
    let reference = run_cayley(body, setup.h_ref, &s0, n * every, every);
    let r_ref: Vec<Matrix3<f64>> = reference.iter().map(|s| s.rotation).collect();

    let zs_run = run_zs::<f64, true>(body, p, setup.h, &s0, n);
    let zs = zs_errors(&body, p.omega, &zs_run, &r_ref);
    let zs1 = zs_errors(
        &body,
        p.omega,
        &run_zs::<f64, false>(body, p, setup.h, &s0, n),
        &r_ref,
    );
    let cayley_run = run_cayley(body, setup.h, &s0, n, 1);
    let cayley = cayley_errors(&body, &cayley_run, &r_ref);
    let fig10 = fig10_curves(&body, p.omega, setup.h, &zs_run, &cayley_run, &r_ref);
    let (zs_f32, f32_vs_f64) = f32_run(&body, p, setup, &zs_run, &r_ref);

    // Steps with h·2√2ω ≤ 0.3: the asymptotic regime of the penalty modes (at h = 0.04 they are
    // not resolved and the slope means nothing).
    // The first-order methods' positions are second order (Störmer–Verlet's position sequence)
    // and their velocities first order: their slope reaches 1 at eight times smaller steps.
    let hs = [0.01, 0.005, 0.0025, 0.00125];
    let hs1 = hs.map(|h| h / 8.0);
    let e1 = zs_order_errors::<false>(body, p, &s0, setup.t_order, &hs1);
    let e2 = zs_order_errors::<true>(body, p, &s0, setup.t_order, &hs);
    let ec = cayley_order_errors(body, &s0, setup.t_order, &hs1);

    // Off SO(3) and with a non-trivial velocity, so the penalty terms act.
    let mut x0 = s0.to_relaxed();
    x0.q[1] += 0.02;
    x0.q[5] -= 0.01;
    let defect_zs2 = zs_defect::<true>(body, p, setup.h, &x0, 10);
    let defect_zs1 = zs_defect::<false>(body, p, setup.h, &x0, 10);

    let (long_energy_err, long_orth_err) = long_run(body, p, setup, &s0);

    let target = zs.max_err_r;
    let (grid, h_equal) = equal_error_grid(body, setup, &s0, &r_ref, target);
    let err_equal = target;
    let (tc, tz, tc1) = timings(body, p, setup, &s0, h_equal);

    Results {
        zs,
        zs1,
        cayley,
        zs_f32,
        f32_vs_f64,
        order_zs1: loglog_slope(&hs1, &e1),
        order_zs2: loglog_slope(&hs, &e2),
        order_cayley: loglog_slope(&hs1, &ec),
        order_points: [
            hs1.iter().copied().zip(e1.iter().copied()).collect(),
            hs.iter().copied().zip(e2.iter().copied()).collect(),
            hs1.iter().copied().zip(ec.iter().copied()).collect(),
        ],
        t_order: setup.t_order,
        fig10,
        defect_zs2,
        defect_zs1,
        long_energy_err,
        long_orth_err,
        h_equal,
        err_equal,
        grid,
        cost_cayley: median(tc),
        cost_zs: median(tz),
        cost_cayley_same_h: median(tc1),
        long_steps: setup.long_steps,
    }
}

/// The trapezoidal Z&S in `f32` over the f64 run's steps: its errors against the f64 reference
/// and its largest distance from the f64 run `zs_run`.
fn f32_run(
    body: &RigidBody<f64>,
    p: So3ZsParams<f64>,
    setup: &Setup,
    zs_run: &[State<f64, 9>],
    r_ref: &[Matrix3<f64>],
) -> (RunErrors, f64) {
    let n = zs_run.len() - 1;
    let body32 = RigidBody::<f32>::paper();
    let p32 = So3ZsParams::<f32> {
        omega: p.omega as f32,
        beta: p.beta as f32,
    };
    let zs32_run = run_zs::<f32, true>(body32, p32, setup.h as f32, &BodyState::paper(), n);
    let zs_f32 = zs_errors(body, p.omega, &zs32_run, r_ref);
    let f32_vs_f64 = zs32_run
        .iter()
        .zip(zs_run)
        .map(|(a, b)| (a.cast::<f64>().q - b.q).amax())
        .fold(0.0, f64::max);
    (zs_f32, f32_vs_f64)
}

/// `max |E − E_0|` and the largest orthogonality defect of the trapezoidal Z&S over
/// `setup.long_steps` steps.
fn long_run(
    body: RigidBody<f64>,
    p: So3ZsParams<f64>,
    setup: &Setup,
    s0: &BodyState<f64>,
) -> (f64, f64) {
    let mut long = LinearizedZs::<f64, true>::new(body, setup.h, p).expect("valid setup");
    let mut s = s0.to_relaxed();
    let e0 = body.relaxed_energy(&s, p.omega);
    let (mut long_energy_err, mut long_orth_err) = (0.0f64, 0.0f64);
    for _ in 0..setup.long_steps {
        long.step(&mut s).expect("long run step failed");
        long_energy_err = long_energy_err.max((body.relaxed_energy(&s, p.omega) - e0).abs());
        long_orth_err = long_orth_err.max(orthogonality_error(&matrix_of(&s.q)));
    }

    (long_energy_err, long_orth_err)
}

/// The benchmark's `(h, max ‖R − R_ref‖)` on a grid of steps and its step at the error `target`.
fn equal_error_grid(
    body: RigidBody<f64>,
    setup: &Setup,
    s0: &BodyState<f64>,
    r_ref: &[Matrix3<f64>],
    target: f64,
) -> (Vec<(f64, f64)>, f64) {
    let n = (setup.t_end / setup.h).round() as usize;
    // Equal error: the benchmark's max deviation on steps h·m (m = 4, 2) and h/m (m = 1, 2, 4,
    // …, 64), each commensurate with the reference samples; its step at the Z&S error is
    // interpolated log-linearly between the bracketing steps.
    let mut grid: Vec<(f64, f64)> = Vec::new();
    for m in [4usize, 2] {
        // Guards off at h·4 (0.4 in the paper setup): from the paper start the benchmark's
        // energy error there exceeds 0.2 of the run's energy scale, so the default energy run
        // guard refuses a step that is accurate enough for this study (its deviation brackets
        // the Z&S error from above). The study measures the raw method at that step.
        let guards = if m == 4 {
            Guards::off()
        } else {
            Guards::default()
        };
        let run = run_cayley_with(body, setup.h * m as f64, guards, s0, n / m, 1);
        let r_sub: Vec<Matrix3<f64>> = r_ref.iter().step_by(m).copied().collect();
        grid.push((
            setup.h * m as f64,
            cayley_errors(&body, &run, &r_sub).max_err_r,
        ));
    }
    for d in [1usize, 2, 4, 8, 16, 32, 64] {
        let run = run_cayley(body, setup.h / d as f64, s0, n * d, d);
        grid.push((
            setup.h / d as f64,
            cayley_errors(&body, &run, r_ref).max_err_r,
        ));
    }
    let h_equal = grid
        .windows(2)
        .find(|w| w[0].1 >= target && w[1].1 <= target)
        .map(|w| {
            let (la, lb) = (w[0].0.ln(), w[1].0.ln());
            let (ea, eb) = (w[0].1.ln(), w[1].1.ln());
            (la + (target.ln() - ea) * (lb - la) / (eb - ea)).exp()
        })
        .unwrap_or(if target > grid[0].1 {
            grid[0].0
        } else {
            grid[grid.len() - 1].0
        });
    (grid, h_equal)
}

/// Seconds per unit simulated time over `setup.timing_reps` repetitions: the benchmark at
/// `h_equal`, the Z&S at `h`, the benchmark at `h`.
fn timings(
    body: RigidBody<f64>,
    p: So3ZsParams<f64>,
    setup: &Setup,
    s0: &BodyState<f64>,
    h_equal: f64,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let s0 = *s0;
    let n_equal = (setup.timing_t / h_equal).round() as usize;
    let n_time = (setup.timing_t / setup.h).round() as usize;
    let time_cayley = |hc: f64, steps: usize| {
        let mut c =
            CayleyVariational::new(body, hc, ImplicitNewtonParams::default()).expect("valid");
        let mut s = s0.to_relaxed();
        let clock = crate::timing::CpuClock::start();
        c.integrate(&mut s, steps).expect("timed benchmark failed");
        std::hint::black_box(s);
        clock.elapsed_secs() / (steps as f64 * hc)
    };
    let time_zs = || {
        let mut z = LinearizedZs::<f64, true>::new(body, setup.h, p).expect("valid");
        let mut s = s0.to_relaxed();
        let clock = crate::timing::CpuClock::start();
        z.integrate(&mut s, n_time).expect("timed Z&S failed");
        std::hint::black_box(s);
        clock.elapsed_secs() / (n_time as f64 * setup.h)
    };
    let (mut tc, mut tz, mut tc1) = (vec![], vec![], vec![]);
    for _ in 0..setup.timing_reps {
        tc.push(time_cayley(h_equal, n_equal));
        tz.push(time_zs());
        tc1.push(time_cayley(setup.h, n_time));
    }
    (tc, tz, tc1)
}

/// `reproduce so3` (`--quick`: the reduced setup).
pub struct So3Experiment;
