//! FLAVOR: nonintrusive and symmetric FLAVOR over switched legacy integrators, the fused Euler
//! map, artificial FLAVOR, the Langevin FLAVORs (soft and stiff friction, plain and
//! symmetric) and Metropolis-adjusted FLAVOR, on the stiff two-spring split.
//!
//! `δ` and `τ` are random or hostile (`τ ≥ δ`, zero, negative, NaN, `M = 0` samples). A FLAVOR
//! step composes legacy sub-steps on a working state that checks nothing; the FLAVOR commits
//! the result through the step driver with its own guards, which bound no energy and no
//! residual. From outside, finiteness and the guarded clock are checked.

use super::cases::{clock_only, stochastic, two_spring, TwoSplit};
use super::{built, case, Entry, Gen, Outcome};
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::flavor::{
    Artificial, FusedEuler, LangevinSoft, LangevinStiff, Metropolis, Nonintrusive, Params,
    Switched, Symmetric,
};
use macrostep::model::{Quadratic, Split};
use macrostep::systems::QuarticBond;
use macrostep::State;
use rand_pcg::Pcg64;

/// The split potential of the two-spring model.
type Soft = Split<f64, QuarticBond<f64, 2>, Quadratic<f64, 2>>;

/// The FLAVOR entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "flavor::Nonintrusive<Switched<Verlet>>",
        run: nonintrusive,
    },
    Entry {
        name: "flavor::Nonintrusive<FusedEuler>",
        run: fused,
    },
    Entry {
        name: "flavor::Symmetric<Switched<SymplecticEuler>>",
        run: symmetric,
    },
    Entry {
        name: "flavor::Artificial",
        run: artificial,
    },
    Entry {
        name: "flavor::LangevinSoft",
        run: |r| langevin(r, false),
    },
    Entry {
        name: "flavor::LangevinStiff",
        run: |r| langevin(r, true),
    },
    Entry {
        name: "flavor::Metropolis",
        run: metropolis,
    },
];

/// Random or hostile `(δ, τ)`, through either constructor.
fn params(g: &mut Gen<'_>) -> Result<Params<f64>, Outcome> {
    let delta: f64 = g.positive(1e-3, 0.1);
    let tau = delta * g.uniform::<f64>(0.0, 1.2);
    built(if g.chance(0.8) {
        Params::new(delta, tau)
    } else {
        let m = if g.is_hostile() && g.chance(0.2) {
            0
        } else {
            g.rng_range(1..100) as u32
        };
        Params::from_macro_step(delta * f64::from(m.max(1)), m, tau)
    })
}

/// The two-spring split as a switched legacy map, with its system and a start.
type Legacy<I> = (Switched<f64, I, 2>, TwoSplit<f64>, State<f64, 2>);

fn verlet(g: &mut Gen<'_>) -> Result<Legacy<VelocityVerlet<f64, Soft, 2>>, Outcome> {
    let (sys, s) = two_spring::<f64>(g)?;
    let vv = built(VelocityVerlet::new(sys, 0.01))?;
    Ok((built(Switched::verlet(vv))?, sys, s))
}

fn euler(g: &mut Gen<'_>) -> Result<Legacy<SymplecticEuler<f64, Soft, 2>>, Outcome> {
    let (sys, s) = two_spring::<f64>(g)?;
    let o = if g.chance(0.5) {
        EulerOrdering::KickDrift
    } else {
        EulerOrdering::DriftKick
    };
    let se = built(SymplecticEuler::new(sys, 0.01, o))?;
    Ok((built(Switched::symplectic_euler(se))?, sys, s))
}

fn nonintrusive(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (legacy, _, s) = verlet(&mut g)?;
        let mut m = built(Nonintrusive::new(legacy, params(&mut g)?))?;
        Ok(clock_only(&mut g, &mut m, s))
    })
}

fn fused(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = two_spring::<f64>(&mut g)?;
        let map = built(FusedEuler::new(sys))?;
        let mut m = built(Nonintrusive::new(map, params(&mut g)?))?;
        Ok(clock_only(&mut g, &mut m, s))
    })
}

fn symmetric(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (legacy, _, s) = euler(&mut g)?;
        let mut m = built(Symmetric::new(legacy, params(&mut g)?))?;
        Ok(clock_only(&mut g, &mut m, s))
    })
}

fn artificial(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = two_spring::<f64>(&mut g)?;
        // The stiff coordinate x (row (1, 0)), or a random (possibly zero or hostile) row.
        let coords = if g.chance(0.7) {
            macrostep::nalgebra::Matrix1x2::new(1.0, 0.0)
        } else {
            g.matrix(-1.0, 1.0)
        };
        let mut m = built(Artificial::new(sys, coords, params(&mut g)?))?;
        Ok(clock_only(&mut g, &mut m, s))
    })
}

fn langevin(rng: &mut Pcg64, stiff: bool) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (legacy, sys, s) = euler(&mut g)?;
        let p = params(&mut g)?;
        let (c, sigma) = (g.vector(0.0, 2.0), g.vector(0.0, 2.0));
        let sym = g.chance(0.5);
        Ok(if stiff {
            let alpha = g.uniform(0.0, 1e3);
            let mut m = built(if sym {
                LangevinStiff::symmetric(legacy, p, &sys.mass, c, sigma, alpha)
            } else {
                LangevinStiff::new(legacy, p, &sys.mass, c, sigma, alpha)
            })?;
            stochastic(&mut g, &mut m, s)
        } else {
            let mut m = built(if sym {
                LangevinSoft::symmetric(legacy, p, &sys.mass, c, sigma)
            } else {
                LangevinSoft::new(legacy, p, &sys.mass, c, sigma)
            })?;
            stochastic(&mut g, &mut m, s)
        })
    })
}

fn metropolis(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (legacy, sys, s) = euler(&mut g)?;
        let flavor = built(Symmetric::new(legacy, params(&mut g)?))?;
        let mut m = built(Metropolis::new(
            flavor,
            sys,
            g.vector(0.0, 2.0),
            g.positive(1e-2, 1e2),
        ))?;
        Ok(stochastic(&mut g, &mut m, s))
    })
}
