//! `reproduce lc-circuit`: 004 §7.1.6, the high-order LC circuit (Fig 7.1, eq 7.22) with the
//! variational integrator (7.15) and its stochastic version (§7.1.5).
//!
//! - **Fig 7.2** as printed: `Σ_jj = 0.01`, `h = 0.1`, `T = 30`, `q̃₀ = (1, 0)`, `M = 100000`
//!   paths; the ensemble variances (7.25b) of the inductor fluxes `p₁, p₂` against the exact
//!   variances (7.24b), with standard errors, and against the scheme's own exact covariance
//!   (propagated through its linear step maps) to separate sampling from discretisation error.
//! - **Orders**: deterministic (error of the mean), weak (error of the covariance at `T = 10`,
//!   both by exact propagation, no sampling error) and strong (RMS error at `T = 5` against an
//!   independent fine-step Heun solution driven by the same Brownian path), log–log slopes.
//! - **Gibbs**: the §7.1.6 example has no resistor, hence no stationary law; we add resistors
//!   `R₁ = R₂ = 0.5` on the inductor branches with Johnson–Nyquist noise at `k_BT = 0.5` and
//!   compare long-run averages of `H`, the capacitor charges and the inductor current with
//!   equipartition (`⟨H⟩ = 2k_BT`, `⟨q_C²⟩ = k_BT·C`, `⟨i_L²⟩ = k_BT/L`), with standard errors
//!   from independent paths; the bias of the scheme's exact stationary `⟨H⟩` against `h` gives
//!   its order.
//! - **FLAVOR (§7.1.7, Figs 7.3–7.4)**: the variational integrator FLAVORized by rule (2.8) with
//!   the stiff capacitor `C₂ = ε` switched, with the seed's printed parameters and with ours
//!   inside FLAVOR's regime (see [`flavor`]); slow/fast errors against the exact flow.
//! - **Structure**: symplecticity defect (`R = 0`), phase-volume factor `det𝕃/det(𝕃 + hD)` with
//!   resistors, and the reversibility error (the method is not symmetric).
//!
//! Exact moments use the reduced SDE (7.20) built here from the parameters (not from
//! [`macrostep::circuit::Circuit`]) and the Van Loan matrix exponential.

pub mod flavor;
mod model;
mod print;
mod studies;

pub use model::{gibbs_params, scheme_maps, seed_params, Params, Vi, KT, R_GIBBS};

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// Fig 7.2 ensemble size (the seed: 100000).
    pub paths: usize,
    /// Fig 7.2 step and horizon (the seed: 0.1, 30).
    pub h: f64,
    /// Fig 7.2 horizon.
    pub t_end: f64,
    /// Step sizes of the order studies.
    pub steps: Vec<f64>,
    /// Paths of the strong-order study.
    pub strong_paths: usize,
    /// Independent paths, burn-in and averaging time of the Gibbs study.
    pub gibbs_paths: usize,
    /// Burn-in time per path.
    pub gibbs_burn: f64,
    /// Averaging time per path.
    pub gibbs_time: f64,
    /// Step of the Gibbs study.
    pub gibbs_h: f64,
    /// RNG seed.
    pub seed: u64,
    /// Horizon of the §7.1.7 FLAVOR comparison.
    pub flavor_time: f64,
}

impl Setup {
    /// The seed's Fig 7.2 parameters, long Gibbs runs.
    pub fn paper() -> Self {
        Self {
            paths: 100_000,
            h: 0.1,
            t_end: 30.0,
            steps: vec![0.1, 0.05, 0.025, 0.0125],
            strong_paths: 1000,
            gibbs_paths: 256,
            gibbs_burn: 40.0,
            gibbs_time: 2000.0,
            gibbs_h: 0.05,
            seed: 2011,
            flavor_time: 10.0,
        }
    }

    /// Few paths, short Gibbs runs (tests).
    pub fn quick() -> Self {
        Self {
            paths: 4000,
            strong_paths: 100,
            gibbs_paths: 32,
            gibbs_time: 300.0,
            ..Self::paper()
        }
    }
}

/// A measured value with its standard error and the exact value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stat {
    /// Monte Carlo estimate.
    pub mc: f64,
    /// Its standard error.
    pub se: f64,
    /// The exact value for the SDE.
    pub exact: f64,
    /// The scheme's exact value (propagated moments, no sampling error).
    pub scheme: f64,
}

/// Everything measured.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// The setup it ran.
    pub setup: Setup,
    /// Output times of Fig 7.2.
    pub times: Vec<f64>,
    /// Per time, per flux `p₁, p₂`: variance statistics.
    pub var: Vec<[Stat; 2]>,
    /// `max |mc − scheme| / se` over all Fig 7.2 times and both fluxes (variance and mean).
    pub max_z_scheme: f64,
    /// `max |scheme − exact| / exact` of the variances for `t ≥ 1`.
    pub max_rel_bias: f64,
    /// `max |mc − exact| / exact` of the variances for `t ≥ 1`.
    pub max_rel_dev: f64,
    /// Per step size: error of the mean, relative error of the covariance, strong RMS error.
    pub mean_err: Vec<f64>,
    /// Relative covariance error at `T = 10`.
    pub cov_err: Vec<f64>,
    /// Strong RMS error at `T = 5`.
    pub strong_err: Vec<f64>,
    /// Gibbs statistics: `H`, `q₃²`, `q₄²`, `i₁²`.
    pub gibbs: [Stat; 4],
    /// Per step size: `|⟨H⟩_h − 2k_BT|` of the scheme's exact stationary law.
    pub gibbs_bias: Vec<f64>,
    /// `max |DΦᵀJDΦ − J|` (R = 0).
    pub symplectic_defect: f64,
    /// `|det DΦ − det𝕃/det(𝕃+hD)|` with resistors.
    pub volume_error: f64,
    /// `Φ₋ₕ∘Φₕ` error (not symmetric: order `h`).
    pub reversibility: f64,
    /// The §7.1.7 FLAVOR comparisons: the seed's parameters, inside FLAVOR's regime.
    pub flavor: [flavor::FlavorResults; 2],
}

/// Runs every part.
pub fn compute(setup: &Setup) -> Results {
    let mut r = Results {
        setup: setup.clone(),
        ..Results::default()
    };
    studies::fig72(setup, &mut r);
    studies::weak_orders(setup, &mut r);
    studies::strong_order(setup, &mut r);
    studies::gibbs(setup, &mut r);
    studies::structure(&mut r);
    r.flavor = [
        flavor::compute(&flavor::Case::seed(), setup.flavor_time),
        flavor::compute(&flavor::Case::regime(), setup.flavor_time),
    ];
    r
}

/// `reproduce lc-circuit`.
pub struct LcCircuitExperiment;
