//! Kapitza's inverted pendulum under FLAVOR (004 §2.6.6, eqs 2.113–2.115, Fig 2.17), and why the
//! thesis's mesostep δ = 0.002 cannot be accurate.
//!
//! # What the FLAVOR integrates
//! The FLAVOR (2.115) gives, once per mesostep δ, a stiff kick of length τ with the forcing read
//! on the fast clock `c = t·τ/δ`. Per unit of real time the stiff force is therefore
//! `(τ/δ)·ω² sin(2πω·tτ/δ)`: with `R = δ/τ`, as `δ → 0` at fixed `R` the FLAVOR converges to the
//! **slowed pendulum**
//!
//! ```text
//! l θ̈ = [g + (ω²/R) sin(2πω t/R)] sin θ,
//! ```
//!
//! a Kapitza pendulum whose pivot shakes `R` times slower with `R` times the displacement
//! amplitude `A_R = R·A`, `A = ω²/(2πω)² = 1/(4π²)` (so the pivot velocity amplitude `AΩ = ω/2π`,
//! and with it Kapitza's effective potential, is unchanged). And its discretisation, variational
//! Euler at step δ on the slowed system, advances the forcing phase by `2πωτ` per step, exactly
//! as the legacy integrator at step τ does on the true system. So, to leading order,
//!
//! ```text
//! FLAVOR error(τ, δ) ≈ averaging error(R = δ/τ)  +  legacy error(τ).
//! ```
//!
//! The averaging error is the difference between the true and the slowed pendulum. Both share the
//! effective slow dynamics only while the slowed forcing is still fast: in Mathieu form the
//! slowed pendulum has `q = 2A_R/l = R/(2π²l)`, and Kapitza's averaging is an expansion in `q`
//! (equivalently in `ω_slow/Ω_R`, with `Ω_R = 2πω/R` the slowed forcing frequency and
//! `ω_slow ≈ A_R Ω_R/(√2 l) ≈ 12.5` the averaged frequency — period ≈ 0.5 — so that
//! `ω_slow/Ω_R ≈ q/(2√2)`). At the paper's `ω = 1000`, `l = 9`: `q = R/178`, `Ω_R/ω_slow ≈ 500/R`;
//! the inverted position is lost near `q ≈ 0.9`, `R ≈ 160` (linear Mathieu boundary `q ≈ 0.91`).
//! On top of that the slowed fast oscillation (period `R/ω` in real time, amplitude
//! `A_R sin θ / l`) is what the study's 0.01-wide window average has to remove: it does so only
//! when the window holds whole periods, `R` dividing 10.
//!
//! Measured (`reproduce kapitza`, window errors over T = 10): averaging error ≈ `2·10⁻⁴ R²`
//! (6·10⁻⁴, 5·10⁻³, 2·10⁻², 8·10⁻², 0.33 at R = 2, 5, 10, 20, 40; the FLAVOR's error at fixed R
//! tends to it as τ → 0), legacy error ≈ `7.6·10⁷ τ²` (window averages converge at second order;
//! τ ≲ h₀/8 for 5·10⁻³, `h₀ = 0.2/(ω√l)` the thesis's step). At δ = 0.002 the thesis's τ = h₀
//! gives R = 30 and a legacy error of ≈ 0.3 on its own; an accurate τ gives R ≥ 240, past the
//! stability limit. No τ makes δ = 0.002 accurate: the best is 0.49 (τ = 0.75 h₀, R = 40). And
//! `q` does not involve ω (the pivot amplitude `1/(4π²)` is fixed by eq 2.113) while the slow
//! frequency grows like ω, so a faster forcing does not buy a larger `R`: over the same T = 10
//! the averaging error at fixed R doubles with each doubling of ω (table 1b: 4.9·10⁻³, 9.5·10⁻³,
//! 1.9·10⁻² at R = 5 for ω = 1000, 2000, 4000) — twice the slow periods, same error per period.

mod charts;
mod tables;

pub mod setup;

pub use setup::{max_abs, window_err, Setup, RECOMMENDED, TARGET};

use crate::ensemble_runner::map;
use macrostep::systems::Kapitza;

