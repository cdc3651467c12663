//! The multiplier recovered from a penalty run (000 Theorem 1.3) against RATTLE's and the rigid
//! reference's, on the double pendulum: the measurement behind `reproduce multiplier` and its test.

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::{Integrator, State};

/// Window errors of the recovered multiplier for one `ω`: `(window_err, pointwise_err,
/// rigid_window_err)`.
///
/// The penalty run (`penalty_step`, step `h`) and RATTLE (step `h`) start from the same state of
/// the double pendulum; `λ_R(tₙ) = ½(λ⁽ᵛ⁾ₙ + λ⁽ʳ⁾ₙ)` (O(h²)). Over `t ∈ [0, t_end]`:
/// - `window_err = max_k ‖⟨−Ω g⟩_k − ⟨λ_R⟩_k‖∞`, both averaged over the same trailing window of
///   `w` samples ([`MultiplierWindow`](macrostep::constrained::MultiplierWindow) on the penalty side);
/// - `pointwise_err = max_k ‖−Ω g(q_k) − λ_R(t_k)‖∞`;
/// - `rigid_window_err`: as `window_err` with the exact multiplier of the rigid reference.
pub fn multiplier_errors(
    omega: f64,
    h: f64,
    w: usize,
    t_end: f64,
    penalty_step: impl FnMut(&mut State<f64, 4>),
) -> (f64, f64, f64) {
    multiplier_curves(omega, h, w, t_end, usize::MAX, penalty_step).errors
}

/// One sample of the multiplier curves at time `t` (both components `i = 1, 2`).
#[derive(Clone, Copy, Debug)]
pub struct MultiplierSample {
    /// Time.
    pub t: f64,
    /// RATTLE's `λ_R(t)`.
    pub rattle: [f64; 2],
    /// The rigid reference's exact `λ(t)`.
    pub exact: [f64; 2],
    /// The pointwise penalty force `−ω² g(q(t))`.
    pub pointwise: [f64; 2],
    /// The window estimate `⟨−ω² g⟩` over the trailing window ending at `t` (NaN until the
    /// window is full).
    pub window: [f64; 2],
    /// RATTLE's `λ_R` averaged over the same trailing window (NaN until it is full).
    pub rattle_window: [f64; 2],
    /// `window_err` over the steps up to `t` (every step, not only the sampled ones).
    pub window_err_so_far: f64,
}

/// [`multiplier_errors`] and the curves behind them, sampled every `every` steps.
pub struct MultiplierCurves {
    /// `(window_err, pointwise_err, rigid_window_err)`, as [`multiplier_errors`] returns.
    pub errors: (f64, f64, f64),
    /// The samples.
    pub samples: Vec<MultiplierSample>,
}

/// [`multiplier_errors`], also recording a [`MultiplierSample`] every `every` steps (no samples
/// for `every = usize::MAX`).
pub fn multiplier_curves(
    omega: f64,
    h: f64,
    w: usize,
    t_end: f64,
    every: usize,
    mut penalty_step: impl FnMut(&mut State<f64, 4>),
) -> MultiplierCurves {
    use macrostep::constrained::MultiplierWindow;
    use macrostep::systems::DoublePendulum;
    let dp = DoublePendulum::<f64>::paper();
    let s0 = dp.initial_state();
    let n = (t_end / h).round() as usize;
    let lam_r = rattle_multipliers(&dp, h, n);
    let exact = exact_multipliers(&s0, h, n);
    // Penalty run with the on-line window.
    let omega2 = macrostep::nalgebra::vector![omega * omega, omega * omega];
    let mut win = MultiplierWindow::<f64, 2, 4096>::new(omega2, w).expect("window");
    let g = dp.constraint();
    let mut s = s0;
    let (mut werr, mut perr, mut rerr) = (0.0_f64, 0.0_f64, 0.0_f64);
    let mut samples = Vec::new();
    for k in 1..n {
        penalty_step(&mut s);
        win.push_state(&g, s.t, &s.q);
        let pt = win.pointwise().expect("sample");
        for i in 0..2 {
            perr = perr.max((pt[i] - lam_r[k][i]).abs());
        }
        let mut sample = MultiplierSample {
            t: s.t,
            rattle: lam_r[k],
            exact: exact[k],
            pointwise: [pt[0], pt[1]],
            window: [f64::NAN; 2],
            rattle_window: [f64::NAN; 2],
            window_err_so_far: f64::NAN,
        };
        if let Some(est) = win.estimate() {
            // Samples k − w + 1 … k (all ≥ 1, where λ_R is defined).
            for i in 0..2 {
                let avg_r: f64 = (k + 1 - w..=k).map(|j| lam_r[j][i]).sum::<f64>() / w as f64;
                let avg_x: f64 = (k + 1 - w..=k).map(|j| exact[j][i]).sum::<f64>() / w as f64;
                werr = werr.max((est[i] - avg_r).abs());
                rerr = rerr.max((est[i] - avg_x).abs());
                sample.window[i] = est[i];
                sample.rattle_window[i] = avg_r;
            }
            sample.window_err_so_far = werr;
        }
        if k % every.max(1) == 0 || (every != usize::MAX && k + 1 == n) {
            samples.push(sample);
        }
    }
    MultiplierCurves {
        errors: (werr, perr, rerr),
        samples,
    }
}

/// RATTLE's multipliers `λ_R` at `t_1 … t_{n−1}` (the mean of a step's end and the next step's
/// start impulse; slots 0 and `n` stay zero), on the paper's double pendulum with step `h`.
fn rattle_multipliers(
    dp: &macrostep::systems::DoublePendulum<f64>,
    h: f64,
    n: usize,
) -> Vec<[f64; 2]> {
    let mut ra = Rattle::new(
        dp.system(),
        dp.constraint(),
        h,
        ConstraintNewtonParams::default(),
    )
    .expect("Rattle");
    let mut s = dp.initial_state();
    let mut lam_r = vec![[0.0; 2]; n + 1];
    let mut prev_end = None;
    for slot in lam_r.iter_mut().take(n) {
        ra.step(&mut s).expect("RATTLE step");
        let m = ra.multipliers();
        if let Some(pe) = prev_end {
            let l: macrostep::nalgebra::SVector<f64, 2> = (pe + m.start) * 0.5;
            *slot = [l[0], l[1]];
        }
        prev_end = Some(m.end);
    }
    lam_r
}

/// The exact multipliers of the rigid double pendulum from `s0` at `t_k = k h`, `k = 0 … n`.
fn exact_multipliers(s0: &State<f64, 4>, h: f64, n: usize) -> Vec<[f64; 2]> {
    let rigid = super::DoublePendulum::seed();
    let times: Vec<f64> = (0..=n).map(|k| k as f64 * h).collect();
    let q0: [f64; 4] = s0.q.into();
    let v0: [f64; 4] = s0.v.into();
    rigid
        .solve(&q0, &v0, &times, 1e-12, 1e-12)
        .into_iter()
        .map(|x| x.lambda)
        .collect()
}
