//! What `reproduce kapitza` runs and measures with: the [`Setup`] (model, final time, windows,
//! reference sampling) with the runs it is made of (the slowed pendulum, the FLAVOR, the legacy
//! integrator, their timings), the window error and the recommended setting.

use macrostep::flavor::{ForcedEuler, Legacy, Nonintrusive, Params, Symmetric};
use macrostep::systems::Kapitza;
use macrostep::Integrator;

pub use crate::measure::{max_abs, window_err};

/// The measurement setup: `T = 10`, trailing windows of 0.01 (ten forcing periods) on a
/// 0.05 grid, reference sampled every `5·10⁻⁵`.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// The model (`g = 9.8`, `l = 9`, `ω = 1000`, `θ₀ = 0.2`, `θ̇₀ = 0`).
    pub model: Kapitza<f64>,
    /// Final time.
    pub t_end: f64,
    /// Window width.
    pub window: f64,
    /// Window grid.
    pub grid: f64,
    /// Sampling of the references.
    pub dt_ref: f64,
}

impl Setup {
    /// [`TARGET`]: the window error asked of the recommended setting.
    pub const TARGET: f64 = TARGET;
    /// [`RECOMMENDED`]: the recommended setting `(τ, δ, symmetric)`.
    pub const RECOMMENDED: (f64, f64, bool) = RECOMMENDED;

    /// The full setup (004 Fig 2.17 parameters).
    pub fn paper() -> Self {
        Self {
            model: Kapitza::paper(),
            t_end: 10.0,
            window: 0.01,
            grid: 0.05,
            dt_ref: 5e-5,
        }
    }

    /// The thesis's micro-step `h₀ = 0.2/(ω√l)`.
    pub fn h0(&self) -> f64 {
        0.2 / self.model.omega() / self.model.l().sqrt()
    }

    /// DOP853 (rtol = atol = 1e-11) on `l θ̈ = [g + (ω²/R) sin(2πω t/R)] sin θ` sampled every
    /// `dt_ref`: the true pendulum for `R = 1`, the slowed pendulum the FLAVOR with `δ/τ = R`
    /// converges to otherwise (module docs).
    pub fn slowed_theta(&self, ratio: f64) -> Vec<f64> {
        let (g, l, w) = (self.model.g(), self.model.l(), self.model.omega());
        let n = (self.t_end / self.dt_ref).round() as usize;
        let times = crate::reference::linspace(0.0, self.t_end, n);
        let freq = 2.0 * std::f64::consts::PI * w / ratio;
        let amp = w * w / ratio;
        let y = crate::reference::solve(
            |t, u, du| {
                du[0] = u[1];
                du[1] = (g + amp * (freq * t).sin()) * u[0].sin() / l;
            },
            0.0,
            &[0.2, 0.0],
            self.t_end,
            1e-11,
            1e-11,
            &times,
        );
        y.iter().map(|u| u[0]).collect()
    }

    /// Trailing window means of θ (samples every `dt`, `window` and `grid` multiples of `dt`) at
    /// `t = k·grid ≥ window`: the mean of the samples in `(t − window, t]`.
    pub fn windows(&self, theta: &[f64], dt: f64) -> Vec<f64> {
        let per = (self.window / dt).round() as usize;
        let step = (self.grid / dt).round() as usize;
        let last = (self.t_end / dt).round() as usize;
        (1..)
            .map(|k| k * step)
            .take_while(|&i| i <= last)
            .filter(|&i| i >= per)
            .map(|i| theta[i + 1 - per..=i].iter().sum::<f64>() / per as f64)
            .collect()
    }

    /// Whether `dt` divides the window and the grid (so [`Setup::windows`] is exact).
    pub fn samples_fit(&self, dt: f64) -> bool {
        let fits = |x: f64| ((x / dt) - (x / dt).round()).abs() < 1e-6;
        fits(self.window) && fits(self.grid)
    }

