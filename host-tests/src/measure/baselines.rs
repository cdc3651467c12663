//! The measurements of the explicit baselines (symplectic Euler in both orderings, velocity
//! Verlet) that `reproduce baselines` prints and `tests/baselines.rs` checks: observed order,
//! symplecticity defect, reversibility and long-run energy drift.
//!
//! Systems: the harmonic oscillator `q̈ = −q` (closed form written here) and Hénon–Heiles with
//! mass `diag(2, 0.5)` ([`crate::fixtures::HenonHeiles`], reference by [`crate::reference`] at
//! tight tolerance).

use super::{energy_drift_slope, integrator_defect, loglog_slope, reversibility_error};
use crate::fixtures::{hh_mass, HenonHeiles};
use crate::reference;
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::model::{Mass, Potential, Quadratic, System};
use macrostep::nalgebra::{matrix, vector};
use macrostep::{Integrator, Real, State};

/// The three explicit baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Symplectic Euler, kick–drift (004 eq 2.49).
    EulerKickDrift,
    /// Symplectic Euler, drift–kick (004 eq 2.50).
    EulerDriftKick,
    /// Velocity Verlet.
    Verlet,
}

impl Baseline {
    /// All three.
    pub const ALL: [Baseline; 3] = [Self::EulerKickDrift, Self::EulerDriftKick, Self::Verlet];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::EulerKickDrift => "SE kick-drift",
            Self::EulerDriftKick => "SE drift-kick",
            Self::Verlet => "Verlet",
        }
    }

    /// The `ORDER` the method claims (read from its `Integrator` impl).
    pub fn claimed_order<T: Real, P: Potential<T, N>, const N: usize>(self) -> u32 {
        match self {
            Self::Verlet => <VelocityVerlet<T, P, N> as Integrator<T, N>>::ORDER,
            _ => <SymplecticEuler<T, P, N> as Integrator<T, N>>::ORDER,
        }
    }

    /// Runs `steps` steps of size `h` of this method on `system` from `s0`; `None` if a step
    /// fails.
    pub fn run<T: Real, P: Potential<T, N> + Clone, const N: usize>(
        self,
        system: &System<T, P, N>,
        h: T,
        s0: &State<T, N>,
        steps: usize,
    ) -> Option<State<T, N>> {
        let mut s = *s0;
        let ok = match self {
            Self::Verlet => VelocityVerlet::new(system.clone(), h)
                .ok()?
                .integrate(&mut s, steps),
            Self::EulerKickDrift => {
                SymplecticEuler::new(system.clone(), h, EulerOrdering::KickDrift)
                    .ok()?
                    .integrate(&mut s, steps)
            }
            Self::EulerDriftKick => {
                SymplecticEuler::new(system.clone(), h, EulerOrdering::DriftKick)
                    .ok()?
                    .integrate(&mut s, steps)
            }
        };
        ok.ok().map(|_| s)
    }
}

/// Max-norm distance between a state (any scalar) and an `f64` reference `(q, v)`.
pub fn state_error<T: Real, const N: usize>(s: &State<T, N>, q: &[f64], v: &[f64]) -> f64 {
    let mut e = 0.0_f64;
    for i in 0..N {
        e = e.max((s.q[i].to_f64() - q[i]).abs());
        e = e.max((s.v[i].to_f64() - v[i]).abs());
    }
    e
}

/// Global errors at `t_end` of `method` for each step size in `hs` (each must divide `t_end`),
/// against the reference `(q, v)` at `t_end`.
pub fn global_errors<T: Real, P: Potential<T, N> + Clone, const N: usize>(
    method: Baseline,
    system: &System<T, P, N>,
    s0: &State<T, N>,
    t_end: f64,
    hs: &[f64],
    exact: (&[f64], &[f64]),
) -> Vec<f64> {
    hs.iter()
        .map(|&h| {
            let steps = (t_end / h).round() as usize;
            assert!(
                (steps as f64 * h - t_end).abs() < 1e-9 * t_end,
                "h must divide t_end"
            );
            let s = method
                .run(system, T::lit(h), s0, steps)
                .expect("baseline step failed in an order measurement");
            state_error(&s, exact.0, exact.1)
        })
        .collect()
}

/// The unit harmonic oscillator `q̈ = −q` (identity mass), started at `q = 1`, `v = 0.5`.
pub fn harmonic<T: Real>() -> (System<T, Quadratic<T, 1>, 1>, State<T, 1>) {
    let sys = System::new(Mass::identity(), Quadratic::new(matrix![T::one()]));
    (
        sys,
        State::new(T::zero(), vector![T::one()], vector![T::lit(0.5)]),
    )
}

/// The closed form `(q(t), v(t))` of [`harmonic`].
pub fn harmonic_exact(t: f64) -> ([f64; 1], [f64; 1]) {
    let (s, c) = t.sin_cos();
    ([c + 0.5 * s], [-s + 0.5 * c])
}

