//! Small models with random valid or hostile parameters and starts, shared by the integrator
//! families, and the step runners that attach the right [`Expect`] to an integrator.

use super::gen::Special;
use super::{built, run, step_sizes, Expect, Gen, Outcome};
use macrostep::langevin::StochasticIntegrator;
use macrostep::model::{Constraint, Potential, Quadratic, Split, System};
use macrostep::nalgebra::SVector;
use macrostep::systems::{
    DoublePendulum, GravityPenalty, HarmonicOscillator, Pendulum, PlanarDistances, QuarticBond,
    TwoSpring,
};
use macrostep::{Integrator, State};

/// At most this many steps per case: enough for the energy run guard to see a run.
pub const MAX_STEPS: usize = 4;

/// A configured step size `h`, log-uniform in `[lo, hi)` or hostile.
pub fn step<T: Special>(g: &mut Gen<'_>, lo: f64, hi: f64) -> T {
    g.positive(lo, hi)
}

/// A 2-D harmonic oscillator `ωᵢ ∈ [0.1, 100)` and a start near its initial state.
pub type Osc<T> = (System<T, Quadratic<T, 2>, 2>, State<T, 2>);

/// See [`Osc`].
pub fn osc<T: Special>(g: &mut Gen<'_>) -> Result<Osc<T>, Outcome> {
    let o = built(HarmonicOscillator::<T, 2>::new(g.positives(0.1, 100.0)))?;
    let s = g.state(o.initial_state().q, 2.0);
    Ok((o.system(), s))
}

/// The penalised double pendulum with random masses, gravity, rod lengths and `ωᵢ`, started
/// at random angles (on or off the manifold) with random velocities.
pub type Dp<T> = (System<T, GravityPenalty<T, 4, 2>, 4>, State<T, 4>);

/// See [`Dp`].
pub fn dp<T: Special>(g: &mut Gen<'_>) -> Result<Dp<T>, Outcome> {
    let (model, s) = dp_model::<T>(g)?;
    let sys = built(model.penalised_per_constraint(g.positives(1.0, 100.0)))?;
    Ok((sys, s))
}

/// The rigid double pendulum (constraint, not penalty) and a start; see [`dp`].
pub fn dp_model<T: Special>(g: &mut Gen<'_>) -> Result<(DoublePendulum<T>, State<T, 4>), Outcome> {
    let model = built(DoublePendulum::new(
        [g.positive(0.1, 10.0), g.positive(0.1, 10.0)],
        g.uniform(0.0, 20.0),
        [g.positive(0.1, 10.0), g.positive(0.1, 10.0)],
    ))?;
    let q = model.from_angles(g.uniform(-3.2, 3.2), g.uniform(-3.2, 3.2));
    let s = g.state(q, 2.0);
    Ok((model, s))
}

/// The rigid pendulum with random parameters and a start at a random angle.
pub fn pendulum<T: Special>(g: &mut Gen<'_>) -> Result<(Pendulum<T>, State<T, 2>), Outcome> {
    let p = built(Pendulum::<T>::new(
        g.positive(0.1, 10.0),
        g.uniform(0.0, 20.0),
        g.positive(0.1, 10.0),
    ))?;
    let a: T = g.uniform(-3.2, 3.2);
    let q = SVector::from([p.length() * a.sin(), -p.length() * a.cos()]);
    Ok((p, g.state(q, 2.0)))
}

/// The stiff split of 004 §4.2.5: soft `¼(y − x)⁴`, stiff `½ω²x²` (random `ω`, `α`), identity
/// or random diagonal mass.
pub type TwoSplit<T> = System<T, Split<T, QuarticBond<T, 2>, Quadratic<T, 2>>, 2>;

/// See [`TwoSplit`]; the start is near the model's own.
pub fn two_spring<T: Special>(g: &mut Gen<'_>) -> Result<(TwoSplit<T>, State<T, 2>), Outcome> {
    let m = built(TwoSpring::new(g.positive(1.0, 300.0), T::zero(), T::one()))?;
    let mut sys = m.system();
    sys.potential.alpha = g.uniform(0.0, 2.0);
    if g.chance(0.5) {
        sys.mass = built(macrostep::model::Mass::diagonal(g.positives(0.1, 10.0)))?;
    }
    let s = g.state(m.initial_state().q, 1.0);
    Ok((sys, s))
}

