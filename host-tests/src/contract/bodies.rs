//! Rigid bodies and joints in the mechanism builder: `body` (hostile mass, centre of mass and
//! inertia: singular, indefinite, non-symmetric, thin-rod and flat-plate moments, `1e300`,
//! subnormal), every joint kind (`revolute`, `prismatic`, `spherical`, `fixed`; hostile
//! anchors, zero, huge and non-finite axes, missing bodies, the ground as child, a body joined
//! to itself, closed loops), `joint_motor`, `joint_damping` and `build`, in the plane (two
//! bodies, two joints) and in space (one body hinged to the ground); the readouts (joint angles
//! and rates, body poses, twists and momenta, `set_body_twist`) at the start and at hostile
//! states; the built mechanism stepped by RATTLE and by RATTLE inside
//! [`Damped`](macrostep::forcing::Damped) with its own joint dampers, under held forces.
//!
//! Checked: a refused call leaves the builder bit-identical; a built mechanism keeps the
//! promises of [`super::mechanism::check_built`]; at its finite start every readout of an
//! existing joint or body is finite and a missing one is `None`; a refused `set_body_twist`
//! leaves the velocity unchanged and an accepted one is finite; the steps keep the contract of
//! [`super::forcing`].

use super::cases::step;
use super::forcing::rattle_held;
use super::mechanism::check_built;
use super::{built, case, Bits, Entry, Gen, Outcome};
use macrostep::mechanism::{Body, Link, Mechanism, MechanismBuilder};
use macrostep::nalgebra::SVector;
use macrostep::ConfigError;
use rand_pcg::Pcg64;

/// The rigid-body entry points: in the plane two bodies (12 coordinates) and two two-row
/// joints (`D = 2·3 + 2·2 = 10`); in space one body (12 coordinates) and a revolute or
/// prismatic joint (`D = 6 + 5 = 11`).
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "mechanism::bodies+joints calls+build+readouts (plane)",
        run: |r| built_only::<2, 10>(r),
    },
    Entry {
        name: "mechanism::bodies+joints calls+build+readouts (space)",
        run: |r| built_only::<3, 11>(r),
    },
    Entry {
        name: "mechanism::bodies+joints/Rattle set_force (plane)",
        run: |r| stepped::<2, 10>(r, false),
    },
    Entry {
        name: "mechanism::bodies+joints/Damped<Rattle> set_force (plane)",
        run: |r| stepped::<2, 10>(r, true),
    },
    Entry {
        name: "mechanism::bodies+joints/Rattle set_force (space)",
        run: |r| stepped::<3, 11>(r, false),
    },
];

/// The builder with room for two bodies and two joints (the plan's; a third of either is
/// refused as `"bodies <= B"` / `"joints <= J"`).
type Builder<const DIM: usize, const D: usize> = MechanismBuilder<f64, DIM, 12, D, 0, 2, 2>;
/// What it builds.
type Mech<const DIM: usize, const D: usize> = Mechanism<f64, DIM, 12, D, 0, 2, 2>;

/// A point within a few metres (hostile components in hostile cases).
fn point<const DIM: usize>(g: &mut Gen<'_>) -> [f64; DIM] {
    core::array::from_fn(|_| g.uniform(-2.0, 2.0))
}

