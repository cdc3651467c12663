//! A closed-loop cart-pole at 1 kHz: LQR on a cart-pole built with the mechanism builder, the
//! plant stepped by Z&S on the penalty form with the actuator force set every tick.
//!
//! Cart 1 kg on a horizontal rail (one coordinate), tip 0.1 kg on a 0.5 m rod, g = 9.81, start
//! tilted 0.2 rad at rest. Controller `F = −K (s, θ, ṡ, θ̇)` with `K` the discrete LQR gains of
//! the linearisation about upright at h = 1 ms (Q = diag(10, 100, 1, 1), R = 0.1), solved on the
//! host by Riccati iteration (`reproduce cart-pole` prints them; `host-tests` checks these
//! constants against its solution). Prints, every 0.5 s: the regulation error (s, θ), the
//! actuator force, the rod-length error and the energy balance E − E₀ − W (W = Σ F Δs, the work
//! of the held force).
//!
//! ```sh
//! cargo run --release --example cart_pole
//! ```

use macrostep::forcing::{Actuate, Actuated};
use macrostep::mechanism::MechanismBuilder;
use macrostep::model::System;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State};

/// LQR gains (`host_tests::experiments::cart_pole::lqr_gains(1e-3)`).
const K: [f64; 4] = [
    -9.911148201491004,
    -71.665349390716,
    -11.525064072046533,
    -14.64154276982787,
];
const H: f64 = 1e-3;
const L: f64 = 0.5;

/// `(s, θ, ṡ, θ̇)`: cart position, pole angle from upright and their rates.
fn observe(s: &State<f64, 3>) -> [f64; 4] {
    let (dx, dy) = (s.q[1] - s.q[0], s.q[2]);
    let (dvx, dvy) = (s.v[1] - s.v[0], s.v[2]);
    let theta = dx.atan2(dy);
    [
        s.q[0],
        theta,
        s.v[0],
        (dvx * dy - dx * dvy) / (dx * dx + dy * dy),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tilt: f64 = 0.2;
    let mut b = MechanismBuilder::<f64, 2, 3, 1>::new()?;
    let cart = b.rail_node(1.0, [0.0, 0.0], [1.0, 0.0], 0.0)?;
    let tip = b.node(0.1, [L * tilt.sin(), L * tilt.cos()])?;
    b.rod(tip, cart)?;
    b.gravity(9.81)?;
    b.force_actuator(cart, [1.0, 0.0])?;
    let mech = b.build()?;

    let pen = mech.penalised(500.0)?;
    let energy = |s: &State<f64, 3>| pen.energy(s);
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let mut zs = ZhangSkeel::new(sys, H, ZsParams::default())?;

    let mut s = mech.initial_state();
    let (e0, mut work, mut effort) = (energy(&s), 0.0, 0.0);
    let mut u = SVector::zeros();
    println!("     t      s [m]    θ [rad]      F [N]  rod err [m]  E−E₀−W [J]");
    for k in 1..=10_000 {
        let x = observe(&s);
        let f = -(K[0] * x[0] + K[1] * x[1] + K[2] * x[2] + K[3] * x[3]);
        mech.actuation(&[f], &s.q, &mut u)?;
        zs.set_force(&u)?;
        let q0 = s.q;
        zs.step(&mut s)?;
        work += u.dot(&(s.q - q0));
        effort += f * f * H;
        if k % 500 == 0 {
            let x = observe(&s);
            let rod =
                (mech.position(tip, &s.q).unwrap() - mech.position(cart, &s.q).unwrap()).norm();
            println!(
                "{:6.2} {:10.2e} {:10.2e} {:10.3} {:12.2e} {:11.2e}",
                s.t,
                x[0],
                x[1],
                f,
                rod - L,
                energy(&s) - e0 - work
            );
        }
    }
    println!("actuator effort ∫F² dt = {effort:.3} N²·s");
    Ok(())
}
