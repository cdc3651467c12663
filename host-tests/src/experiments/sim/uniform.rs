//! `reproduce sim-uniform` (004 Theorem 4.2.2): the SIM error in q at fixed H is uniform in ω on
//! the FPU chain while Verlet's blows up; the orders of SIM1, SIM2 and SIM4 for H ≪ 1/ω.

use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::reference;
use crate::report::{figure, sci, Output, Table};
use macrostep::baselines::VelocityVerlet;
use macrostep::model::Mass;
use macrostep::sim::{FastParams, Sim1, Sim2, Sim4, SimSystem};
use macrostep::systems::Fpu;
use macrostep::{Integrator, State};

/// Which SIM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// SIM1.
    Sim1,
    /// SIM2.
    Sim2,
    /// SIM4.
    Sim4,
    /// Velocity Verlet on the full potential.
    Verlet,
}

/// Final `max |q(T) − q_ref(T)|` of a method with step `h` on the FPU chain with frequency `ω`
/// (start: [`Fpu::initial_state`], stiff energy ½), against DOP853; `∞` if it blew up.
pub fn uniform_error(omega: f64, which: Which, h: f64, t_end: f64, q_ref: &State<f64, 6>) -> f64 {
    let fpu = Fpu::<f64, 6>::new(omega).expect("fpu");
    let split = fpu.split();
    let sys = SimSystem::new(Mass::identity(), split.stiff.k, split.soft);
    let fast = FastParams::default();
    let n = (t_end / h).round() as usize;
    let mut s = fpu.initial_state();
    let ok = match which {
        Which::Sim1 => Sim1::new(sys, h, fast).expect("sim1").integrate(&mut s, n),
        Which::Sim2 => Sim2::new(sys, h, fast).expect("sim2").integrate(&mut s, n),
        Which::Sim4 => Sim4::new(sys, h, fast).expect("sim4").integrate(&mut s, n),
        Which::Verlet => VelocityVerlet::new(fpu.system(), h)
            .expect("vv")
            .integrate(&mut s, n),
    };
    let e = (s.q - q_ref.q).amax();
    if ok.is_err() || !e.is_finite() || e > 1e6 {
        f64::INFINITY
    } else {
        e
    }
}

/// The DOP853 reference `q(T)` for the FPU chain with frequency `ω`.
pub fn fpu_reference(omega: f64, t_end: f64) -> State<f64, 6> {
    let fpu = Fpu::<f64, 6>::new(omega).expect("fpu");
    reference::solve_system(&fpu.system(), &fpu.initial_state(), &[t_end], 1e-13, 1e-13)
        .pop()
        .expect("reference")
}

/// What to run.
pub struct Setup {
    /// Final time.
    pub t_end: f64,
    /// The fixed SIM step of the uniformity table.
    pub h: f64,
    /// The stiffnesses of the uniformity table.
    pub omegas: Vec<f64>,
    /// The stiffness of the order fits.
    pub omega_orders: f64,
}

impl Setup {
    /// T = 1, H = 0.01, ω = 50 … 400; orders at ω = 50.
    pub fn paper() -> Self {
        Self {
            t_end: 1.0,
            h: 0.01,
            omegas: vec![50.0, 100.0, 200.0, 400.0],
            omega_orders: 50.0,
        }
    }

    /// As [`Setup::paper`]: the experiment takes about a second, so `--quick` runs it unchanged.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// The methods of the uniformity table, in its column order.
pub const METHODS: [Which; 4] = [Which::Sim1, Which::Sim2, Which::Sim4, Which::Verlet];

/// One order fit.
pub struct OrderFit {
    /// The method.
    pub which: Which,
    /// The steps.
    pub hs: [f64; 3],
    /// The errors.
    pub errs: Vec<f64>,
    /// The log-log slope.
    pub slope: f64,
}

/// What the experiment measured.
pub struct Results {
    /// Final time and fixed H.
    pub t_end: f64,
    /// The fixed SIM step.
    pub h: f64,
    /// Per ω: the error of each of [`METHODS`].
    pub uniform: Vec<(f64, Vec<f64>)>,
    /// The stiffness of the order fits.
    pub omega_orders: f64,
    /// The order fits.
    pub orders: Vec<OrderFit>,
}

impl Results {
    /// Per ω: `(ω, error)` of `which`, one of [`METHODS`].
    pub fn errors_of(&self, which: Which) -> Vec<(f64, f64)> {
        let col = METHODS
            .iter()
            .position(|&m| m == which)
            .expect("one of METHODS");
        self.uniform.iter().map(|(w, e)| (*w, e[col])).collect()
    }
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let (t_end, h) = (setup.t_end, setup.h);
    let uniform = setup
        .omegas
        .iter()
        .map(|&omega| {
            let r = fpu_reference(omega, t_end);
            let e = METHODS
                .iter()
                .map(|&w| uniform_error(omega, w, h, t_end, &r))
                .collect();
            (omega, e)
        })
        .collect();
    // Orders in the regime H ≪ 1/ω.
    let omega = setup.omega_orders;
    let r = fpu_reference(omega, t_end);
    let orders = [
        (Which::Sim1, [1.0 / 400.0, 1.0 / 800.0, 1.0 / 1600.0]),
        (Which::Sim2, [1.0 / 400.0, 1.0 / 800.0, 1.0 / 1600.0]),
        (Which::Sim4, [1.0 / 100.0, 1.0 / 200.0, 1.0 / 400.0]),
    ]
    .into_iter()
    .map(|(which, hs)| {
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| uniform_error(omega, which, h, t_end, &r))
            .collect();
        OrderFit {
            which,
            hs,
            slope: loglog_slope(&hs, &errs),
            errs,
        }
    })
    .collect();
    Results {
        t_end,
        h,
        uniform,
        omega_orders: omega,
        orders,
    }
}

