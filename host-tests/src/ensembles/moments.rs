//! Ensemble moments of a scalar observable and the z-statistics that compare two ensembles.

use crate::ensemble_runner::{visit_count, Sums};

/// Ensemble moments of a scalar observable at recorded times: per time, (mean, variance) of the
/// observable and of its square.
#[derive(Clone, Debug)]
pub struct Moments {
    /// Sum of the observable per time.
    pub s1: Vec<f64>,
    /// Sum of its square.
    pub s2: Vec<f64>,
    /// Sum of its cube (for the variance of the second moment).
    pub s3: Vec<f64>,
    /// Sum of its fourth power.
    pub s4: Vec<f64>,
    /// Number of samples.
    pub n: usize,
}

impl Moments {
    /// Zero sums for `k` recorded times.
    pub fn new(k: usize) -> Self {
        Self {
            s1: vec![0.0; k],
            s2: vec![0.0; k],
            s3: vec![0.0; k],
            s4: vec![0.0; k],
            n: 0,
        }
    }
    /// Adds one path (one value per recorded time).
    pub fn add(&mut self, path: &[f64]) {
        for (i, &z) in path.iter().enumerate() {
            self.s1[i] += z;
            self.s2[i] += z * z;
            self.s3[i] += z * z * z;
            self.s4[i] += z * z * z * z;
        }
        self.n += 1;
    }
    /// (estimate, standard error) of `E[z]` and `E[z²]` at time index `i`.
    pub fn at(&self, i: usize) -> [(f64, f64); 2] {
        let n = self.n as f64;
        let m1 = self.s1[i] / n;
        let m2 = self.s2[i] / n;
        let m4 = self.s4[i] / n;
        [
            (m1, ((m2 - m1 * m1).max(0.0) / n).sqrt()),
            (m2, ((m4 - m2 * m2).max(0.0) / n).sqrt()),
        ]
    }
}

impl Sums for Moments {
    fn visit(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.s1.visit(f);
        self.s2.visit(f);
        self.s3.visit(f);
        self.s4.visit(f);
        visit_count(&mut self.n, f);
    }
}

/// Largest |difference| / combined standard error over the recorded times and both moments.
pub fn max_z(a: &Moments, b: &Moments) -> f64 {
    (0..a.s1.len())
        .flat_map(|i| {
            let (x, y) = (a.at(i), b.at(i));
            (0..2).map(move |k| {
                let se = (x[k].1.powi(2) + y[k].1.powi(2)).sqrt();
                if se == 0.0 {
                    0.0
                } else {
                    (x[k].0 - y[k].0).abs() / se
                }
            })
        })
        .fold(0.0, f64::max)
}

/// Where [`max_z`] is attained: (|z|, time index, moment 0 = mean / 1 = second moment).
pub fn argmax_z(a: &Moments, b: &Moments) -> (f64, usize, usize) {
    let mut best = (0.0, 0, 0);
    for i in 0..a.s1.len() {
        let (x, y) = (a.at(i), b.at(i));
        for k in 0..2 {
            let se = (x[k].1.powi(2) + y[k].1.powi(2)).sqrt();
            let z = if se == 0.0 {
                0.0
            } else {
                (x[k].0 - y[k].0).abs() / se
            };
            if z > best.0 {
                best = (z, i, k);
            }
        }
    }
    best
}

/// The largest `|E_a − E_b|` of the first moment over the recorded times.
pub fn max_mean_diff(a: &Moments, b: &Moments) -> f64 {
    (0..a.s1.len())
        .map(|i| (a.at(i)[0].0 - b.at(i)[0].0).abs())
        .fold(0.0, f64::max)
}
