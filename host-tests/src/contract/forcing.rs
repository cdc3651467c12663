//! Forcing: held forces set through [`Actuate::set_force`] before the run and between steps
//! (finite, huge, NaN and ±∞ components), a force function sampled per step ([`Driven`], with
//! hostile amplitudes, frequencies and position feedback), linear damping by its exact flow
//! ([`Damped`]) and inside the Z&S solve ([`DampedZs`]), with random or hostile damping
//! matrices (positive semi-definite, zero, indefinite, non-symmetric, huge, NaN entries), on
//! the penalised and the rigid double pendulum.
//!
//! Checked beyond the common contract (`Err` ⇒ bit-identical state, `Ok` ⇒ finite, clock,
//! residual guard): a refused `set_force` leaves the held force as it was; the run guard's
//! documented promise `|E − E_ref − W + D| ≤ r·S` is replayed ([`Ledger`]: the work `W` of the
//! held forces and, for [`DampedZs`], the trapezoidal dissipation `D = ½h(vₖᵀCvₖ + vₖ₊₁ᵀCvₖ₊₁)`
//! it reports, summed step by step; the reference and scale as [`crate::contract`] replays
//! them: `W` enters the potential and its range, `D` only the reference, as the guard accounts
//! them).
//! [`Damped`]'s energy guard is not replayed: the kinetic energy its kicks take depends on the
//! inner method's intermediate velocity, which is not observable from outside.

use super::cases::{dp, dp_model, step, Dp, MAX_STEPS};
use super::gen::Special;
use super::{built, case, run, step_sizes, Entry, Expect, Gen, Outcome, ResidualFn};
use macrostep::baselines::VelocityVerlet;
use macrostep::constrained::{ConstraintNewtonParams, OffManifold, Rattle};
use macrostep::forcing::{Actuate, Actuated, Damped, Driven};
use macrostep::model::{Constraint, Potential, System};
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::zs::{DampedZs, Sylipn, ZhangSkeel, ZsParams};
use macrostep::{Integrator, State, StepError};
use rand_pcg::Pcg64;
use std::cell::Cell;

/// The forcing entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "forcing::Actuated<ZhangSkeel>/dp set_force",
        run: |r| held_penalty(r, Base::ZhangSkeel),
    },
    Entry {
        name: "forcing::Actuated<Sylipn>/dp set_force",
        run: |r| held_penalty(r, Base::Sylipn),
    },
    Entry {
        name: "forcing::Actuated<VelocityVerlet>/dp set_force",
        run: |r| held_penalty(r, Base::Verlet),
    },
    Entry {
        name: "forcing::Actuated<Rattle>/dp set_force",
        run: held_rattle,
    },
    Entry {
        name: "forcing::Driven<ZhangSkeel>/dp",
        run: driven,
    },
    Entry {
        name: "forcing::Damped<ZhangSkeel>/dp set_force",
        run: damped_split,
    },
    Entry {
        name: "forcing::Damped<Rattle>/dp set_force",
        run: damped_rattle,
    },
    Entry {
        name: "zs::DampedZs<ZhangSkeel>/dp set_force",
        run: |r| damped_in_solve(r, false),
    },
    Entry {
        name: "zs::DampedZs<Sylipn>/dp set_force",
        run: |r| damped_in_solve(r, true),
    },
];

/// The energy `(v₀, v₁, h) ↦ D` a damped step reports taking.
pub type DissipationFn<'a, T, const N: usize> = &'a dyn Fn(&SVector<T, N>, &SVector<T, N>, T) -> T;

#[derive(Clone, Copy)]
enum Base {
    ZhangSkeel,
    Sylipn,
    Verlet,
}

