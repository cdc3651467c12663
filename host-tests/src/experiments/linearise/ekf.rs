//! The cart-pole regulated through the EKF: the controller sees only the noisy cart position
//! and pole angle, the filter predicts with the frozen-mass model's Z&S step and its exact
//! linearisation ([`super::cart`]), and the force acts on the estimate.

use super::super::cart_pole::{self, H, OMEGA};
use super::cart;
use macrostep::control::Ekf;
use macrostep::forcing::{Actuate, Actuated};
use macrostep::langevin::Normal;
use macrostep::model::System;
use macrostep::nalgebra::{matrix, vector, SMatrix, SVector};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Guards, Integrator, State, Stepper};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Process noise of the filter per step on the velocities (the frozen-mass model's mismatch
/// with the plant away from the upright); on the positions `1e-12`.
pub const PROCESS_V: f64 = 1e-7;

/// One run at measurement noise `sigma`.
#[derive(Clone, Debug)]
pub struct EkfRun {
    /// Measurement noise (rad and m).
    pub sigma: f64,
    /// RMS of `θ̂ − θ` from 0.5 s on (rad).
    pub rms_theta: f64,
    /// RMS of `ŝ − s` from 0.5 s on (m).
    pub rms_s: f64,
    /// `|θ|` at the end (rad).
    pub final_theta: f64,
    /// `(t, θ, measured θ, θ̂)` at every step.
    pub trace: Vec<(f64, f64, f64, f64)>,
}

/// Runs the loop from `tilt` for `seconds` with the gains `k` and measurement noise `sigma`
/// (seeded `Pcg64`).
///
/// # Errors
/// A configuration, step or filter error, as text.
pub fn run(k: &[f64; 4], sigma: f64, tilt: f64, seconds: f64, seed: u64) -> Result<EkfRun, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let mech = cart_pole::mechanism(tilt).map_err(|x| e(&x))?;
    let pen = mech.penalised(OMEGA).map_err(|x| e(&x))?;
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let mut plant = ZhangSkeel::new(sys, H, ZsParams::default()).map_err(|x| e(&x))?;
    let mut model = ZhangSkeel::new(cart::system(), H, ZsParams::default()).map_err(|x| e(&x))?;
    model.set_guards(Guards::off()).map_err(|x| e(&x))?;
    let p0 = SMatrix::<f64, 4, 4>::from_diagonal(&vector![0.01, 0.1, 0.01, 0.1]);
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&vector![1e-12, 1e-12, PROCESS_V, PROCESS_V]);
    let r = SMatrix::<f64, 2, 2>::identity() * (sigma * sigma);
    let hm = matrix![1.0, 0.0, 0.0, 0.0; 0.0, 1.0, 0.0, 0.0];
    let mut ekf = Ekf::new(State::at_rest(vector![0.0, 0.0]), p0, q, r, hm).map_err(|x| e(&x))?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut s = mech.initial_state();
    let mut u = SVector::<f64, 3>::zeros();
    let steps = (seconds / H).round() as usize;
    let (mut trace, mut se, mut ss, mut n) = (Vec::with_capacity(steps), 0.0, 0.0, 0usize);
    for i in 0..steps {
        let x = cart_pole::observe(&s);
        let y = vector![
            x[0] + sigma * Normal::sample::<f64, _>(&mut rng),
            x[1] + sigma * Normal::sample::<f64, _>(&mut rng)
        ];
        ekf.update(&y).map_err(|x| e(&x))?;
        let est = ekf.vector();
        let t = i as f64 * H;
        trace.push((t, x[1], y[1], est[1]));
        if t >= 0.5 {
            se += (est[1] - x[1]).powi(2);
            ss += (est[0] - x[0]).powi(2);
            n += 1;
        }
        let f = cart_pole::control(k, &[est[0], est[1], est[2], est[3]]);
        mech.actuation(&[f], &s.q, &mut u).map_err(|x| e(&x))?;
        plant.set_force(&u).map_err(|x| e(&x))?;
        plant.step(&mut s).map_err(|x| e(&x))?;
        model.set_force(&vector![f, 0.0]).map_err(|x| e(&x))?;
        ekf.predict(&mut model).map_err(|x| e(&x))?;
    }
    let n = n.max(1) as f64;
    Ok(EkfRun {
        sigma,
        rms_theta: (se / n).sqrt(),
        rms_s: (ss / n).sqrt(),
        final_theta: cart_pole::observe(&s)[1].abs(),
        trace,
    })
}
