//! The step linearisations ([`Linearise::linearise_by`], [`Rattle::linearise_tangent_by`]) with
//! hostile models, states, step sizes, held forces and damping matrices: Z&S, Z&Ss, stiff
//! Z&Ss, the three Newmark methods, velocity Verlet, symplectic Euler in both orderings,
//! [`Damped`] around Z&S, [`DampedZs`] around Z&S and Z&Ss, and RATTLE in tangent coordinates.
//!
//! The model is the bob on a spring of `reproduce linearise` (and its soft/stiff split) with
//! random or hostile stiffness, gravity, diagonal mass, `β` and held force. Checked: an `Ok`
//! linearisation is finite; a linearisation changes nothing the next step sees (the step of
//! the linearised integrator is bit-identical to the step of a copy taken before, state and
//! error alike); a refused `set_force` names [`StepError::NonFiniteForce`].

use super::cases::{dp_model, step};
use super::forcing::{damping, force, newton};
use super::{built, case, same_bits, step_kind, Entry, Gen, Outcome};
use crate::experiments::linearise::cases::{Soft, Spring};
use macrostep::autodiff::AutoDiff;
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::constrained::Rattle;
use macrostep::forcing::{Actuate, Actuated, Damped};
use macrostep::linearise::Linearise;
use macrostep::model::{Mass, Split, System};
use macrostep::nalgebra::SVector;
use macrostep::zs::{
    DampedZs, Newmark, NewmarkOneIteration, NewmarkParams, PushForwardNewmark, StiffSylipn, Sylipn,
    ZhangSkeel, ZsParams,
};
use macrostep::{Integrator, State, StepError};
use rand_pcg::Pcg64;

/// The linearisation entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "linearise::ZhangSkeel/spring",
        run: |r| spring_case(r, Method::Zs),
    },
    Entry {
        name: "linearise::Sylipn/spring",
        run: |r| spring_case(r, Method::Sylipn),
    },
    Entry {
        name: "linearise::StiffSylipn/split",
        run: stiff_case,
    },
    Entry {
        name: "linearise::Newmark/spring",
        run: |r| spring_case(r, Method::Newmark),
    },
    Entry {
        name: "linearise::PushForwardNewmark/spring",
        run: |r| spring_case(r, Method::PushForward),
    },
    Entry {
        name: "linearise::NewmarkOneIteration/spring",
        run: |r| spring_case(r, Method::NewmarkOne),
    },
    Entry {
        name: "linearise::VelocityVerlet/spring",
        run: |r| spring_case(r, Method::Verlet),
    },
    Entry {
        name: "linearise::SymplecticEuler/spring",
        run: |r| spring_case(r, Method::Euler),
    },
    Entry {
        name: "linearise::Damped<ZhangSkeel>/spring",
        run: |r| spring_case(r, Method::DampedSplit),
    },
    Entry {
        name: "linearise::DampedZs<ZhangSkeel>/spring",
        run: |r| spring_case(r, Method::ZsInSolve),
    },
    Entry {
        name: "linearise::DampedZs<Sylipn>/spring",
        run: |r| spring_case(r, Method::SylipnInSolve),
    },
    Entry {
        name: "linearise::Rattle tangent/dp",
        run: rattle_tangent,
    },
];

#[derive(Clone, Copy)]
enum Method {
    Zs,
    Sylipn,
    Newmark,
    PushForward,
    NewmarkOne,
    Verlet,
    Euler,
    DampedSplit,
    ZsInSolve,
    SylipnInSolve,
}

/// The spring potential with its held force.
type SpringP = Actuated<f64, AutoDiff<Spring<f64>>, 2>;

/// A diagonal mass with random or hostile entries.
fn mass(g: &mut Gen<'_>) -> Result<Mass<f64, 2>, Outcome> {
    built(Mass::diagonal(g.positives(0.1, 10.0)))
}

/// The bob on a spring with random or hostile stiffness, gravity, mass and held force.
fn spring(g: &mut Gen<'_>) -> Result<System<f64, SpringP, 2>, Outcome> {
    let p = Spring {
        k: g.positive(0.1, 1e4),
        g: g.uniform(-20.0, 20.0),
    };
    let held = built(Actuated::with_force(AutoDiff(p), force(g)))?;
    Ok(System::new(mass(g)?, held))
}

/// A start near the spring's rest circle, or hostile.
fn start(g: &mut Gen<'_>) -> State<f64, 2> {
    g.state(SVector::from([0.8, -0.7]), 2.0)
}

