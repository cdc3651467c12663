//! `reproduce cart-pole`: LQR on a cart-pole built with the mechanism
//! builder, plant stepped at 1 kHz by Z&S on the penalty form (and by RATTLE on the exact form),
//! the actuator force set every tick with `Actuate::set_force`; and the builder's bit-identity
//! with the built-in double pendulum and chain.
//!
//! Plant: cart `m_c = 1 kg` on a horizontal rail (`y = 0`, one coordinate `s`), tip `m_p =
//! 0.1 kg` on a massless rod `L = 0.5 m`, `g = 9.81`; `q = (s, x_tip, y_tip)`. Pole angle from
//! upright `θ = atan2(x_tip − s, y_tip)`. Controller: `F = −K x`, `x = (s, θ, ṡ, θ̇)`, `K` from
//! the discrete Riccati equation of the zero-order-hold linearisation about upright at
//! `h = 1 ms` ([`lqr_gains`], solved by fixed-point iteration), `Q = diag(10, 100, 1, 1)`,
//! `R = 0.1`. The firmware stores the same gains as constants
//! (`macrostep_scenarios::CART_POLE_GAINS`; a test checks they equal [`lqr_gains`]).

use crate::experiments::Experiment;
use crate::fixtures::builder_models::{bit_identity, BitIdentity};
use crate::report::{figure, sci, Output};
use crate::say;
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::mechanism::{Mechanism, MechanismBuilder};
use macrostep::model::System;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Integrator, State, StepError};

/// Cart mass (kg).
pub const M_CART: f64 = 1.0;
/// Tip mass (kg).
pub const M_TIP: f64 = 0.1;
/// Rod length (m).
pub const LENGTH: f64 = 0.5;
/// Gravity (m/s²).
pub const G: f64 = 9.81;
/// Control period and plant step (s).
pub const H: f64 = 1e-3;
/// Penalty frequency of the rod (`½ ω² (|d|² − L²)²`): static sag `m_p g / ω² ≈ 4 µm`.
pub const OMEGA: f64 = 500.0;
/// LQR weights on `(s, θ, ṡ, θ̇)` and on `F`.
pub const Q: [f64; 4] = [10.0, 100.0, 1.0, 1.0];
/// LQR weight on the force.
pub const R: f64 = 0.1;

/// What to run.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Initial pole tilt (rad), at rest.
    pub tilt: f64,
    /// Simulated time (s).
    pub seconds: f64,
    /// Settled: `|θ| ≤ band·tilt` and `|s| ≤ band·1 m` from then on.
    pub band: f64,
    /// Steps of the bit-identity comparison.
    pub identity_steps: usize,
}

