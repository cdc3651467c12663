//! See `macrostep_scenarios::control_cart_pole`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("control_cart_pole", |r| {
        macrostep_scenarios::control_cart_pole::<f32, _>(r)
    })
}
