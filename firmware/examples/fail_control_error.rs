//! Must fail: the start-up LQR gain of the cart-pole with an indefinite state weight `Q` is a
//! typed control error (`NotPsd { name: "Q" }`), printed, and QEMU exits with failure; nothing
//! panics (the binary links with `panic_never!()`). `cargo xtask firmware` runs every `fail_*`
//! program and requires a non-zero exit status.

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use macrostep_firmware as fw;
use macrostep_scenarios::{lqr_gain, LqrWeights, Sink, CART_POLE_H};

// Panic-free, proven at link time: a panic path left in this binary fails the release build.
fw::panic_never!();

#[entry]
fn main() -> ! {
    fw::run("fail_control_error", |r| {
        let mut w = LqrWeights::<f32>::cart_pole();
        w.q[1][1] = core::hint::black_box(-1.0);
        let k = lqr_gain(CART_POLE_H as f32, &w)?;
        r.values("main", "k", &k);
        Ok(())
    })
}