impl Setup {
    /// The full case: 0.2 rad tilt, 10 s, 2 % band, 1000 identity steps.
    pub fn paper() -> Self {
        Self {
            tilt: 0.2,
            seconds: 10.0,
            band: 0.02,
            identity_steps: 1000,
        }
    }
    /// The same (it takes ≈ 0.1 s).
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// One closed-loop run.
#[derive(Clone, Debug)]
pub struct Run {
    /// First time from which the state stays in the band (`NaN` if never).
    pub settle_time: f64,
    /// max |θ| from `settle_time + 1 s` to the end (rad).
    pub max_angle_after: f64,
    /// max ||p_tip − p_cart| − L| (m).
    pub max_constraint_err: f64,
    /// max |E − E₀ − W| (J), `W = Σ Fₖ Δsₖ`.
    pub max_balance: f64,
    /// max |F| (N).
    pub max_force: f64,
    /// ∫ F² dt (N²·s), the actuator effort.
    pub effort: f64,
    /// Final |θ| and |s|.
    pub final_error: (f64, f64),
    /// The step error that ended the run early, if any.
    pub error: Option<StepError>,
}

/// Results.
#[derive(Clone, Debug)]
pub struct Results {
    /// The setup it ran.
    pub setup: Setup,
    /// The gains `K` (`F = −K x`).
    pub gains: [f64; 4],
    /// Z&S on the penalty form.
    pub zs: Run,
    /// RATTLE on the exact form.
    pub rattle: Run,
    /// The builder's double pendulum and chain reproduce the built-in models bit for bit.
    pub bit_identical: bool,
    /// The four comparisons behind `bit_identical` (`None`: a configuration was refused).
    pub identity: Option<BitIdentity>,
    /// The control period and plant step `h` (s).
    pub h: f64,
}

/// The cart-pole mechanism, generic over the scalar: node 0 the cart on the rail, node 1 the
/// tip, rod 0 from the tip to the cart, actuator 0 the horizontal force on the cart.
pub fn mechanism(tilt: f64) -> Result<Mechanism<f64, 2, 3, 1>, ConfigError> {
    let mut b = MechanismBuilder::<f64, 2, 3, 1>::new()?;
    let cart = b.rail_node(M_CART, [0.0, 0.0], [1.0, 0.0], 0.0)?;
    let tip = b.node(M_TIP, [LENGTH * tilt.sin(), LENGTH * tilt.cos()])?;
    b.rod(tip, cart)?;
    b.gravity(G)?;
    b.force_actuator(cart, [1.0, 0.0])?;
    b.build()
}

/// `(s, θ, ṡ, θ̇)` of a state.
pub fn observe(s: &State<f64, 3>) -> [f64; 4] {
    let (dx, dy) = (s.q[1] - s.q[0], s.q[2]);
    let (dvx, dvy) = (s.v[1] - s.v[0], s.v[2]);
    let theta = dx.atan2(dy);
    let omega = (dvx * dy - dx * dvy) / (dx * dx + dy * dy);
    [s.q[0], theta, s.v[0], omega]
}

/// The ZOH discretisation `(A_d, B_d)` of the linearisation about upright at step `h`.
pub fn discrete_model(h: f64) -> (SMatrix<f64, 4, 4>, SVector<f64, 4>) {
    let (mc, mp, l, g) = (M_CART, M_TIP, LENGTH, G);
    // M s̈ = F − m g θ, M L θ̈ = (M + m) g θ − F (point mass on a massless rod).
    let mut a = SMatrix::<f64, 4, 4>::zeros();
    a[(0, 2)] = 1.0;
    a[(1, 3)] = 1.0;
    a[(2, 1)] = -mp * g / mc;
    a[(3, 1)] = (mc + mp) * g / (mc * l);
    let b = SVector::<f64, 4>::new(0.0, 0.0, 1.0 / mc, -1.0 / (mc * l));
    // exp(Ah) and ∫₀ʰ exp(Aτ) dτ by their Taylor series (‖Ah‖ ≈ 0.02: 12 terms are exact).
    let (mut ad, mut int) = (
        SMatrix::<f64, 4, 4>::identity(),
        SMatrix::<f64, 4, 4>::zeros(),
    );
    let mut term = SMatrix::<f64, 4, 4>::identity();
    for k in 1..=12 {
        int += term * (h / k as f64);
        term = term * a * (h / k as f64);
        ad += term;
    }
    (ad, int * b)
}

/// The LQR gains from the discrete Riccati equation, iterated to a fixed point.
pub fn lqr_gains(h: f64) -> [f64; 4] {
    let (a, b) = discrete_model(h);
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from(Q));
    let mut p = q;
    let mut k = SVector::<f64, 4>::zeros();
    // The closed loop's slowest pole is ≈ 1 − h/τ with τ ~ 1 s: convergence needs ~10⁴ sweeps.
    for _ in 0..200_000 {
        let pb = p * b;
        let k_new = (a.transpose() * pb) / (R + b.dot(&pb));
        let p_new = q + a.transpose() * p * a - (a.transpose() * pb) * k_new.transpose();
        let done = (p_new - p).amax() <= 1e-13 * p.amax();
        p = (p_new + p_new.transpose()) * 0.5;
        k = k_new;
        if done {
            break;
        }
    }
    [k[0], k[1], k[2], k[3]]
}

