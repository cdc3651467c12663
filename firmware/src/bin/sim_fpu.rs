//! See `macrostep_scenarios::sim_fpu`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::SimFpu;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("sim_fpu", |r| {
        // The integrator in a static (static RAM, not stack: the 2 KiB stack budget).
        let Some(slot) = cortex_m::singleton!(: Option<SimFpu<f32>> = None) else {
            fw::exit_failure()
        };
        macrostep_scenarios::sim_fpu_in::<f32, _>(r, slot)
    })
}
