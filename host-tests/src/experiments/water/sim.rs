//! One Langevin run: the exact Ornstein–Uhlenbeck flow of the momenta composed with a
//! deterministic one-step method (GLA, Bou-Rabee & Owhadi 2010, as 000 §4.3 uses it), with the
//! statistics of `reproduce water` collected on the way.

use super::model::{kinetic_temperature, oo_distances, MASS};
use super::{Setup, D, N, W};
use crate::timing::CpuClock;
use macrostep::langevin::Normal;
use macrostep::model::Constraint;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::{Integrator, State};
use rand_pcg::Pcg32;

/// Histogram range and bin width of the O–O distances, in Å.
pub const RDF_MIN: f64 = 2.0;
/// Upper end of the histogram.
pub const RDF_MAX: f64 = 8.0;
/// Number of bins (0.05 Å each).
pub const RDF_BINS: usize = 120;

/// What one run measured.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Normalised O–O histogram (probability per bin; sums to 1 minus the mass outside).
    pub rdf: Vec<f64>,
    /// Same for the first and second half of the production run.
    pub rdf_halves: [Vec<f64>; 2],
    /// Mean kinetic temperature `k_BT` over all `9W` momenta (NaN for SHAKE, whose normal
    /// velocity is not a degree of freedom).
    pub temperature: f64,
    /// Its standard error (batch means).
    pub temperature_se: f64,
    /// Mean kinetic temperature of the `6W` momenta tangent to the rigid geometry
    /// (`M`-orthogonal projection); exact value `1/β` for the penalised and constrained systems.
    pub tangent_temperature: f64,
    /// Its standard error.
    pub tangent_temperature_se: f64,
    /// Mean O–O distance in Å.
    pub oo_mean: f64,
    /// Its standard error (batch means).
    pub oo_se: f64,
    /// Mean relative constraint violation `max |r² − r₀²|/r₀²` over the samples.
    pub residual: f64,
    /// Thread CPU seconds per unit of simulated time (production).
    pub cost: f64,
    /// Steps taken.
    pub steps: usize,
    /// The first step error, if the run stopped early.
    pub error: Option<String>,
}

impl RunStats {
    /// Centre of the histogram bin where the O–O distribution peaks (Å).
    pub fn first_peak(&self) -> f64 {
        first_peak(&self.rdf)
    }

    /// The mean O–O distance of the first (hydrogen-bond) shell, `r < 3.2 Å`, from the
    /// histogram (bin centres), in Å: the shell's position without the bin-to-bin noise of
    /// [`first_peak`](Self::first_peak).
    pub fn first_shell(&self) -> f64 {
        first_shell(&self.rdf)
    }

    /// L1 distance of this run's O–O histogram from `other`'s.
    pub fn rdf_l1(&self, other: &RunStats) -> f64 {
        l1(&self.rdf, &other.rdf)
    }

    /// L1 distance between the histograms of the two halves of the production run (the
    /// statistical noise of [`rdf_l1`](Self::rdf_l1)).
    pub fn rdf_halves_l1(&self) -> f64 {
        l1(&self.rdf_halves[0], &self.rdf_halves[1])
    }
}

/// The exact OU flow `dv = −(γ/m) v dt + √(2γ/β)/m dW` on each coordinate, over one step.
struct Thermostat {
    decay: SVector<f64, N>,
    sd: SVector<f64, N>,
}

impl Thermostat {
    fn new(gamma: f64, beta: f64, h: f64) -> Self {
        let m = SVector::<f64, N>::from_fn(|k, _| MASS[(k / 3) % 3]);
        let decay = m.map(|m| (-gamma * h / m).exp());
        let sd = m.zip_map(&decay, |m, e| ((1.0 - e * e) / (beta * m)).sqrt());
        Self { decay, sd }
    }

    fn apply(&self, v: &mut SVector<f64, N>, rng: &mut Pcg32) {
        let xi = Normal::vector::<f64, _, N>(rng);
        *v = v.component_mul(&self.decay) + xi.component_mul(&self.sd);
    }
}

/// The velocity's part tangent to the constraint manifold (`M`-orthogonal projection).
pub fn tangent<G: Constraint<f64, N, D>>(
    g: &G,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let j = g.jacobian(q);
    let minv = SVector::<f64, N>::from_fn(|k, _| 1.0 / MASS[(k / 3) % 3]);
    let jm = SMatrix::<f64, D, N>::from_fn(|r, c| j[(r, c)] * minv[c]);
    let s = jm * j.transpose();
    let lam = s.lu().solve(&(j * v)).unwrap_or_else(SVector::zeros);
    v - jm.tr_mul(&lam)
}

/// Batch-mean standard error of a series (20 batches).
fn batch_se(x: &[f64]) -> (f64, f64) {
    let n = x.len().max(1) as f64;
    let mean = x.iter().sum::<f64>() / n;
    let nb = 20.min(x.len());
    if nb < 2 {
        return (mean, f64::NAN);
    }
    let len = x.len() / nb;
    let bm: Vec<f64> = (0..nb)
        .map(|b| x[b * len..(b + 1) * len].iter().sum::<f64>() / len as f64)
        .collect();
    let var = bm.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (nb as f64 - 1.0);
    (mean, (var / nb as f64).sqrt())
}

fn normalise(h: &[f64]) -> Vec<f64> {
    let total: f64 = h.iter().sum();
    h.iter().map(|x| x / total.max(1.0)).collect()
}