/// The legacy step with window error `err`, interpolated log-log between the bracketing rows of
/// `(τ, error)` (sorted by decreasing τ); clamped to the table's ends.
fn equal_error_step(table: &[(f64, f64)], err: f64) -> f64 {
    for w in table.windows(2) {
        let ((t0, e0), (t1, e1)) = (w[0], w[1]);
        if e1 <= err && err <= e0 {
            let s = (err.ln() - e0.ln()) / (e1.ln() - e0.ln());
            return (t0.ln() + s * (t1.ln() - t0.ln())).exp();
        }
    }
    if err > table[0].1 {
        table[0].0
    } else {
        table[table.len() - 1].0
    }
}

/// One measured FLAVOR setting.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// `τ`.
    pub tau: f64,
    /// `R = δ/τ`.
    pub ratio: f64,
    /// The symmetric form (2.47) rather than the nonintrusive one.
    pub symmetric: bool,
    /// Max |θ| (∞ if it blew up).
    pub max: f64,
    /// Max window error against the reference (∞ if it blew up).
    pub err: f64,
}

/// One row of the (τ, R) grid: `τ/h₀` and a cell per R.
pub type GridRow = (f64, Vec<GridCell>);

/// One cell of the (τ, R) grid: `None` where δ does not divide the window, else the
/// (nonintrusive, symmetric) window errors, `None` for a blow-up.
pub type GridCell = Option<[Option<f64>; 2]>;

/// The recommended setting's accuracy and speed.
#[derive(Clone, Copy, Debug)]
pub struct Recommended {
    /// The sweep's pick (largest δ with window error ≤ [`TARGET`]).
    pub pick: Option<Row>,
    /// Max |θ| of [`RECOMMENDED`].
    pub max: f64,
    /// Its window error.
    pub err: f64,
    /// The legacy integrator's window error at its τ.
    pub legacy_err: f64,
    /// Speed-up over the legacy integrator at τ.
    pub speedup: f64,
    /// The legacy step with the same window error, and the speed-up over it.
    pub equal_error: (f64, f64),
}

/// What the experiment measured.
pub struct Results {
    /// The model.
    pub model: Kapitza<f64>,
    /// `h₀`.
    pub h0: f64,
    /// Max |θ| of the reference.
    pub max_ref: f64,
    /// 1. The slowed pendulum against the true one: `(R, max|θ|, window error)`.
    pub averaging: Vec<(f64, f64, f64)>,
    /// 1b. The same at larger ω: `(ω, [(R, window error)])`.
    pub averaging_omega: Vec<(f64, Vec<(f64, f64)>)>,
    /// 2. The legacy integrator: `(τ/h₀, τ, window error)`.
    pub legacy: Vec<(f64, f64, f64)>,
    /// Log-log slope of the legacy window error in τ.
    pub legacy_slope: f64,
    /// 3. The FLAVOR on the (τ, R) grid: `(τ/h₀, cells per R)`.
    pub grid: Vec<GridRow>,
    /// Every FLAVOR run that stayed upright.
    pub rows: Vec<Row>,
    /// 4. δ = 0.002, nonintrusive: every τ of the study with its speed-up.
    pub thesis: Vec<(Row, f64)>,
    /// The most accurate run of the sweep, with its speed-up.
    pub best: Option<(Row, f64)>,
    /// The recommended setting.
    pub recommended: Recommended,
}

/// The thesis's mesostep (also the study's).
const DELTA_THESIS: f64 = 0.002;
/// The ratios R of tables 1 and 3.
const RATIOS: [f64; 8] = [2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 240.0];
/// The steps τ/h₀ of tables 2 and 3.
const FRACTIONS: [f64; 5] = [0.75, 0.375, 0.1875, 0.09375, 0.046875];

/// Legacy over FLAVOR thread CPU time at `(τ, δ)`, least of 15 runs each.
fn speedup(setup: &Setup, tau: f64, delta: f64, symmetric: bool) -> f64 {
    setup.legacy_seconds(tau, 15) / setup.flavor_seconds(tau, delta, symmetric, 15)
}

