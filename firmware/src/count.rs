//! Instruction counts from SysTick.
//!
//! DWT's cycle counter reads 0 in QEMU, so the count comes from SysTick: QEMU runs with
//! `-icount shift=6`, which makes virtual time advance by exactly 2⁶ = 64 ns per executed
//! instruction, and SysTick on `mps2-an386` counts the 25 MHz system clock (40 ns a tick). So
//! `ticks = 1.6 × instructions`, exactly and repeatably (±1 tick of phase), and
//! `instructions = round(ticks × 5 / 8)`. The 24-bit down-counter wraps every 2²⁴ ticks
//! (≈ 10⁷ instructions); a measured interval is far shorter, so the difference is taken modulo
//! 2²⁴. [`calibrate`] checks the ratio on a loop of known length at start-up.
//!
//! On real hardware without `-icount` SysTick counts core clock cycles instead, and the same code
//! reports `cycles × 5/8`: use [`Ticks`] directly there.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// The SysTick reload value: the full 24-bit range.
pub const RELOAD: u32 = 0x00FF_FFFF;

/// SysTick ticks per instruction under `-icount shift=6` at 25 MHz: 64 ns / 40 ns = 8/5.
pub const TICKS_PER_INSTRUCTION_NUM: u32 = 8;
/// Denominator of [`TICKS_PER_INSTRUCTION_NUM`].
pub const TICKS_PER_INSTRUCTION_DEN: u32 = 5;

/// Starts SysTick free-running from the core clock over its full range, no interrupt.
pub fn start(mut syst: SYST) {
    syst.disable_interrupt();
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_counter();
}

/// A SysTick reading.
#[derive(Clone, Copy, Debug)]
pub struct Ticks(pub u32);

/// The current SysTick value.
#[inline(always)]
pub fn now() -> Ticks {
    Ticks(SYST::get_current())
}

impl Ticks {
    /// Ticks elapsed from `self` to `later` (SysTick counts down and wraps at 2²⁴).
    #[inline(always)]
    pub fn until(self, later: Ticks) -> u32 {
        self.0.wrapping_sub(later.0) & RELOAD
    }
}

/// Converts ticks to instructions, rounding to nearest.
pub fn instructions(ticks: u32) -> u32 {
    (ticks * TICKS_PER_INSTRUCTION_DEN + TICKS_PER_INSTRUCTION_NUM / 2) / TICKS_PER_INSTRUCTION_NUM
}

/// Ticks taken by `f`, including the cost of one SysTick read (see [`overhead`]).
#[inline(always)]
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let t0 = now();
    let r = f();
    let t1 = now();
    (r, t0.until(t1))
}

/// Ticks between two back-to-back SysTick reads: subtracted from every measurement.
#[inline(never)]
pub fn overhead() -> u32 {
    let t0 = now();
    let t1 = now();
    t0.until(t1)
}

/// Runs a loop of exactly `2 n` instructions (`subs` + `bne`, `n` times) and returns its ticks
/// minus the read overhead: `≈ 3.2 n` under `-icount shift=6`.
#[inline(never)]
pub fn calibrate(n: u32) -> u32 {
    let t0 = now();
    // SAFETY: a register-only countdown loop; touches no memory.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {0}, {0}, #1",
            "bne 2b",
            inout(reg) n => _,
            options(nomem, nostack),
        );
    }
    let t1 = now();
    t0.until(t1).saturating_sub(overhead())
}