/// Runs a few steps of `integ` (the configured `h`, or hostile `step_by` sizes) under `exp`.
pub fn steps<T: Special, const N: usize, I: Integrator<T, N>>(
    g: &mut Gen<'_>,
    integ: &mut I,
    s0: State<T, N>,
    exp: &Expect<'_, T, N>,
) -> Outcome {
    let h = integ.step_size();
    let hs = step_sizes(g, h, MAX_STEPS);
    run(s0, &hs, exp, |s, hk| {
        if hk.bits() == h.bits() {
            integ.step(s)
        } else {
            integ.step_by(s, hk)
        }
    })
}

/// [`steps`] for an integrator that steps `sys` directly and commits through the guard watch:
/// the guarded clock, the energy run guard on `sys`, the residual guard where the potential
/// has a constraint residual.
pub fn direct<T: Special, P: Potential<T, N>, const N: usize, I: Integrator<T, N>>(
    g: &mut Gen<'_>,
    integ: &mut I,
    sys: &System<T, P, N>,
    s0: State<T, N>,
) -> Outcome {
    let energy = |s: &State<T, N>| (sys.mass.kinetic(&s.v), sys.potential.energy(&s.q));
    let residual = |q: &SVector<T, N>| sys.potential.constraint_residual(q).unwrap_or_else(T::zero);
    let has_residual = sys.potential.constraint_residual(&s0.q).is_some();
    let exp = Expect {
        energy: Some(&energy),
        residual: if has_residual { Some(&residual) } else { None },
        exchanged: None,
        clock: true,
    };
    steps(g, integ, s0, &exp)
}

/// [`steps`] for an exact-constraint method (SHAKE, RATTLE, Reich): the energy of `sys`, the
/// residual of `constraint`, the guarded clock.
pub fn constrained<T, P, const N: usize, const D: usize, I>(
    g: &mut Gen<'_>,
    integ: &mut I,
    sys: &System<T, P, N>,
    constraint: &PlanarDistances<T, N, D>,
    s0: State<T, N>,
) -> Outcome
where
    T: Special,
    P: Potential<T, N>,
    I: Integrator<T, N>,
{
    let energy = |s: &State<T, N>| (sys.mass.kinetic(&s.v), sys.potential.energy(&s.q));
    let residual = |q: &SVector<T, N>| constraint.residual(q);
    let exp = Expect {
        energy: Some(&energy),
        residual: Some(&residual),
        exchanged: None,
        clock: true,
    };
    steps(g, integ, s0, &exp)
}

/// [`constrained`] for a dissipative method, whose energy run guard is off by default
/// ([`macrostep::constrained::Bdf2`]): finiteness, the clock and the residual guard.
pub fn constrained_dissipative<T, const N: usize, const D: usize, I>(
    g: &mut Gen<'_>,
    integ: &mut I,
    constraint: &PlanarDistances<T, N, D>,
    s0: State<T, N>,
) -> Outcome
where
    T: Special,
    I: Integrator<T, N>,
{
    let residual = |q: &SVector<T, N>| constraint.residual(q);
    let exp = Expect {
        residual: Some(&residual),
        clock: true,
        ..Expect::bare()
    };
    steps(g, integ, s0, &exp)
}

/// [`steps`] checking finiteness and the guarded clock only (stochastic or non-conservative
/// methods, whose watch has no energy or residual to measure).
pub fn clock_only<T: Special, const N: usize, I: Integrator<T, N>>(
    g: &mut Gen<'_>,
    integ: &mut I,
    s0: State<T, N>,
) -> Outcome {
    let exp = Expect {
        clock: true,
        ..Expect::bare()
    };
    steps(g, integ, s0, &exp)
}

/// Runs a few `step` calls of a stochastic integrator (its configured step), noise from
/// an RNG forked off the case: finiteness and the guarded clock.
pub fn stochastic<const N: usize, I: StochasticIntegrator<f64, N>>(
    g: &mut Gen<'_>,
    m: &mut I,
    s: State<f64, N>,
) -> Outcome {
    let mut noise = g.fork();
    let n = g.rng_range(1..MAX_STEPS + 1);
    let hs = vec![m.step_size(); n];
    let exp = Expect {
        clock: true,
        ..Expect::bare()
    };
    run(s, &hs, &exp, |s, _| m.step_noisy(s, &mut noise))
}
