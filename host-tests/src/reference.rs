//! The independent high-accuracy reference ODE solver: adaptive DOP853 (Dormand–Prince 8(5,3),
//! Hairer–Nørsett–Wanner's `DOP853`) from the `differential-equations` crate, behind one function.
//!
//! Nothing else in `host-tests` depends on that crate: every reference solution goes through
//! [`solve`] (or [`try_solve`]), so the backend can be swapped without touching any test.
//!
//! The solver shares no code with `macrostep` (different crate, different method family, dynamic
//! `Vec<f64>` state), which is what makes it a reference: an error in the core cannot be
//! reproduced by it.
//!
//! [`chain`] holds the rigid pendulum chain in angle coordinates (004 §5.4.3); [`circuit`] the
//! exact law of the linear circuits of 004 §7.1 (closed form, no solver).
//!
//! # Accuracy
//! Every requested time is made a step end point (the crate's dense output is not accurate
//! enough: ~1e-8 at `rtol = 1e-13`), so the error is DOP853's global error. With
//! `rtol = atol = 1e-13` the global error of the harmonic oscillator over a few periods and of a
//! Kepler orbit of eccentricity 0.5 over one period stays below 1e-10 (checked by the tests of
//! this module and printed by `reproduce reference`). [`TIGHT`] is that setting.
//!
//! ```
//! // ẏ = −y from y(0) = 1, sampled at t = 0.5 and 1.
//! use host_tests::reference;
//! let y = reference::solve(|_t, y, dy| dy[0] = -y[0], 0.0, &[1.0], 1.0, 1e-12, 1e-12, &[0.5, 1.0]);
//! assert!((y[1][0] - (-1.0_f64).exp()).abs() < 1e-11);
//! ```

pub mod chain;
pub mod circuit;
pub mod planar;

use differential_equations::prelude::*;
use macrostep::model::{Potential, System};
use macrostep::nalgebra::SVector;
use macrostep::State;

/// The tolerance pair `(rtol, atol)` used for references that must be accurate to ~1e-10.
pub const TIGHT: (f64, f64) = (1e-13, 1e-13);

/// Upper bound on accepted steps of one solve (the crate's default of 10⁴ is far too low for long
/// references at tight tolerances).
const MAX_STEPS: usize = 200_000_000;

/// Integrates `ẏ = f(t, y)` from `y(t0) = y0` up to `t_end` with adaptive DOP853 and returns the
/// solution at each of `output_times`, in the order given.
///
/// - `f(t, y, dy)` writes the derivative into `dy` (same length as `y`).
/// - `output_times` must be non-decreasing and lie in `[t0, t_end]`; repeated times and `t0`
///   itself are allowed. Backward integration (`t_end < t0`) is supported with non-increasing
///   output times in `[t_end, t0]`.
/// - `rtol`, `atol`: the local error tolerances (componentwise `atol + rtol·|y|`).
///
/// # Panics
/// On invalid arguments or a solver failure (step-size underflow, stiffness detection, too many
/// steps) — this is a test harness; use [`try_solve`] to handle failures.
pub fn solve(
    f: impl Fn(f64, &[f64], &mut [f64]),
    t0: f64,
    y0: &[f64],
    t_end: f64,
    rtol: f64,
    atol: f64,
    output_times: &[f64],
) -> Vec<Vec<f64>> {
    match try_solve(f, t0, y0, t_end, rtol, atol, output_times) {
        Ok(y) => y,
        Err(e) => panic!("reference::solve failed: {e}"),
    }
}

/// As [`solve`], returning the failure as a message instead of panicking.
///
/// # Errors
/// A description of the invalid argument or the solver failure.
pub fn try_solve(
    f: impl Fn(f64, &[f64], &mut [f64]),
    t0: f64,
    y0: &[f64],
    t_end: f64,
    rtol: f64,
    atol: f64,
    output_times: &[f64],
) -> Result<Vec<Vec<f64>>, String> {
    if output_times.is_empty() {
        return Ok(Vec::new());
    }
    if !(t0.is_finite() && t_end.is_finite() && t_end != t0) {
        return Err(format!("bad interval [{t0}, {t_end}]"));
    }
    if !(rtol > 0.0 && atol > 0.0) {
        return Err(format!(
            "tolerances must be positive (rtol {rtol}, atol {atol})"
        ));
    }
    if y0.iter().any(|y| !y.is_finite()) {
        return Err("non-finite initial value".into());
    }
    let dir = (t_end - t0).signum();
    let (lo, hi) = if dir > 0.0 { (t0, t_end) } else { (t_end, t0) };
    for w in output_times.windows(2) {
        if (w[1] - w[0]) * dir < 0.0 {
            return Err("output times must be monotone in the integration direction".into());
        }
    }
    if output_times.iter().any(|&t| !(t >= lo && t <= hi)) {
        return Err(format!("output times must lie in [{lo}, {hi}]"));
    }
    // Distinct output times (the crate's t_eval output skips exact repeats); `slot[k]` is the
    // distinct index of output k.
    let mut distinct: Vec<f64> = Vec::with_capacity(output_times.len());
    let mut slot = Vec::with_capacity(output_times.len());
    for &t in output_times {
        if distinct.last() != Some(&t) {
            distinct.push(t);
        }
        slot.push(distinct.len() - 1);
    }
    let mut out: Vec<Vec<f64>> = Vec::with_capacity(distinct.len());
    let (mut t, mut y) = (t0, y0.to_vec());
    for &target in &distinct {
        if target != t {
            y = segment(&f, t, &y, target, rtol, atol)?;
            t = target;
        }
        out.push(y.clone());
    }
    Ok(slot.into_iter().map(|k| out[k].clone()).collect())
}

