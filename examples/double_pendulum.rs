//! The main example: the penalised double pendulum of 000 §4.1 (m = g = 1, L₁ = 1, L₂ = √2,
//! start (0, −1, 1, −2) at rest, penalty ω = 20, T = 50).
//!
//! Prints, per method: step size, max energy error of the penalised Hamiltonian, max |g|
//! (constraint violation) and the cost per step.
//!
//! ```sh
//! cargo run --release --example double_pendulum
//! ```

use macrostep::baselines::VelocityVerlet;
use macrostep::model::{Constraint, Potential, System};
use macrostep::models::DoublePendulum;
use macrostep::{Integrator, State};
use std::time::Instant;

const OMEGA: f64 = 20.0;
const T_END: f64 = 50.0;

struct Row {
    method: &'static str,
    h: f64,
    max_energy_err: f64,
    max_g: f64,
    ns_per_step: f64,
}

fn run<I: Integrator<f64, 4>, P: Potential<f64, 4>>(
    method: &'static str,
    integ: &mut I,
    system: &System<f64, P, 4>,
    pendulum: &DoublePendulum<f64>,
) -> Result<Row, Box<dyn std::error::Error>> {
    let h = integ.step_size();
    let steps = (T_END / h).round() as usize;
    let mut s: State<f64, 4> = pendulum.initial_state();
    let e0 = system.energy(&s);
    let (mut max_de, mut max_g) = (0.0_f64, 0.0_f64);
    let start = Instant::now();
    for _ in 0..steps {
        integ.step(&mut s)?;
        max_de = max_de.max((system.energy(&s) - e0).abs());
        max_g = max_g.max(pendulum.constraint().value(&s.q).amax());
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok(Row {
        method,
        h,
        max_energy_err: max_de,
        max_g,
        ns_per_step: elapsed * 1e9 / steps as f64,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pendulum = DoublePendulum::<f64>::paper();
    let system = pendulum.penalised(OMEGA)?;
    println!("penalised double pendulum (000 §4.1): omega = {OMEGA}, T = {T_END}");
    let mut rows = Vec::new();
    let mut verlet = VelocityVerlet::new(system, 0.1 / OMEGA)?;
    rows.push(run("verlet", &mut verlet, &system, &pendulum)?);
    println!(
        "{:<10} {:>10} {:>16} {:>12} {:>12}",
        "method", "h", "max |dH|", "max |g|", "ns/step"
    );
    for r in &rows {
        println!(
            "{:<10} {:>10.4} {:>16.3e} {:>12.3e} {:>12.1}",
            r.method, r.h, r.max_energy_err, r.max_g, r.ns_per_step
        );
    }
    Ok(())
}
