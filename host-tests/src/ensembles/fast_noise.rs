//! §2.6.9 (fast noise, eqs 2.120–2.121): the stiff-noise Langevin FLAVOR (2.89) against GLA on
//! the moments of the slow `x` and of `x − y`, the GLA step check, and the Gibbs fast marginal.

use super::moments::{max_z, Moments};
use crate::ensemble_runner::{fold, member_rng, stream_base, Sums};
use crate::fixtures::{ExpCoupling, SplitSystem};
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::{FusedEuler, LangevinStiff, Params};
use macrostep::langevin::{DiagonalOu, Normal, StochasticIntegrator};
use macrostep::model::{Mass, Split, System};
use macrostep::nalgebra::SVector;
use macrostep::systems::QuarticBond;
use macrostep::{Guards, Integrator, State, Stepper};

/// The guards of the symplectic Euler inside a GLA composed with an external thermostat: no
/// energy run guard. The thermostat rewrites `v` before every step, so each step is a run of its
/// own, judged against little more than its own kinetic energy, which one step's energy error
/// of symplectic Euler on the stiff system exceeds on some paths; the library's own GLA
/// (`macrostep::langevin::Gla`) measures no energy for stochastic dynamics, and this
/// composition does the same (finiteness, the residual and velocity guards and the clock
/// still apply).
fn sampler_guards() -> Guards<f64> {
    Guards {
        energy_run: None,
        ..Guards::default()
    }
}

/// §2.6.9 (eqs 2.120–2.121): `ω`, `c`, `σ` (friction `ω²c` and noise `ωσ` on `y` only).
pub const FAST_NOISE: (f64, f64, f64) = (100.0, 0.1, 1.0);

/// The headline FLAVOR parameters of `reproduce flavor-langevin` for §2.6.9: `(τ, δ)` =
/// `(5·10⁻⁴, 10⁻³)`, `δ/τ = 2`. The FLAVOR's fast marginal is that of the stiff quartic
/// slowed by `τ/δ`, so `E[y²]` is `√(δ/τ)` times the true one; at `ω = 100` that shows in
/// `E[(x − y)²]` wherever the slow `x` passes through zero (`t ≈ 10`), and `δ/τ = 2` is where
/// that bias is about one standard error of 400 paths (at `δ/τ = 4` it is ~3, at the thesis's
/// `100` ~12; see the study table of `reproduce flavor-langevin`).
pub const FAST_NOISE_FLAVOR: (f64, f64) = (5e-4, 1e-3);

/// The reference GLA step for §2.6.9 (`ω²c·h = 0.025`); `reproduce flavor-langevin` checks it
/// against `2h` on the same Brownian paths.
pub const FAST_NOISE_GLA_H: f64 = 2.5e-5;

/// `H = ½|p|² + ¼ω⁴y⁴ + e^y(x − y)²` as a split (`q = (y, x)`, stiff `y⁴/4` times `α = ω⁴`).
pub fn fast_noise_system() -> SplitSystem<f64, ExpCoupling, QuarticBond<f64, 2>, 2> {
    fast_noise_system_at(FAST_NOISE.0)
}

/// [`fast_noise_system`] with stiffness `ω` (the thesis has `ω = 100`).
pub fn fast_noise_system_at(omega: f64) -> SplitSystem<f64, ExpCoupling, QuarticBond<f64, 2>, 2> {
    let stiff = QuarticBond::<f64, 2>::new(0, None, 0.25).expect("valid bond"); // y⁴/4
    System::new(
        Mass::identity(),
        Split::new(ExpCoupling, stiff, omega.powi(4)),
    )
}

/// `y(0) = 1.1/ω`, `x(0) = y(0) + 1.8`, at rest.
pub fn fast_noise_start() -> State<f64, 2> {
    fast_noise_start_at(FAST_NOISE.0)
}

/// [`fast_noise_start`] for stiffness `ω`: `y(0) = 1.1/ω`.
pub fn fast_noise_start_at(omega: f64) -> State<f64, 2> {
    let y0 = 1.1 / omega;
    State::new(0.0, SVector::from([y0, y0 + 1.8]), SVector::zeros())
}

