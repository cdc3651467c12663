//! `reproduce flavor-stability`: Theorem 2.5.1 and Fig 2.2 on system 2.93 (004 §2.5.1), and the
//! stable range for the Fig 2.4 setting on 2.100. Stability is read off the spectral radius of
//! the one-step matrix, built by stepping the basis vectors through the crate's integrators and
//! cross-checked against the thesis's written-out products (eqs 2.94, 2.97).

use super::nonintrusive_se;
use crate::fixtures::{coords_293, system_2100, system_293};
use macrostep::flavor::{Artificial, Params};
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{DMatrix, SMatrix, SVector};
use macrostep::{Integrator, State};

mod report;

/// The matrix of one step of a linear integrator on `(q, v)` (unit mass: `v = p`), built by
/// stepping the basis vectors.
pub fn step_matrix<I: Integrator<f64, N>, const N: usize>(integ: &mut I) -> DMatrix<f64> {
    // The raw linear map, also where it is unstable: the step guards would refuse those steps.
    integ
        .set_guards(macrostep::Guards::off())
        .expect("guards off is always accepted");
    let mut m = DMatrix::zeros(2 * N, 2 * N);
    for k in 0..2 * N {
        let mut e = vec![0.0_f64; 2 * N];
        e[k] = 1.0;
        let mut s = State::new(
            0.0,
            SVector::<f64, N>::from_iterator(e.iter().copied().take(N)),
            SVector::<f64, N>::from_iterator(e.iter().copied().skip(N)),
        );
        integ.step(&mut s).expect("linear step");
        for i in 0..N {
            m[(i, k)] = s.q[i];
            m[(N + i, k)] = s.v[i];
        }
    }
    m
}

/// Spectral radius of a square matrix.
pub fn spectral_radius(m: &DMatrix<f64>) -> f64 {
    m.clone()
        .complex_eigenvalues()
        .iter()
        .map(|z| z.norm())
        .fold(0.0, f64::max)
}

/// The thesis's own one-step matrix of the nonintrusive FLAVOR on 2.93 (proof of Theorem
/// 2.5.1, eq 2.94), written out independently of the crate.
pub fn thesis_matrix_nonintrusive(delta: f64, tau: f64, omega: f64) -> DMatrix<f64> {
    let w2 = omega * omega;
    let d = delta - tau;
    let drift = |h: f64| {
        DMatrix::from_row_slice(
            4,
            4,
            &[
                1.0, 0.0, h, 0.0, 0.0, 1.0, 0.0, h, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ],
        )
    };
    let soft_kick = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -d, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
    );
    let full_kick = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            -tau * (w2 + 1.0),
            tau * w2,
            1.0,
            0.0,
            tau * w2,
            -tau * w2,
            0.0,
            1.0,
        ],
    );
    drift(d) * soft_kick * drift(tau) * full_kick
}

/// The thesis's one-step matrix of the artificial FLAVOR on 2.93 (eq 2.97).
pub fn thesis_matrix_artificial(delta: f64, tau: f64, omega: f64) -> DMatrix<f64> {
    let w2 = omega * omega;
    let h = (delta - tau) / 2.0;
    let frozen = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0, 0.0, h, h, 0.0, 1.0, h, h, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
    );
    let stiff_kick = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            -tau * w2,
            tau * w2,
            1.0,
            0.0,
            tau * w2,
            -tau * w2,
            0.0,
            1.0,
        ],
    );
    let drift = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0, 0.0, tau, 0.0, 0.0, 1.0, 0.0, tau, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
    );
    let soft_kick = DMatrix::from_row_slice(
        4,
        4,
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -delta, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
    );
    frozen * stiff_kick * drift * soft_kick
}

/// Tolerance on the spectral radius for "stable": a symplectic map's eigenvalues sit on the unit
/// circle, and eigenvalue roundoff of a 4×4 matrix with entries up to `τω²δ` is ~1e-12; beyond the
/// threshold the radius grows like `1 + c√(δ − δ*)`, so this costs < 1e-10 in δ*.
pub const RHO_TOL: f64 = 1e-9;

