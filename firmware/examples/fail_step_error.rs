//! Must fail: a step error (a NaN in the state) exits QEMU with failure after printing it.
//! `cargo xtask firmware` runs every `fail_*` program and requires a non-zero exit status.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep::baselines::VelocityVerlet;
use macrostep::systems::HarmonicOscillator;
use macrostep_firmware as fw;
use macrostep_scenarios::drive;

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("fail_step_error", |r| {
        let osc = HarmonicOscillator::<f32, 1>::isotropic(1.0)?;
        let mut vv = VelocityVerlet::new(osc.system(), 0.1)?;
        let mut s = osc.initial_state();
        s.q[0] = core::hint::black_box(f32::NAN);
        drive(r, "main", &mut vv, s, 3, 1)?;
        Ok(())
    })
}
