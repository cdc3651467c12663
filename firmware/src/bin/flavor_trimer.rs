//! See `macrostep_scenarios::flavor_trimer`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

#[entry]
fn main() -> ! {
    fw::run("flavor_trimer", |r| {
        macrostep_scenarios::flavor_trimer::<f32, _>(r)
    })
}
