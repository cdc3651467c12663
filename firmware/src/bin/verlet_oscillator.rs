//! Velocity Verlet on a 2-D harmonic oscillator (f32): the smallest scenario, see
//! `macrostep_scenarios::verlet_oscillator`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("verlet_oscillator", |r| {
        macrostep_scenarios::verlet_oscillator::<f32, _>(r)
    })
}
