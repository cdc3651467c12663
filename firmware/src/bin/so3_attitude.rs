//! See `macrostep_scenarios::so3_attitude`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("so3_attitude", |r| {
        macrostep_scenarios::so3_attitude::<f32, _>(r)
    })
}