    /// The FLAVOR (2.115: nonintrusive over variational Euler with d'Alembert forcing, or the
    /// symmetric form 2.47 over it and its adjoint) from the paper's start, `θ` at every step, and
    /// the thread CPU seconds; `None` if a step fails (blow-up).
    pub fn flavor_theta(&self, tau: f64, delta: f64, symmetric: bool) -> Option<(Vec<f64>, f64)> {
        let legacy = ForcedEuler::new(self.model, self.model.mass(), 1.0).ok()?;
        let params = Params::new(delta, tau).ok()?;
        let steps = (self.t_end / delta).round() as usize;
        let mut s = self.model.initial_state();
        let mut theta = Vec::with_capacity(steps + 1);
        theta.push(s.q[0]);
        let clock = crate::timing::thread_cpu_seconds();
        if symmetric {
            let mut f = Symmetric::new(legacy, params).ok()?;
            for _ in 0..steps {
                f.step(&mut s).ok()?;
                theta.push(s.q[0]);
            }
        } else {
            let mut f = Nonintrusive::new(legacy, params).ok()?;
            for _ in 0..steps {
                f.step(&mut s).ok()?;
                theta.push(s.q[0]);
            }
        }
        let secs = crate::timing::thread_cpu_seconds() - clock;
        theta.iter().all(|x| x.is_finite()).then_some((theta, secs))
    }

    /// Wall-clock seconds of `steps` FLAVOR steps without recording (best of `reps`).
    pub fn flavor_seconds(&self, tau: f64, delta: f64, symmetric: bool, reps: usize) -> f64 {
        let steps = (self.t_end / delta).round() as usize;
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let legacy = ForcedEuler::new(self.model, self.model.mass(), 1.0).unwrap();
            let params = Params::new(delta, tau).unwrap();
            let mut s = self.model.initial_state();
            let clock = crate::timing::thread_cpu_seconds();
            // Failures (blow-ups) only matter for accuracy, which is measured elsewhere.
            if symmetric {
                let _ = Symmetric::new(legacy, params)
                    .unwrap()
                    .integrate(&mut s, steps);
            } else {
                let _ = Nonintrusive::new(legacy, params)
                    .unwrap()
                    .integrate(&mut s, steps);
            }
            best = best.min(crate::timing::thread_cpu_seconds() - clock);
            std::hint::black_box(s);
        }
        best
    }

    /// The legacy integrator at step `tau`: variational Euler 2.114, the FLAVOR's legacy map
    /// with the stiffness on, stepping through the driver like the FLAVOR ([`Legacy`]), so a
    /// speed-up compares two integrators under the same step contract.
    pub fn legacy(&self, tau: f64) -> Legacy<f64, ForcedEuler<f64, Kapitza<f64>, 1>, 1> {
        let map = ForcedEuler::new(self.model, self.model.mass(), 1.0).expect("finite stiffness");
        Legacy::new(map, tau).expect("positive step")
    }

    /// The legacy integrator alone ([`Setup::legacy`] at step `tau`, `tau` dividing `dt_ref`),
    /// `θ` sampled every `dt_ref`.
    pub fn legacy_theta(&self, tau: f64) -> Vec<f64> {
        let mut legacy = self.legacy(tau);
        let per = (self.dt_ref / tau).round() as usize;
        let steps = (self.t_end / tau).round() as usize;
        let mut s = self.model.initial_state();
        let mut theta = Vec::with_capacity(steps / per + 1);
        theta.push(s.q[0]);
        for k in 0..steps {
            legacy.step(&mut s).expect("legacy step");
            if (k + 1) % per == 0 {
                theta.push(s.q[0]);
            }
        }
        theta
    }

    /// Wall-clock seconds of the legacy integrator at step `tau` over `T` (best of `reps`).
    pub fn legacy_seconds(&self, tau: f64, reps: usize) -> f64 {
        let steps = (self.t_end / tau).round() as usize;
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let mut legacy = self.legacy(tau);
            let mut s = self.model.initial_state();
            let clock = crate::timing::thread_cpu_seconds();
            legacy.integrate(&mut s, steps).expect("legacy run");
            best = best.min(crate::timing::thread_cpu_seconds() - clock);
            std::hint::black_box(s);
        }
        best
    }
}

/// The accuracy asked of the recommended setting: window error ≤ 10⁻² (3 % of the 0.35 swing;
/// the legacy integrator alone needs `τ ≈ h₀/7` for it).
pub const TARGET: f64 = 1e-2;

/// The recommended setting `(τ, δ, symmetric)`, the pick of `reproduce kapitza`'s sweep (the
/// largest δ with window error ≤ [`TARGET`]): the nonintrusive FLAVOR 2.115 with
/// `τ = 3h₀/32 = 6.25·10⁻⁶` (the step the legacy convergence study asks for, window error
/// 3·10⁻³) and `δ = 5τ = 3.125·10⁻⁵`.
pub const RECOMMENDED: (f64, f64, bool) = (6.25e-6, 3.125e-5, false);