/// An inertia tensor: a valid one (in the plane `[[I_zz, 0], [0, 0]]`; in space principal
/// moments obeying the triangle inequality in a random frame), or in hostile cases a thin rod,
/// a flat plate, a negative, subnormal, huge or non-symmetric one.
fn inertia<const DIM: usize>(g: &mut Gen<'_>) -> [[f64; DIM]; DIM] {
    let mut j = [[0.0; DIM]; DIM];
    let kind = g.rng_range(0..if g.is_hostile() { 8 } else { 1 });
    let moments: [f64; 3] = match kind {
        0 => {
            let (a, b): (f64, f64) = (g.positive(0.01, 1.0), g.positive(0.01, 1.0));
            let f: f64 = g.uniform(0.6, 0.99);
            [a, b, (a + b) * f]
        }
        1 => [0.0, 1.0, 1.0],
        2 => [1.0, 1.0, 2.0],
        3 => [-1.0, 1.0, 1.0],
        4 => [5e-324; 3],
        5 => [1e300; 3],
        6 => [1e-300, 1e300, 1e300],
        _ => [g.hostile(), g.hostile(), g.hostile()],
    };
    if DIM == 2 {
        j[0][0] = moments[0] + moments[1];
    } else {
        for (c, m) in moments.iter().enumerate().take(DIM) {
            j[c][c] = *m;
        }
        let off: f64 = g.uniform(-0.05, 0.05);
        j[0][1] = off * moments[0].min(moments[1]);
        j[1][0] = if g.is_hostile() && g.chance(0.2) {
            -j[0][1] + 0.5
        } else {
            j[0][1]
        };
    }
    j
}

fn body<const DIM: usize>(g: &mut Gen<'_>) -> Body<f64, DIM> {
    Body {
        mass: g.positive(0.1, 10.0),
        com: point(g),
        inertia: inertia(g),
    }
}

/// A link: mostly `want`, sometimes the ground, a missing body or another one.
fn link(g: &mut Gen<'_>, want: Link) -> Link {
    match g.rng_range(0..24) {
        0 => Link::Ground,
        1 => Link::Body(7),
        2 => Link::Body(usize::MAX),
        3 => Link::Body(g.rng_range(0..2)),
        _ => want,
    }
}

/// A joint axis: a random unit-ish vector or, in hostile cases, zero, huge or non-finite.
fn axis<const DIM: usize>(g: &mut Gen<'_>) -> [f64; DIM] {
    if g.is_hostile() && g.chance(0.2) {
        let x = [0.0, 1e300, 1e-300, f64::NAN][g.rng_range(0..4)];
        return [x; DIM];
    }
    point(g)
}

/// One joint of a random kind (the fixed joint's rows do not fit `D` and are refused at
/// `build`).
fn joint<const DIM: usize, const D: usize>(
    g: &mut Gen<'_>,
    b: &mut Builder<DIM, D>,
    parent: Link,
    child: Link,
) -> Result<usize, ConfigError> {
    let (p, c, anchor) = (link(g, parent), link(g, child), point(g));
    match g.rng_range(0..if g.is_hostile() { 4 } else { 3 }) {
        0 => b.revolute(p, c, anchor, axis(g)),
        1 => b.prismatic(p, c, anchor, axis(g)),
        2 if DIM == 2 => b.spherical(p, c, anchor),
        2 => b.revolute(p, c, anchor, axis(g)),
        _ => b.fixed(p, c, anchor),
    }
}

/// One builder call of kind `kind`; a refused call must leave the builder bit-identical.
fn call<const DIM: usize, const D: usize>(
    g: &mut Gen<'_>,
    b: &mut Builder<DIM, D>,
    kind: usize,
) -> Result<(), Outcome> {
    // A copy now, compared only when the call is refused: by `==` (cheap; formatting the
    // builder through `Debug` costs most of a case), and through the `Debug` forms when `==`
    // says they differ (a NaN field is unequal to itself). `==` does not see the sign of a
    // zero: a refused call that flips only that passes.
    let before = *b;
    let j = match g.rng_range(0..10) {
        0 => 5,
        1 => usize::MAX,
        _ => g.rng_range(0..2),
    };
    let r: Result<usize, ConfigError> = match kind {
        0 => b.body(body(g)),
        1 => joint(g, b, Link::Ground, Link::Body(0)),
        2 => joint(g, b, Link::Body(0), Link::Body(1)),
        3 => b.joint_motor(j),
        4 => b.joint_damping(j, g.uniform(0.0, 5.0)).map(|()| 0),
        _ => b.gravity(g.uniform(0.0, 20.0)).map(|()| 0),
    };
    if let Err(e) = r {
        if *b == before {
            return Ok(());
        }
        let (before, after) = (format!("{before:?}"), format!("{b:?}"));
        if after != before {
            return Err(Outcome::Violation(format!(
                "refused call {kind} ({e:?}) changed the builder {before} -> {after}"
            )));
        }
    }
    Ok(())
}

