//! Support for the macrostep firmware on QEMU's `mps2-an386` (Cortex-M4F).
//!
//! - [`count`]: instructions measured with SysTick under `-icount shift=6`;
//! - [`board`]: an embedded-hal 1.0 shim for the board (an `OutputPin` on the FPGA-IO LED
//!   register and a SysTick `DelayNs`);
//! - [`report`]: the [`Sink`](macrostep_scenarios::Sink) that prints each recorded state and the
//!   instruction counts with defmt, and [`run`] which runs a scenario and exits through
//!   semihosting with success or failure;
//! - [`stack`]: the stack high-water mark (the integrator and the state live on the stack);
//! - a panic handler and a HardFault handler that exit with failure (never spin: a spinning
//!   firmware would hang QEMU until the runner's `timeout`).
//!
//! No global allocator is defined: everything lives in statics or on the stack.

#![no_std]

pub mod board;
pub mod count;
pub mod report;
pub mod stack;

pub use report::{run, Report};

use cortex_m_rt::{exception, ExceptionFrame};
use defmt_semihosting as _; // the defmt global logger: frames go to semihosting stdout

/// Exits QEMU with success (semihosting `SYS_EXIT`, status 0).
pub fn exit_success() -> ! {
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Exits QEMU with failure (semihosting `SYS_EXIT`, non-zero status).
pub fn exit_failure() -> ! {
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // Only the location: formatting the message would pull in core::fmt (tens of KB).
    match info.location() {
        Some(l) => defmt::error!("panic at {=str}:{=u32}", l.file(), l.line()),
        None => defmt::error!("panic"),
    }
    exit_failure()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    defmt::error!("hard fault at pc {=u32:#010x}", frame.pc());
    exit_failure()
}