/// One DOP853 solve from `(t0, y0)` to exactly `t1`, returning `y(t1)`.
///
/// The crate's dense output (its `t_eval` interpolation) was measured at only ~1e-8 accuracy at
/// `rtol = 1e-13`, against ~1e-13 at step end points, so every output time is made a step end
/// point by integrating segment by segment (restarts cost a few extra steps per segment).
fn segment(
    f: &impl Fn(f64, &[f64], &mut [f64]),
    t0: f64,
    y0: &[f64],
    t1: f64,
    rtol: f64,
    atol: f64,
) -> Result<Vec<f64>, String> {
    let rhs = |t: f64, y: &Vec<f64>, dy: &mut Vec<f64>| f(t, y, dy);
    let method = ExplicitRungeKutta::dop853()
        .rtol(rtol)
        .atol(atol)
        .max_steps(MAX_STEPS);
    let sol = IVP::ode_from_fn(rhs, t0, t1, y0.to_vec())
        .method(method)
        .t_eval([t1])
        .solve()
        .map_err(|e| format!("{e:?}"))?;
    match (sol.t.last(), sol.y.last()) {
        (Some(&t), Some(y)) if t == t1 => Ok(y.clone()),
        _ => Err(format!(
            "solver did not reach t = {t1} (status {:?})",
            sol.status
        )),
    }
}

/// One DOP853 solve over `[t0, max(output_times)]` with the outputs taken from the crate's
/// dense output (`t_eval`): what a user timing the peer solver would run. Its outputs are only
/// ~1e-8 accurate at tight tolerances (see the module docs), so this is for peer comparisons at
/// target errors far above that, never for references.
///
/// # Errors
/// The solver's failure, or a missing output.
pub fn try_solve_dense(
    f: impl Fn(f64, &[f64], &mut [f64]),
    t0: f64,
    y0: &[f64],
    rtol: f64,
    atol: f64,
    output_times: &[f64],
) -> Result<Vec<Vec<f64>>, String> {
    let t1 = output_times.iter().copied().fold(t0, f64::max);
    let rhs = |t: f64, y: &Vec<f64>, dy: &mut Vec<f64>| f(t, y, dy);
    let method = ExplicitRungeKutta::dop853()
        .rtol(rtol)
        .atol(atol)
        .max_steps(MAX_STEPS);
    let sol = IVP::ode_from_fn(rhs, t0, t1, y0.to_vec())
        .method(method)
        .t_eval(output_times)
        .solve()
        .map_err(|e| format!("{e:?}"))?;
    if sol.y.len() != output_times.len() {
        return Err(format!(
            "{} outputs for {} times (status {:?})",
            sol.y.len(),
            output_times.len(),
            sol.status
        ));
    }
    Ok(sol.y)
}

