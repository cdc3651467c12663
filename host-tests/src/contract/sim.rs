//! Stochastic impulse methods (SIM1/2/4 as deterministic integrators and, with noise, as
//! stochastic ones), the fast-flow and Ornstein–Uhlenbeck constructors, and GLA.
//!
//! The stiff matrix, friction (scalar or matrix), noise (scalar, matrix, thermal) and mass are
//! random or hostile. These methods commit through the guarded clock without an energy or a
//! residual probe (the watch has nothing to measure on a non-conservative or stochastic
//! flow), so the checks are: `Err` leaves the state bit-identical, `Ok` is finite and advances
//! `t` by `h` to within `h/2`.

use super::cases::{clock_only, osc, step, stochastic, two_spring};
use super::{built, case, Entry, Gen, Outcome};
use macrostep::langevin::{DiagonalOu, Gla, GlaParams, Ou};
use macrostep::model::Mass;
use macrostep::nalgebra::Matrix2;
use macrostep::sim::{
    FastFlow, FastParams, Friction, Noise, Sim1, Sim1Order, Sim2, Sim4, SimSystem, StiffLinear,
};
use rand_pcg::Pcg64;

/// The SIM and Langevin entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "sim::Sim1",
        run: |r| sim(r, 1),
    },
    Entry {
        name: "sim::Sim2",
        run: |r| sim(r, 2),
    },
    Entry {
        name: "sim::Sim4",
        run: |r| sim(r, 4),
    },
    Entry {
        name: "sim::Sim1/noisy (StochasticIntegrator)",
        run: |r| noisy(r, 1),
    },
    Entry {
        name: "sim::Sim2/noisy (StochasticIntegrator)",
        run: |r| noisy(r, 2),
    },
    Entry {
        name: "sim::{StiffLinear,FastFlow}::new",
        run: fast,
    },
    Entry {
        name: "langevin::{Ou,DiagonalOu}::new",
        run: ou,
    },
    Entry {
        name: "langevin::Gla/osc",
        run: gla,
    },
];

/// A random fast part: SPD `K = A Aᵀ·k` (or raw `A`), friction and noise of every form.
fn fast_params(g: &mut Gen<'_>, noise: bool) -> (Matrix2<f64>, FastParams<f64, 2>) {
    let a = g.matrix::<f64, 2, 2>(-1.0, 1.0);
    let k = if g.chance(0.9) {
        a * a.transpose() * g.positive::<f64>(1.0, 1e4)
    } else {
        a
    };
    let friction = if g.chance(0.8) {
        Friction::Scalar(if g.chance(0.5) {
            0.0
        } else {
            g.uniform(0.0, 2.0)
        })
    } else {
        Friction::Matrix(Matrix2::identity() * g.uniform::<f64>(0.0, 2.0))
    };
    let noise = if !noise {
        Noise::Scalar(0.0)
    } else {
        match g.rng_range(0..3) {
            0 => Noise::Scalar(g.positive(1e-2, 2.0)),
            1 => Noise::Matrix(g.matrix(-1.0, 1.0)),
            _ => Noise::Thermal {
                inverse_temperature: g.positive(1e-2, 100.0),
            },
        }
    };
    (k, FastParams { friction, noise })
}

fn mass(g: &mut Gen<'_>) -> Result<Mass<f64, 2>, Outcome> {
    if g.chance(0.5) {
        Ok(Mass::identity())
    } else {
        built(Mass::diagonal(g.positives(0.1, 10.0)))
    }
}

fn sim(rng: &mut Pcg64, order: u32) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = two_spring::<f64>(&mut g)?;
        let noisy = g.is_hostile() && g.chance(0.1);
        let (k, fast) = fast_params(&mut g, noisy);
        let (m, h) = (mass(&mut g)?, step(&mut g, 1e-3, 0.5));
        let system = SimSystem::new(m, k, sys.potential.soft);
        Ok(match order {
            1 => {
                let o = if g.chance(0.5) {
                    Sim1Order::FlowThenKick
                } else {
                    Sim1Order::KickThenFlow
                };
                let mut i = built(Sim1::new(system, h, fast))?
                    .with_order(o)
                    .mollified(g.chance(0.3));
                clock_only(&mut g, &mut i, s)
            }
            2 => clock_only(&mut g, &mut built(Sim2::new(system, h, fast))?, s),
            _ => clock_only(&mut g, &mut built(Sim4::new(system, h, fast))?, s),
        })
    })
}

fn noisy(rng: &mut Pcg64, order: u32) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = two_spring::<f64>(&mut g)?;
        let (k, fast) = fast_params(&mut g, true);
        let (m, h) = (mass(&mut g)?, step(&mut g, 1e-3, 0.5));
        let system = SimSystem::new(m, k, sys.potential.soft);
        Ok(if order == 1 {
            stochastic(&mut g, &mut built(Sim1::new(system, h, fast))?, s)
        } else {
            stochastic(&mut g, &mut built(Sim2::new(system, h, fast))?, s)
        })
    })
}

fn fast(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let noisy = g.chance(0.5);
        let (k, p) = fast_params(&mut g, noisy);
        let lin = built(StiffLinear::new(mass(&mut g)?, k, p))?;
        let h = if g.chance(0.5) {
            g.uniform(-1.0, 1.0)
        } else {
            g.hostile()
        };
        built(FastFlow::new(&lin, h))?;
        Ok(Outcome::Ok)
    })
}

fn ou(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let h: f64 = step(&mut g, 1e-4, 1.0);
        match g.rng_range(0..3) {
            0 => drop(built(Ou::new(
                g.uniform(0.0, 10.0),
                g.uniform(0.0, 10.0),
                h,
            ))?),
            1 => drop(built(Ou::thermal(
                g.uniform(0.0, 10.0),
                g.positive(1e-2, 1e2),
                g.positive(1e-2, 1e2),
                h,
            ))?),
            _ => drop(built(DiagonalOu::<f64, 2>::new(
                g.vector(0.0, 10.0),
                g.vector(0.0, 10.0),
                h,
            ))?),
        }
        Ok(Outcome::Ok)
    })
}

fn gla(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = osc::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.5);
        let mut m = built(if g.chance(0.5) {
            let params = GlaParams {
                friction: g.uniform(0.0, 10.0),
                inverse_temperature: g.positive(1e-2, 1e2),
            };
            Gla::new(sys, h, params)
        } else {
            GlaParams::from_noise(g.positive(1e-2, 10.0), g.positive(1e-2, 10.0))
                .and_then(|params| Gla::new(sys, h, params))
        })?;
        Ok(stochastic(&mut g, &mut m, s))
    })
}
