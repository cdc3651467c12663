//! Stack high-water mark: static RAM (`.data` + `.bss`) is only part of the RAM a scenario
//! needs; the integrator, its scratch and the state live on the stack.
//!
//! [`paint`] fills the free stack below the current stack pointer (at most [`WINDOW`] bytes)
//! with a pattern; [`used`] finds the lowest word that no longer holds it and returns the bytes
//! between it and the top of the stack. A word that happens to hold the pattern could make the
//! mark a word too low; nothing else.

use core::ptr::{read_volatile, write_volatile};

const PATTERN: u32 = 0x5AFE_C0DE;
/// How far below the stack pointer [`paint`] paints.
pub const WINDOW: usize = 64 * 1024;
/// Bytes left unpainted just below the stack pointer, for `paint`'s own calls.
const MARGIN: usize = 64;

extern "C" {
    static _stack_start: u32;
    static _stack_end: u32;
}

fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken (no read: safe).
    (
        core::ptr::addr_of!(_stack_start) as usize,
        core::ptr::addr_of!(_stack_end) as usize,
    )
}

fn bottom() -> usize {
    let (top, end) = bounds();
    end.max(top.saturating_sub(WINDOW))
}

/// Paints the free stack below the current stack pointer.
#[inline(never)]
pub fn paint() {
    let sp = cortex_m::register::msp::read() as usize;
    let mut a = bottom();
    while a + 4 <= sp - MARGIN {
        // SAFETY: [bottom, sp − MARGIN) is unused stack RAM, word-aligned, not aliased.
        unsafe { write_volatile(a as *mut u32, PATTERN) };
        a += 4;
    }
}

/// Bytes of stack used since [`paint`] (the high-water mark, from the top of the stack).
#[inline(never)]
pub fn used() -> u32 {
    let (top, _) = bounds();
    let mut a = bottom();
    // SAFETY: reads of stack RAM between the painted bottom and the top, word-aligned.
    while a < top && unsafe { read_volatile(a as *const u32) } == PATTERN {
        a += 4;
    }
    (top - a) as u32
}
