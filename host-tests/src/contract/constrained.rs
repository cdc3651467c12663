//! The exact-constraint methods: SHAKE, RATTLE, Reich's 4th-order composition (both stage
//! variants) and BDF2, on the rigid pendulum and double pendulum, with random or hostile Newton
//! controls (tolerances and iteration caps of 0, `manifold_tol < tol`, projection or
//! rejection of starts off the manifold, warm starts) and starts on, near or far off the
//! manifold.

use super::cases::{constrained, constrained_dissipative, dp_model, pendulum, step};
use super::gen::Special;
use super::{built, case, Entry, Gen, Outcome};
use macrostep::constrained::{
    Bdf2, ConstraintNewtonParams, OffManifold, Rattle, Reich4, Shake, Stage,
};
use macrostep::model::{Constraint, Hessian, System};
use macrostep::systems::PlanarDistances;
use macrostep::{ConfigError, State};
use rand_pcg::Pcg64;

/// The constrained entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "constrained::Shake/pendulum",
        run: |r| pend(r, Kind::Shake),
    },
    Entry {
        name: "constrained::Shake/dp",
        run: |r| double::<f64>(r, Kind::Shake),
    },
    Entry {
        name: "constrained::Rattle/pendulum",
        run: |r| pend(r, Kind::Rattle),
    },
    Entry {
        name: "constrained::Rattle/dp",
        run: |r| double::<f64>(r, Kind::Rattle),
    },
    Entry {
        name: "constrained::Rattle/dp/f32",
        run: |r| double::<f32>(r, Kind::Rattle),
    },
    Entry {
        name: "constrained::Reich4/pendulum",
        run: |r| pend(r, Kind::Reich),
    },
    Entry {
        name: "constrained::Reich4/dp",
        run: |r| double::<f64>(r, Kind::Reich),
    },
    Entry {
        name: "constrained::Bdf2/pendulum",
        run: |r| pend(r, Kind::Bdf2),
    },
    Entry {
        name: "constrained::Bdf2/dp",
        run: |r| double::<f64>(r, Kind::Bdf2),
    },
    Entry {
        name: "constrained::Bdf2/dp/f32",
        run: |r| double::<f32>(r, Kind::Bdf2),
    },
];

#[derive(Clone, Copy)]
enum Kind {
    Shake,
    Rattle,
    Reich,
    Bdf2,
}

fn newton<T: Special>(g: &mut Gen<'_>) -> ConstraintNewtonParams<T> {
    let d = ConstraintNewtonParams::<T>::default();
    let max_iter = if g.is_hostile() && g.chance(0.1) {
        0
    } else {
        g.rng_range(1..30) as u32
    };
    let tol: T = if g.chance(0.5) {
        d.tol
    } else {
        g.positive(1e-15, 1e-3)
    };
    ConstraintNewtonParams {
        tol,
        max_iter,
        manifold_tol: if g.chance(0.5) {
            d.manifold_tol
        } else {
            g.positive(1e-14, 1e-1)
        },
        off_manifold: if g.chance(0.5) {
            OffManifold::Reject
        } else {
            OffManifold::Project
        },
        warm_start: g.chance(0.3),
    }
}

/// Builds and runs one of the methods on `sys` under `c`.
fn go<T: Special, P: Hessian<T, N> + Copy, const N: usize, const D: usize>(
    g: &mut Gen<'_>,
    kind: Kind,
    sys: System<T, P, N>,
    c: PlanarDistances<T, N, D>,
    s: State<T, N>,
    h: T,
) -> Result<Outcome, Outcome>
where
    PlanarDistances<T, N, D>: Constraint<T, N, D>,
{
    let p = newton(g);
    Ok(match kind {
        Kind::Shake => constrained(
            g,
            &mut built::<Shake<T, P, PlanarDistances<T, N, D>, N, D>>(Shake::new(sys, c, h, p))?,
            &sys,
            &c,
            s,
        ),
        Kind::Rattle => constrained(
            g,
            &mut built::<Rattle<T, P, PlanarDistances<T, N, D>, N, D>>(Rattle::new(sys, c, h, p))?,
            &sys,
            &c,
            s,
        ),
        Kind::Reich => {
            let stage = if g.chance(0.5) {
                Stage::Reich
            } else {
                Stage::Rattle
            };
            let r: Result<Reich4<T, P, PlanarDistances<T, N, D>, N, D>, ConfigError> =
                Reich4::new(sys, c, h, stage, p);
            constrained(g, &mut built(r)?, &sys, &c, s)
        }
        Kind::Bdf2 => constrained_dissipative(
            g,
            &mut built::<Bdf2<T, P, PlanarDistances<T, N, D>, N, D>>(Bdf2::new(sys, c, h, p))?,
            &c,
            s,
        ),
    })
}

fn pend(rng: &mut Pcg64, kind: Kind) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (p, s) = pendulum::<f64>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.3);
        go(&mut g, kind, p.system(), p.constraint(), s, h)
    })
}

fn double<T: Special>(rng: &mut Pcg64, kind: Kind) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (m, s) = dp_model::<T>(&mut g)?;
        let h = step(&mut g, 1e-3, 0.1);
        go(&mut g, kind, m.system(), m.constraint(), s, h)
    })
}
