//! A small embedded-hal 1.0 shim for `mps2-an386`.
//!
//! - [`Led`]: an [`OutputPin`] / [`StatefulOutputPin`] on one bit of the FPGA-IO `LED0`
//!   register (0x4002_8000; bits 0–1 drive the board's user LEDs). On a real MPS2+ board the
//!   LED — or a scope probe on it — shows how long each step takes. In QEMU the register is
//!   emulated: writes are stored and read back (so the example can check every toggle), and
//!   QEMU's `led` trace events show the changes (`-trace 'led_*'`); nothing else happens.
//! - [`SysTickDelay`]: a [`DelayNs`] that busy-waits on the free-running SysTick counter
//!   started by [`crate::count::start`] (25 MHz). In QEMU with `-icount shift=6` virtual time
//!   advances with executed instructions, so a delay is a deterministic number of loop
//!   iterations; on hardware it is wall-clock time at the 25 MHz system clock.
//!
//! Both are what a real board support crate would provide; the control-loop example is generic
//! over the traits, so it runs unchanged with any HAL's pin and delay.

use crate::count::{now, RELOAD};
use core::convert::Infallible;
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType, OutputPin, StatefulOutputPin};

/// The FPGA-IO `LED0` register of `mps2-an386`.
pub const FPGAIO_LED0: usize = 0x4002_8000;

/// One user LED bit of the FPGA-IO `LED0` register, as an output pin.
#[derive(Debug)]
pub struct Led {
    mask: u32,
}

impl Led {
    /// The pin on LED bit `bit` (0 or 1), initially low.
    ///
    /// Create one `Led` per bit: the register is shared and updated read-modify-write.
    pub fn new(bit: u8) -> Self {
        let mut led = Self {
            mask: 1 << (bit & 1),
        };
        led.write(false);
        led
    }

    fn reg() -> *mut u32 {
        FPGAIO_LED0 as *mut u32
    }

    fn write(&mut self, high: bool) {
        // SAFETY: FPGAIO_LED0 is a valid, aligned device register on mps2-an386; the firmware is
        // single-threaded and no interrupt touches it.
        unsafe {
            let v = core::ptr::read_volatile(Self::reg());
            let v = if high { v | self.mask } else { v & !self.mask };
            core::ptr::write_volatile(Self::reg(), v);
        }
    }

    fn read(&self) -> bool {
        // SAFETY: as in `write`.
        unsafe { core::ptr::read_volatile(Self::reg()) & self.mask != 0 }
    }
}

impl ErrorType for Led {
    type Error = Infallible;
}

impl OutputPin for Led {
    fn set_low(&mut self) -> Result<(), Infallible> {
        self.write(false);
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        self.write(true);
        Ok(())
    }
}

impl StatefulOutputPin for Led {
    fn is_set_high(&mut self) -> Result<bool, Infallible> {
        Ok(self.read())
    }

    fn is_set_low(&mut self) -> Result<bool, Infallible> {
        Ok(!self.read())
    }
}

/// SysTick ticks per microsecond (25 MHz system clock).
pub const TICKS_PER_US: u32 = 25;

/// A busy-wait delay on the free-running SysTick (see [`crate::count::start`]).
#[derive(Debug, Default)]
pub struct SysTickDelay;

impl SysTickDelay {
    fn wait_ticks(&mut self, mut ticks: u32) {
        // Wait in chunks well below the 2²⁴ wrap so no wrap is ever missed.
        const CHUNK: u32 = RELOAD / 2;
        while ticks > 0 {
            let chunk = ticks.min(CHUNK);
            let t0 = now();
            while t0.until(now()) < chunk {}
            ticks -= chunk;
        }
    }
}

impl DelayNs for SysTickDelay {
    fn delay_ns(&mut self, ns: u32) {
        // 25 ticks per µs = 1 tick per 40 ns; round up so a delay is never shorter than asked.
        self.wait_ticks(ns.div_ceil(40));
    }

    fn delay_us(&mut self, us: u32) {
        let mut us = us;
        // u32 ticks overflow beyond ~171 s: split.
        while us > 0 {
            let part = us.min(1_000_000);
            self.wait_ticks(part * TICKS_PER_US);
            us -= part;
        }
    }
}
