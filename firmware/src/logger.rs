//! The defmt global logger: frames written to the host's stdout over semihosting.
//!
//! It does what `defmt-semihosting` does (one `defmt::Encoder` behind a critical section, bytes
//! written with semihosting `SYS_WRITE` to the `:tt` stream) without its panic paths: that crate
//! panics when the logger is taken re-entrantly or used outside `acquire`/`release`, and the
//! `semihosting` crate under it asserts on every write that its file descriptor is not `-1`.
//! The optimizer cannot prove either unreachable, so a binary linking it can never pass the
//! panic-never check (see [`crate::panic_never`]). Here a re-entrant `acquire` (a log call from
//! an exception handler that interrupted another log call) exits QEMU with failure instead,
//! and a failed write is dropped (there is nowhere to report it).

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};
use cortex_m::{interrupt, register};
use cortex_m_semihosting::hio::{self, HostStream};

#[defmt::global_logger]
struct Logger;

/// The logger's state; only touched between `acquire` and `release`, with interrupts disabled.
struct Inner {
    encoder: defmt::Encoder,
    /// The host's stdout, opened on the first frame (again on the next if the host refused).
    stdout: Option<HostStream>,
    /// Whether interrupts were enabled before `acquire` disabled them.
    restore_interrupts: bool,
}

struct Shared {
    taken: AtomicBool,
    inner: UnsafeCell<Inner>,
}

// SAFETY: `inner` is only accessed by the one context that holds the logger (`taken`, set with
// interrupts disabled on a single core).
unsafe impl Sync for Shared {}

static LOGGER: Shared = Shared {
    taken: AtomicBool::new(false),
    inner: UnsafeCell::new(Inner {
        encoder: defmt::Encoder::new(),
        stdout: None,
        restore_interrupts: false,
    }),
};

impl Inner {
    fn emit(stdout: &mut Option<HostStream>) -> impl FnMut(&[u8]) + '_ {
        move |bytes| {
            if let Some(s) = stdout {
                let _ = s.write_all(bytes);
            }
        }
    }
}

// SAFETY: defmt calls `acquire`, then `write`s, then `release`, from one context; `acquire`
// disables interrupts and refuses re-entry, so `inner` has one user at a time.
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        let was_active = register::primask::read().is_active();
        interrupt::disable();
        if LOGGER.taken.load(Ordering::Relaxed) {
            // A log call interrupted another one: their frames would interleave.
            crate::exit_failure()
        }
        LOGGER.taken.store(true, Ordering::Relaxed);
        // SAFETY: taken above with interrupts disabled (see `Shared`).
        let inner = unsafe { &mut *LOGGER.inner.get() };
        inner.restore_interrupts = was_active;
        if inner.stdout.is_none() {
            inner.stdout = hio::hstdout().ok();
        }
        inner.encoder.start_frame(Inner::emit(&mut inner.stdout));
    }

    unsafe fn flush() {
        // Semihosting writes are blocking: the host has every byte when `write` returns.
    }

    unsafe fn release() {
        // SAFETY: called after `acquire` by the context that holds the logger.
        let inner = unsafe { &mut *LOGGER.inner.get() };
        inner.encoder.end_frame(Inner::emit(&mut inner.stdout));
        let restore = inner.restore_interrupts;
        LOGGER.taken.store(false, Ordering::Relaxed);
        if restore {
            // SAFETY: interrupts were enabled before the matching `acquire`.
            unsafe { interrupt::enable() };
        }
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: called between `acquire` and `release` by the context that holds the logger.
        let inner = unsafe { &mut *LOGGER.inner.get() };
        inner.encoder.write(bytes, Inner::emit(&mut inner.stdout));
    }
}