/// A mechanism from the plan (bodies, joints, motors, dampers, gravity; each call with random
/// or hostile arguments), interleaved with random calls.
fn draw<const DIM: usize, const D: usize>(g: &mut Gen<'_>) -> Result<Mech<DIM, D>, Outcome> {
    let mut b = built(Builder::<DIM, D>::new())?;
    let plan: &[usize] = if DIM == 2 {
        &[0, 0, 1, 2, 3, 3, 4, 4, 5]
    } else {
        &[0, 1, 3, 4, 5]
    };
    for &kind in plan {
        call(g, &mut b, kind)?;
        if g.chance(0.15) {
            let extra = g.rng_range(0..6);
            call(g, &mut b, extra)?;
        }
    }
    let m = built(b.build())?;
    check_built(g, &m)?;
    readouts(g, &m)?;
    Ok(m)
}

/// The readouts at the start (finite for what exists, `None` for what does not) and at a
/// random or hostile state (no promise but no panic), and `set_body_twist`.
fn readouts<const DIM: usize, const D: usize>(
    g: &mut Gen<'_>,
    m: &Mech<DIM, D>,
) -> Result<(), Outcome> {
    let violation = |what: String| Err(Outcome::Violation(what));
    let q = m.initial_state().q;
    // A natural velocity (never hostile: the promise is for a finite start and a velocity of
    // natural size; a velocity of 1e300 overflows the kinetic energy legitimately).
    let v: SVector<f64, 12> =
        SVector::from_fn(|_, _| (g.rng_range(0..2001) as f64 - 1000.0) / 1000.0);
    let finite = |x: f64| x.is_finite();
    for j in 0..m.joints() + 2 {
        let (a, r) = (m.joint_angle(j, &q), m.joint_rate(j, &q, &v));
        let ok = if j < m.joints() {
            a.is_none_or(finite) && r.is_none_or(finite) && a.is_some() == r.is_some()
        } else {
            a.is_none() && r.is_none()
        };
        if !ok {
            return violation(format!("joint {j} readout at the start: {a:?} {r:?}"));
        }
    }
    for l in 0..m.bodies() + 2 {
        let pose = m.body_pose(l, &q);
        let twist = m.body_twist(l, &q, &v);
        let spin = m.body_angular_momentum(l, &q, &v);
        let ok = if l < m.bodies() {
            pose.is_some_and(|(c, a)| c.iter().chain(a.iter()).all(|x| x.is_finite()))
                && twist.is_some_and(|(c, w)| c.iter().chain(w.iter()).all(|x| x.is_finite()))
                && spin.is_some_and(|s| s.iter().all(|x| x.is_finite()))
        } else {
            pose.is_none() && twist.is_none() && spin.is_none()
        };
        if !ok {
            return violation(format!(
                "body {l} readout at the start: {pose:?} {twist:?} {spin:?}"
            ));
        }
    }
    let (k, p, l) = (
        m.kinetic_energy(&v),
        m.momentum(&v),
        m.angular_momentum(&q, &v),
    );
    let [k_terms, p_terms, l_terms] = term_magnitudes(m, &q, &v);
    let broken = (k_terms.is_finite() && !finite(k))
        || (p_terms.is_finite() && !p.iter().all(|x| x.is_finite()))
        || (l_terms.is_finite() && !l.iter().all(|x| x.is_finite()));
    if broken {
        return violation(format!(
            "kinetic energy or momenta not finite at the start: K = {k:?}, p = {p:?}, L = {l:?} \
             (their terms' magnitudes {k_terms:?}, {p_terms:?}, {l_terms:?})"
        ));
    }
    twist_set(g, m, &q)?;
    // At a random or hostile state: no promise beyond not panicking.
    let s = g.state(q, 2.0);
    for k in 0..m.joints().max(m.bodies()) + 1 {
        let _ = (m.joint_angle(k, &s.q), m.joint_rate(k, &s.q, &s.v));
        let _ = (m.body_pose(k, &s.q), m.body_twist(k, &s.q, &s.v));
        let _ = m.body_angular_momentum(k, &s.q, &s.v);
    }
    let _ = (m.kinetic_energy(&s.v), m.angular_momentum(&s.q, &s.v));
    Ok(())
}

