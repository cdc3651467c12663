//! See `macrostep_scenarios::so3_attitude`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::So3Attitude;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("so3_attitude", |r| {
        // The integrator in a static (static RAM, not stack: the 2 KiB stack budget).
        let Some(slot) = cortex_m::singleton!(: Option<So3Attitude<f32>> = None) else {
            fw::exit_failure()
        };
        macrostep_scenarios::so3_attitude_in::<f32, _>(r, slot)
    })
}
