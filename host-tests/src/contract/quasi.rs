//! The entry points of the crate's method table that the other families do not cover:
//! [`Quasi1`] and [`Quasi2`] (004 Integrators 4.3.1/4.3.2) on the ring potential of 004 eq 4.84
//! with a hostile `ε⁻¹`, step, exponential (diagonal or `n` squarings, `n` hostile) and start,
//! and [`AnnealTuneGla`] (004 eq 6.6) on the oscillator with hostile friction rules and cooling
//! schedules.
//!
//! Checked: the common contract (`Err` leaves the state bit-identical, `Ok` is finite and
//! advances `t` by `h` to within `h/2`); these methods have no energy or residual probe.

use super::cases::{clock_only, osc, step, stochastic};
use super::{built, case, Entry, Gen, Outcome};
use crate::fixtures::quasi_quadratic::{Ring, K84};
use macrostep::langevin::{AnnealTuneGla, AnnealTuneParams, Cooling, FrictionRule, Schedule};
use macrostep::nalgebra::SVector;
use macrostep::sim::{Quasi1, Quasi2, QuasiExp, QuasiParams, QuasiSystem};
use rand_pcg::Pcg64;

/// The quasi-quadratic and annealing entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "sim::Quasi1/ring",
        run: |r| quasi(r, false),
    },
    Entry {
        name: "sim::Quasi2/ring",
        run: |r| quasi(r, true),
    },
    Entry {
        name: "langevin::AnnealTuneGla/osc",
        run: anneal,
    },
];

fn quasi(rng: &mut Pcg64, second: bool) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let w: f64 = g.positive(1.0, 300.0);
        let sys = QuasiSystem::new(Ring, K84, w * w);
        let h = step(&mut g, 1e-3, 0.2);
        let exp = if g.chance(0.5) {
            QuasiExp::Diagonal
        } else {
            let squarings = if g.is_hostile() && g.chance(0.2) {
                [0, 41, u32::MAX][g.rng_range(0..3)]
            } else {
                g.rng_range(1..16) as u32
            };
            QuasiExp::Symplectic { squarings }
        };
        let params = QuasiParams { exp };
        let s = g.state(SVector::from([1.1, 0.7 / w]), 1.0);
        Ok(if second {
            let mut m = built(Quasi2::<f64, Ring, K84, 2, 1, 1>::new(sys, h, params))?;
            clock_only(&mut g, &mut m, s)
        } else {
            let mut m = built(Quasi1::<f64, Ring, K84, 2, 1, 1>::new(sys, h, params))?;
            clock_only(&mut g, &mut m, s)
        })
    })
}

/// A cooling family with random or hostile constants.
fn cooling(g: &mut Gen<'_>) -> Cooling<f64> {
    match g.rng_range(0..7) {
        0 => Cooling::Constant,
        1 => Cooling::InverseLog,
        2 => Cooling::ShiftedInverseLog {
            c: g.positive(0.1, 10.0),
        },
        3 => Cooling::Exponential {
            ratio: g.uniform(1.0001, 1.1),
        },
        4 => Cooling::ShiftedExponential {
            initial: g.positive(1.0, 100.0),
        },
        5 => Cooling::Linear {
            initial: g.positive(1.0, 100.0),
        },
        _ => Cooling::InverseLinear {
            initial: g.positive(1.0, 100.0),
        },
    }
}

fn anneal(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = osc::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.5);
        let friction = if g.chance(0.5) {
            FrictionRule::Fixed(g.uniform(0.0, 10.0))
        } else {
            FrictionRule::Tuned {
                alpha: g.uniform(0.0, 2.0),
                hessian_fraction: g.positive(0.1, 1.0),
            }
        };
        let steps = if g.is_hostile() && g.chance(0.1) {
            [0, usize::MAX][g.rng_range(0..2)]
        } else {
            g.rng_range(1..50)
        };
        let schedule = built(Schedule::new(cooling(&mut g), g.positive(1e-3, 1.0), steps))?;
        let params = AnnealTuneParams { friction, schedule };
        let mut m = built(AnnealTuneGla::new(sys, h, params))?;
        Ok(stochastic(&mut g, &mut m, s))
    })
}
