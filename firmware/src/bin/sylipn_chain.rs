//! See `macrostep_scenarios::sylipn_chain`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::SylipnChainSlots;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("sylipn_chain", |r| {
        // The integrators in a static (static RAM, not stack: the 2 KiB stack budget).
        let Some(slots) = cortex_m::singleton!(: SylipnChainSlots<f32> = SylipnChainSlots::new())
        else {
            fw::exit_failure()
        };
        macrostep_scenarios::sylipn_chain_in::<f32, _>(r, slots)
    })
}
