//! The control layer: [`lqr`] with hostile `A`, `B`, `Q`, `R` and iteration controls, and the
//! extended Kalman filter [`Ekf`] (`new`, `predict`, `update`) with hostile covariances,
//! measurement matrices, estimates and measurements, predicting with velocity Verlet on the bob
//! on a spring (random or hostile stiffness, mass, held force and step).
//!
//! Checked: an `Ok` gain `K` and cost-to-go `P` are finite and the closed loop `A − BK` is
//! stable (spectral radius below one, as [`lqr`] promises); an `Err` of `predict` or `update`
//! leaves the filter bit-identical; an `Ok` one leaves a finite estimate and a finite,
//! symmetric, positive semi-definite covariance (the Joseph form's promise), judged with a
//! tolerance scaled by the covariance's largest eigenvalue.

use super::cases::step;
use super::forcing::force;
use super::gen::Special;
use super::{case, Bits, Entry, Gen, Outcome};
use crate::experiments::linearise::cases::Spring;
use macrostep::autodiff::AutoDiff;
use macrostep::baselines::VelocityVerlet;
use macrostep::control::{lqr, ControlError, Ekf, RiccatiParams};
use macrostep::forcing::Actuated;
use macrostep::model::{Mass, System};
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::{Guards, State, Stepper};
use rand_pcg::Pcg64;

/// The control entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "control::lqr",
        run: riccati,
    },
    Entry {
        name: "control::Ekf new+predict+update/spring",
        run: filter,
    },
];

/// The variant name of a control error (`Step/<kind>` for a failed prediction step).
fn control_kind(e: &ControlError) -> String {
    match e {
        ControlError::Step(s) => format!("Step/{}", super::step_kind(s)),
        ControlError::Config(c) => format!("Config/{}", super::config_kind(c)),
        e => {
            let d = format!("{e:?}");
            d.split([' ', '{', '(']).next().unwrap_or(&d).to_string()
        }
    }
}

/// A symmetric weight or covariance: `AᵀA` scaled (positive semi-definite), a positive
/// diagonal, zero, or in hostile cases indefinite, non-symmetric, huge or with hostile entries.
fn weight<T: Special, const S: usize>(g: &mut Gen<'_>) -> SMatrix<T, S, S> {
    let kind = g.rng_range(0..if g.is_hostile() { 7 } else { 3 });
    match kind {
        0 => {
            let a: SMatrix<T, S, S> = g.matrix(-1.0, 1.0);
            a.transpose() * a * g.positive::<T>(1e-3, 1e3)
        }
        1 => SMatrix::from_diagonal(&g.positives(1e-3, 1e3)),
        2 => SMatrix::identity() * g.positive::<T>(1e-6, 1.0),
        3 => {
            let b: T = T::lit([1.0, 1e10, 1e154, 1e200, 1e300][g.rng_range(0..5)]);
            let mut m = SMatrix::<T, S, S>::identity();
            m[(0, S - 1)] = -b;
            m[(S - 1, 0)] = -b;
            m
        }
        4 => {
            // Non-symmetric (for `S ≥ 2`; a 1 × 1 weight gets a hostile diagonal instead).
            let mut m: SMatrix<T, S, S> = SMatrix::from_diagonal(&g.positives(0.1, 10.0));
            m[(0, S.min(2) - 1)] = g.uniform(-10.0, 10.0);
            m
        }
        5 => SMatrix::identity() * T::lit([1e154, 1e300, 1e-300][g.rng_range(0..3)]),
        _ => SMatrix::zeros(),
    }
}

/// The largest modulus of the eigenvalues of `m` (an independent Schur decomposition;
/// `None` when it does not converge).
fn spectral_radius<const S: usize>(m: &SMatrix<f64, S, S>) -> Option<f64> {
    let d = macrostep::nalgebra::DMatrix::from_fn(S, S, |i, j| m[(i, j)]);
    let schur = d.try_schur(f64::EPSILON, 10_000)?;
    Some(
        schur
            .complex_eigenvalues()
            .iter()
            .map(|z| z.norm())
            .fold(0.0, f64::max),
    )
}

