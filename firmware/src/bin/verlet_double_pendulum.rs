//! Velocity Verlet on the penalised double pendulum (f32), the baseline of Z&S; see
//! `macrostep_scenarios::verlet_double_pendulum`.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;

#[entry]
fn main() -> ! {
    fw::run("verlet_double_pendulum", |r| {
        macrostep_scenarios::verlet_double_pendulum::<f32, _>(r)
    })
}