/// Prints the tables and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let (t_end, h) = (r.t_end, r.h);
    crate::say!(
        out,
        "FPU chain (m = 3, smooth quartic soft springs), T = {t_end}, fixed H = {h}"
    );
    let tab = Table::new(
        out,
        &[
            "ω",
            "ωH",
            "SIM1 err q",
            "SIM2 err q",
            "SIM4 err q",
            "Verlet err q",
        ],
    );
    for (omega, e) in &r.uniform {
        tab.row(&[
            format!("{omega}"),
            format!("{}", omega * h),
            sci(e[0]),
            sci(e[1]),
            sci(e[2]),
            sci(e[3]),
        ]);
        figure(&format!("sim-uniform.omega{omega}.err_q"), e[0]);
        figure(&format!("sim-uniform.omega{omega}.verlet_err_q"), e[3]);
    }
    crate::say!(out, "\norders at ω = {}, H ≪ 1/ω:", r.omega_orders);
    let tab = Table::new(out, &["method", "H values", "errors", "slope"]);
    for fit in &r.orders {
        let (which, hs, slope) = (fit.which, fit.hs, fit.slope);
        tab.row(&[
            format!("{which:?}"),
            format!("{:.1e}..{:.1e}", hs[0], hs[2]),
            fit.errs
                .iter()
                .map(|e| sci(*e))
                .collect::<Vec<_>>()
                .join(" "),
            format!("{slope:.2}"),
        ]);
        figure(
            &format!("sim-uniform.slope.{}", format!("{which:?}").to_lowercase()),
            slope,
        );
    }
    charts(r, out);
}

/// A method's name in the charts.
fn label(which: Which) -> &'static str {
    match which {
        Which::Sim1 => "SIM1",
        Which::Sim2 => "SIM2",
        Which::Sim4 => "SIM4",
        Which::Verlet => "velocity Verlet (diverges for ωH ≥ 2: no point)",
    }
}

/// Thm 4.2.2 as charts (`--plot`, `--csv`): the error at fixed H against ω, and the error against
/// H at fixed ω (the orders).
fn charts(r: &Results, out: &Output) {
    use crate::plot::{emit, Chart, Series};
    let series = METHODS
        .iter()
        .enumerate()
        .map(|(i, &which)| Series {
            label: label(which).into(),
            points: r.uniform.iter().map(|(w, e)| (*w, e[i])).collect(),
        })
        .collect();
    emit(
        out,
        &Chart {
            stem: "sim-uniform.error_vs_omega".into(),
            title: format!(
                "004 Thm 4.2.2: FPU error at fixed H = {} is uniform in ω for SIM",
                r.h
            ),
            x_label: "stiffness ω (log scale)".into(),
            y_label: format!("max_i |q_i(T) − q_i,ref(T)|, T = {} (log scale)", r.t_end),
            log_x: true,
            log_y: true,
            series,
        },
    );
    let series = r
        .orders
        .iter()
        .map(|fit| Series {
            label: format!("{} (fitted slope {:.2})", label(fit.which), fit.slope),
            points: fit
                .hs
                .iter()
                .copied()
                .zip(fit.errs.iter().copied())
                .collect(),
        })
        .collect();
    emit(
        out,
        &Chart {
            stem: "sim-uniform.orders".into(),
            title: format!(
                "004 §4.2: SIM orders 1, 2, 4 on FPU (ω = {}, H ≪ 1/ω)",
                r.omega_orders
            ),
            x_label: "step H (log scale)".into(),
            y_label: format!("max_i |q_i(T) − q_i,ref(T)|, T = {} (log scale)", r.t_end),
            log_x: true,
            log_y: true,
            series,
        },
    );
}

/// `reproduce sim-uniform`.
pub struct SimUniformExperiment;

impl Experiment for SimUniformExperiment {
    const NAME: &'static str = "sim-uniform";
    const SEED: &'static str = "004 Thm 4.2.2";
    const SECONDS: f64 = 0.1;
    const ABOUT: &'static str =
        "004 Thm 4.2.2: SIM error in q uniform in ω at fixed H; Verlet blows up; orders 1/2/4";
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
