//! The conversion to variational integrators (003): the explicit Runge–Kutta layers, the
//! converted map of 003 §2 and the constrained conversion of 003 §3, with random or hostile
//! conversion parameters (bias outside `[−1, 0]`, tolerance `≤ 0`, iteration cap `0`, NaN),
//! Newton controls, steps and starts on, near or far off the constraint manifold.
//!
//! The layers and the converted maps commit through the guard watch with the system as the
//! probe (the constrained ones with the constraint's residual): the guarded clock, the energy
//! run guard and the residual guard are replayed ([`crate::contract`]).

use super::cases::{constrained, direct, dp, pendulum, step};
use super::{built, case, Entry, Gen, Outcome};
use macrostep::constrained::{ConstraintNewtonParams, OffManifold};
use macrostep::convert::{
    ConstrainedRk, ConvertParams, Converted, ConvertedConstrained, ExplicitRk, Heun, Rk4,
};
use rand_pcg::Pcg64;

/// The conversion entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "convert::ExplicitRk<Rk4>/dp",
        run: explicit,
    },
    Entry {
        name: "convert::Converted<ExplicitRk<Heun>>/dp",
        run: converted,
    },
    Entry {
        name: "convert::ConstrainedRk<Rk4>/pendulum",
        run: constrained_rk,
    },
    Entry {
        name: "convert::ConvertedConstrained<ConstrainedRk<Heun>>/pendulum",
        run: converted_constrained,
    },
];

/// The bias, tolerance and iteration cap: the defaults, random valid ones, or hostile.
fn params(g: &mut Gen<'_>) -> ConvertParams<f64> {
    let d = ConvertParams::<f64>::default();
    if g.chance(0.3) {
        return d;
    }
    let max_iter = if g.is_hostile() && g.chance(0.1) {
        0
    } else {
        g.rng_range(1..60) as u32
    };
    ConvertParams {
        alpha_minus: if g.chance(0.5) {
            0.0
        } else {
            g.uniform(-1.0, 0.0)
        },
        tol: g.positive(1e-15, 1e-6),
        max_iter,
    }
}

fn newton(g: &mut Gen<'_>) -> ConstraintNewtonParams<f64> {
    let d = ConstraintNewtonParams::<f64>::default();
    if g.chance(0.5) {
        return d;
    }
    ConstraintNewtonParams {
        tol: g.positive(1e-15, 1e-3),
        max_iter: g.rng_range(0..30) as u32,
        manifold_tol: g.positive(1e-14, 1e-1),
        off_manifold: if g.chance(0.5) {
            OffManifold::Reject
        } else {
            OffManifold::Project
        },
        warm_start: g.chance(0.3),
    }
}

fn explicit(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.1);
        let mut m = built(ExplicitRk::<f64, _, Rk4, 4>::new(sys, h))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn converted(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.1);
        let layer = built(ExplicitRk::<f64, _, Heun, 4>::new(sys, h))?;
        let mut m = built(Converted::new(layer, params(&mut g)))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn constrained_rk(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (p, s) = pendulum::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.3);
        let (sys, c) = (p.system(), p.constraint());
        let mut m = built(ConstrainedRk::<f64, _, _, Rk4, 2, 1>::new(sys, c, h))?;
        Ok(constrained(&mut g, &mut m, &sys, &c, s))
    })
}

fn converted_constrained(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (p, s) = pendulum::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.3);
        let (sys, c) = (p.system(), p.constraint());
        let layer = built(ConstrainedRk::<f64, _, _, Heun, 2, 1>::new(sys, c, h))?;
        let mut m = built(ConvertedConstrained::new(
            layer,
            params(&mut g),
            newton(&mut g),
        ))?;
        Ok(constrained(&mut g, &mut m, &sys, &c, s))
    })
}
