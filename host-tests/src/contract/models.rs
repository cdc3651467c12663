//! Constructors of the model vocabulary and the built-in models.
//!
//! Property: `Ok` or a typed [`ConfigError`](macrostep::ConfigError), never a panic; and what an
//! accepted value promises is checked: a mass's inverse is finite (its constructor refuses an
//! overflowing `1/m`), a model's own initial state is finite, a penalty's `ω²` is finite.

use super::{built, case, Entry, Gen, Outcome};
use macrostep::constrained::MultiplierWindow;
use macrostep::model::{Constraint, Mass, Penalty, Potential};
use macrostep::nalgebra::SVector;
use macrostep::systems::{
    Chain, Distances, Dna, DoublePendulum, Fpu, HarmonicOscillator, Kapitza, LinearPotential, Link,
    Pendulum, PlanarDistances, Propane, QuarticBond, SpringTrimer, TwoSpring,
};
use macrostep::State;
use rand_pcg::Pcg64;

/// The model entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "model::Mass::diagonal",
        run: mass_diagonal,
    },
    Entry {
        name: "model::Mass::full",
        run: mass_full,
    },
    Entry {
        name: "model::Penalty::per_constraint",
        run: penalty,
    },
    Entry {
        name: "systems::HarmonicOscillator::new",
        run: harmonic,
    },
    Entry {
        name: "systems::Distances::new",
        run: distances,
    },
    Entry {
        name: "systems::Pendulum::new+penalised",
        run: pendulum,
    },
    Entry {
        name: "systems::DoublePendulum::new+penalised",
        run: double_pendulum,
    },
    Entry {
        name: "systems::Chain::new+penalised",
        run: chain,
    },
    Entry {
        name: "systems::{Fpu,Dna,Trimer,Kapitza,Propane,TwoSpring}::new",
        run: others,
    },
    Entry {
        name: "systems::{LinearPotential,QuarticBond,MultiplierWindow}::new",
        run: parts,
    },
];

/// `Ok` when `s` is finite, else a violation naming `what`.
fn finite_state<const N: usize>(s: &State<f64, N>, what: &str) -> Result<Outcome, Outcome> {
    if s.is_finite() {
        Ok(Outcome::Ok)
    } else {
        Err(Outcome::Violation(format!(
            "{what} accepted, initial state {s:?}"
        )))
    }
}

/// A mass whose inverse is not finite was accepted.
fn check_inverse<const N: usize>(m: &Mass<f64, N>) -> Result<Outcome, Outcome> {
    for i in 0..N {
        let e = SVector::<f64, N>::from_fn(|r, _| if r == i { 1.0 } else { 0.0 });
        let x = m.solve(&e);
        if !x.iter().all(|c| c.is_finite()) {
            return Err(Outcome::Violation(format!(
                "mass {m:?} accepted, M⁻¹e{i} = {x:?}"
            )));
        }
    }
    Ok(Outcome::Ok)
}

fn mass_diagonal(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let m = built(if g.chance(0.5) {
            Mass::diagonal(g.positives::<f64, 3>(1e-3, 1e3))
        } else {
            Mass::uniform(g.positive(1e-3, 1e3))
        })?;
        check_inverse(&m)
    })
}

fn mass_full(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let a = g.matrix::<f64, 3, 3>(-1.0, 1.0);
        // A random SPD matrix `A Aᵀ + d I` in clean cases; raw `A` (asymmetric) sometimes.
        let m = if g.chance(0.8) {
            a * a.transpose()
                + macrostep::nalgebra::Matrix3::identity() * g.positive::<f64>(1e-6, 10.0)
        } else {
            a
        };
        let m = built(Mass::full(m))?;
        check_inverse(&m)
    })
}

fn penalty(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let dp = DoublePendulum::<f64>::paper();
        let omega = g.positives::<f64, 2>(1e-2, 1e4);
        let p = built(Penalty::per_constraint(
            LinearPotential::new(g.vector(-10.0, 10.0)).unwrap_or_else(|_| zero4()),
            dp.constraint(),
            omega,
        ))?;
        if !p.omega2().iter().all(|w| w.is_finite() && *w > 0.0) {
            return Err(Outcome::Violation(format!(
                "omega {omega:?} accepted, ω² = {:?}",
                p.omega2()
            )));
        }
        // Evaluating the accepted potential anywhere must not panic.
        let q = g.vector::<f64, 4>(-3.0, 3.0);
        let _ = (p.energy(&q), p.gradient(&q), p.constraint_residual(&q));
        Ok(Outcome::Ok)
    })
}

fn zero4() -> LinearPotential<f64, 4> {
    LinearPotential::new(SVector::zeros()).expect("zero coefficients are finite")
}

fn harmonic(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let h = built(if g.chance(0.5) {
            HarmonicOscillator::<f64, 2>::new(g.positives(1e-3, 1e3))
        } else {
            HarmonicOscillator::isotropic(g.positive(1e-3, 1e3))
        })?;
        // `½ωᵢ²` finite for each direction (the constructor refuses an overflowing `ω²`; the
        // energy of the 2-D start `(1, 1)` may still overflow when both `ωᵢ²` are near MAX).
        let sys = h.system();
        for i in 0..2 {
            let e = SVector::<f64, 2>::from_fn(|r, _| if r == i { 1.0 } else { 0.0 });
            let v = sys.potential.energy(&e);
            if !v.is_finite() {
                return Err(Outcome::Violation(format!(
                    "ω = {:?} accepted, V(e{i}) = {v}",
                    h.omega()
                )));
            }
        }
        let s = h.initial_state();
        finite_state(&s, "HarmonicOscillator")
    })
}

