//! Support for the macrostep firmware on QEMU's `mps2-an386` (Cortex-M4F).
//!
//! - [`count`]: instructions measured with SysTick under `-icount shift=6`;
//! - [`board`]: an embedded-hal 1.0 shim for the board (an `OutputPin` on the FPGA-IO LED
//!   register and a SysTick `DelayNs`);
//! - [`report`]: the [`Sink`](macrostep_scenarios::Sink) that prints each recorded state and the
//!   instruction counts with defmt, and [`run`] which runs a scenario and exits through
//!   semihosting with success or failure;
//! - [`tick`]: a 1 kHz tick from the SysTick interrupt, its work and response time;
//! - [`stack`]: the stack high-water mark (the integrator and the state live on the stack);
//! - the defmt global logger (semihosting stdout, no panic path) and a HardFault handler that
//!   exits with failure (never spin: a spinning firmware would hang QEMU until the runner's
//!   `timeout`);
//! - the two panic handlers a binary chooses from, one line each: [`report_panics!`] (a panic
//!   prints its location and exits with failure) or [`panic_never!`] (a panic path left in
//!   the binary is a link error: the build itself proves the binary cannot panic).
//!
//! No global allocator is defined: everything lives in statics or on the stack.

#![no_std]

pub mod board;
pub mod count;
mod logger;
pub mod report;
pub mod stack;
pub mod tick;

pub use report::{run, Report};

use cortex_m_rt::{exception, ExceptionFrame};

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

/// What the [`report_panics!`] handler does: logs the panic's location and exits with failure.
pub fn report_panic(info: &core::panic::PanicInfo) -> ! {
    // Only the location: formatting the message would pull in core::fmt (tens of KB).
    match info.location() {
        Some(l) => defmt::error!("panic at {=str}:{=u32}", l.file(), l.line()),
        None => defmt::error!("panic"),
    }
    exit_failure()
}

/// Defines the binary's panic handler as [`report_panic`]: a panic logs its location and exits
/// QEMU with failure. For binaries that may panic (the `fail_panic` example) or that have not
/// been made panic-free.
#[macro_export]
macro_rules! report_panics {
    () => {
        #[panic_handler]
        fn panic(info: &::core::panic::PanicInfo) -> ! {
            $crate::report_panic(info)
        }
    };
}

/// Defines the binary's panic handler so that a panic path is a link error (the technique of
/// the `panic-never` crate).
///
/// The handler calls a function that no object file defines. `core`'s panic entry points call
/// the handler, so the linker keeps it, and fails on the undefined symbol, exactly when some
/// panic path (a bounds check, an `unwrap`, an overflow check, an `assert!`) is still reachable
/// after optimisation and LTO have removed every branch they can prove dead. A release build
/// that links is therefore a proof that the binary contains no panic. The error names the
/// check; to find the panicking branch, build with the feature `report-panics` (which turns
/// this macro into [`report_panics!`]) and look for the callers of `core::panicking::*` in the
/// disassembly (`firmware/README.md`).
///
/// Only optimised builds can be panic-free: with `debug_assertions` (the dev profile) every
/// arithmetic operation carries an overflow check, so there the macro also falls back to
/// [`report_panics!`]. `cargo xtask firmware` builds in release and so enforces the check.
#[macro_export]
macro_rules! panic_never {
    () => {
        #[cfg(any(debug_assertions, feature = "report-panics"))]
        $crate::report_panics!();

        #[cfg(not(any(debug_assertions, feature = "report-panics")))]
        #[panic_handler]
        fn panic(_: &::core::panic::PanicInfo) -> ! {
            extern "Rust" {
                #[link_name = "\n\nerror(panic-never): this binary declares `panic_never!()` but contains a panicking branch; build it with `--features report-panics` and look for the callers of core::panicking (firmware/README.md)\n"]
                fn panic_path_left_in_a_panic_never_binary() -> !;
            }
            // SAFETY: never executed: the symbol is undefined, so a binary in which this call
            // is reachable does not link.
            unsafe { panic_path_left_in_a_panic_never_binary() }
        }
    };
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    defmt::error!("hard fault at pc {=u32:#010x}", frame.pc());
    exit_failure()
}
