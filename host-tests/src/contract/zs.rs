//! The Zhang–Skeel family: Z&S, Z&Ss (SyLiPN), stiff Z&Ss, Newmark (full Newton, one iteration,
//! push-forward), their symmetric compositions, and the recovery wrapper around Z&S.
//!
//! Models: the harmonic oscillator and the penalised double pendulum (residual guard) with
//! random or hostile parameters, `β` (including `β < ¼` and hostile values), Newton controls
//! (tolerance and iteration cap `0` included) and steps.

use super::cases::{direct, dp, osc, step, steps, two_spring, Dp, Osc};
use super::gen::Special;
use super::{built, case, Entry, Expect, Gen, Outcome};
use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::model::{Hessian, System, ThirdDerivative};
use macrostep::recover::Recovering;
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkOneIteration, NewmarkParams, PushForwardNewmark,
    StiffSylipn, Sylipn, ZhangSkeel, ZsParams,
};
use macrostep::{ConfigError, Integrator};
use rand_pcg::Pcg64;

/// The Z&S-family entry points.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "zs::ZhangSkeel/osc",
        run: |r| one(r, osc::<f64>, zhang_skeel),
    },
    Entry {
        name: "zs::ZhangSkeel/dp",
        run: |r| one(r, dp::<f64>, zhang_skeel),
    },
    Entry {
        name: "zs::ZhangSkeel/dp/f32",
        run: |r| one(r, dp::<f32>, zhang_skeel),
    },
    Entry {
        name: "zs::Sylipn/osc",
        run: |r| one(r, osc::<f64>, sylipn),
    },
    Entry {
        name: "zs::Sylipn/dp",
        run: |r| one(r, dp::<f64>, sylipn),
    },
    Entry {
        name: "zs::Sylipn/dp/f32",
        run: |r| one(r, dp::<f32>, sylipn),
    },
    Entry {
        name: "zs::StiffSylipn/two_spring",
        run: stiff_sylipn,
    },
    Entry {
        name: "zs::Newmark/dp",
        run: |r| one(r, dp::<f64>, newmark),
    },
    Entry {
        name: "zs::NewmarkOneIteration/dp",
        run: |r| one(r, dp::<f64>, newmark_one),
    },
    Entry {
        name: "zs::PushForwardNewmark/dp",
        run: |r| one(r, dp::<f64>, push_forward),
    },
    Entry {
        name: "compose::SymmetricComposition<ZhangSkeel>/osc",
        run: composed_osc,
    },
    Entry {
        name: "compose::SymmetricComposition<Sylipn>/dp",
        run: composed_dp,
    },
    Entry {
        name: "recover::Recovering<ZhangSkeel>/dp",
        run: recovering,
    },
];

fn params<T: Special>(g: &mut Gen<'_>) -> ZsParams<T> {
    ZsParams::with_beta(g.uniform(0.0, 1.0))
}

fn newton<T: Special>(g: &mut Gen<'_>) -> ImplicitNewtonParams<T> {
    let max_iter = if g.is_hostile() && g.chance(0.1) {
        0
    } else {
        g.rng_range(1..30) as u32
    };
    ImplicitNewtonParams {
        tol: g.positive(1e-14, 1e-4),
        max_iter,
    }
}

/// `β` as [`params`], then the Newton controls as [`newton`] (in this order).
fn newmark_params<T: Special>(g: &mut Gen<'_>) -> NewmarkParams<T> {
    NewmarkParams {
        beta: params(g).beta,
        newton: newton(g),
    }
}

