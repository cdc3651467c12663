//! See `macrostep_scenarios::sylipn_chain`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

#[entry]
fn main() -> ! {
    fw::run("sylipn_chain", |r| {
        macrostep_scenarios::sylipn_chain::<f32, _>(r)
    })
}
