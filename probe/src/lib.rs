//! Link probe: exercises the public API from a `no_std` final artifact.
#![no_std]

use core::panic::PanicInfo;
use macrostep::baselines::VelocityVerlet;
use macrostep::systems::HarmonicOscillator;
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

/// An FPU-like chain of 40 coordinates, written once for automatic differentiation.
struct Chain40;
impl macrostep::autodiff::Energy<f32, 40> for Chain40 {
    fn energy<S: macrostep::autodiff::AdScalar<f32>>(&self, q: &[S; 40]) -> S {
        let mut v = S::cst(0.0);
        for w in q.windows(2) {
            let d = w[1] - w[0];
            v += d * d * 0.5 + (d * d * d * d) * 0.25 + d.sin() * 0.1;
        }
        v
    }
}

/// Gradient, one Hessian column and `a·V‴·a` of a 40-coordinate chain by forward-mode AD in f32
/// (the widest evaluation, `Dual<Dual<VDual<f32, 40>>>`, on the device stack); returns a checksum.
#[no_mangle]
pub extern "C" fn macrostep_probe_autodiff(x: f32) -> f32 {
    use macrostep::model::{Hessian, Potential, ThirdDerivative};
    let v = macrostep::autodiff::AutoDiff(Chain40);
    let q = macrostep::nalgebra::SVector::<f32, 40>::from_fn(|i, _| x * i as f32);
    let a = macrostep::nalgebra::SVector::<f32, 40>::repeat(1.0);
    v.gradient(&q)[3] + v.hessian_vector(&q, &a)[5] + v.third_contraction(&q, &a)[7]
}