/// The common start of every run: `method` (step `h`) from the lattice at rest, `setup.burn_time`
/// under the burn-in friction `setup.burn_gamma`; returns the end state and the mean tangent
/// `k_BT` over the burn-in's second half (sampled every `setup.sample_every`). `Err` names the
/// failed step.
///
/// One burn-in for all methods: at `β = 50` the cluster stays for long stretches in the basin
/// its burn-in found, and a burn-in per method lets each method's step pick its own basin (the
/// O–O figures would then compare basins, not methods).
pub fn burn_in<I, G>(
    method: &mut I,
    g: &G,
    h: f64,
    setup: &Setup,
    rng: &mut Pcg32,
) -> Result<(State<f64, N>, f64), String>
where
    I: Integrator<f64, N>,
    G: Constraint<f64, N, D>,
{
    let mut s = State::at_rest(super::model::cluster::<N>());
    let burn = Thermostat::new(setup.burn_gamma, setup.beta, h);
    let n = (setup.burn_time / h).round() as usize;
    let every = ((setup.sample_every / h).round() as usize).max(1);
    let mut temps = Vec::new();
    for k in 0..n {
        burn.apply(&mut s.v, rng);
        method
            .step(&mut s)
            .map_err(|e| format!("burn-in step {k} (t = {:.2}): {e}", s.t))?;
        if 2 * k >= n && k.is_multiple_of(every) {
            temps.push(kinetic_temperature(&tangent(g, &s.q, &s.v), 6.0 * W as f64));
        }
    }
    Ok((s, batch_se(&temps).0))
}

/// Runs `method` (step `h`) from `start` (see [`burn_in`]) for `setup.time` with the seed's
/// `γ`; samples every `setup.sample_every` time units. `constrained`: SHAKE (no full-space
/// temperature).
pub fn run<I, G>(
    method: &mut I,
    g: &G,
    h: f64,
    setup: &Setup,
    constrained: bool,
    rng: &mut Pcg32,
    start: &State<f64, N>,
) -> RunStats
where
    I: Integrator<f64, N>,
    G: Constraint<f64, N, D>,
{
    let mut s = *start;
    let prod = Thermostat::new(setup.gamma, setup.beta, h);
    let n_prod = (setup.time / h).round() as usize;
    let every = ((setup.sample_every / h).round() as usize).max(1);
    let mut out = RunStats::default();
    let mut hist = [vec![0.0; RDF_BINS], vec![0.0; RDF_BINS]];
    let mut tangents = Vec::new();
    let (mut temps, mut oos, mut res, mut dists) = (Vec::new(), Vec::new(), 0.0, Vec::new());
    let clock = CpuClock::start();
    for k in 0..n_prod {
        prod.apply(&mut s.v, rng);
        if let Err(e) = method.step(&mut s) {
            out.error = Some(format!("step {k} (t = {:.2}): {e}", s.t));
            break;
        }
        out.steps += 1;
        if !k.is_multiple_of(every) {
            continue;
        }
        let vt = tangent(g, &s.q, &s.v);
        tangents.push(kinetic_temperature(&vt, 6.0 * W as f64));
        temps.push(if constrained {
            f64::NAN
        } else {
            kinetic_temperature(&s.v, 9.0 * W as f64)
        });
        res += g.residual(&s.q);
        dists.clear();
        oo_distances(&s.q, &mut dists);
        oos.push(dists.iter().sum::<f64>() / dists.len() as f64);
        let half = usize::from(k >= n_prod / 2);
        for &d in &dists {
            let b = ((d - RDF_MIN) / (RDF_MAX - RDF_MIN) * RDF_BINS as f64).floor();
            if b >= 0.0 && (b as usize) < RDF_BINS {
                hist[half][b as usize] += 1.0;
            }
        }
    }
    out.cost = clock.elapsed_secs() / (out.steps.max(1) as f64 * h);
    (out.temperature, out.temperature_se) = batch_se(&temps);
    (out.tangent_temperature, out.tangent_temperature_se) = batch_se(&tangents);
    (out.oo_mean, out.oo_se) = batch_se(&oos);
    out.residual = res / temps.len().max(1) as f64;
    let all: Vec<f64> = hist[0].iter().zip(&hist[1]).map(|(a, b)| a + b).collect();
    out.rdf = normalise(&all);
    out.rdf_halves = [normalise(&hist[0]), normalise(&hist[1])];
    out
}

/// `Σ |p − r|` between two normalised histograms (0 = equal, 2 = disjoint).
pub fn l1(p: &[f64], r: &[f64]) -> f64 {
    p.iter().zip(r).map(|(a, b)| (a - b).abs()).sum()
}

/// The upper end of the first (hydrogen-bond) shell of the O–O distribution, in Å.
pub const FIRST_SHELL_MAX: f64 = 3.2;

/// The mean of the histogram below [`FIRST_SHELL_MAX`] (bin centres), in Å.
pub fn first_shell(rdf: &[f64]) -> f64 {
    let width = (RDF_MAX - RDF_MIN) / RDF_BINS as f64;
    let (mut sum, mut mass) = (0.0, 0.0);
    for (i, p) in rdf.iter().enumerate() {
        let r = RDF_MIN + (i as f64 + 0.5) * width;
        if r < FIRST_SHELL_MAX {
            sum += r * p;
            mass += p;
        }
    }
    sum / mass
}

/// Centre of the fullest bin (the hydrogen-bond peak of the O–O distribution), in Å.
pub fn first_peak(rdf: &[f64]) -> f64 {
    let width = (RDF_MAX - RDF_MIN) / RDF_BINS as f64;
    let mut best = 0;
    for (i, p) in rdf.iter().enumerate() {
        if *p > rdf[best] {
            best = i;
        }
    }
    RDF_MIN + (best as f64 + 0.5) * width
}