/// The sums of the magnitudes of the terms of `2K`, `Σ mᵢ ṗᵢ` and `Σ mᵢ pᵢ × ṗᵢ` at `(q, v)`:
/// `Σ mᵢ |ṗᵢ|²`, `Σ mᵢ |ṗᵢ|₁`, `Σ mᵢ |pᵢ|₁ |ṗᵢ|₁` over the nodes (every coordinate of these
/// mechanisms is a body node's, the mass matrix diagonal, `mᵢ = 2 K(e)` for a unit velocity
/// `e` of the node). A readout is promised finite where these are: a body of mass near `MAX`, or
/// one near `MAX` from the origin, has momenta no scalar can hold. `2K`, not `K`: the kinetic
/// energy is computed as `vᵀMv · ½`, which overflows where `vᵀMv` does.
fn term_magnitudes<const DIM: usize, const D: usize>(
    m: &Mech<DIM, D>,
    q: &SVector<f64, 12>,
    v: &SVector<f64, 12>,
) -> [f64; 3] {
    let mut sums = [0.0; 3];
    for node in 0..12 / DIM {
        let e = SVector::<f64, 12>::from_fn(|i, _| if i == node * DIM { 1.0 } else { 0.0 });
        let mi = 2.0 * m.kinetic_energy(&e);
        let at = |x: &SVector<f64, 12>| -> [f64; DIM] {
            core::array::from_fn(|c| x[node * DIM + c].abs())
        };
        let (p1, v1) = (at(q).iter().sum::<f64>(), at(v).iter().sum::<f64>());
        sums[0] += mi * at(v).iter().map(|x| x * x).sum::<f64>();
        sums[1] += mi * v1;
        sums[2] += mi * p1 * v1;
    }
    sums
}

/// `set_body_twist` with a random or hostile twist on an existing or missing body.
fn twist_set<const DIM: usize, const D: usize>(
    g: &mut Gen<'_>,
    m: &Mech<DIM, D>,
    q: &SVector<f64, 12>,
) -> Result<(), Outcome> {
    let l = if g.chance(0.9) {
        g.rng_range(0..m.bodies().max(1))
    } else {
        m.bodies() + g.rng_range(0..3)
    };
    let mut v = SVector::<f64, 12>::zeros();
    let before: Vec<u64> = v.iter().map(|x| x.bits()).collect();
    match m.set_body_twist(l, q, point(g), point(g), &mut v) {
        Err(e) if v.iter().map(|x| x.bits()).collect::<Vec<_>>() != before => Err(
            Outcome::Violation(format!("refused set_body_twist ({e:?}) changed v to {v:?}")),
        ),
        Ok(()) if !v.iter().all(|x| x.is_finite()) => Err(Outcome::Violation(format!(
            "set_body_twist Ok with v = {v:?}"
        ))),
        _ => Ok(()),
    }
}

fn built_only<const DIM: usize, const D: usize>(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        draw::<DIM, D>(&mut g)?;
        Ok(Outcome::Ok)
    })
}

/// The built mechanism stepped by RATTLE (inside [`Damped`](macrostep::forcing::Damped) with its own dampers when
/// `damped`) under held forces.
fn stepped<const DIM: usize, const D: usize>(rng: &mut Pcg64, damped: bool) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let m = draw::<DIM, D>(&mut g)?;
        let s0 = g.state(m.initial_state().q, 1.0);
        let h = step(&mut g, 1e-3, 0.05);
        let c = damped.then(|| m.damping());
        rattle_held(&mut g, m.system(), m.constraint(), h, c, s0)
    })
}