/// Table 1b: does a faster forcing allow a larger R? The pivot amplitude 1/(4π²) does not depend on
/// ω, so q = R/(2π²l) does not either, while the slow frequency grows like ω.
fn averaging_omega(setup: &Setup) -> Vec<(f64, Vec<(f64, f64)>)> {
    const OMEGAS: [f64; 3] = [1000.0, 2000.0, 4000.0];
    const R: [f64; 3] = [5.0, 10.0, 20.0];
    let at = |w: f64| {
        let mut alt = *setup;
        alt.model = Kapitza::new(9.8, 9.0, w).expect("valid Kapitza");
        alt
    };
    // The slowed pendulum at R = 1 (the truth) and at each R, for each ω, in parallel.
    let runs = map(OMEGAS.len() * 4, |j| {
        let alt = at(OMEGAS[j / 4]);
        let r = if j % 4 == 0 { 1.0 } else { R[j % 4 - 1] };
        alt.windows(&alt.slowed_theta(r), alt.dt_ref)
    });
    OMEGAS
        .iter()
        .zip(runs.chunks(4))
        .map(|(&w, win)| {
            let errs = R
                .iter()
                .zip(&win[1..])
                .map(|(&r, x)| (r, window_err(x, &win[0])));
            (w, errs.collect())
        })
        .collect()
}

/// Table 3, the FLAVOR on the (τ, R) grid, both forms: the table cells, every upright run, and the
/// nonintrusive runs at δ = 0.002 (blow-ups included, with infinite errors).
fn flavor_grid(setup: &Setup, win_ref: &[f64]) -> (Vec<GridRow>, Vec<Row>, Vec<Row>) {
    // Every (τ, R, form) run in parallel: Some((max |θ|, window error)) unless it blew up.
    let (nr, nk) = (RATIOS.len(), FRACTIONS.len());
    let runs = map(nk * nr * 2, |j| {
        let (tau, symmetric) = (setup.h0() * FRACTIONS[j / (2 * nr)], j % 2 == 1);
        let delta = RATIOS[j / 2 % nr] * tau;
        if !setup.samples_fit(delta) {
            return None;
        }
        let (th, _) = setup.flavor_theta(tau, delta, symmetric)?;
        (max_abs(&th) < 1.5).then(|| {
            (
                max_abs(&th),
                window_err(&setup.windows(&th, delta), win_ref),
            )
        })
    });
    let mut runs = runs.into_iter();
    let (mut grid, mut rows, mut thesis) = (vec![], vec![], vec![]);
    for &k in &FRACTIONS {
        let tau = setup.h0() * k;
        let mut cells = vec![];
        for &r in &RATIOS {
            let delta = r * tau;
            let run = [runs.next().flatten(), runs.next().flatten()];
            if !setup.samples_fit(delta) {
                cells.push(None);
                continue;
            }
            let mut cell = [None; 2];
            for ((c, symmetric), run) in cell.iter_mut().zip([false, true]).zip(run) {
                let mut row = Row {
                    tau,
                    ratio: r,
                    symmetric,
                    max: f64::INFINITY,
                    err: f64::INFINITY,
                };
                if let Some((max, err)) = run {
                    (row.max, row.err) = (max, err);
                    rows.push(row);
                    *c = Some(row.err);
                }
                if (delta - DELTA_THESIS).abs() < 1e-12 && !symmetric {
                    thesis.push(row);
                }
            }
            cells.push(Some(cell));
        }
        grid.push((k, cells));
    }
    (grid, rows, thesis)
}