/// The force `F = −K x`.
pub fn control(k: &[f64; 4], x: &[f64; 4]) -> f64 {
    -(k[0] * x[0] + k[1] * x[1] + k[2] * x[2] + k[3] * x[3])
}

/// Runs the loop: each tick observe, control, `set_force`, one step.
fn closed_loop<I: Integrator<f64, 3> + Actuate<f64, 3>>(
    setup: &Setup,
    mech: &Mechanism<f64, 2, 3, 1>,
    plant: &mut I,
    energy: impl Fn(&State<f64, 3>) -> f64,
    gains: &[f64; 4],
) -> Run {
    let mut s = mech.initial_state();
    let steps = (setup.seconds / H).round() as usize;
    let e0 = energy(&s);
    let (mut work, mut u) = (0.0, SVector::<f64, 3>::zeros());
    let mut run = Run {
        settle_time: f64::NAN,
        max_angle_after: 0.0,
        max_constraint_err: 0.0,
        max_balance: 0.0,
        max_force: 0.0,
        effort: 0.0,
        final_error: (0.0, 0.0),
        error: None,
    };
    let mut trace = Vec::with_capacity(steps);
    for k in 0..steps {
        let x = observe(&s);
        let f = control(gains, &x);
        let step = mech
            .actuation(&[f], &s.q, &mut u)
            .map_err(|_| StepError::NonFiniteForce)
            .and_then(|()| plant.set_force(&u))
            .and_then(|()| {
                let q0 = s.q;
                plant.step(&mut s).map(|()| u.dot(&(s.q - q0)))
            });
        match step {
            Ok(w) => work += w,
            Err(e) => {
                run.error = Some(e);
                break;
            }
        }
        run.max_force = run.max_force.max(f.abs());
        run.effort += f * f * H;
        let len = (mech.position(1, &s.q).unwrap() - mech.position(0, &s.q).unwrap()).norm();
        run.max_constraint_err = run.max_constraint_err.max((len - LENGTH).abs());
        run.max_balance = run.max_balance.max((energy(&s) - e0 - work).abs());
        let x = observe(&s);
        trace.push(((k + 1) as f64 * H, x[1].abs(), x[0].abs()));
    }
    // Settled from the first time after which θ and s stay in the band.
    let (bt, bs) = (setup.band * setup.tilt, setup.band);
    let last_out = trace.iter().rposition(|&(_, th, sc)| th > bt || sc > bs);
    let from = last_out.map_or(0, |i| i + 1);
    if run.error.is_none() && from < trace.len() {
        run.settle_time = if from == 0 { 0.0 } else { trace[from - 1].0 };
        // From 1 s after settling: right at `settle_time` |θ| is the band edge by construction.
        let later = trace[from..]
            .iter()
            .filter(|t| t.0 >= run.settle_time + 1.0);
        run.max_angle_after = later.map(|t| t.1).fold(0.0, f64::max);
    }
    if let Some(&(_, th, sc)) = trace.last() {
        run.final_error = (th, sc);
    }
    run
}

