//! The Metropolis-adjusted FLAVOR (004 §2.4.6) sampling a double well in the centre of mass.

use crate::fixtures::MeanDoubleWell;
use macrostep::baselines::{EulerOrdering, SymplecticEuler};
use macrostep::flavor::{Metropolis, Params, Switched, Symmetric};
use macrostep::langevin::StochasticIntegrator;
use macrostep::model::{Mass, Quadratic, Split, System};
use macrostep::nalgebra::{matrix, SVector};
use macrostep::State;

/// The Metropolis-adjusted FLAVOR on `H = ½|p|² + (s² − 1)² + ½α(y − x)²` (`s = (x + y)/2`,
/// `α = 10⁴`) at `β = 2`: histogram of `s` over `[−2, 2]` (20 bins) from `samples` states
/// thinned by `thin` steps, against the exact marginal `∝ exp(−β(s² − 1)²)`. Returns (χ², degrees
/// of freedom, p-value, acceptance rate).
pub fn metropolis_histogram(samples: usize, thin: usize, seed: u64) -> (f64, usize, f64, f64) {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let beta = 2.0;
    let stiff = Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]);
    let system = System::new(Mass::identity(), Split::new(MeanDoubleWell, stiff, 1e4));
    let se = SymplecticEuler::new(system, 1e-3, EulerOrdering::KickDrift).unwrap();
    let flavor = Symmetric::new(
        Switched::symplectic_euler(se).unwrap(),
        Params::new(0.05, 1e-3).unwrap(),
    )
    .unwrap();
    let mut mh = Metropolis::new(flavor, system, SVector::from([2.0, 2.0]), beta).unwrap();
    let mut rng = rand_pcg::Pcg32::new(seed, 0x1405_7b7e_f767_814f);
    let mut s = State::new(0.0, SVector::from([1.0, 1.0]), SVector::zeros());
    mh.integrate_noisy(&mut s, 1000, &mut rng).unwrap(); // burn-in
    mh.reset_counters();
    let bins = 20;
    let (lo, hi) = (-2.0, 2.0);
    let width = (hi - lo) / bins as f64;
    let mut counts = vec![0usize; bins];
    let mut outside = 0usize;
    for _ in 0..samples {
        mh.integrate_noisy(&mut s, thin, &mut rng).unwrap();
        let m = 0.5 * (s.q[0] + s.q[1]);
        let k = ((m - lo) / width).floor();
        if k >= 0.0 && (k as usize) < bins {
            counts[k as usize] += 1;
        } else {
            outside += 1;
        }
    }
    // Exact bin probabilities by Simpson's rule (the mass outside [−2, 2] is ~e^{−18}).
    let density = |x: f64| (-beta * (x * x - 1.0).powi(2)).exp();
    let integrate = |a: f64, b: f64| {
        let n = 200;
        let h = (b - a) / n as f64;
        (0..=n)
            .map(|i| {
                let w = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * density(a + i as f64 * h)
            })
            .sum::<f64>()
            * h
            / 3.0
    };
    let z = integrate(lo, hi);
    let n = (samples - outside) as f64;
    let chi2: f64 = (0..bins)
        .map(|k| {
            let p = integrate(lo + k as f64 * width, lo + (k + 1) as f64 * width) / z;
            let e = n * p;
            (counts[k] as f64 - e).powi(2) / e
        })
        .sum();
    let dof = bins - 1;
    let p = 1.0 - ChiSquared::new(dof as f64).unwrap().cdf(chi2);
    (chi2, dof, p, mh.acceptance_rate())
}