/// A held force: natural (`|uᵢ| < 20`), huge (`±1e6 … 1e300`), or with hostile components in
/// hostile cases.
pub fn force<T: Special, const N: usize>(g: &mut Gen<'_>) -> SVector<T, N> {
    if g.is_hostile() && g.chance(0.1) {
        let mag = [1e6, 1e30, 1e154, 1e300][g.rng_range(0..4)];
        return SVector::from_fn(|_, _| T::lit(mag * if g.chance(0.5) { 1.0 } else { -1.0 }));
    }
    g.vector(-20.0, 20.0)
}

/// A damping matrix: `AᵀA` scaled (positive semi-definite), zero, diagonal dashpots, or in
/// hostile cases indefinite, non-symmetric, with huge (`1e154`, `1e300`) or hostile entries.
pub fn damping<T: Special, const N: usize>(g: &mut Gen<'_>) -> SMatrix<T, N, N> {
    let kind = g.rng_range(0..if g.is_hostile() { 7 } else { 3 });
    match kind {
        0 => {
            let a: SMatrix<T, N, N> = g.matrix(-1.0, 1.0);
            let s: T = g.positive(1e-3, 1e3);
            a.transpose() * a * s
        }
        1 => SMatrix::zeros(),
        2 => SMatrix::from_diagonal(&g.positives(1e-3, 1e3)),
        3 => {
            // Indefinite: a symmetric matrix with a negative eigenvalue of size `b`.
            let b: T = T::lit([1.0, 1e10, 1e154, 1e200, 1e300][g.rng_range(0..5)]);
            let mut c = SMatrix::<T, N, N>::identity();
            c[(0, N - 1)] = -b;
            c[(N - 1, 0)] = -b;
            c
        }
        4 => {
            let mut c: SMatrix<T, N, N> = SMatrix::from_diagonal(&g.positives(0.1, 10.0));
            c[(0, 1)] = g.uniform(-10.0, 10.0);
            c
        }
        5 => SMatrix::identity() * T::lit([1e154, 1e300][g.rng_range(0..2)]),
        _ => {
            let a: SMatrix<T, N, N> = g.matrix(-2.0, 2.0);
            (a + a.transpose()) * T::lit(0.5)
        }
    }
}

/// The energy replay of a forced run: the documented promise of the run guard,
/// `|E − E_ref − W + D| ≤ r·S`, with the work `W = Σₖ uₖᵀ(qₖ₊₁ − qₖ)` of the held forces and
/// the dissipation `D` the method reports summed step by step (the guard accounts the same
/// quantity as `−Δuᵀq` at each change of `u`, equal by summation by parts; the sum of
/// increments stays resolvable where `|uᵀq|` dwarfs the energy). Also holds the first
/// violation of a check made inside the step closure.
pub struct Ledger<T: Special, const N: usize> {
    u: Cell<SVector<T, N>>,
    /// `u₀ᵀq₀`: the held-force term of the reference energy.
    start: Cell<T>,
    /// `W` so far.
    work: Cell<T>,
    /// The dissipation `D` the steps reported so far (`≤ 0`): it moves the reference energy,
    /// as the guard accounts it, and not the potential's range.
    dissipated: Cell<T>,
    broken: Cell<Option<&'static str>>,
}

impl<T: Special, const N: usize> Ledger<T, N> {
    /// A run that starts at `q0` holding `u`.
    pub fn new(u: SVector<T, N>, q0: &SVector<T, N>) -> Self {
        Self {
            u: Cell::new(u),
            start: Cell::new(u.dot(q0)),
            work: Cell::new(T::zero()),
            dissipated: Cell::new(T::zero()),
            broken: Cell::new(None),
        }
    }

    /// `u` is held from now on.
    pub fn held(&self, u: SVector<T, N>) {
        self.u.set(u);
    }

    /// A committed step from `q0` to `q1` that reported `exchanged` (the dissipation, `≤ 0`).
    pub fn stepped(&self, q0: &SVector<T, N>, q1: &SVector<T, N>, exchanged: T) {
        let w = self.u.get().dot(&(q1 - q0));
        self.work.set(self.work.get() + w);
        self.dissipated.set(self.dissipated.get() + exchanged);
    }

