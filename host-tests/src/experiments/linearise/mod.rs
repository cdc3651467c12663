//! `reproduce linearise`: the exact step linearisations of [`macrostep::linearise`] against
//! central differences, their symplecticity and cost, the LQR gains computed from them
//! against the continuous model's as `h → 0`, the full cart-pole regulated with each
//! method's gains, and the cart-pole regulated through the EKF of [`macrostep::control`] at
//! several measurement noise levels.

pub mod cart;
pub mod cases;
pub mod checks;
pub mod ekf;
pub mod fd;
pub mod tangent;

use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::plot::{Chart, Series};
use crate::report::Output;

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Step of the central-difference comparison (spring problem).
    pub h: f64,
    /// Spring stiffness of the comparison.
    pub k: f64,
    /// Thread CPU time (ns) each cost measurement spans at least.
    pub cpu_ns: f64,
    /// Steps of the LQR gain comparison.
    pub gain_hs: Vec<f64>,
    /// Initial tilts (rad) of the regulated cart-pole.
    pub tilts: Vec<f64>,
    /// Seconds of each regulated run.
    pub seconds: f64,
    /// Measurement noise levels of the EKF runs.
    pub sigmas: Vec<f64>,
    /// Initial tilt of the EKF runs.
    pub ekf_tilt: f64,
    /// Seconds of each EKF run.
    pub ekf_seconds: f64,
    /// Steps of the Cartesian pendulum's eigenvalue comparison (RATTLE, tangent coordinates).
    pub eigen_hs: Vec<f64>,
}

impl Setup {
    /// The full case.
    pub fn paper() -> Self {
        Self {
            h: 0.05,
            k: 50.0,
            cpu_ns: 2e8,
            gain_hs: vec![1e-2, 1e-3, 1e-4],
            tilts: vec![0.05, 0.1, 0.2, 0.3],
            seconds: 10.0,
            sigmas: vec![1e-4, 1e-3, 1e-2],
            ekf_tilt: 0.1,
            ekf_seconds: 10.0,
            eigen_hs: vec![0.04, 0.02, 0.01, 0.005],
        }
    }

    /// Fewer repetitions, tilts and seconds.
    pub fn quick() -> Self {
        Self {
            cpu_ns: 3e7,
            tilts: vec![0.1, 0.3],
            seconds: 4.0,
            ekf_seconds: 3.0,
            ..Self::paper()
        }
    }
}

/// One method's regulated runs: `(tilt, Ok((max |θ| over the last second, |θ|, |s|)))`.
pub type Regulated = Vec<(f64, Result<(f64, f64, f64), String>)>;

/// Results.
#[derive(Clone, Debug)]
pub struct Results {
    /// The setup it ran.
    pub setup: Setup,
    /// Per method: the error against central differences, the symplectic defect and the cost.
    pub rows: Vec<checks::MethodRow>,
    /// The ZOH gains at each `h` of `gain_hs`.
    pub zoh: Vec<[f64; 4]>,
    /// Each method's gain at each `h` (`[h][method]`, methods as [`cart::METHODS`]).
    pub gains: Vec<Vec<Result<[f64; 4], String>>>,
    /// Each method's relative gain gap at each `h` (`NaN` when its gain failed).
    pub gaps: Vec<Vec<f64>>,
    /// Each method's fitted order of the gap in `h`.
    pub gap_orders: Vec<f64>,
    /// Each method's regulated runs at `h = 1 ms` (as [`cart::METHODS`]).
    pub regulated: Vec<Regulated>,
    /// The EKF runs, one per noise level (Z&S gains).
    pub ekf: Vec<Result<ekf::EkfRun, String>>,
    /// The Cartesian pendulum's eigenvalue gaps to the angle model at each of `eigen_hs`:
    /// `[hanging, upright]` (see [`tangent::pendulum_eigen_gap`]; `NaN` on error).
    pub eigen_gaps: Vec<[f64; 2]>,
    /// The fitted orders of the gaps, `[hanging, upright]`.
    pub eigen_orders: [f64; 2],
}

