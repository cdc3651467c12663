//! Must fail: a panic inside a scenario (an out-of-bounds index) exits QEMU with failure.
//! `cargo xtask firmware` runs every `fail_*` program and requires a non-zero exit status.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// This program panics on purpose: the panic is reported and QEMU exits with failure.
fw::report_panics!();

#[entry]
fn main() -> ! {
    fw::run("fail_panic", |_| {
        let values = core::hint::black_box([1u32, 2, 3]);
        let index = core::hint::black_box(7usize);
        // Panics: index out of bounds.
        defmt::println!("unreachable {=u32}", values[index]);
        Ok(())
    })
}
