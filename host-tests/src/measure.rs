//! Measurements of structural properties of one-step maps, in `f64` on dynamic vectors.
//!
//! Every property an integrator claims (`ORDER`, `SYMPLECTIC`, `SYMMETRIC`) is checked with one of
//! these: the log–log slope of error against step size, the symplecticity defect
//! `‖DΦᵀ J DΦ − J‖` by central differences, the reversibility error of `Φ₋ₕ ∘ Φₕ`, and the
//! slope of the energy error against time.
//!
//! [`baselines`] applies them to the explicit baselines (symplectic Euler, velocity Verlet).

pub mod baselines;

use macrostep::{model::Mass, Integrator, Real, State};
use nalgebra::{DMatrix, DVector, SVector};

/// Least-squares slope of `ln y` against `ln x` (the observed order when `x = h`, `y = error`).
pub fn loglog_slope(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "loglog_slope: length mismatch");
    assert!(x.len() >= 2, "loglog_slope: need two points");
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = y.iter().map(|v| v.ln()).collect();
    linear_slope(&lx, &ly)
}

/// Least-squares slope of `y` against `x`.
pub fn linear_slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// The canonical symplectic matrix `J = [[0, I], [−I, 0]]` of size `2n`.
pub fn canonical_j(n: usize) -> DMatrix<f64> {
    let mut j = DMatrix::zeros(2 * n, 2 * n);
    for i in 0..n {
        j[(i, n + i)] = 1.0;
        j[(n + i, i)] = -1.0;
    }
    j
}

/// Jacobian of `f: ℝᵐ → ℝᵐ` at `x` by central differences with step `eps`.
pub fn jacobian(
    mut f: impl FnMut(&DVector<f64>) -> DVector<f64>,
    x: &DVector<f64>,
    eps: f64,
) -> DMatrix<f64> {
    let m = x.len();
    let mut jac = DMatrix::zeros(m, m);
    for k in 0..m {
        let mut xp = x.clone();
        let mut xm = x.clone();
        xp[k] += eps;
        xm[k] -= eps;
        let d = (f(&xp) - f(&xm)) / (2.0 * eps);
        jac.set_column(k, &d);
    }
    jac
}

/// `max |DΦᵀ J DΦ − J|` of a map on phase space `x = (q, p)` (canonical coordinates), by central
/// differences with step `eps`. Zero (to differencing error) iff the map is symplectic.
pub fn symplecticity_defect(
    f: impl FnMut(&DVector<f64>) -> DVector<f64>,
    x: &DVector<f64>,
    eps: f64,
) -> f64 {
    let n = x.len() / 2;
    let d = jacobian(f, x, eps);
    let j = canonical_j(n);
    (d.transpose() * &j * &d - j).amax()
}

/// Determinant of the Jacobian of a phase-space map at `x` (conformal symplecticity checks).
pub fn jacobian_determinant(
    f: impl FnMut(&DVector<f64>) -> DVector<f64>,
    x: &DVector<f64>,
    eps: f64,
) -> f64 {
    jacobian(f, x, eps).determinant()
}

/// Packs a state into canonical coordinates `(q, p = M v)`.
pub fn to_phase<const N: usize>(s: &State<f64, N>, mass: &Mass<f64, N>) -> DVector<f64> {
    let p = mass.mul(&s.v);
    DVector::from_iterator(2 * N, s.q.iter().copied().chain(p.iter().copied()))
}

/// Unpacks canonical coordinates `(q, p)` into a state at time `t` (`v = M⁻¹ p`).
pub fn from_phase<const N: usize>(x: &DVector<f64>, mass: &Mass<f64, N>, t: f64) -> State<f64, N> {
    let q = SVector::<f64, N>::from_iterator(x.iter().copied().take(N));
    let p = SVector::<f64, N>::from_iterator(x.iter().copied().skip(N).take(N));
    State {
        t,
        q,
        v: mass.solve(&p),
    }
}

/// Symplecticity defect of `steps` steps of an integrator from `s0`, in the canonical coordinates
/// `(q, M v)`. Panics if a step fails (a test failure).
pub fn integrator_defect<I: Integrator<f64, N>, const N: usize>(
    integ: &mut I,
    mass: &Mass<f64, N>,
    s0: &State<f64, N>,
    steps: usize,
    eps: f64,
) -> f64 {
    // The raw map's property, like the reversibility error below: the guards judge runs, and
    // the linearised Z&S of `reproduce so3` from its start off SO(3) is refused within the ten
    // steps by the run guard's stretched tier.
    integ
        .set_guards(macrostep::Guards::off())
        .expect("guards off is always accepted");
    let x0 = to_phase(s0, mass);
    symplecticity_defect(
        |x| {
            let mut s = from_phase(x, mass, s0.t);
            for _ in 0..steps {
                integ
                    .step(&mut s)
                    .expect("step failed in defect measurement");
            }
            to_phase(&s, mass)
        },
        &x0,
        eps,
    )
}

