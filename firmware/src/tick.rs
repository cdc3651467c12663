//! A 1 kHz control tick from the SysTick interrupt, and what it costs against its period.
//!
//! [`periodic`] turns SysTick (25 MHz on `mps2-an386`) into a 1 ms timer: reload
//! [`PERIOD_TICKS`]` − 1`, interrupt on. The `SysTick` exception handler of a binary runs one tick
//! and measures it with [`Stats`]: its work, read on the board's CMSDK APB timer 1 (a free-running
//! 32-bit down-counter on the same 25 MHz clock, [`stopwatch_start`]) just before and just after
//! the tick and converted to instructions as [`crate::count`] does, and its response time (the
//! interrupt latency, SysTick's count since the reload when the handler starts, plus the work).
//! Under `-icount shift=6` one period is [`PERIOD_INSTRUCTIONS`] instructions of virtual time; a
//! tick that ends after the next reload is an overrun (SysTick's `COUNTFLAG` is set again when
//! the tick ends). The work is measured on the second timer so that it stays exact when a tick
//! overruns, even by more than a period.
//!
//! On a real board the same code counts core-clock cycles at 25 MHz (scale the period to the
//! board's clock).

use crate::count;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// SysTick ticks per 1 ms period (25 MHz).
pub const PERIOD_TICKS: u32 = 25_000;
/// Instructions per period under `-icount shift=6` (1 ms / 64 ns).
pub const PERIOD_INSTRUCTIONS: u32 = 15_625;

/// SysTick free-running over its full range, no interrupt (as [`count::start`]), without taking
/// the peripheral.
pub fn free_running(syst: &mut SYST) {
    syst.disable_interrupt();
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(count::RELOAD);
    syst.clear_current();
    syst.enable_counter();
}

/// SysTick as the 1 ms tick: reload `PERIOD_TICKS − 1`, counter cleared, interrupt on.
pub fn periodic(syst: &mut SYST) {
    syst.disable_counter();
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(PERIOD_TICKS - 1);
    syst.clear_current();
    // Reading COUNTFLAG clears it.
    let _ = syst.has_wrapped();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// SysTick stopped, interrupt off.
pub fn stop(syst: &mut SYST) {
    syst.disable_interrupt();
    syst.disable_counter();
}

/// Whether SysTick has reloaded since the last call (reads and clears `COUNTFLAG`), from the
/// `SysTick` handler, which does not own the peripheral.
#[inline(always)]
pub fn wrapped() -> bool {
    // SAFETY: a read of SysTick's CSR; its only side effect is clearing COUNTFLAG, which only
    // this module's callers (the tick handler, and `periodic` before the interrupt is on) use.
    unsafe { (*SYST::PTR).csr.read() & (1 << 16) != 0 }
}

/// The current SysTick value (counts down from `PERIOD_TICKS − 1` in periodic mode).
#[inline(always)]
pub fn now() -> u32 {
    SYST::get_current()
}

/// CMSDK APB timer 1 of `mps2-an386` (timer 0 is left alone): `CTRL`, `VALUE`, `RELOAD`.
const TIMER1: usize = 0x4000_1000;

/// Starts APB timer 1 free-running from `u32::MAX` (no interrupt).
pub fn stopwatch_start() {
    // SAFETY: the timer's own registers on this board (CMSDK APB timer: CTRL at +0, VALUE at
    // +4, RELOAD at +8), word-aligned; nothing else uses timer 1.
    unsafe {
        core::ptr::write_volatile((TIMER1 + 8) as *mut u32, u32::MAX);
        core::ptr::write_volatile((TIMER1 + 4) as *mut u32, u32::MAX);
        core::ptr::write_volatile(TIMER1 as *mut u32, 1);
    }
}

/// APB timer 1's current value (counts down at 25 MHz).
#[inline(always)]
pub fn stopwatch() -> u32 {
    // SAFETY: a read of the timer's VALUE register (see `stopwatch_start`).
    unsafe { core::ptr::read_volatile((TIMER1 + 4) as *const u32) }
}

/// Per-tick statistics: work and response time in instructions, overruns.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    /// Ticks measured.
    pub ticks: u32,
    /// Work of the first tick (it fills the caches).
    pub first: u32,
    /// Least, largest and total work of the other ticks.
    pub min: u32,
    /// See [`Stats::min`].
    pub max: u32,
    /// See [`Stats::min`].
    pub total: u64,
    /// Largest response time: period start to the end of the tick.
    pub max_response: u32,
    /// Ticks that ended after the next period had started.
    pub overruns: u32,
}

impl Stats {
    /// No tick yet.
    pub const fn new() -> Self {
        Self {
            ticks: 0,
            first: 0,
            min: u32::MAX,
            max: 0,
            total: 0,
            max_response: 0,
            overruns: 0,
        }
    }

    /// Records one tick: the stopwatch read `w0` just before it and `w1` just after (the read
    /// overhead `overhead` subtracted), SysTick's value `entry` when the handler started, and
    /// `overran` when the period ended during the tick.
    pub fn record(&mut self, w0: u32, w1: u32, entry: u32, overhead: u32, overran: bool) {
        let n = count::instructions(w0.wrapping_sub(w1).saturating_sub(overhead));
        let latency = count::instructions((PERIOD_TICKS - 1).saturating_sub(entry));
        if overran {
            self.overruns += 1;
        }
        self.max_response = self.max_response.max(latency + n);
        if self.ticks == 0 {
            self.first = n;
        } else {
            self.min = self.min.min(n);
            self.max = self.max.max(n);
            self.total += u64::from(n);
        }
        self.ticks += 1;
    }

    /// Mean work of the ticks after the first, rounded.
    pub fn mean(&self) -> u32 {
        let rest = u64::from(self.ticks.saturating_sub(1).max(1));
        ((self.total + rest / 2) / rest) as u32
    }

    /// Prints `tick_instructions <case> first … min … max … mean …` (the work; budget
    /// `instructions_per_tick`) and `tick <case> period_instructions … max_response … overruns …`.
    /// Unlike a step's count these vary by a few instructions from run to run (the phase of the
    /// interrupt against the 25 MHz timers), so `cargo xtask firmware` compares them with slack.
    pub fn print(&self, case: &str) {
        let min = if self.ticks > 1 { self.min } else { 0 };
        defmt::println!(
            "tick_instructions {=str} first {=u32} min {=u32} max {=u32} mean {=u32}",
            case,
            self.first,
            min,
            self.max,
            self.mean()
        );
        defmt::println!(
            "tick {=str} period_instructions {=u32} max_response {=u32} overruns {=u32}",
            case,
            PERIOD_INSTRUCTIONS,
            self.max_response,
            self.overruns
        );
    }
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}
