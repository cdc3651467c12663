//! See `macrostep_scenarios::arm3_pd`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::Arm3Slots;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("arm3_pd", |r| {
        // The builder, the mechanism and the integrator in a static (static RAM, not stack:
        // the 2 KiB stack budget).
        let Some(slot) = cortex_m::singleton!(: Arm3Slots<f32> = Arm3Slots::new()) else {
            fw::exit_failure()
        };
        macrostep_scenarios::arm3_pd_in::<f32, _>(r, slot)
    })
}