/// Runs everything.
///
/// # Panics
/// When a built-in configuration is refused (a bug).
pub fn compute(setup: &Setup) -> Results {
    let gains = lqr_gains(H);
    let mech = mechanism(setup.tilt).expect("cart-pole mechanism");
    let pen = mech.penalised(OMEGA).expect("penalty");
    let sys = System::new(pen.mass, Actuated::new(pen.potential));
    let mut zs = ZhangSkeel::new(sys, H, ZsParams::default()).expect("Z&S");
    let zs_energy = |s: &State<f64, 3>| pen.energy(s);
    let zs_run = closed_loop(setup, &mech, &mut zs, zs_energy, &gains);

    let exact = mech.system();
    let sys = System::new(exact.mass, Actuated::new(exact.potential));
    let mut rattle =
        Rattle::new(sys, mech.constraint(), H, ConstraintNewtonParams::default()).expect("RATTLE");
    let rattle_energy = |s: &State<f64, 3>| exact.energy(s);
    let rattle_run = closed_loop(setup, &mech, &mut rattle, rattle_energy, &gains);

    let identity = bit_identity(setup.identity_steps).ok();
    Results {
        setup: setup.clone(),
        gains,
        zs: zs_run,
        rattle: rattle_run,
        bit_identical: identity.is_some_and(|r| r.all()),
        identity,
        h: H,
    }
}

/// Prints the table and the figure lines.
pub fn report(r: &Results, out: &Output) {
    let setup = &r.setup;
    say!(
        out,
        "cart-pole (cart {M_CART} kg on a rail, tip {M_TIP} kg, rod {LENGTH} m), LQR at 1 kHz, start tilt {} rad, T = {} s",
        setup.tilt,
        setup.seconds
    );
    say!(out, "LQR gains K (F = −K·(s, θ, ṡ, θ̇)): {:?}", r.gains);
    say!(
        out,
        "settled: |θ| ≤ {} rad and |s| ≤ {} m from then on",
        setup.band * setup.tilt,
        setup.band
    );
    let t = crate::report::Table::new(
        out,
        &[
            "plant",
            "settle s",
            "max|θ| after",
            "max |F| N",
            "∫F² dt",
            "max rod err m",
            "max|E−E₀−W| J",
        ],
    );
    for (name, run) in [("Z&S penalty ω=500", &r.zs), ("RATTLE exact", &r.rattle)] {
        t.row(&[
            name.to_string(),
            format!("{:.3}", run.settle_time),
            sci(run.max_angle_after),
            format!("{:.2}", run.max_force),
            format!("{:.3}", run.effort),
            sci(run.max_constraint_err),
            sci(run.max_balance),
        ]);
        if let Some(e) = run.error {
            say!(out, "  {name}: stopped by a step error: {e}");
        }
    }
    say!(
        out,
        "builder: DoublePendulum::paper and Chain 5 bit-identical (Z&S + RATTLE, {} steps): {}",
        setup.identity_steps,
        r.bit_identical
    );
    figure("cart_pole.settle_time", r.zs.settle_time);
    figure(
        "cart_pole.max_pole_angle_after_settle",
        r.zs.max_angle_after,
    );
    figure("cart_pole.max_constraint_err", r.zs.max_constraint_err);
    figure("cart_pole.max_energy_balance_err", r.zs.max_balance);
    figure("cart_pole.max_force", r.zs.max_force);
    figure("cart_pole.rattle.settle_time", r.rattle.settle_time);
    figure(
        "cart_pole.rattle.max_constraint_err",
        r.rattle.max_constraint_err,
    );
    figure(
        "builder.bit_identical",
        if r.bit_identical { 1.0 } else { 0.0 },
    );
}

/// `reproduce cart-pole`.
pub struct CartPoleExperiment;

impl Experiment for CartPoleExperiment {
    const NAME: &'static str = "cart-pole";
    const SEED: &'static str = "(application: 1 kHz LQR loop)";
    const SECONDS: f64 = 0.2;
    const ABOUT: &'static str = "LQR cart-pole at 1 kHz built with the mechanism builder (Z&S penalty and RATTLE plants); builder bit-identity";
    type Setup = Setup;
    type Results = Results;

    fn paper() -> Setup {
        Setup::paper()
    }

    fn quick() -> Setup {
        Setup::quick()
    }

    fn compute(setup: &Setup) -> Results {
        compute(setup)
    }

    fn report(results: &Results, out: &Output) {
        report(results, out);
    }
}
