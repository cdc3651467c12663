//! The explicit baselines: velocity Verlet and symplectic Euler (both orderings), on a harmonic
//! oscillator and on the penalised double pendulum (residual guard), in `f64` and `f32`.

use super::cases::{direct, dp, osc, step};
use super::gen::Special;
use super::{built, case, Entry, Gen, Outcome};
use macrostep::baselines::{EulerOrdering, HarmonicFlow, SymplecticEuler, VelocityVerlet};
use rand_pcg::Pcg64;

/// The baseline entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "baselines::VelocityVerlet/osc",
        run: verlet_osc,
    },
    Entry {
        name: "baselines::VelocityVerlet/dp",
        run: verlet_dp::<f64>,
    },
    Entry {
        name: "baselines::VelocityVerlet/dp/f32",
        run: verlet_dp::<f32>,
    },
    Entry {
        name: "baselines::SymplecticEuler/osc",
        run: euler_osc,
    },
    Entry {
        name: "baselines::SymplecticEuler/dp",
        run: euler_dp,
    },
    Entry {
        name: "baselines::HarmonicFlow::new",
        run: flow,
    },
];

fn ordering(g: &mut Gen<'_>) -> EulerOrdering {
    if g.chance(0.5) {
        EulerOrdering::KickDrift
    } else {
        EulerOrdering::DriftKick
    }
}

fn verlet_osc(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = osc::<f64>(&mut g)?;
        let mut m = built(VelocityVerlet::new(sys, step(&mut g, 1e-3, 1.0)))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn verlet_dp<T: Special>(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<T>(&mut g)?;
        let mut m = built(VelocityVerlet::new(sys, step(&mut g, 1e-4, 0.1)))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn euler_osc(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = osc::<f64>(&mut g)?;
        let o = ordering(&mut g);
        let mut m = built(SymplecticEuler::new(sys, step(&mut g, 1e-3, 1.0), o))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn euler_dp(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = dp::<f64>(&mut g)?;
        let o = ordering(&mut g);
        let mut m = built(SymplecticEuler::new(sys, step(&mut g, 1e-4, 0.1), o))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn flow(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        built(HarmonicFlow::<f64, 3>::new(g.positives(1e-3, 1e3)))?;
        Ok(Outcome::Ok)
    })
}
