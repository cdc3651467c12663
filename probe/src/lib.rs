//! Link probe: exercises the public API from a `no_std` final artifact.
#![no_std]

use core::panic::PanicInfo;
use macrostep::baselines::VelocityVerlet;
use macrostep::models::HarmonicOscillator;
use macrostep::Integrator;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

/// Steps a harmonic oscillator in f32 and returns the final position (0 on any error).
#[no_mangle]
pub extern "C" fn macrostep_probe(steps: u32) -> f32 {
    let Ok(osc) = HarmonicOscillator::<f32, 2>::isotropic(1.0) else { return 0.0 };
    let Ok(mut vv) = VelocityVerlet::new(osc.system(), 0.01) else { return 0.0 };
    let mut s = osc.initial_state();
    for _ in 0..steps {
        if vv.step(&mut s).is_err() {
            return 0.0;
        }
    }
    s.q[0]
}