/// An ensemble of §2.6.9 paths recorded at `t = 0.5, 1, …, T`: moments of `x − y` and of `y`.
#[derive(Clone, Debug)]
pub struct FastNoiseEnsemble {
    /// Moments of `x − y` (the thesis's "dominantly slow" variable).
    pub xy: Moments,
    /// Moments of the fast `y`.
    pub y: Moments,
    /// Moments of the slow `x` (the position of the soft-coupled mass, which carries neither
    /// friction nor noise).
    pub x: Moments,
    /// Seconds of the integration: the member seconds of
    /// [`fold`](crate::ensemble_runner::fold), the same at any thread count.
    pub seconds: f64,
}

impl FastNoiseEnsemble {
    fn new(n_rec: usize) -> Self {
        Self {
            xy: Moments::new(n_rec),
            y: Moments::new(n_rec),
            x: Moments::new(n_rec),
            seconds: 0.0,
        }
    }
    fn add(&mut self, path: &[State<f64, 2>]) {
        debug_assert_eq!(path.len(), self.y.s1.len());
        let xy: Vec<f64> = path.iter().map(|s| s.q[1] - s.q[0]).collect();
        let y: Vec<f64> = path.iter().map(|s| s.q[0]).collect();
        let x: Vec<f64> = path.iter().map(|s| s.q[1]).collect();
        self.xy.add(&xy);
        self.y.add(&y);
        self.x.add(&x);
    }
    /// `E[y²]` averaged over the recorded times in `[t1, T]`.
    pub fn mean_y2_from(&self, t1: f64) -> f64 {
        let k0 = ((t1 / 0.5).round() as usize).saturating_sub(1);
        let k = self.y.s2.len();
        let n = self.y.n as f64;
        self.y.s2[k0..].iter().map(|s| s / n).sum::<f64>() / (k - k0) as f64
    }
}

impl Sums for FastNoiseEnsemble {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.xy.visit(f);
        self.y.visit(f);
        self.x.visit(f);
    }
}

/// The streams of the §2.6.9 ensembles: member `i` of a GLA ensemble seeded `seed` draws from
/// `member_rng(stream_base(seed, GLA_STREAM), i)`, and so on.
const GLA_STREAM: u64 = 1;
const STEP_CHECK_STREAM: u64 = 2;
const FLAVOR_STREAM: u64 = 3;

fn fast_noise_ou(omega: f64, h: f64) -> DiagonalOu<f64, 2> {
    let (_, c, sigma) = FAST_NOISE;
    DiagonalOu::new(
        SVector::from([omega * omega * c, 0.0]),
        SVector::from([omega * sigma, 0.0]),
        h,
    )
    .expect("valid OU")
}

/// GLA (exact OU on `y`'s velocity, then kick–drift symplectic Euler) at step `h` for §2.6.9.
pub fn fast_noise_gla(paths: usize, t_end: f64, seed: u64, h: f64) -> FastNoiseEnsemble {
    fast_noise_gla_at(FAST_NOISE.0, paths, t_end, seed, h)
}

/// [`fast_noise_gla`] for stiffness `ω`.
pub fn fast_noise_gla_at(
    omega: f64,
    paths: usize,
    t_end: f64,
    seed: u64,
    h: f64,
) -> FastNoiseEnsemble {
    let n_rec = (t_end / 0.5).round() as usize;
    let every = (0.5 / h).round() as usize;
    let ou = fast_noise_ou(omega, h);
    let base = stream_base(seed, GLA_STREAM);
    let (mut out, seconds) = fold(
        "GLA paths (fast noise)",
        paths,
        &FastNoiseEnsemble::new(n_rec),
        |i, out| {
            let mut se =
                SymplecticEuler::new(fast_noise_system_at(omega), h, EulerOrdering::KickDrift)
                    .unwrap()
                    .with_guards(sampler_guards())
                    .unwrap();
            let mut rng = member_rng(base, i);
            let mut s = fast_noise_start_at(omega);
            let mut path = Vec::with_capacity(n_rec);
            for _ in 0..n_rec {
                for _ in 0..every {
                    s.v = ou.sample(&s.v, &mut rng);
                    se.step(&mut s).expect("GLA step");
                }
                path.push(s);
            }
            out.add(&path);
        },
    );
    out.seconds = seconds;
    out
}

