//! Z&Ss (SyLiPN) on chains of pendula with the banded solve (000 §4.2).

use crate::{drive, ScenarioError, Sink};
use macrostep::linalg::Banded;
use macrostep::model::Penalty;
use macrostep::nalgebra::SVector;
use macrostep::systems::{Chain, Distances, GravityPenalty, LinearPotential};
use macrostep::zs::{Sylipn, ZsParams};
use macrostep::{ConfigError, Real, State};

/// Stored diagonals of the chain's Hessian band: half-bandwidth [`Chain::HALF_BANDWIDTH`] = 3.
const W: usize = 4;

/// The integrator [`sylipn_chain`] steps on a chain of `D` pendula (`N = 2D` coordinates).
pub type SylipnChain<T, const N: usize, const D: usize> =
    Sylipn<T, GravityPenalty<T, N, D>, N, Banded<W>>;

/// Where [`sylipn_chain_in`] builds its two integrators (`n = 5` and `n = 10`).
pub struct SylipnChainSlots<T: Real> {
    /// The chain of 5 pendula.
    pub n5: Option<SylipnChain<T, 10, 5>>,
    /// The chain of 10 pendula.
    pub n10: Option<SylipnChain<T, 20, 10>>,
}

impl<T: Real> SylipnChainSlots<T> {
    /// Both slots empty.
    pub const fn new() -> Self {
        Self {
            n5: None,
            n10: None,
        }
    }
}

impl<T: Real> Default for SylipnChainSlots<T> {
    fn default() -> Self {
        Self::new()
    }
}

fn chain<T: Real, S: Sink<T>, const N: usize, const D: usize>(
    sink: &mut S,
    case: &'static str,
    slot: &mut Option<SylipnChain<T, N, D>>,
) -> Result<(), ScenarioError> {
    let zss = build(slot)?;
    drive(sink, case, zss, start::<T, N, D>(), 200, 50)?;
    Ok(())
}

/// The potential of `Chain::slanted().penalised(20)` (`M = I`): gravity `g = 1` on every `yᵢ`,
/// rods `Lᵢ = √5` from the origin, `ω = 20`. Built from its parts rather than from a [`Chain`]
/// value, whose construction needs more stack than the 2 KiB budget leaves; the host parity
/// test and the golden output check that it is the same potential. Out of line: the parts live
/// in this frame only.
#[inline(never)]
fn penalty<T: Real, const N: usize, const D: usize>() -> Result<GravityPenalty<T, N, D>, ConfigError>
{
    let gravity = LinearPotential::new(SVector::from_fn(|r, _| {
        if r.is_multiple_of(2) {
            T::zero()
        } else {
            T::one()
        }
    }))?;
    let rods = Distances::chain(SVector::zeros(), SVector::repeat(T::lit(5.0).sqrt()))?;
    Penalty::per_constraint(gravity, rods, SVector::repeat(T::lit(20.0)))
}

/// The chain's start (out of line: the chain itself does not stay in the frame of the loop).
#[inline(never)]
fn start<T: Real, const N: usize, const D: usize>() -> State<T, N> {
    Chain::<T, N, D>::slanted().initial_state()
}

/// Not inlined: the penalty lives in this frame, gone before the loop runs.
#[inline(never)]
fn build<T: Real, const N: usize, const D: usize>(
    slot: &mut Option<SylipnChain<T, N, D>>,
) -> Result<&mut SylipnChain<T, N, D>, ConfigError> {
    // Borrowed from the result, not moved out of it: one copy of the potential in this frame.
    let made = penalty::<T, N, D>();
    let penalty = match &made {
        Ok(p) => p,
        Err(e) => return Err(*e),
    };
    Sylipn::unit_mass_in(
        slot,
        penalty,
        T::lit(0.05),
        ZsParams::with_beta(T::lit(0.4)),
        Banded::<W>,
    )
}

/// Z&Ss (000 eq 2.7) with the banded `LDLᵀ` solve on [`Chain::slanted`] (000 §4.2, Fig. 3:
/// `Lᵢ = √5`, start `xᵢ = i`, `yᵢ = −2i` at rest, `ω = 20`, `β = 0.4`, `h = 0.05`) for
/// `n = 5` (case `n5`) and `n = 10` (case `n10`, the seed's size): 200 steps each (`t = 10`),
/// a state every 50 steps. The two instruction counts show the linear cost in `n`.
///
/// # Errors
/// A configuration or step error (none is expected).
pub fn sylipn_chain<T: Real, S: Sink<T>>(sink: &mut S) -> Result<(), ScenarioError> {
    sylipn_chain_in(sink, &mut SylipnChainSlots::new())
}

/// [`sylipn_chain`] with the integrators built in `slots`: the firmware passes a `static`, so
/// the integrators (the `n = 10` one holds a mass sized by its full `20×20` variant) are
/// static RAM, not stack.
///
/// # Errors
/// As [`sylipn_chain`].
pub fn sylipn_chain_in<T: Real, S: Sink<T>>(
    sink: &mut S,
    slots: &mut SylipnChainSlots<T>,
) -> Result<(), ScenarioError> {
    chain::<T, S, 10, 5>(sink, "n5", &mut slots.n5)?;
    chain::<T, S, 20, 10>(sink, "n10", &mut slots.n10)
}