/// `lqr` for a 4-state, 2-input pair: a discretised double integrator pair, a random pair, or
/// hostile entries; random or hostile weights and controls.
fn riccati(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    let (a, b): (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 2>) = if g.chance(0.5) {
        let h: f64 = g.positive(1e-3, 1.0);
        let mut a = SMatrix::<f64, 4, 4>::identity();
        a[(0, 2)] = h;
        a[(1, 3)] = h;
        let mut b = SMatrix::<f64, 4, 2>::zeros();
        (b[(0, 0)], b[(1, 1)], b[(2, 0)], b[(3, 1)]) = (0.5 * h * h, 0.5 * h * h, h, h);
        (a + g.matrix(-0.01, 0.01), b)
    } else {
        (g.matrix(-2.0, 2.0), g.matrix(-2.0, 2.0))
    };
    let q: SMatrix<f64, 4, 4> = weight(&mut g);
    let r: SMatrix<f64, 2, 2> = weight(&mut g);
    let params = RiccatiParams {
        max_iter: if g.chance(0.9) {
            64
        } else {
            g.rng_range(0..4) as u32
        },
        tol: g.positive(1e-12, 1e-4),
    };
    match lqr(&a, &b, &q, &r, &params) {
        Err(e) => Outcome::Step(control_kind(&e)),
        Ok(s) => {
            if !(s.k.iter().chain(s.p.iter()).all(|x| x.is_finite())) {
                return Outcome::Violation(format!(
                    "step 0 (lqr): Ok with a non-finite K or P: {s:?}"
                ));
            }
            let Some(rho) = spectral_radius(&(a - b * s.k)) else {
                // Judged by no one: counted apart, not as a pass.
                return Outcome::Step("closed loop not judged (Schur did not converge)".into());
            };
            // The promise is a stable closed loop, `ρ(A − BK) < 1`, checked with an
            // eigensolver independent of `lqr`'s own check (the powers of `A − BK`).
            if rho.partial_cmp(&1.0).is_none_or(|o| o.is_ge()) {
                return Outcome::Violation(format!(
                    "step 0 (lqr): Ok with an unstable closed loop, ρ(A − BK) = {rho:e}: A = {a:?}, B = {b:?}, Q = {q:?}, R = {r:?}, K = {:?}",
                    s.k
                ));
            }
            Outcome::Ok
        }
    }
}

type SpringP = Actuated<f64, AutoDiff<Spring<f64>>, 2>;
type Filter = Ekf<f64, 2, 4, 1>;

/// The filter's bits: estimate and covariance.
fn bits(f: &Filter) -> Vec<u64> {
    let s = f.state();
    let mut out = vec![s.t.bits()];
    out.extend(s.q.iter().chain(s.v.iter()).map(|x| x.bits()));
    out.extend(f.covariance().iter().map(|x| x.bits()));
    out
}

/// What an `Ok` predict or update promises: a finite estimate, a finite, symmetric, positive
/// semi-definite covariance.
fn check_filter(f: &Filter) -> Option<String> {
    let p = f.covariance();
    if !f.state().is_finite() || !p.iter().all(|x| x.is_finite()) {
        return Some(format!(
            "Ok with a non-finite estimate or covariance: {f:?}"
        ));
    }
    if (p - p.transpose()).amax() > 0.0 {
        return Some(format!("Ok with a non-symmetric covariance {p:?}"));
    }
    let eig = p.symmetric_eigenvalues();
    let max = eig.amax();
    // Positive semi-definite to the round-off of the Joseph form's products: `S·ε` relative to
    // the largest eigenvalue (sixteen times that, for the `S³` products of the update).
    if eig.min() < -16.0 * 4.0 * f64::EPSILON * max {
        return Some(format!(
            "Ok with an indefinite covariance, eigenvalues {eig:?}"
        ));
    }
    None
}

/// `Ekf::new` with hostile inputs, then up to four predict/update rounds with Verlet on the
/// spring (guards off, as the filter's docs advise) and hostile measurements.
fn filter(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let spring = Spring {
            k: g.positive(0.1, 1e3),
            g: g.uniform(-20.0, 20.0),
        };
        let p = super::built(Actuated::with_force(AutoDiff(spring), force(&mut g)))?;
        let mass = super::built(Mass::diagonal(g.positives(0.1, 10.0)))?;
        let sys: System<f64, SpringP, 2> = System::new(mass, p);
        let h: f64 = step(&mut g, 1e-3, 0.1);
        let mut model = super::built(VelocityVerlet::new(sys, h))?;
        super::built(model.set_guards(Guards::off()))?;
        let x0 = g.state(SVector::from([0.8, -0.7]), 2.0);
        let x0 = State::new(0.0, x0.q, x0.v);
        let hm: SMatrix<f64, 1, 4> = g.matrix(-1.0, 1.0);
        let mut f = match Filter::new(x0, weight(&mut g), weight(&mut g), weight(&mut g), hm) {
            Ok(f) => f,
            Err(e) => return Ok(Outcome::Config(control_kind(&e))),
        };
        let rounds = g.rng_range(1..5);
        for k in 0..rounds {
            let before = bits(&f);
            if let Err(e) = f.predict(&mut model) {
                return Ok(refused(&f, &before, k, "predict", &e));
            }
            if let Some(v) = check_filter(&f) {
                return Ok(Outcome::Violation(format!("step {k} (predict): {v}")));
            }
            let before = bits(&f);
            let y: SVector<f64, 1> = g.vector(-2.0, 2.0);
            if let Err(e) = f.update(&y) {
                return Ok(refused(&f, &before, k, "update", &e));
            }
            if let Some(v) = check_filter(&f) {
                return Ok(Outcome::Violation(format!("step {k} (update): {v}")));
            }
        }
        Ok(Outcome::Ok)
    })
}

/// The outcome of a refused predict or update: the error's kind, or a violation when the
/// filter changed.
fn refused(f: &Filter, before: &[u64], k: usize, what: &str, e: &ControlError) -> Outcome {
    if bits(f) == before {
        Outcome::Step(control_kind(e))
    } else {
        Outcome::Violation(format!(
            "round {k} {what}: Err({e:?}) changed the state of the filter to {f:?}"
        ))
    }
}