/// GLA at `h` and at `2h` on the same Brownian paths (the coarse OU increment over `2h` is
/// `a_h s_h ξ₁ + s_h ξ₂` from the two fine ones — the same Itô integral, exactly). Per path and
/// recorded time, `d = X_h − X_{2h}` for `X = x − y` and `X = (x − y)²`; GLA is weakly first
/// order, so `E[d]` estimates the bias of GLA at `h`. Returns the largest `|mean d| / SE(mean d)`
/// and the largest `|mean d| / SD(X_h)` (the bias per unit of the per-path standard deviation;
/// divide by `1/√n` for units of an `n`-path ensemble's standard error) over the times and both
/// moments.
pub fn fast_noise_gla_step_check(paths: usize, t_end: f64, seed: u64, h: f64) -> (f64, f64) {
    let n_rec = (t_end / 0.5).round() as usize;
    let every = (0.25 / h).round() as usize; // coarse steps per record
    let omega = FAST_NOISE.0;
    let (fine, coarse) = (fast_noise_ou(omega, h), fast_noise_ou(omega, 2.0 * h));
    let (a, sd, a2) = (*fine.decay(), *fine.std_dev(), *coarse.decay());
    let base = stream_base(seed, STEP_CHECK_STREAM);
    // Differences: index 2i for X, 2i + 1 for X²; and X at h.
    let zero = (Moments::new(2 * n_rec), Moments::new(n_rec));
    let ((d, xf), _) = fold("GLA step-check paths", paths, &zero, |p, (d, xf)| {
        let mut sf = SymplecticEuler::new(fast_noise_system(), h, EulerOrdering::KickDrift)
            .unwrap()
            .with_guards(sampler_guards())
            .unwrap();
        let mut sc = SymplecticEuler::new(fast_noise_system(), 2.0 * h, EulerOrdering::KickDrift)
            .unwrap()
            .with_guards(sampler_guards())
            .unwrap();
        let mut rng = member_rng(base, p);
        let mut row = vec![0.0; 2 * n_rec];
        let mut row_f = vec![0.0; n_rec];
        let (mut f, mut c) = (fast_noise_start(), fast_noise_start());
        for i in 0..n_rec {
            for _ in 0..every {
                let x1: SVector<f64, 2> = Normal::vector(&mut rng);
                let x2: SVector<f64, 2> = Normal::vector(&mut rng);
                f.v = a.component_mul(&f.v) + sd.component_mul(&x1);
                sf.step(&mut f).expect("GLA step");
                f.v = a.component_mul(&f.v) + sd.component_mul(&x2);
                sf.step(&mut f).expect("GLA step");
                c.v = a2.component_mul(&c.v) + sd.component_mul(&(a.component_mul(&x1) + x2));
                sc.step(&mut c).expect("GLA step");
            }
            let (zf, zc) = (f.q[1] - f.q[0], c.q[1] - c.q[0]);
            row[2 * i] = zf - zc;
            row[2 * i + 1] = zf * zf - zc * zc;
            row_f[i] = zf;
        }
        d.add(&row);
        xf.add(&row_f);
    });
    let (mut z_d, mut bias_over_sd) = (0.0_f64, 0.0_f64);
    let root_n = (paths as f64).sqrt();
    for i in 0..n_rec {
        for (k, (_, ref_se)) in xf.at(i).into_iter().enumerate() {
            let (m, se) = d.at(2 * i + k)[0];
            if se > 0.0 {
                z_d = z_d.max(m.abs() / se);
            }
            bias_over_sd = bias_over_sd.max(m.abs() / (ref_se * root_n));
        }
    }
    (z_d, bias_over_sd)
}