    /// The dissipation the steps reported so far.
    pub fn dissipated(&self) -> T {
        self.dissipated.get()
    }

    /// The replayed run's `(K, V − u₀ᵀq₀ − W)` for the unforced system `sys` (the
    /// dissipation moves the reference: [`Ledger::dissipated`]).
    pub fn energy<P: Potential<T, N>>(&self, sys: &System<T, P, N>, s: &State<T, N>) -> (T, T) {
        let v = sys.potential.energy(&s.q) - self.start.get() - self.work.get();
        (sys.mass.kinetic(&s.v), v)
    }

    /// The outcome of `run`, or the violation found inside it.
    pub fn verdict(&self, o: Outcome) -> Outcome {
        match self.broken.take() {
            Some(msg) => Outcome::Violation(msg.into()),
            None => o,
        }
    }
}

/// Sets `u` on `integ`: on `Err` the held force must be unchanged (else the ledger records a
/// violation); on `Ok` the ledger holds it.
fn set<T: Special, const N: usize, I: Actuate<T, N>>(
    integ: &mut I,
    u: &SVector<T, N>,
    ledger: &Ledger<T, N>,
) {
    let old = *integ.force();
    match integ.set_force(u) {
        Ok(()) => ledger.held(*u),
        Err(e) => {
            let same = integ
                .force()
                .iter()
                .zip(old.iter())
                .all(|(a, b)| a.bits() == b.bits());
            if !same || !matches!(e, StepError::NonFiniteForce) {
                ledger.broken.set(Some(
                    "a refused set_force changed the force or named another error",
                ));
            }
        }
    }
}

/// A few steps of an [`Actuate`] integrator on the unforced system `sys`: a force set before
/// the run (no run going yet: nothing accounted), a new one (or a hostile one, refused and
/// skipped) before about half the later steps; energy guard replayed when `energy`, the
/// residual guard on `residual`; `dissipation(v₀, v₁, h)` is the energy a step reports taking.
pub fn held_steps<T, P, I, const N: usize>(
    g: &mut Gen<'_>,
    integ: &mut I,
    sys: &System<T, P, N>,
    residual: Option<ResidualFn<'_, T, N>>,
    dissipation: Option<DissipationFn<'_, T, N>>,
    energy: bool,
    s0: State<T, N>,
) -> Outcome
where
    T: Special,
    P: Potential<T, N>,
    I: Integrator<T, N> + Actuate<T, N>,
{
    let ledger = Ledger::new(*integ.force(), &s0.q);
    set(integ, &force(g), &ledger);
    ledger.start.set(ledger.u.get().dot(&s0.q));
    let h = integ.step_size();
    let hs = step_sizes(g, h, MAX_STEPS);
    let plan: Vec<Option<SVector<T, N>>> = (0..hs.len())
        .map(|k| (k > 0 && g.chance(0.5)).then(|| force(g)))
        .collect();
    let e = |s: &State<T, N>| ledger.energy(sys, s);
    let x = || ledger.dissipated();
    let exp = Expect {
        energy: if energy { Some(&e) } else { None },
        residual,
        exchanged: Some(&x),
        clock: true,
    };
    let mut k = 0;
    let o = run(s0, &hs, &exp, |s, hk| {
        if let Some(u) = &plan[k] {
            set(integ, u, &ledger);
        }
        k += 1;
        let before = *s;
        let r = if hk.bits() == h.bits() {
            integ.step(s)
        } else {
            integ.step_by(s, hk)
        };
        if r.is_ok() {
            let d = dissipation.map_or(T::zero(), |d| d(&before.v, &s.v, hk));
            ledger.stepped(&before.q, &s.q, d);
        }
        r
    });
    ledger.verdict(o)
}

