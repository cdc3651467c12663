//! The run guard's energy guards: the start of a run (its reference, scale and stretched
//! threshold), the run and step guards on a step's energy, and the memory they move.

use super::Watch;
use crate::guard::allowance::{
    round_off, run_bound_holds, start_scale, STRETCHED_AT, STRETCHED_SHARE, TIER_FROM, TIER_GROWTH,
};
use crate::guard::bounds::{ENERGY_RUN, ENERGY_STEP, RESIDUAL};
use crate::guard::memory::{Fixed, Memory};
use crate::guard::{Guard, Probe};
use crate::{Real, State, StepError};

impl<T: Real, const N: usize> Watch<T, N> {
    /// The energy guards of [`Watch::commit`] on `next` (from `state`, continuing the run when
    /// `cont`, `residual` the residual of `next`), then `held` (the residual and velocity
    /// guards' verdict); when every guard holds, the run's memory moves to the step. Only what
    /// changed is written: a step of a continuing run writes its energy, its number and the
    /// stretched tier's scale, and its scale and ranges only when they grew.
    ///
    /// # Errors
    /// [`StepError::NonFiniteResult`], [`StepError::Diverged`], `held`'s error.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn judge_energy<P: Probe<T, N>>(
        &mut self,
        state: &State<T, N>,
        next: &State<T, N>,
        exchanged: T,
        cont: bool,
        residual: Option<T>,
        held: Result<(), StepError>,
        probe: &P,
    ) -> Result<(), StepError> {
        let Some((k1, v1)) = probe.energy(next) else {
            return held;
        };
        // Adding a zero moves nothing the guards compare (`−0 + 0` is `+0`): a conservative
        // method, whose `exchanged` is the literal zero, skips the addition.
        let moved = exchanged != T::zero();
        let (mut m, fixed) = if cont {
            let mut e_ref = self.e_ref;
            if moved {
                e_ref += exchanged;
            }
            let m = Memory {
                e_ref,
                v_lo: self.v_lo,
                v_hi: self.v_hi,
                k_max: self.k_max,
                scale: self.scale,
                tier_scale: self.tier_scale,
                n: self.steps.saturating_add(1),
            };
            let fixed = Fixed {
                k0: self.k_start,
                e0: self.e_last,
                stretched_above: self.stretched_above,
                level: self.level,
            };
            (m, fixed)
        } else {
            let Some(k0_v0) = probe.energy(state) else {
                return Err(StepError::NonFiniteResult);
            };
            let r0 = if self.bounds.on & RESIDUAL != 0 {
                probe.residual(&state.q)
            } else {
                None
            };
            self.start_run(k0_v0, r0, exchanged)?
        };
        let (e1, grew) = self.judge(&mut m, (k1, v1), exchanged, residual, fixed)?;
        held?;
        self.e_last = e1;
        self.steps = m.n;
        self.tier_scale = m.tier_scale;
        if moved || !cont {
            self.e_ref = m.e_ref;
        }
        if grew || !cont {
            self.v_lo = m.v_lo;
            self.v_hi = m.v_hi;
            self.k_max = m.k_max;
            self.scale = m.scale;
        }
        if !cont {
            self.k_start = fixed.k0;
            self.stretched_above = fixed.stretched_above;
            self.level = fixed.level;
        }
        Ok(())
    }

    /// The start of a run at a state of energies `(k0, v0)` and residual `r0`: the run's memory
    /// before its first step (its reference moved by the energy `exchanged` in that step) and
    /// what stays fixed over the run.
    ///
    /// # Errors
    /// [`StepError::Diverged`] ([`Guard::EnergyRun`]) when the start's energy overflowed.
    #[inline(always)]
    fn start_run(
        &self,
        (k0, v0): (T, T),
        r0: Option<T>,
        exchanged: T,
    ) -> Result<(Memory<T>, Fixed<T>), StepError> {
        let e0 = k0 + v0;
        let scale = start_scale(k0, v0, self.bounds.energy_scale);
        // A start whose energy overflowed cannot be bounded: refused here rather than passed by
        // comparisons with infinity or NaN (a running run's reference and scale stay finite:
        // every committed energy is).
        if !(e0.finite() && scale.finite()) {
            return Err(StepError::Diverged {
                guard: Guard::EnergyRun,
            });
        }
        // A start off its constraint releases what it stores: only a stretch beyond the
        // start's counts as one.
        let stretched_above = if self.bounds.on & RESIDUAL != 0 {
            let at = self.bounds.residual * T::lit(STRETCHED_AT);
            match r0 {
                Some(r0) if r0 > at => r0,
                _ => at,
            }
        } else {
            T::zero()
        };
        let e_ref = e0 + exchanged;
        let m = Memory {
            e_ref,
            v_lo: v0,
            v_hi: v0,
            k_max: k0,
            scale,
            tier_scale: scale,
            n: 1,
        };
        let fixed = Fixed {
            k0,
            e0,
            stretched_above,
            level: round_off(e_ref),
        };
        Ok((m, fixed))
    }

    /// The energy guards on a step with energies `(k1, v1)` of a run whose memory before it is
    /// `m`: `m` moves to the step (its scale grows, the stretched tier's scale for the next
    /// step); returns the step's energy and whether the scale or a range grew.
    ///
    /// # Errors
    /// [`StepError::NonFiniteResult`], [`StepError::Diverged`] ([`Guard::EnergyRun`],
    /// [`Guard::EnergyStep`]).
    #[inline(always)]
    fn judge(
        &self,
        m: &mut Memory<T>,
        (k1, v1): (T, T),
        exchanged: T,
        residual: Option<T>,
        fixed: Fixed<T>,
    ) -> Result<(T, bool), StepError> {
        let e1 = k1 + v1;
        if !e1.finite() {
            return Err(StepError::NonFiniteResult);
        }
        let grew = m.grow_scale(k1, v1);
        let stretched =
            m.n >= TIER_FROM && matches!(residual, Some(res) if res > fixed.stretched_above);
        if self.bounds.on & ENERGY_RUN != 0 {
            self.check_run(m, e1, stretched, fixed)?;
        }
        // The next step's `S_u`: no more than the scale before it, which a diverging step
        // would grow to vouch for itself.
        m.tier_scale = if !stretched {
            m.scale
        } else {
            let grown = m.tier_scale * T::lit(TIER_GROWTH);
            if grown < m.scale {
                grown
            } else {
                m.scale
            }
        };
        if self.bounds.on & ENERGY_STEP != 0 {
            // The last step's energy, moved by what this step exchanged.
            let e0 = fixed.e0 + exchanged;
            if (e1 - e0).abs() > self.bounds.energy_step * m.scale {
                return Err(StepError::Diverged {
                    guard: Guard::EnergyStep,
                });
            }
        }
        Ok((e1, grew))
    }

    /// The run guard of [`Watch::commit`]: the drift of `e1` from the run's reference against
    /// the bound of the [guard docs](crate::guard) (the stretched tier's while `stretched`).
    ///
    /// # Errors
    /// [`StepError::Diverged`] ([`Guard::EnergyRun`]).
    #[inline(always)]
    fn check_run(
        &self,
        m: &Memory<T>,
        e1: T,
        stretched: bool,
        fixed: Fixed<T>,
    ) -> Result<(), StepError> {
        let r = self.bounds.energy_run;
        let drift = (e1 - m.e_ref).abs();
        // `S_u ≤ S`: the stretched tier's bound is the tightest.
        let tier = r * m.tier_scale;
        let bound = if stretched { tier } else { r * m.scale };
        // The common case (within the bound before the round-off allowance, within the
        // stretched tier's share of it while stretched, and energies resolvable against the
        // scale) costs a subtraction, a product and two comparisons; the rest is
        // `run_bound_holds`, which passes every step the common case passes.
        let beyond = if stretched {
            drift * T::lit(1.0 / STRETCHED_SHARE) > tier
        } else {
            drift > bound
        };
        if beyond || fixed.level > m.scale {
            let energies = (e1, m.e_ref);
            let kinetic = (fixed.k0, m.k_max);
            let (scale, level) = (m.scale, fixed.level);
            if !run_bound_holds(
                energies, drift, bound, scale, level, kinetic, m.n, stretched,
            ) {
                return Err(StepError::Diverged {
                    guard: Guard::EnergyRun,
                });
            }
        }
        Ok(())
    }
}
