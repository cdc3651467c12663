//! The run guard's bound beyond its common case, the start of a run's scale, and the
//! constants of the [guard docs](super).

use crate::Real;

/// The run guard beyond its common case: whether the drift `|e1 − e_ref|` of the `n`-th step
/// of a run passes the bound of the [guard docs](super): `max(r·S, min(S − K₀/2, c·S/n))` (`bound = r·S`), or, for a quiet run (`K_max ≤ QUIET·S`), a
/// deficit up to `S − K₀/2`; while `stretched`, `STRETCHED_SHARE·r·S_u` without either
/// allowance (`bound = r·S_u`, `S_u` the scale before the mechanism stretched). Every bound is
/// widened by the round-off of the energies compared, `ROUNDING·ε·(|E| + |E_ref|)`. Energies
/// whose round-off (`level`) exceeds the run's scale cannot be told apart: the guard is blind
/// there, and the step is refused. The arguments are scalars, passed in registers.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn run_bound_holds<T: Real>(
    (e1, e_ref): (T, T),
    drift: T,
    bound: T,
    scale: T,
    level: T,
    (k_start, k_max): (T, T),
    n: u32,
    stretched: bool,
) -> bool {
    if level > scale {
        return false;
    }
    let bound = if stretched {
        bound * T::lit(STRETCHED_SHARE)
    } else {
        bound
    };
    let magnitude = e1.abs() + e_ref.abs();
    let drift = drift - T::lit(ROUNDING) * T::default_epsilon() * magnitude;
    if drift <= bound {
        return true;
    }
    if stretched || drift > scale - T::lit(0.5) * k_start {
        return false;
    }
    drift * T::lit(f64::from(n)) <= T::lit(STARTUP) * scale
        || (e1 < e_ref && k_max <= T::lit(QUIET) * scale)
}

/// The round-off of a run's energies around `e_ref`: `2·ROUNDING·ε·|E_ref|`.
#[inline]
pub(super) fn round_off<T: Real>(e_ref: T) -> T {
    T::lit(2.0 * ROUNDING) * T::default_epsilon() * e_ref.abs()
}

/// The energy scale of a run at its start, from `K₀`, `V₀` and the floor (zero when off): `K₀`,
/// the floor, and the round-off floor `ROUNDOFF · ε · (K₀ + |V₀|)` (the resolution at which
/// energy differences of this run can be told apart at all).
#[inline]
pub(super) fn start_scale<T: Real>(k0: T, v0: T, floor: T) -> T {
    let mut scale = k0;
    let roundoff = T::lit(ROUNDOFF) * T::default_epsilon() * (k0 + v0.abs());
    if roundoff > scale {
        scale = roundoff;
    }
    if floor > scale {
        scale = floor;
    }
    scale
}

/// The start-up allowance `c`: the `n`-th step of a run may drift by `c/n` of the run's scale
/// (and by no more than `S − K₀/2`, see the [guard docs](super)); a first-order method from rest, whose
/// drift after `n` steps reaches `S/n`, passes with a margin of two from the third step.
pub(super) const STARTUP: f64 = 2.0;

/// A run whose kinetic energy never exceeded `QUIET` of its scale is quiet: its motion is the
/// ringing of a stiff mode around a rest state (a plant held at rest), and a deficit of its
/// energy up to the potential range is what a method stepping over that mode (`hω ≫ 1`, which
/// keeps its amplitude and slows it) shows between turning points (`docs/guards.md`: the arm
/// held at rest, `K_max = 0.17·S`, a deficit of up to `0.83·S`).
pub(super) const QUIET: f64 = 0.25;

/// The first step of a run at which the stretched tier applies: a start whose velocity is not
/// tangent to its constraint stretches it over its first steps (`docs/guards.md`: SyLiPN at
/// `h = 0.01` from such a start, its rods at 3.5 % at the second step of the run), as a start off
/// its constraint releases what it stores.
pub(super) const TIER_FROM: u32 = 3;

/// The growth per step of the stretched tier's scale while the mechanism stays stretched: a
/// divergence grows its kinetic energy, and with it the scale, by tens of percent per step
/// (the held-force divergences of `docs/guards.md` by 20–50 %), a clean run leaving its
/// constraint by a few percent (the first-order linearised Z&S on SO(3)) by about 8 % per step
/// while it releases its start. (Any growth from 5 % to 20 % refuses every held-force
/// divergence of `docs/guards.md` and passes the SO(3) run; 30 % lets one through.)
pub(super) const TIER_GROWTH: f64 = 1.1;

/// The run guard's bound is `STRETCHED_SHARE · r` while the constraint residual is above
/// `STRETCHED_AT` of the residual guard's bound (a rod stretched by 3.1 % of its squared length
/// under the default bound `0.1`): a diverging penalised mechanism stretches its rods while its
/// energy grows, a clean run's slow drift does not (`docs/guards.md`).
pub(super) const STRETCHED_AT: f64 = 0.31;

/// The share of the run bound that applies while the mechanism is stretched (see
/// [`STRETCHED_AT`]): `0.075·S` under the default bound `0.25`.
pub(super) const STRETCHED_SHARE: f64 = 0.3;

/// The round-off of an energy drift, in units of `ε (|E| + |E_ref|)`: what rounding the two
/// energies (sums of a few rounded terms) and their difference can reach.
pub(super) const ROUNDING: f64 = 4.0;

/// The round-off floor of the energy scale in units of `ε · (K₀ + |V₀|)`: with the default bound
/// `0.25` a drift of `64 ε (K₀ + |V₀|)` is accepted, above what rounding the energies of a step
/// (sums of a few terms, each rounded) reaches.
pub(super) const ROUNDOFF: f64 = 256.0;