/// The penalised double pendulum with a held force, stepped by Z&S, Z&Ss or Verlet.
fn held_penalty(rng: &mut Pcg64, base: Base) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<f64>(&mut g)?;
        let forced = System::new(sys.mass, Actuated::new(sys.potential));
        let h = step(&mut g, 1e-3, 0.1);
        let residual = |q: &SVector<f64, 4>| sys.potential.constraint_residual(q).unwrap_or(0.0);
        let beta = g.uniform(0.0, 1.0);
        let params = ZsParams::with_beta(beta);
        Ok(match base {
            Base::ZhangSkeel => {
                let mut m = built(ZhangSkeel::new(forced, h, params))?;
                held_steps(&mut g, &mut m, &sys, Some(&residual), None, true, s)
            }
            Base::Sylipn => {
                let mut m = built(Sylipn::new(forced, h, params))?;
                held_steps(&mut g, &mut m, &sys, Some(&residual), None, true, s)
            }
            Base::Verlet => {
                let mut m = built(VelocityVerlet::new(forced, h))?;
                held_steps(&mut g, &mut m, &sys, Some(&residual), None, true, s)
            }
        })
    })
}

/// RATTLE on the rigid double pendulum with a held force.
fn held_rattle(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (m, s) = dp_model::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.1);
        rattle_held(&mut g, m.system(), m.constraint(), h, None, s)
    })
}

/// RATTLE on `sys` (a held force added) and `constraint` with random or hostile Newton
/// controls ([`newton`]), inside [`Damped`] with the damping matrix `c` when given, stepped
/// by [`held_steps`] from `s0`: the residual guard on `constraint`, the energy run guard
/// replayed when undamped (see the module docs for the damped case). The case set-up of every
/// RATTLE entry point with held forces (the double pendulum here, the built mechanisms in
/// [`super::mechanism`] and [`super::bodies`]).
pub fn rattle_held<P, G, const N: usize, const D: usize>(
    g: &mut Gen<'_>,
    sys: System<f64, P, N>,
    constraint: G,
    h: f64,
    c: Option<SMatrix<f64, N, N>>,
    s0: State<f64, N>,
) -> Result<Outcome, Outcome>
where
    P: Potential<f64, N> + Copy,
    G: Constraint<f64, N, D> + Copy,
{
    let forced = System::new(sys.mass, Actuated::new(sys.potential));
    let residual = |q: &SVector<f64, N>| constraint.residual(q);
    let mut r = built(Rattle::new(forced, constraint, h, newton(g)))?;
    Ok(match c {
        None => held_steps(g, &mut r, &sys, Some(&residual), None, true, s0),
        Some(c) => {
            let mut d = built(Damped::new(r, sys.mass, c))?;
            held_steps(g, &mut d, &sys, Some(&residual), None, false, s0)
        }
    })
}

/// Default Newton controls or a random tolerance below the manifold tolerance (hostile in
/// hostile cases); starts off the manifold projected or rejected.
pub fn newton(g: &mut Gen<'_>) -> ConstraintNewtonParams<f64> {
    let d = ConstraintNewtonParams::default();
    ConstraintNewtonParams {
        tol: if g.chance(0.5) {
            d.tol
        } else {
            g.positive(1e-15, 1e-12)
        },
        off_manifold: if g.chance(0.5) {
            OffManifold::Project
        } else {
            OffManifold::Reject
        },
        ..d
    }
}