/// Hénon–Heiles with mass `diag(2, 0.5)`, started at `q = (0.3, −0.2)`, `v = (0.1, 0.25)`
/// (energy ≈ 0.08, a bounded orbit).
pub fn henon_heiles<T: Real>() -> (System<T, HenonHeiles, 2>, State<T, 2>) {
    (
        System::new(hh_mass(), HenonHeiles),
        State::new(
            T::zero(),
            vector![T::lit(0.3), T::lit(-0.2)],
            vector![T::lit(0.1), T::lit(0.25)],
        ),
    )
}

/// The reference `(q, v)` of [`henon_heiles`] at `t`.
pub fn henon_heiles_exact(t: f64) -> (Vec<f64>, Vec<f64>) {
    let (rtol, atol) = reference::TIGHT;
    let y = reference::solve_to(
        HenonHeiles::rhs([2.0, 0.5]),
        0.0,
        &[0.3, -0.2, 0.1, 0.25],
        t,
        rtol,
        atol,
    );
    (y[..2].to_vec(), y[2..].to_vec())
}

/// Observed order (log–log slope) of `method` on [`harmonic`] at `T = 2` over `hs`.
pub fn order_harmonic<T: Real>(method: Baseline, hs: &[f64]) -> (Vec<f64>, f64) {
    let (sys, s0) = harmonic::<T>();
    let (q, v) = harmonic_exact(2.0);
    let e = global_errors(method, &sys, &s0, 2.0, hs, (&q, &v));
    let slope = loglog_slope(hs, &e);
    (e, slope)
}

/// Observed order of `method` on [`henon_heiles`] at `T = 2` over `hs`.
pub fn order_henon_heiles<T: Real>(method: Baseline, hs: &[f64]) -> (Vec<f64>, f64) {
    let (sys, s0) = henon_heiles::<T>();
    let (q, v) = henon_heiles_exact(2.0);
    let e = global_errors(method, &sys, &s0, 2.0, hs, (&q, &v));
    let slope = loglog_slope(hs, &e);
    (e, slope)
}

/// Symplecticity defect of `steps` steps of size `h` on [`henon_heiles`] (f64, canonical
/// coordinates `(q, M v)`, central differences with step 1e-6).
pub fn defect_henon_heiles(method: Baseline, h: f64, steps: usize) -> f64 {
    let (sys, s0) = henon_heiles::<f64>();
    let mass = sys.mass;
    match method {
        Baseline::Verlet => {
            let mut m = VelocityVerlet::new(sys, h).expect("valid h");
            integrator_defect(&mut m, &mass, &s0, steps, 1e-6)
        }
        Baseline::EulerKickDrift | Baseline::EulerDriftKick => {
            let ord = if method == Baseline::EulerKickDrift {
                EulerOrdering::KickDrift
            } else {
                EulerOrdering::DriftKick
            };
            let mut m = SymplecticEuler::new(sys, h, ord).expect("valid h");
            integrator_defect(&mut m, &mass, &s0, steps, 1e-6)
        }
    }
}

/// Reversibility error `|Φ₋ₕ^n Φₕ^n(s) − s|` on [`henon_heiles`] (f64).
pub fn reversibility_henon_heiles(method: Baseline, h: f64, steps: usize) -> f64 {
    let (sys, s0) = henon_heiles::<f64>();
    match method {
        Baseline::Verlet => {
            let mut m = VelocityVerlet::new(sys, h).expect("valid h");
            reversibility_error(&mut m, &s0, steps)
        }
        Baseline::EulerKickDrift | Baseline::EulerDriftKick => {
            let ord = if method == Baseline::EulerKickDrift {
                EulerOrdering::KickDrift
            } else {
                EulerOrdering::DriftKick
            };
            let mut m = SymplecticEuler::new(sys, h, ord).expect("valid h");
            reversibility_error(&mut m, &s0, steps)
        }
    }
}

/// Energy-drift slope (least squares of `H(t) − H(0)` against `t`) and the max energy error of
/// Verlet on [`henon_heiles`] over `steps` steps of size `h`, sampled every `every` steps.
pub fn verlet_energy_drift(h: f64, steps: usize, every: usize) -> (f64, f64) {
    let (sys, mut s) = henon_heiles::<f64>();
    let mut m = VelocityVerlet::new(sys, h).expect("valid h");
    let (mut t, mut e) = (vec![0.0], vec![sys.energy(&s)]);
    for k in 1..=steps {
        m.step(&mut s).expect("Verlet step failed");
        if k % every == 0 {
            t.push(s.t);
            e.push(sys.energy(&s));
        }
    }
    let max = e.iter().map(|x| (x - e[0]).abs()).fold(0.0, f64::max);
    (energy_drift_slope(&t, &e), max)
}