/// Runs everything.
pub fn compute(setup: &Setup) -> Results {
    let rows = checks::rows(setup.h, setup.k, setup.cpu_ns);
    let zoh: Vec<[f64; 4]> = setup.gain_hs.iter().map(|&h| cart::zoh_gain(h)).collect();
    let gains: Vec<_> = setup.gain_hs.iter().map(|&h| cart::gains(h)).collect();
    let gaps: Vec<Vec<f64>> = gains
        .iter()
        .zip(&zoh)
        .map(|(g, z)| {
            g.iter()
                .map(|k| k.as_ref().map_or(f64::NAN, |k| cart::gap(k, z)))
                .collect()
        })
        .collect();
    let gap_orders = (0..cart::METHODS.len())
        .map(|m| {
            let y: Vec<f64> = gaps.iter().map(|g| g[m]).collect();
            loglog_slope(&setup.gain_hs, &y)
        })
        .collect();
    let at_1ms = cart::gains(super::cart_pole::H);
    let regulated = at_1ms
        .iter()
        .map(|g| {
            setup
                .tilts
                .iter()
                .map(|&tilt| {
                    let run = g
                        .clone()
                        .and_then(|k| cart::regulate(&k, tilt, setup.seconds));
                    (tilt, run)
                })
                .collect()
        })
        .collect();
    let zs_gain = at_1ms[0].clone();
    let ekf = setup
        .sigmas
        .iter()
        .enumerate()
        .map(|(i, &sigma)| {
            zs_gain
                .clone()
                .and_then(|k| ekf::run(&k, sigma, setup.ekf_tilt, setup.ekf_seconds, 30 + i as u64))
        })
        .collect();
    let eigen_gaps: Vec<[f64; 2]> = setup
        .eigen_hs
        .iter()
        .map(|&h| {
            [false, true].map(|up| {
                tangent::pendulum_eigen_gap(PENDULUM.0, PENDULUM.1, PENDULUM.2, h, up)
                    .unwrap_or(f64::NAN)
            })
        })
        .collect();
    let eigen_orders = [0, 1].map(|k| {
        let y: Vec<f64> = eigen_gaps.iter().map(|g| g[k]).collect();
        loglog_slope(&setup.eigen_hs, &y)
    });
    Results {
        setup: setup.clone(),
        eigen_gaps,
        eigen_orders,
        rows,
        zoh,
        gains,
        gaps,
        gap_orders,
        regulated,
        ekf,
    }
}

mod report;
pub use report::report;

/// The Cartesian pendulum of the eigenvalue comparison: mass, gravity, rod length.
pub const PENDULUM: (f64, f64, f64) = (0.7, 9.81, 0.5);

/// `reproduce linearise`.
pub struct LineariseExperiment;

impl Experiment for LineariseExperiment {
    const NAME: &'static str = "linearise";
    const SEED: &'static str = "(application: exact step linearisations, LQR, EKF; 000 eq 1.3)";
    const SECONDS: f64 = 5.0;
    const ABOUT: &'static str = "exact A, B of the steps vs central differences, symplecticity, cost; LQR gains vs the continuous model; cart-pole regulated directly and through an EKF";
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

/// The chart of the EKF run at the largest noise: true, measured and estimated angle.
fn ekf_chart(run: &ekf::EkfRun) -> Chart {
    let pick = |f: fn(&(f64, f64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
        run.trace.iter().map(|p| (p.0, f(p))).collect()
    };
    Chart {
        stem: "linearise.ekf".into(),
        title: format!(
            "cart-pole through the EKF, measurement noise σ = {} rad",
            run.sigma
        ),
        x_label: "t (s)".into(),
        y_label: "pole angle θ (rad)".into(),
        log_x: false,
        log_y: false,
        series: vec![
            Series::new("measured θ", pick(|p| p.2)),
            Series::new("true θ", pick(|p| p.1)),
            Series::new("estimated θ", pick(|p| p.3)),
        ],
    }
}

/// Helpers the report shares.
fn fmt_h(h: f64) -> String {
    format!("{h:e}")
}
