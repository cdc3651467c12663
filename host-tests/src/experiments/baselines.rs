//! `reproduce baselines`: the measured properties of the explicit baselines (symplectic Euler in
//! both orderings, velocity Verlet) — observed order, symplecticity defect, reversibility and
//! long-run energy drift — against the claims in their `ORDER`/`SYMPLECTIC`/`SYMMETRIC`.
//!
//! The measurement functions are public so `tests/baselines.rs` runs cheaper versions of the same
//! code.
//!
//! Systems: the harmonic oscillator `q̈ = −q` (closed form written here) and Hénon–Heiles with
//! mass `diag(2, 0.5)` ([`crate::toy`], reference by [`crate::reference`] at tight tolerance).

use crate::fixtures::{hh_mass, HenonHeiles};
use crate::measure::{energy_drift_slope, integrator_defect, loglog_slope, reversibility_error};
use crate::reference;
use crate::report::{figure, sci, Table};
use macrostep::baselines::{Ordering, SymplecticEuler, VelocityVerlet};
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
            Self::EulerKickDrift => SymplecticEuler::new(system.clone(), h, Ordering::KickDrift)
                .ok()?
                .integrate(&mut s, steps),
            Self::EulerDriftKick => SymplecticEuler::new(system.clone(), h, Ordering::DriftKick)
                .ok()?
                .integrate(&mut s, steps),
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
                Ordering::KickDrift
            } else {
                Ordering::DriftKick
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
                Ordering::KickDrift
            } else {
                Ordering::DriftKick
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

/// The step sizes of the order measurements (each divides `T = 2`).
pub const HS: [f64; 4] = [0.04, 0.02, 0.01, 0.005];

/// Runs the experiment.
pub fn run() {
    let table = Table::new(&["method", "system", "h", "error", "slope", "ORDER"]);
    let mut slopes = Vec::new();
    for method in Baseline::ALL {
        for (sysname, (e, slope), order) in [
            (
                "harmonic",
                order_harmonic::<f64>(method, &HS),
                method.claimed_order::<f64, Quadratic<f64, 1>, 1>(),
            ),
            (
                "henon-heiles",
                order_henon_heiles::<f64>(method, &HS),
                method.claimed_order::<f64, HenonHeiles, 2>(),
            ),
        ] {
            for (h, err) in HS.iter().zip(&e) {
                table.row(&[
                    method.name().into(),
                    sysname.into(),
                    format!("{h}"),
                    sci(*err),
                    format!("{slope:.3}"),
                    format!("{order}"),
                ]);
            }
            slopes.push((method, sysname, slope));
        }
    }
    crate::say!();
    let table = Table::new(&["method", "defect", "reversibility"]);
    let mut props = Vec::new();
    for method in Baseline::ALL {
        let d = defect_henon_heiles(method, 0.1, 10);
        let r = reversibility_henon_heiles(method, 0.05, 1000);
        table.row(&[method.name().into(), sci(d), sci(r)]);
        props.push((method, d, r));
    }
    let (drift, max_de) = verlet_energy_drift(0.05, 200_000, 100);
    crate::say!();
    crate::say!("Verlet on Henon-Heiles, h = 0.05, t = 10^4: energy-drift slope {drift:.3e}, max |ΔH| {max_de:.3e}");
    crate::say!();
    let slope = |m: Baseline, s: &str| {
        slopes
            .iter()
            .find(|(a, b, _)| *a == m && *b == s)
            .map(|x| x.2)
            .unwrap_or(f64::NAN)
    };
    figure(
        "baselines.verlet.order",
        slope(Baseline::Verlet, "henon-heiles"),
    );
    figure(
        "baselines.verlet.order_harmonic",
        slope(Baseline::Verlet, "harmonic"),
    );
    figure(
        "baselines.symplectic_euler.order",
        slope(Baseline::EulerKickDrift, "henon-heiles"),
    );
    figure(
        "baselines.symplectic_euler.order_drift_kick",
        slope(Baseline::EulerDriftKick, "henon-heiles"),
    );
    figure(
        "baselines.symplectic_euler.order_harmonic",
        slope(Baseline::EulerKickDrift, "harmonic"),
    );
    for (m, d, r) in &props {
        let key = match m {
            Baseline::Verlet => "verlet",
            Baseline::EulerKickDrift => "symplectic_euler",
            Baseline::EulerDriftKick => "symplectic_euler_drift_kick",
        };
        figure(&format!("baselines.{key}.defect"), *d);
        figure(&format!("baselines.{key}.reversibility"), *r);
    }
    figure("baselines.verlet.energy_drift_slope", drift);
    figure("baselines.verlet.energy_error_max", max_de);
}