/// Builds an integrator of one kind for a system `sys` (an `fn` so entries stay one line).
type Build<T, P, const N: usize, I> = fn(&mut Gen<'_>, System<T, P, N>) -> Result<I, ConfigError>;

/// Draws a system and a start.
type Model<T, P, const N: usize> =
    fn(&mut Gen<'_>) -> Result<(System<T, P, N>, macrostep::State<T, N>), Outcome>;

/// One case: a model from `model`, an integrator from `build`, a few direct steps.
fn one<T: Special, P, const N: usize, I: Integrator<T, N>>(
    rng: &mut Pcg64,
    model: Model<T, P, N>,
    build: Build<T, P, N, I>,
) -> Outcome
where
    P: macrostep::model::Potential<T, N> + Clone,
{
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = model(&mut g)?;
        let mut m = built(build(&mut g, sys.clone()))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn zhang_skeel<T: Special, P: ThirdDerivative<T, N>, const N: usize>(
    g: &mut Gen<'_>,
    sys: System<T, P, N>,
) -> Result<ZhangSkeel<T, P, N>, ConfigError> {
    ZhangSkeel::new(sys, step(g, 1e-3, 0.5), params(g))
}

fn sylipn<T: Special, P: Hessian<T, N>, const N: usize>(
    g: &mut Gen<'_>,
    sys: System<T, P, N>,
) -> Result<Sylipn<T, P, N>, ConfigError> {
    Sylipn::new(sys, step(g, 1e-3, 0.5), params(g))
}

fn newmark<T: Special, P: Hessian<T, N>, const N: usize>(
    g: &mut Gen<'_>,
    sys: System<T, P, N>,
) -> Result<Newmark<T, P, N>, ConfigError> {
    Newmark::new(sys, step(g, 1e-3, 0.5), newmark_params(g))
}

fn newmark_one<T: Special, P: Hessian<T, N>, const N: usize>(
    g: &mut Gen<'_>,
    sys: System<T, P, N>,
) -> Result<NewmarkOneIteration<T, P, N>, ConfigError> {
    NewmarkOneIteration::new(sys, step(g, 1e-3, 0.5), params(g))
}

fn push_forward<T: Special, P: Hessian<T, N>, const N: usize>(
    g: &mut Gen<'_>,
    sys: System<T, P, N>,
) -> Result<PushForwardNewmark<T, P, N>, ConfigError> {
    PushForwardNewmark::new(sys, step(g, 1e-3, 0.5), newmark_params(g))
}

fn stiff_sylipn(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s) = two_spring::<f64>(&mut g)?;
        let mut m = built(StiffSylipn::new(
            sys,
            step(&mut g, 1e-3, 1.0),
            params(&mut g),
        ))?;
        Ok(direct(&mut g, &mut m, &sys, s))
    })
}

fn scheme(g: &mut Gen<'_>) -> Scheme {
    if g.chance(0.5) {
        Scheme::TripleJump
    } else {
        Scheme::Suzuki5
    }
}

/// A composite: the residual guard is checked (stateless), the energy run guard is not
/// replayed (module docs of `contract`).
fn composite<T: Special, P, const N: usize, I: Integrator<T, N>>(
    g: &mut Gen<'_>,
    m: &mut I,
    sys: &System<T, P, N>,
    s: macrostep::State<T, N>,
) -> Outcome
where
    P: macrostep::model::Potential<T, N>,
{
    let residual = |q: &macrostep::nalgebra::SVector<T, N>| {
        sys.potential.constraint_residual(q).unwrap_or_else(T::zero)
    };
    let has = sys.potential.constraint_residual(&s.q).is_some();
    let exp = Expect {
        residual: if has { Some(&residual) } else { None },
        exchanged: None,
        ..Expect::bare()
    };
    steps(g, m, s, &exp)
}

fn composed_osc(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s): Osc<f64> = osc(&mut g)?;
        let inner = built(zhang_skeel(&mut g, sys))?;
        let mut m = built(SymmetricComposition::new(inner, scheme(&mut g)))?;
        Ok(composite(&mut g, &mut m, &sys, s))
    })
}

fn composed_dp(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s): Dp<f64> = dp(&mut g)?;
        let inner = built(sylipn(&mut g, sys))?;
        let mut m = built(SymmetricComposition::new(inner, scheme(&mut g)))?;
        Ok(composite(&mut g, &mut m, &sys, s))
    })
}

fn recovering(rng: &mut Pcg64) -> Outcome {
    let mut g = Gen::new(rng);
    case(|| {
        let (sys, s): Dp<f64> = dp(&mut g)?;
        let inner = built(zhang_skeel(&mut g, sys))?;
        // Depth up to 18 (above the cap of 16 is refused); deep retries are costly, so mostly
        // small depths.
        let depth = if g.chance(0.05) {
            g.rng_range(0..19)
        } else {
            g.rng_range(0..4)
        };
        let mut m = built(Recovering::new(inner, depth as u32))?;
        Ok(composite(&mut g, &mut m, &sys, s))
    })
}