/// The spectral radius of one nonintrusive FLAVOR step on 2.93.
pub fn rho_nonintrusive(delta: f64, tau: f64, omega: f64) -> f64 {
    spectral_radius(&step_matrix(&mut nonintrusive_se(
        system_293::<f64>(omega),
        delta,
        tau,
    )))
}

/// The spectral radius of one artificial FLAVOR step on 2.93.
pub fn rho_artificial(delta: f64, tau: f64, omega: f64) -> f64 {
    let mut a = Artificial::new(
        system_293::<f64>(omega),
        coords_293(),
        Params::new(delta, tau).expect("0 < tau < delta"),
    )
    .expect("valid coords");
    spectral_radius(&step_matrix(&mut a))
}

/// Largest stable `δ` in `(lo, hi)` by bisection on `ρ ≤ 1 + RHO_TOL` (`lo` stable, `hi` not).
pub fn threshold(rho: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    assert!(rho(lo) <= 1.0 + RHO_TOL, "threshold: lower end unstable");
    assert!(rho(hi) > 1.0 + RHO_TOL, "threshold: upper end stable");
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if rho(mid) <= 1.0 + RHO_TOL {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Number of unstable points on a grid of `n` values of δ in `(lo, hi)` (monotonicity check:
/// zero means no resonant instability below the threshold).
pub fn unstable_below(rho: impl Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> usize {
    (1..n)
        .map(|k| lo + (hi - lo) * k as f64 / n as f64)
        .filter(|&d| rho(d) > 1.0 + RHO_TOL)
        .count()
}

/// What to run: system 2.93's stiffness, the τ of the headline thresholds, the τ grid of
/// Fig 2.2 and the ε of the Fig 2.4 setting on 2.100.
pub struct Setup {
    /// `ω` of system 2.93.
    pub omega: f64,
    /// `τ` of the headline thresholds.
    pub tau: f64,
    /// The `τ` grid of Fig 2.2.
    pub taus: Vec<f64>,
    /// Grid points of the monotonicity check below each threshold.
    pub grid: usize,
    /// `ε` of system 2.100 in the Fig 2.4 setting.
    pub eps_2100: f64,
}

impl Setup {
    /// The thesis's setting: ω = 100, τ = 10⁻⁶, Fig 2.2 at τ = 10⁻⁶ … 10⁻³, ε = 10⁻⁶.
    pub fn paper() -> Self {
        Self {
            omega: 100.0,
            tau: 1e-6,
            taus: vec![1e-6, 1e-5, 1e-4, 1e-3],
            grid: 2000,
            eps_2100: 1e-6,
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// One row of Fig 2.2: the largest stable δ of both FLAVORs at one τ.
pub struct Fig22Row {
    /// `τ`.
    pub tau: f64,
    /// The nonintrusive FLAVOR's threshold.
    pub nonintrusive: f64,
    /// The artificial FLAVOR's threshold.
    pub artificial: f64,
}

/// What the experiment measured.
pub struct Results {
    /// `ω` of system 2.93.
    pub omega: f64,
    /// Largest relative difference of the crate's step matrices from eqs 2.94/2.97.
    pub matrix_rel_diff: f64,
    /// The nonintrusive threshold at the headline τ.
    pub nonintrusive: f64,
    /// Its expansion `2 − τω²/2`.
    pub nonintrusive_predicted: f64,
    /// Unstable grid points below the nonintrusive threshold (0: no resonances).
    pub nonintrusive_unstable_below: usize,
    /// The artificial threshold at the headline τ.
    pub artificial: f64,
    /// Unstable grid points below the artificial threshold.
    pub artificial_unstable_below: usize,
    /// Fig 2.2.
    pub fig2_2: Vec<Fig22Row>,
    /// System 2.100 in the Fig 2.4 setting: the largest stiff eigenvalue `λ_max` of `K`.
    pub lambda_max: f64,
    /// `ω_max² = λ_max/ε`.
    pub omega2_max: f64,
    /// The spectral radius at the thesis's δ = 0.01, τ = 5·10⁻⁴.
    pub rho_fig2_4: f64,
    /// The largest stable δ at τ = 5·10⁻⁴.
    pub delta_max: f64,
    /// The largest stable τ at δ = 0.01.
    pub tau_max: f64,
}

/// The largest relative difference between the crate's step matrices and the thesis's
/// written-out products, at three `(δ, τ)`.
fn matrix_rel_diff(omega: f64) -> f64 {
    let mut worst: f64 = 0.0;
    for &(d, t) in &[(0.5, 1e-4), (1.9, 1e-6), (0.01, 5e-5)] {
        let mine = step_matrix(&mut nonintrusive_se(system_293::<f64>(omega), d, t));
        let theirs = thesis_matrix_nonintrusive(d, t, omega);
        worst = worst.max((mine - &theirs).amax() / theirs.amax());
        let mut a = Artificial::new(
            system_293::<f64>(omega),
            coords_293(),
            Params::new(d, t).unwrap(),
        )
        .unwrap();
        let mine = step_matrix(&mut a);
        let theirs = thesis_matrix_artificial(d, t, omega);
        worst = worst.max((mine - &theirs).amax() / theirs.amax());
    }
    worst
}

/// Fig 2.2: both thresholds over the τ grid.
fn fig2_2(omega: f64, taus: &[f64]) -> Vec<Fig22Row> {
    taus.iter()
        .map(|&t| {
            let tw = t * omega * omega;
            let hi = 50.0_f64.max(10.0 / tw);
            let lo = 1.01 * t;
            Fig22Row {
                tau: t,
                nonintrusive: threshold(|d| rho_nonintrusive(d, t, omega), lo, hi),
                artificial: threshold(|d| rho_artificial(d, t, omega), lo, hi),
            }
        })
        .collect()
}

/// The spectral radius of the nonintrusive FLAVOR on system 2.100 linearised at the origin (the
/// soft x⁴ has zero curvature there, so only the stiff modes matter).
fn rho_2100(eps: f64, delta: f64, tau: f64) -> f64 {
    let sys = System::new(
        Mass::identity(),
        Split::new(
            Quadratic::new(SMatrix::<f64, 3, 3>::zeros()),
            system_2100::<f64>(eps, 1.1, 0.97).potential.stiff,
            1.0 / eps,
        ),
    );
    spectral_radius(&step_matrix(&mut nonintrusive_se(sys, delta, tau)))
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let (omega, tau, eps) = (setup.omega, setup.tau, setup.eps_2100);
    let nonintrusive = threshold(|d| rho_nonintrusive(d, tau, omega), 0.1, 3.0);
    let nonintrusive_unstable_below = unstable_below(
        |d| rho_nonintrusive(d, tau, omega),
        tau,
        nonintrusive,
        setup.grid,
    );
    let artificial = threshold(|d| rho_artificial(d, tau, omega), 0.1, 4.0);
    let artificial_unstable_below = unstable_below(
        |d| rho_artificial(d, tau, omega),
        tau,
        artificial,
        setup.grid,
    );
    let lambda_max = system_2100::<f64>(eps, 1.1, 0.97)
        .potential
        .stiff
        .k
        .symmetric_eigenvalues()
        .max();
    Results {
        omega,
        matrix_rel_diff: matrix_rel_diff(omega),
        nonintrusive,
        nonintrusive_predicted: 2.0 - tau * omega * omega / 2.0,
        nonintrusive_unstable_below,
        artificial,
        artificial_unstable_below,
        fig2_2: fig2_2(omega, &setup.taus),
        lambda_max,
        omega2_max: lambda_max / eps,
        rho_fig2_4: rho_2100(eps, 0.01, 5e-4),
        delta_max: threshold(|d| rho_2100(eps, d, 5e-4), 1.01 * 5e-4, 0.01),
        tau_max: threshold(|t| rho_2100(eps, 0.01, t), 1e-6, 5e-4),
    }
}

/// `reproduce flavor-stability`.
pub struct FlavorStabilityExperiment;