/// `u(t, q) = a + b sin(ωt) + k q` with random or hostile `a, b, ω, k`, sampled by [`Driven`]
/// at each step's midpoint; energy guard replayed with the midpoint force accounted.
fn driven(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s0) = dp::<f64>(&mut g)?;
        let forced = System::new(sys.mass, Actuated::new(sys.potential));
        let h = step(&mut g, 1e-3, 0.1);
        let zs = built(ZhangSkeel::new(
            forced,
            h,
            ZsParams::with_beta(g.uniform(0.0, 1.0)),
        ))?;
        let a: SVector<f64, 4> = force(&mut g);
        let b: SVector<f64, 4> = force(&mut g);
        let w: f64 = g.positive(0.1, 100.0);
        let k: f64 = g.uniform(-10.0, 10.0);
        let f = move |t: f64, q: &SVector<f64, 4>| a + b * (w * t).sin() + q * k;
        let mut m = Driven::new(zs, f);
        let hs = step_sizes(&mut g, h, MAX_STEPS);
        // The reference energy of the run is taken with the first step's midpoint force.
        let mid = |s: &State<f64, 4>, hk: f64| {
            let tau = hk * 0.5;
            f(s.t + tau, &(s.q + s.v * tau))
        };
        let u0 = mid(&s0, hs[0]);
        let ledger = Ledger::new(u0, &s0.q);
        let residual = |q: &SVector<f64, 4>| sys.potential.constraint_residual(q).unwrap_or(0.0);
        let e = |s: &State<f64, 4>| ledger.energy(&sys, s);
        let exp = Expect {
            energy: Some(&e),
            residual: Some(&residual),
            exchanged: None,
            clock: true,
        };
        let o = run(s0, &hs, &exp, |s, hk| {
            ledger.held(mid(s, hk));
            let q0 = s.q;
            let r = if hk.to_bits() == h.to_bits() {
                m.step(s)
            } else {
                m.step_by(s, hk)
            };
            if r.is_ok() {
                ledger.stepped(&q0, &s.q, 0.0);
            }
            r
        });
        Ok(o)
    })
}

/// [`Damped`] around Z&S on the penalised double pendulum: random or hostile damping, held
/// forces; residual guard (the energy guard is not replayed, see the module docs).
fn damped_split(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<f64>(&mut g)?;
        let forced = System::new(sys.mass, Actuated::new(sys.potential));
        let h = step(&mut g, 1e-3, 0.1);
        let zs = built(ZhangSkeel::new(
            forced,
            h,
            ZsParams::with_beta(g.uniform(0.0, 1.0)),
        ))?;
        let mut m = built(Damped::new(zs, sys.mass, damping(&mut g)))?;
        let residual = |q: &SVector<f64, 4>| sys.potential.constraint_residual(q).unwrap_or(0.0);
        Ok(held_steps(
            &mut g,
            &mut m,
            &sys,
            Some(&residual),
            None,
            false,
            s,
        ))
    })
}

/// [`Damped`] around RATTLE on the rigid double pendulum (the residual guard on the rods).
fn damped_rattle(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (m, s) = dp_model::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.1);
        let c = damping(&mut g);
        rattle_held(&mut g, m.system(), m.constraint(), h, Some(c), s)
    })
}

/// [`DampedZs`] around Z&S or Z&Ss on the penalised double pendulum: energy guard replayed
/// with the dissipation the method reports, residual guard, held forces.
fn damped_in_solve(rng: &mut Pcg64, sylipn: bool) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s): Dp<f64> = dp::<f64>(&mut g)?;
        let forced = System::new(sys.mass, Actuated::new(sys.potential));
        let h = step(&mut g, 1e-3, 0.1);
        let params = ZsParams::with_beta(g.uniform(0.0, 1.0));
        let c: SMatrix<f64, 4, 4> = damping(&mut g);
        let residual = |q: &SVector<f64, 4>| sys.potential.constraint_residual(q).unwrap_or(0.0);
        // −½h(v₀ᵀCv₀ + v₁ᵀCv₁): what the step reports to its guard memory.
        let d = |v0: &SVector<f64, 4>, v1: &SVector<f64, 4>, hk: f64| {
            -(v0.dot(&(c * v0)) + v1.dot(&(c * v1))) * (hk * 0.5)
        };
        Ok(if sylipn {
            let mut m = built(DampedZs::new(built(Sylipn::new(forced, h, params))?, c))?;
            held_steps(&mut g, &mut m, &sys, Some(&residual), Some(&d), true, s)
        } else {
            let mut m = built(DampedZs::new(built(ZhangSkeel::new(forced, h, params))?, c))?;
            held_steps(&mut g, &mut m, &sys, Some(&residual), Some(&d), true, s)
        })
    })
}
