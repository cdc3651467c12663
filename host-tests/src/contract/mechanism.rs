//! The mechanism builder: every builder call with random or hostile arguments (masses,
//! positions, rail directions, rod and pin lengths, spring constants, gravity, dashpots,
//! actuator axes; node indices out of range, coincident ends, too many rods, springs or
//! actuators), `build`, and the built mechanism stepped by RATTLE, by penalised Z&S and by
//! RATTLE inside [`Damped`](macrostep::forcing::Damped) with its own dashpots, under held actuator forces.
//!
//! Checked: a refused call leaves the builder bit-identical (its `Debug` form prints every
//! field, floats exactly); a built mechanism has a finite start, a mass whose inverse is
//! finite, a finite symmetric damping matrix, an `actuation` that is finite or refused; its
//! steps keep the contract of [`super::forcing`] (energy run guard replayed with the work of
//! the held forces, residual guard on the rods).

use super::cases::step;
use super::forcing::{damping, held_steps, rattle_held};
use super::{built, case, Entry, Gen, Outcome};
use macrostep::forcing::Actuated;
use macrostep::mechanism::{Mechanism, MechanismBuilder};
use macrostep::model::{Potential, System};
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::ConfigError;
use rand_pcg::Pcg64;

/// Two free nodes or a rail node and a free node (up to 4 coordinates), 2 rods, 1 spring.
type B = MechanismBuilder<f64, 2, 4, 2, 1>;
type Mech = Mechanism<f64, 2, 4, 2, 1>;

/// The mechanism entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "mechanism::MechanismBuilder calls+build",
        run: builder,
    },
    Entry {
        name: "mechanism::Mechanism/Rattle set_force",
        run: |r| stepped(r, Form::Rattle),
    },
    Entry {
        name: "mechanism::Mechanism/penalised ZhangSkeel set_force",
        run: |r| stepped(r, Form::Penalised),
    },
    Entry {
        name: "mechanism::Mechanism/Damped<Rattle> set_force",
        run: |r| stepped(r, Form::DampedRattle),
    },
];

#[derive(Clone, Copy)]
enum Form {
    Rattle,
    Penalised,
    DampedRattle,
}

/// A point in the plane, mostly within a few metres (hostile components in hostile cases).
fn point(g: &mut Gen<'_>) -> [f64; 2] {
    [g.uniform(-2.0, 2.0), g.uniform(-2.0, 2.0)]
}

/// A node index: mostly `want`, sometimes another existing one, one past the end or far out.
fn index(g: &mut Gen<'_>, nodes: usize, want: usize) -> usize {
    match g.rng_range(0..20) {
        0 => nodes,
        1 => usize::MAX,
        2..=4 => g.rng_range(0..nodes.max(1)),
        _ => want,
    }
}

/// One builder call; a refused call must leave the builder bit-identical.
fn call(g: &mut Gen<'_>, b: &mut B, kind: usize, nodes: &mut usize) -> Result<(), Outcome> {
    let before = format!("{b:?}");
    let n = *nodes;
    // The arm's indices: node 0 pinned, the rod 0–1, the joint at 0.
    let (i0, i1) = (index(g, n, 0), index(g, n, 1));
    let r: Result<usize, ConfigError> = match kind {
        0 => b.node(g.positive(0.1, 10.0), point(g)),
        1 => b.rail_node(
            g.positive(0.1, 10.0),
            point(g),
            point(g),
            g.uniform(-1.0, 1.0),
        ),
        2 => b.rod(i0, i1),
        3 => b.rod_length(i0, i1, g.positive(0.1, 3.0)),
        4 => b.pin(i0, point(g)),
        5 => b.pin_length(i0, point(g), g.positive(0.1, 3.0)),
        6 => b.spring(i0, i1, g.positive(0.1, 1e3), g.positive(0.1, 2.0)),
        7 => b.spring_to_ground(i1, point(g), g.positive(0.1, 1e3), g.uniform(0.0, 2.0)),
        8 => b.gravity(g.uniform(0.0, 20.0)).map(|()| 0),
        9 => b.dashpot(i0, i1, g.uniform(0.0, 5.0)).map(|()| 0),
        10 => b.dashpot_to_ground(i1, g.uniform(0.0, 5.0)).map(|()| 0),
        11 => b.force_actuator(i1, point(g)),
        _ => b.torque_actuator(i0, i1, index(g, n, 2)),
    };
    match r {
        Ok(_) if kind <= 1 => *nodes += 1,
        Ok(_) => {}
        Err(e) => {
            let after = format!("{b:?}");
            if after != before {
                return Err(Outcome::Violation(format!(
                    "refused call {kind} ({e:?}) changed the builder {before} -> {after}"
                )));
            }
        }
    }
    Ok(())
}