/// Reversibility error `max |Φ₋ₕ(Φₕ(s)) − s|` over positions and velocities, after `steps`
/// forward steps and `steps` backward steps. Panics if a step fails.
pub fn reversibility_error<T: Real, I: Integrator<T, N>, const N: usize>(
    integ: &mut I,
    s0: &State<T, N>,
    steps: usize,
) -> f64 {
    let h = integ.step_size();
    // The raw map's property: guards would refuse the stiff modes' energy swings at large hω.
    integ
        .set_guards(macrostep::Guards::off())
        .expect("guards off is always accepted");
    let mut s = *s0;
    for _ in 0..steps {
        integ.step_by(&mut s, h).expect("forward step failed");
    }
    for _ in 0..steps {
        integ.step_by(&mut s, -h).expect("backward step failed");
    }
    let dq = (s.q - s0.q).amax().to_f64();
    let dv = (s.v - s0.v).amax().to_f64();
    dq.max(dv)
}

/// Slope of the energy error `H(t) − H(0)` against `t` (least squares), a drift indicator.
pub fn energy_drift_slope(t: &[f64], energy: &[f64]) -> f64 {
    let e0 = energy[0];
    let de: Vec<f64> = energy.iter().map(|e| e - e0).collect();
    linear_slope(t, &de)
}

/// Converts an `f64` vector to `f64` from any scalar (for comparing f32 runs to f64 ones).
pub fn to_f64<T: Real, const N: usize>(v: &SVector<T, N>) -> SVector<f64, N> {
    v.map(|x| x.to_f64())
}

/// Thread CPU seconds of `steps` steps of a fresh integrator from `make()`, from `s0`: the least
/// of `reps` runs. For a ratio of two methods, time them against each other with
/// [`crate::timing::compare`] (interleaved rotated rounds) instead.
pub fn best_time<I: Integrator<f64, N>, const N: usize>(
    reps: usize,
    s0: &State<f64, N>,
    steps: usize,
    mut make: impl FnMut() -> I,
) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let mut integ = make();
        let mut s = *s0;
        let t0 = crate::timing::thread_cpu_seconds();
        integ.integrate(&mut s, steps).expect("timed run failed");
        best = best.min(crate::timing::thread_cpu_seconds() - t0);
        std::hint::black_box(s);
    }
    best
}

/// Runs `steps` steps of `integ` from `s0`, recording every state (including `s0`).
pub fn trajectory<I: Integrator<f64, N>, const N: usize>(
    integ: &mut I,
    s0: &State<f64, N>,
    steps: usize,
) -> Vec<State<f64, N>> {
    let mut out = Vec::with_capacity(steps + 1);
    let mut s = *s0;
    out.push(s);
    for _ in 0..steps {
        integ.step(&mut s).expect("FLAVOR step failed");
        out.push(s);
    }
    out
}

/// Times of zero crossings (both directions) of `y(t)` on samples `(t, y)`, linearly
/// interpolated.
pub fn crossings(samples: &[(f64, f64)]) -> Vec<f64> {
    samples
        .windows(2)
        .filter(|w| (w[0].1 < 0.0) != (w[1].1 < 0.0))
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect()
}

/// Mean period of a symmetric oscillation (`y → −y`) from its zero crossings: twice the mean
/// spacing, skipping the first (transient) half cycle.
pub fn mean_period(crossings: &[f64]) -> f64 {
    let c = &crossings[1.min(crossings.len())..];
    assert!(c.len() >= 2, "need two crossings, got {crossings:?}");
    2.0 * (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64
}

/// Max |difference| of two equally long series (e.g. window means against the reference's).
pub fn window_err(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "window series differ in length");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Max |x| of a series.
pub fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_power_law() {
        let h = [0.1, 0.05, 0.025];
        let e: Vec<f64> = h.iter().map(|h| 3.0 * h * h).collect();
        assert!((loglog_slope(&h, &e) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn rotation_is_symplectic_and_scaling_is_not() {
        let x = DVector::from_vec(vec![0.3, -0.2]);
        let rot = |x: &DVector<f64>| {
            DVector::from_vec(vec![0.8 * x[0] + 0.6 * x[1], -0.6 * x[0] + 0.8 * x[1]])
        };
        assert!(symplecticity_defect(rot, &x, 1e-6) < 1e-9);
        let scale = |x: &DVector<f64>| x * 1.1;
        assert!(symplecticity_defect(scale, &x, 1e-6) > 0.1);
    }
}
