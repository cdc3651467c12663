//! See `macrostep_scenarios::so3_attitude`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

#[entry]
fn main() -> ! {
    fw::run("so3_attitude", |r| {
        macrostep_scenarios::so3_attitude::<f32, _>(r)
    })
}