fn spring_case(rng: &mut Pcg64, method: Method) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let sys = spring(&mut g)?;
        let h: f64 = step(&mut g, 1e-3, 0.2);
        let beta: f64 = g.uniform(0.0, 1.0);
        let zs = ZsParams::with_beta(beta);
        let s = start(&mut g);
        let g = &mut g;
        Ok(match method {
            Method::Zs => linearised(g, built(ZhangSkeel::new(sys, h, zs))?, s),
            Method::Sylipn => linearised(g, built(Sylipn::new(sys, h, zs))?, s),
            Method::Newmark => {
                let p = NewmarkParams::with_beta(beta);
                linearised(g, built(Newmark::new(sys, h, p))?, s)
            }
            Method::PushForward => {
                let p = NewmarkParams::with_beta(beta);
                linearised(g, built(PushForwardNewmark::new(sys, h, p))?, s)
            }
            Method::NewmarkOne => linearised(g, built(NewmarkOneIteration::new(sys, h, zs))?, s),
            Method::Verlet => linearised(g, built(VelocityVerlet::new(sys, h))?, s),
            Method::Euler => {
                let order = if g.chance(0.5) {
                    EulerOrdering::KickDrift
                } else {
                    EulerOrdering::DriftKick
                };
                linearised(g, built(SymplecticEuler::new(sys, h, order))?, s)
            }
            Method::DampedSplit => {
                let inner = built(ZhangSkeel::new(sys, h, zs))?;
                let c = damping(g);
                linearised(g, built(Damped::new(inner, sys.mass, c))?, s)
            }
            Method::ZsInSolve => {
                let inner = built(ZhangSkeel::new(sys, h, zs))?;
                let c = damping(g);
                linearised(g, built(DampedZs::new(inner, c))?, s)
            }
            Method::SylipnInSolve => {
                let inner = built(Sylipn::new(sys, h, zs))?;
                let c = damping(g);
                linearised(g, built(DampedZs::new(inner, c))?, s)
            }
        })
    })
}

/// Stiff Z&Ss on the soft/stiff split with a random or hostile `α`.
fn stiff_case(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let soft = built(Actuated::with_force(
            AutoDiff(Soft(g.uniform(-20.0, 20.0))),
            force(&mut g),
        ))?;
        let stiff = AutoDiff(Spring {
            k: g.positive(0.1, 1e4),
            g: 0.0,
        });
        let split = Split::new(soft, stiff, g.uniform(0.0, 1.0));
        let sys = System::new(mass(&mut g)?, split);
        let h = step(&mut g, 1e-3, 0.2);
        let zs = ZsParams::with_beta(g.uniform(0.0, 1.0));
        let m = built(StiffSylipn::new(sys, h, zs))?;
        let s = start(&mut g);
        Ok(linearised(&mut g, m, s))
    })
}

/// Sets a new (random or hostile) held force, linearises at `s` with the configured or a
/// hostile step, and checks the linearisation: finite when `Ok`, and invisible to the next step.
fn linearised<I>(g: &mut Gen<'_>, mut m: I, s: State<f64, 2>) -> Outcome
where
    I: Linearise<f64, 2> + Actuate<f64, 2> + Clone,
{
    if let Some(v) = held(g, &mut m) {
        return v;
    }
    let h = m.step_size();
    let hk = g.step_size(h);
    let copy = m.clone();
    let r = m.linearise_by(&s, hk);
    if let Some(v) = unchanged(m, copy, &s) {
        return v;
    }
    match r {
        Ok(j) if !j.is_finite() => Outcome::Violation(format!(
            "step 0 (linearise_by, h = {hk:?}): Ok with non-finite entries at {s:?}: {j:?}"
        )),
        Ok(_) => Outcome::Ok,
        Err(e) => Outcome::Step(step_kind(&e)),
    }
}

/// A new held force; `Some(violation)` when a refusal names the wrong error.
fn held<I: Actuate<f64, N>, const N: usize>(g: &mut Gen<'_>, m: &mut I) -> Option<Outcome> {
    let u: SVector<f64, N> = force(g);
    match m.set_force(&u) {
        Ok(()) | Err(StepError::NonFiniteForce) => None,
        Err(e) => Some(Outcome::Violation(format!(
            "set_force({u:?}) refused with {e:?}"
        ))),
    }
}

/// The step of `after` (which was linearised) against the step of `before` (a copy taken
/// before): bit-identical states and the same error; `Some(violation)` otherwise.
fn unchanged<I: Integrator<f64, N>, const N: usize>(
    mut after: I,
    mut before: I,
    s: &State<f64, N>,
) -> Option<Outcome> {
    let (mut a, mut b) = (*s, *s);
    let ra = after.step(&mut a).map_err(|e| step_kind(&e));
    let rb = before.step(&mut b).map_err(|e| step_kind(&e));
    if ra == rb && same_bits(&a, &b) {
        None
    } else {
        Some(Outcome::Violation(format!(
            "linearising changed the next step: {ra:?} {a:?} against {rb:?} {b:?}"
        )))
    }
}

/// RATTLE on the rigid double pendulum with a held force, linearised in the tangent
/// coordinates of its solution manifold (`R = N − D = 2`).
fn rattle_tangent(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (model, s) = dp_model::<f64>(&mut g)?;
        let (sys, c) = (model.system(), model.constraint());
        let held_p = built(Actuated::with_force(sys.potential, force(&mut g)))?;
        let forced = System::new(sys.mass, held_p);
        let h = step(&mut g, 1e-3, 0.1);
        let mut r = built(Rattle::new(forced, c, h, newton(&mut g)))?;
        if let Some(v) = held(&mut g, &mut r) {
            return Ok(v);
        }
        let hk = g.step_size(h);
        let copy = r;
        let out = r.linearise_tangent_by::<2>(&s, hk);
        if let Some(v) = unchanged(r, copy, &s) {
            return Ok(v);
        }
        Ok(match out {
            Ok(j) if !j.is_finite() => Outcome::Violation(format!(
                "step 0 (linearise_tangent_by, h = {hk:?}): Ok with non-finite entries at {s:?}: {j:?}"
            )),
            Ok(_) => Outcome::Ok,
            Err(e) => Outcome::Step(step_kind(&e)),
        })
    })
}