/// The stiff peer: Radau IIA of order 5 (`differential-equations`' `radau5`, Newton with its
/// finite-difference Jacobian, adaptive steps, dense output) on `M q̈ = −∇V(q)` in first-order
/// form, at `rtol = atol = tol`; the states at `times` (ascending, after `s0.t`).
///
/// # Errors
/// The solver's failure, or a missing output.
pub fn try_solve_radau5_system<P: Potential<f64, N>, const N: usize, const M: usize>(
    system: &System<f64, P, N>,
    s0: &State<f64, N>,
    times: &[f64],
    tol: f64,
) -> Result<Vec<State<f64, N>>, String> {
    // The solver's state must have a fixed length (its `Vec` zero is empty): `[f64; 2N]`.
    if M != 2 * N {
        return Err(format!("state length {M} for {N} coordinates"));
    }
    let rhs = |_t: f64, y: &[f64; M], dy: &mut [f64; M]| {
        let q = SVector::<f64, N>::from_column_slice(&y[..N]);
        let a = system.acceleration(&q);
        dy[..N].copy_from_slice(&y[N..]);
        dy[N..].copy_from_slice(a.as_slice());
    };
    let mut y0 = [0.0; M];
    y0[..N].copy_from_slice(s0.q.as_slice());
    y0[N..].copy_from_slice(s0.v.as_slice());
    let t1 = times.iter().copied().fold(s0.t, f64::max);
    let method = ImplicitRungeKutta::radau5()
        .rtol(tol)
        .atol(tol)
        .max_steps(MAX_STEPS);
    let sol = IVP::ode_from_fn(rhs, s0.t, t1, y0)
        .method(method)
        .t_eval(times)
        .solve()
        .map_err(|e| format!("{e:?}"))?;
    if sol.y.len() != times.len() {
        return Err(format!("{} outputs for {} times", sol.y.len(), times.len()));
    }
    Ok(sol
        .y
        .iter()
        .zip(times)
        .map(|(y, &t)| State {
            t,
            q: SVector::from_column_slice(&y[..N]),
            v: SVector::from_column_slice(&y[N..]),
        })
        .collect())
}

/// Integrates and returns only the final state `y(t_end)`.
///
/// # Panics
/// As [`solve`].
pub fn solve_to(
    f: impl Fn(f64, &[f64], &mut [f64]),
    t0: f64,
    y0: &[f64],
    t_end: f64,
    rtol: f64,
    atol: f64,
) -> Vec<f64> {
    solve(f, t0, y0, t_end, rtol, atol, &[t_end])
        .pop()
        .unwrap_or_default()
}

/// The reference solution of a `macrostep` mechanical system `M q̈ = −∇V(q)` from `s0`, at the
/// non-decreasing `times ≥ s0.t` (tolerances `rtol`, `atol` on `(q, v)`).
///
/// It evaluates the model's own gradient and mass solve, so it checks an *integrator* against the
/// exact flow of the same model; it cannot catch an error in the model's gradient (check those
/// against energies by finite differences, or use a hand-written right-hand side with [`solve`]).
///
/// ```
/// use host_tests::reference;
/// use macrostep::systems::HarmonicOscillator;
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let out = reference::solve_system(&osc.system(), &osc.initial_state(), &[1.0], 1e-12, 1e-12);
/// assert!((out[0].q[0] - 1.0_f64.cos()).abs() < 1e-10);
/// ```
///
/// # Panics
/// As [`solve`].
pub fn solve_system<P: Potential<f64, N>, const N: usize>(
    system: &System<f64, P, N>,
    s0: &State<f64, N>,
    times: &[f64],
    rtol: f64,
    atol: f64,
) -> Vec<State<f64, N>> {
    let f = |_t: f64, y: &[f64], dy: &mut [f64]| {
        let q = SVector::<f64, N>::from_column_slice(&y[..N]);
        let a = system.acceleration(&q);
        dy[..N].copy_from_slice(&y[N..]);
        dy[N..].copy_from_slice(a.as_slice());
    };
    let y0: Vec<f64> = s0.q.iter().chain(s0.v.iter()).copied().collect();
    let t_end = times.iter().copied().fold(s0.t, f64::max);
    let t_end = if t_end > s0.t { t_end } else { s0.t + 1.0 };
    solve(f, s0.t, &y0, t_end, rtol, atol, times)
        .into_iter()
        .zip(times)
        .map(|(y, &t)| State {
            t,
            q: SVector::from_column_slice(&y[..N]),
            v: SVector::from_column_slice(&y[N..]),
        })
        .collect()
}

/// `n + 1` equally spaced times `t0, t0 + (t_end − t0)/n, …, t_end` (convenient output grids;
/// the last one is exactly `t_end`).
pub fn linspace(t0: f64, t_end: f64, n: usize) -> Vec<f64> {
    assert!(n >= 1, "linspace: need n ≥ 1");
    (0..=n)
        .map(|k| {
            if k == n {
                t_end
            } else {
                t0 + (t_end - t0) * (k as f64) / (n as f64)
            }
        })
        .collect()
}