/// A random link among 2 planar nodes (`N = 4`): node indices `0..=3` (2 and 3 out of range),
/// coincident ends, anchors with hostile coordinates, hostile lengths.
fn link(g: &mut Gen<'_>) -> Link<f64, 2> {
    let a = g.rng_range(0..4);
    let len = g.positive(1e-3, 1e3);
    if g.chance(0.5) {
        Link::between(a, g.rng_range(0..4), len)
    } else {
        Link::anchored(a, g.vector(-5.0, 5.0), len)
    }
}

fn distances(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let d: PlanarDistances<f64, 4, 2> = built(if g.chance(0.8) {
            Distances::new([link(&mut g), link(&mut g)])
        } else {
            Distances::chain(g.vector(-5.0, 5.0), g.positives(1e-3, 1e3))
        })?;
        if !d
            .lengths_squared()
            .iter()
            .all(|l| l.is_finite() && *l > 0.0)
        {
            return Err(Outcome::Violation(format!(
                "links accepted, L² = {:?}",
                d.lengths_squared()
            )));
        }
        // Coincident points, hostile coordinates: the constraint functions must not panic.
        let q = if g.chance(0.2) {
            SVector::zeros()
        } else {
            g.vector::<f64, 4>(-3.0, 3.0)
        };
        let _ = (d.value(&q), d.jacobian(&q), d.residual(&q));
        Ok(Outcome::Ok)
    })
}

fn pendulum(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let p = built(Pendulum::new(
            g.positive(1e-2, 1e2),
            g.uniform(0.0, 20.0),
            g.positive(1e-2, 1e2),
        ))?;
        let sys = built(p.penalised(g.positive(1e-1, 1e4)))?;
        let s = p.initial_state();
        let _ = sys.energy(&s);
        finite_state(&s, "Pendulum")
    })
}

fn double_pendulum(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let dp = built(DoublePendulum::new(
            [g.positive(1e-2, 1e2), g.positive(1e-2, 1e2)],
            g.uniform(0.0, 20.0),
            [g.positive(1e-2, 1e2), g.positive(1e-2, 1e2)],
        ))?;
        let sys = built(dp.penalised_per_constraint(g.positives(1e-1, 1e4)))?;
        let s = dp.initial_state();
        let _ = sys.energy(&s);
        let q = dp.from_angles(g.uniform(-4.0, 4.0), g.uniform(-4.0, 4.0));
        let _ = dp.angles(&q);
        finite_state(&s, "DoublePendulum")
    })
}

fn chain(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let c = built(Chain::<f64, 4, 2>::new(
            g.positives(1e-2, 1e2),
            g.uniform(0.0, 20.0),
        ))?;
        let sys = built(c.penalised(g.positive(1e-1, 1e4)))?;
        let s = c.initial_state();
        let _ = sys.energy(&s);
        finite_state(&s, "Chain")
    })
}

fn others(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| match g.rng_range(0..6) {
        0 => finite_state(
            &built(Fpu::<f64, 2>::new(g.positive(1.0, 1e4)))?.initial_state(),
            "Fpu",
        ),
        1 => {
            let d = built(Dna::<f64, 3>::new(
                g.positive(0.1, 10.0),
                g.uniform(-2.0, 2.0),
                g.uniform(0.0, 2.0),
            ))?;
            let s = d.initial_state(&SVector::from([0.1, -0.2, 0.3]));
            let _ = d.system().energy(&s);
            finite_state(&s, "Dna")
        }
        2 => {
            let t = built(SpringTrimer::new(
                g.positive(1e-8, 1.0),
                [g.positive(0.1, 10.0), g.positive(0.1, 10.0)],
            ))?;
            finite_state(&t.initial_state(), "SpringTrimer")
        }
        3 => {
            let k = built(Kapitza::new(
                g.uniform(0.0, 20.0),
                g.positive(0.1, 10.0),
                g.uniform(0.0, 1e4),
            ))?;
            let _ = k.generalised_force(g.uniform(-4.0, 4.0), g.time());
            finite_state(&k.initial_state(), "Kapitza")
        }
        4 => {
            let p = built(Propane::new(
                [
                    g.positive(1.0, 20.0),
                    g.positive(1.0, 20.0),
                    g.positive(1.0, 20.0),
                ],
                g.positive(0.5, 3.0),
                g.positive(1.0, 1e4),
                g.uniform(0.1, 3.1),
                g.positive(0.1, 10.0),
            ))?;
            let s = p.initial_state();
            let _ = p.system().energy(&s);
            finite_state(&s, "Propane")
        }
        _ => {
            let t = built(TwoSpring::new(
                g.positive(1.0, 1e3),
                g.uniform(0.0, 10.0),
                g.positive(0.1, 100.0),
            ))?;
            finite_state(&t.initial_state(), "TwoSpring")
        }
    })
}

fn parts(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| match g.rng_range(0..3) {
        0 => {
            let l = built(LinearPotential::<f64, 3>::new(g.vector(-10.0, 10.0)))?;
            let _ = l.gradient(&g.vector(-1.0, 1.0));
            Ok(Outcome::Ok)
        }
        1 => {
            let j = if g.chance(0.3) {
                None
            } else {
                Some(g.rng_range(0..5))
            };
            let b = built(QuarticBond::<f64, 3>::new(
                g.rng_range(0..5),
                j,
                g.uniform(-2.0, 2.0),
            ))?;
            let q = g.vector(-2.0, 2.0);
            let _ = (b.energy(&q), b.gradient(&q));
            Ok(Outcome::Ok)
        }
        _ => {
            built(MultiplierWindow::<f64, 2, 8>::new(
                g.positives(1e-2, 1e4),
                g.rng_range(0..10),
            ))?;
            Ok(Outcome::Ok)
        }
    })
}
