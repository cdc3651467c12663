//! See `macrostep_scenarios::zs_control_cost`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::ZsControlCostSlots;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("zs_control_cost", |r| {
        // The builders, mechanisms and plants in a static (static RAM, not stack: the 2 KiB
        // stack budget).
        let Some(slots) =
            cortex_m::singleton!(: ZsControlCostSlots<f32> = ZsControlCostSlots::new())
        else {
            fw::exit_failure()
        };
        macrostep_scenarios::zs_control_cost_in::<f32, _>(r, slots)
    })
}