/// A mechanism from the arm's plan (two free nodes, a pin, a rod, a spring, gravity, dashpots,
/// actuators: each call with random or hostile arguments), interleaved with random calls.
fn draw(g: &mut Gen<'_>) -> Result<Mech, Outcome> {
    let mut b = built(B::new())?;
    let mut nodes = 0;
    let plan = [0, 0, 4, 2, 6, 8, 9, 10, 11, 12];
    for &kind in &plan {
        call(g, &mut b, kind, &mut nodes)?;
        if g.chance(0.15) {
            let extra = g.rng_range(0..13);
            call(g, &mut b, extra, &mut nodes)?;
        }
    }
    let m = built(b.build())?;
    check_built(g, &m)?;
    Ok(m)
}

/// What an accepted mechanism promises: a finite start, a mass whose inverse is finite, a
/// finite symmetric damping matrix, an `actuation` that is finite or refused.
pub fn check_built<
    const DIM: usize,
    const N: usize,
    const D: usize,
    const S: usize,
    const NB: usize,
    const NJ: usize,
>(
    g: &mut Gen<'_>,
    m: &Mechanism<f64, DIM, N, D, S, NB, NJ>,
) -> Result<(), Outcome> {
    let violation = |what: String| Err(Outcome::Violation(what));
    if !m.initial_state().is_finite() {
        return violation(format!("built with a non-finite start {m:?}"));
    }
    let minv = m.mass().solve(&SVector::repeat(1.0));
    if !minv.iter().all(|x| x.is_finite()) {
        return violation(format!("built with M⁻¹1 = {minv:?}"));
    }
    let c = m.damping();
    // Symmetric to rounding (`8ε‖C‖`, the tolerance `Damped::new` accepts): a rail node's
    // dashpot is assembled through its direction, whose products round differently.
    let asym = (c - c.transpose()).amax();
    if !c.iter().all(|x| x.is_finite()) || asym > 8.0 * f64::EPSILON * c.amax() {
        return violation(format!("built with damping {c:?}"));
    }
    let commands: Vec<f64> = (0..m.actuators()).map(|_| g.uniform(-10.0, 10.0)).collect();
    let mut u = SVector::zeros();
    let q = m.initial_state().q;
    if m.actuation(&commands, &q, &mut u).is_ok() && !u.iter().all(|x| x.is_finite()) {
        // `Ok` promises a usable force: an overflow must be refused, not returned.
        return violation(format!("actuation {commands:?} at {q:?} gave {u:?}"));
    }
    Ok(())
}

fn builder(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        draw(&mut g)?;
        Ok(Outcome::Ok)
    })
}

fn stepped(rng: &mut Pcg64, form: Form) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let m = draw(&mut g)?;
        let s0 = g.state(m.initial_state().q, 1.0);
        let h = step(&mut g, 1e-3, 0.05);
        let (sys, link) = (m.system_with_springs(), m.constraint());
        match form {
            Form::Rattle => rattle_held(&mut g, sys, link, h, None, s0),
            Form::Penalised => {
                let pen = built(m.penalised_with_springs(g.positive(1.0, 1e3)))?;
                let forced = System::new(pen.mass, Actuated::new(pen.potential));
                let res = |q: &SVector<f64, 4>| pen.potential.constraint_residual(q).unwrap_or(0.0);
                let mut z = built(ZhangSkeel::new(forced, h, ZsParams::default()))?;
                Ok(held_steps(&mut g, &mut z, &pen, Some(&res), None, true, s0))
            }
            Form::DampedRattle => {
                let c = if g.chance(0.7) {
                    m.damping()
                } else {
                    damping(&mut g)
                };
                rattle_held(&mut g, sys, link, h, Some(c), s0)
            }
        }
    })
}
