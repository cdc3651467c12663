//! See `macrostep_scenarios::sim_fpu`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("sim_fpu", macrostep_scenarios::sim_fpu::<f32, _>)
}