/// The stiff-noise Langevin FLAVOR (eq 2.89 over [`FusedEuler`]: on step drift–kick 2.50, off
/// step kick–drift 2.49) for §2.6.9 with micro-step `tau` and meso-step `delta`.
pub fn fast_noise_flavor(
    paths: usize,
    t_end: f64,
    seed: u64,
    tau: f64,
    delta: f64,
) -> FastNoiseEnsemble {
    fast_noise_flavor_at(FAST_NOISE.0, paths, t_end, seed, tau, delta)
}

/// [`fast_noise_flavor`] for stiffness `ω`.
pub fn fast_noise_flavor_at(
    omega: f64,
    paths: usize,
    t_end: f64,
    seed: u64,
    tau: f64,
    delta: f64,
) -> FastNoiseEnsemble {
    let (_, c, sigma) = FAST_NOISE;
    let system = fast_noise_system_at(omega);
    let n_rec = (t_end / 0.5).round() as usize;
    let every = (0.5 / delta).round() as usize;
    let base = stream_base(seed, FLAVOR_STREAM);
    let (mut out, seconds) = fold(
        "FLAVOR paths (fast noise)",
        paths,
        &FastNoiseEnsemble::new(n_rec),
        |i, out| {
            let mut f = LangevinStiff::new(
                FusedEuler::new(system).unwrap(),
                Params::new(delta, tau).unwrap(),
                &system.mass,
                SVector::from([c, 0.0]),
                SVector::from([sigma, 0.0]),
                omega * omega,
            )
            .unwrap();
            let mut rng = member_rng(base, i);
            let mut s = fast_noise_start_at(omega);
            let mut path = Vec::with_capacity(n_rec);
            for _ in 0..n_rec {
                f.integrate_noisy(&mut s, every, &mut rng)
                    .expect("FLAVOR step");
                path.push(s);
            }
            out.add(&path);
        },
    );
    out.seconds = seconds;
    out
}

/// §2.6.9 with `paths` samples per ensemble over `T = t_end`: first and second moments of the
/// slow `x` and of the thesis's "dominantly slow" `x − y` at `t = 0.5, 1, …, T`, FLAVOR (2.89)
/// at `τ`, `δ` vs GLA at step `h_gla` (independent seeds). Returns (max |z| over both variables,
/// GLA seconds, FLAVOR seconds).
pub fn langevin_fast_noise_with(
    paths: usize,
    t_end: f64,
    seed: u64,
    tau: f64,
    delta: f64,
    h_gla: f64,
) -> (f64, f64, f64) {
    let gla = fast_noise_gla(paths, t_end, seed, h_gla);
    let fl = fast_noise_flavor(paths, t_end, seed + 1, tau, delta);
    let z = max_z(&fl.xy, &gla.xy).max(max_z(&fl.x, &gla.x));
    (z, gla.seconds, fl.seconds)
}

/// [`langevin_fast_noise_with`] at the headline parameters [`FAST_NOISE_FLAVOR`] and
/// [`FAST_NOISE_GLA_H`].
pub fn langevin_fast_noise(paths: usize, t_end: f64, seed: u64) -> (f64, f64, f64) {
    let (tau, delta) = FAST_NOISE_FLAVOR;
    langevin_fast_noise_with(paths, t_end, seed, tau, delta, FAST_NOISE_GLA_H)
}

/// `E[y²]` of the density `∝ exp(−βω⁴y⁴/4)` at temperature `1/β = σ²/(2c)`:
/// `(4/β)^{1/2} ω⁻² Γ(3/4)/Γ(1/4)` — the fast marginal of §2.6.9 without the soft coupling.
pub fn fast_noise_gibbs_y2(omega4: f64) -> f64 {
    use statrs::function::gamma::gamma;
    let (_, c, sigma) = FAST_NOISE;
    let temp = sigma * sigma / (2.0 * c);
    (4.0 * temp / omega4).sqrt() * gamma(0.75) / gamma(0.25)
}