/// The recommended setting: the largest δ (fewest steps) whose window error is at most TARGET;
/// ties go to the nonintrusive form (two legacy calls per step instead of four).
fn recommended(setup: &Setup, rows: &[Row], legacy: &[(f64, f64)], win_ref: &[f64]) -> Recommended {
    let pick = rows
        .iter()
        .filter(|r| r.err <= TARGET)
        .max_by(|a, b| {
            (a.ratio * a.tau)
                .total_cmp(&(b.ratio * b.tau))
                .then(b.symmetric.cmp(&a.symmetric))
                .then(b.err.total_cmp(&a.err))
        })
        .copied();
    let (tau, delta, symmetric) = RECOMMENDED;
    let (th, _) = setup
        .flavor_theta(tau, delta, symmetric)
        .expect("recommended setting runs");
    let err = window_err(&setup.windows(&th, delta), win_ref);
    let legacy_err = window_err(
        &setup.windows(&setup.legacy_theta(tau), setup.dt_ref),
        win_ref,
    );
    let speed = speedup(setup, tau, delta, symmetric);
    // The legacy step with the same window error, interpolated log-log in the legacy table.
    let tau_same = equal_error_step(legacy, err);
    let speed_same =
        setup.legacy_seconds(tau_same, 15) / setup.flavor_seconds(tau, delta, symmetric, 15);
    Recommended {
        pick,
        max: max_abs(&th),
        err,
        legacy_err,
        speedup: speed,
        equal_error: (tau_same, speed_same),
    }
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let h0 = setup.h0();
    // The reference run is serial: the ω study, which does not need it, runs beside it.
    let (theta_ref, averaging_omega) =
        rayon::join(|| setup.slowed_theta(1.0), || averaging_omega(setup));
    let win_ref = setup.windows(&theta_ref, setup.dt_ref);
    // The sweeps run their points in parallel, and so do the timings (`speedup`): each is the
    // least of repeated runs in the CPU time of its own thread.
    let averaging = map(RATIOS.len(), |i| {
        let th = setup.slowed_theta(RATIOS[i]);
        let e = window_err(&setup.windows(&th, setup.dt_ref), &win_ref);
        (RATIOS[i], max_abs(&th), e)
    });
    let legacy: Vec<(f64, f64, f64)> = map(FRACTIONS.len(), |i| {
        let (k, tau) = (FRACTIONS[i], h0 * FRACTIONS[i]);
        let th = setup.legacy_theta(tau);
        let e = window_err(&setup.windows(&th, setup.dt_ref), &win_ref);
        (k, tau, e)
    });
    let legacy_table: Vec<(f64, f64)> = legacy.iter().map(|x| (x.1, x.2)).collect();
    let legacy_slope = crate::measure::loglog_slope(
        &legacy_table.iter().map(|x| x.0).collect::<Vec<_>>(),
        &legacy_table.iter().map(|x| x.1).collect::<Vec<_>>(),
    );
    let (grid, rows, thesis_rows) = flavor_grid(setup, &win_ref);
    let speeds = map(thesis_rows.len(), |i| {
        let row = &thesis_rows[i];
        if row.err.is_finite() {
            speedup(setup, row.tau, DELTA_THESIS, false)
        } else {
            f64::NAN
        }
    });
    let thesis: Vec<(Row, f64)> = thesis_rows.into_iter().zip(speeds).collect();
    let (best, recommended) = rayon::join(
        || {
            rows.iter()
                .min_by(|a, b| a.err.total_cmp(&b.err))
                .map(|b| (*b, speedup(setup, b.tau, b.ratio * b.tau, b.symmetric)))
        },
        || recommended(setup, &rows, &legacy_table, &win_ref),
    );
    Results {
        model: setup.model,
        h0,
        max_ref: max_abs(&theta_ref),
        averaging,
        averaging_omega,
        legacy,
        legacy_slope,
        grid,
        recommended,
        rows,
        thesis,
        best,
    }
}

impl Setup {
    /// `reproduce kapitza --quick`: [`Setup::paper`] with the final time cut from `T = 10` to
    /// `T = 1.5` (every run, reference and timing is ~7x shorter); the model, the windows, the
    /// reference sampling and the (τ, R) sweeps are unchanged, so are the figure names.
    pub fn quick() -> Self {
        Self {
            t_end: 1.5,
            ..Self::paper()
        }
    }
}

/// `reproduce kapitza`: Kapitza's inverted pendulum (004 §2.6.6, eqs 2.113–2.115, Fig 2.17).
pub struct KapitzaExperiment;

fn form(symmetric: bool) -> &'static str {
    if symmetric {
        "symmetric"
    } else {
        "nonintrusive"
    }
}