/// Reference trajectory of a system sampled every `dt` on `[0, t_end]` (DOP853, tight).
pub fn reference_samples<P: Potential<f64, N>, const N: usize>(
    system: &System<f64, P, N>,
    s0: &State<f64, N>,
    t_end: f64,
    dt: f64,
) -> Vec<State<f64, N>> {
    let n = (t_end / dt).round() as usize;
    let times = linspace(0.0, t_end, n);
    solve_system(system, s0, &times, 1e-11, 1e-11)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q̈ = −ω² q`, `y = (q, v)`.
    fn harmonic(omega: f64) -> impl Fn(f64, &[f64], &mut [f64]) {
        move |_t, y, dy| {
            dy[0] = y[1];
            dy[1] = -omega * omega * y[0];
        }
    }

    #[test]
    fn harmonic_oscillator_matches_closed_form() {
        let omega = 2.0;
        let times = linspace(0.0, 20.0, 40);
        let (rtol, atol) = TIGHT;
        let ys = solve(harmonic(omega), 0.0, &[1.0, 0.5], 20.0, rtol, atol, &times);
        let mut err = 0.0_f64;
        for (t, y) in times.iter().zip(&ys) {
            let q = (omega * t).cos() + 0.5 / omega * (omega * t).sin();
            let v = -omega * (omega * t).sin() + 0.5 * (omega * t).cos();
            err = err.max((y[0] - q).abs()).max((y[1] - v).abs());
        }
        // ~6 periods at rtol = atol = 1e-13: DOP853's global error stays ~1e-12.
        assert!(err < 1e-10, "harmonic error {err:e}");
        // And the error responds to the tolerance (the test can fail): a loose solve is worse.
        let loose = solve(harmonic(omega), 0.0, &[1.0, 0.5], 20.0, 1e-5, 1e-5, &[20.0]);
        let q = (40.0_f64).cos() + 0.25 * (40.0_f64).sin();
        assert!((loose[0][0] - q).abs() > 1e-9);
    }

    #[test]
    fn kepler_orbit_matches_keplers_equation() {
        let (ys, err) = crate::experiments::reference::kepler_error(0.5, 1e-13);
        assert!(err < 1e-10, "Kepler error {err:e}");
        assert_eq!(ys, 9);
    }

    #[test]
    fn solve_system_matches_hand_written_rhs() {
        use macrostep::nalgebra::vector;
        let sys = System::new(crate::fixtures::hh_mass(), crate::fixtures::HenonHeiles);
        let s0 = State::new(0.0, vector![0.3, -0.2], vector![0.1, 0.25]);
        let out = solve_system(&sys, &s0, &[0.5, 3.0], 1e-13, 1e-13);
        let y = solve(
            crate::fixtures::HenonHeiles::rhs([2.0, 0.5]),
            0.0,
            &[0.3, -0.2, 0.1, 0.25],
            3.0,
            1e-13,
            1e-13,
            &[0.5, 3.0],
        );
        for (s, y) in out.iter().zip(&y) {
            let e = (0..2)
                .map(|i| (s.q[i] - y[i]).abs().max((s.v[i] - y[2 + i]).abs()))
                .fold(0.0, f64::max);
            assert!(e < 1e-12, "{e:e}");
        }
        assert_eq!(out[1].t, 3.0);
    }

    #[test]
    fn repeated_and_initial_output_times() {
        let ys = solve(
            harmonic(1.0),
            0.0,
            &[1.0, 0.0],
            2.0,
            1e-12,
            1e-12,
            &[0.0, 1.0, 1.0, 2.0],
        );
        assert_eq!(ys.len(), 4);
        assert_eq!(ys[0], vec![1.0, 0.0]);
        assert_eq!(ys[1], ys[2]);
        assert!((ys[3][0] - 2.0_f64.cos()).abs() < 1e-10);
    }

    #[test]
    fn backward_integration() {
        let ys = solve(
            harmonic(1.0),
            1.0,
            &[1.0, 0.0],
            -1.0,
            1e-12,
            1e-12,
            &[0.0, -1.0],
        );
        assert!((ys[0][0] - 1.0_f64.cos()).abs() < 1e-10);
        assert!((ys[0][1] - 1.0_f64.sin()).abs() < 1e-10);
        assert!((ys[1][0] - 2.0_f64.cos()).abs() < 1e-10);
    }

    #[test]
    fn bad_arguments_are_reported() {
        let f = harmonic(1.0);
        assert!(try_solve(&f, 0.0, &[1.0, 0.0], 1.0, 1e-9, 1e-9, &[2.0]).is_err());
        assert!(try_solve(&f, 0.0, &[1.0, 0.0], 1.0, 1e-9, 1e-9, &[0.5, 0.2]).is_err());
        assert!(try_solve(&f, 0.0, &[f64::NAN, 0.0], 1.0, 1e-9, 1e-9, &[0.5]).is_err());
        assert!(try_solve(&f, 0.0, &[1.0, 0.0], 1.0, 0.0, 1e-9, &[0.5]).is_err());
    }
}
