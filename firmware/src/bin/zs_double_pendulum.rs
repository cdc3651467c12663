//! See `macrostep_scenarios::zs_double_pendulum`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("zs_double_pendulum", |r| {
        macrostep_scenarios::zs_double_pendulum::<f32, _>(r)
    })
}
