//! The guards in the watch's compact form.

use super::Guards;
use crate::Real;

/// [`Guards`] in the watch's compact form: every bound a `T` (zero when off) and which guards
/// are on as bits of one word (an integer test per step instead of an `Option`'s tag per
/// guard): five scalars and a word instead of five options, 24 B instead of 40 in `f32`. A word
/// rather than a byte: the padding a byte leaves made the step's frame copy the watch with
/// `memcpy` (40–48 B more stack in the Verlet scenarios).
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds<T> {
    pub(super) residual: T,
    pub(super) energy_run: T,
    pub(super) energy_step: T,
    pub(super) velocity_step: T,
    pub(super) energy_scale: T,
    pub(super) on: u32,
}

pub(super) const RESIDUAL: u32 = 1;
pub(super) const ENERGY_RUN: u32 = 2;
pub(super) const ENERGY_STEP: u32 = 4;
pub(super) const VELOCITY_STEP: u32 = 8;
pub(super) const ENERGY_SCALE: u32 = 16;

impl<T: Real> Bounds<T> {
    pub(super) fn of(g: Guards<T>) -> Self {
        let or_zero = |b: Option<T>| b.unwrap_or(T::zero());
        let bit = |b: Option<T>, bit: u32| if b.is_some() { bit } else { 0 };
        Self {
            residual: or_zero(g.residual),
            energy_run: or_zero(g.energy_run),
            energy_step: or_zero(g.energy_step),
            velocity_step: or_zero(g.velocity_step),
            energy_scale: or_zero(g.energy_scale),
            on: bit(g.residual, RESIDUAL)
                | bit(g.energy_run, ENERGY_RUN)
                | bit(g.energy_step, ENERGY_STEP)
                | bit(g.velocity_step, VELOCITY_STEP)
                | bit(g.energy_scale, ENERGY_SCALE),
        }
    }

    pub(super) fn guards(&self) -> Guards<T> {
        let on = |b: T, bit: u32| if self.on & bit != 0 { Some(b) } else { None };
        Guards {
            residual: on(self.residual, RESIDUAL),
            energy_run: on(self.energy_run, ENERGY_RUN),
            energy_step: on(self.energy_step, ENERGY_STEP),
            velocity_step: on(self.velocity_step, VELOCITY_STEP),
            energy_scale: on(self.energy_scale, ENERGY_SCALE),
        }
    }

    #[inline(always)]
    pub(super) fn energy_on(&self) -> bool {
        self.on & (ENERGY_RUN | ENERGY_STEP) != 0
    }
}
