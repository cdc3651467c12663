//! `reproduce convert`: one-step methods converted into variational integrators (003 §2,
//! [`macrostep::convert`]). For explicit Euler, Heun, RK4 (not symplectic) and symplectic
//! Euler, Störmer–Verlet (symplectic) it measures, source beside converted:
//!
//! - the observed order (log–log slope of the global error at fixed `T` against a DOP853
//!   reference), which must equal the source's;
//! - the symplecticity defect `max |DΦᵀJDΦ − J|` in `(q, M v)` (central differences, step
//!   `1e-6`): `≤ 1e-9` for every converted map, `O(h^{r+1})` for a non-symplectic source;
//! - the energy error `|H − H₀|` over a long run on Reich's pendulum (002 §5: `m = g = L = 1`,
//!   released horizontally at rest) and on the double pendulum of 000 §4.1, both in their
//!   penalised form `V + ½ω²Σgᵢ²` (the unconstrained conversion of 003 §2).
//!
//! Both models have the energy scale `m g L = 1`, so errors are absolute.
//!
//! The constrained conversion (003 §3, [`macrostep::convert::ConvertedConstrained`]) is measured
//! on the rigid pendula in Cartesian coordinates: see [`constrained`].

pub mod constrained;
mod jobs;

pub use constrained::{compute_constrained, ConstrainedRow, ConstrainedSetup, Trace};
pub use jobs::{convert, dispatch, DefectJob, EnergyTrace, Job, LongJob, Method, OrderJob};

use crate::experiments::Experiment;
use crate::measure::loglog_slope;
use crate::plot::{emit, Chart, Series};
use crate::reference;
use crate::report::{figure, sci, Output, Table};
use macrostep::convert::StandardLayer;
use macrostep::model::{Hessian, System};
use macrostep::nalgebra::vector;
use macrostep::systems::{DoublePendulum, Pendulum};
use macrostep::State;

/// The experiment's parameters.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Penalty frequency `ω` of both pendula (stiff modes at `≈ 2ωL`).
    pub omega: f64,
    /// Step sizes of the order measurement (on the pendulum).
    pub order_hs: Vec<f64>,
    /// End time of the order measurement.
    pub order_t: f64,
    /// Step of the defect measurement and of the long runs.
    pub h: f64,
    /// Length of the pendulum run.
    pub pendulum_t: f64,
    /// Length of the double-pendulum run.
    pub double_t: f64,
    /// Samples per long run (for the PNG).
    pub samples: usize,
    /// The constrained measurements (rigid pendula, 003 §3).
    pub constrained: ConstrainedSetup,
}

impl Setup {
    /// The full run: `ω = 10`, `h = 0.01`, pendulum to `t = 10⁴`, double pendulum to `t = 2000`.
    pub fn paper() -> Self {
        Self {
            omega: 10.0,
            order_hs: vec![0.01, 0.005, 0.0025, 0.00125],
            order_t: 1.0,
            h: 0.01,
            pendulum_t: 10_000.0,
            double_t: 2_000.0,
            samples: 400,
            constrained: ConstrainedSetup::paper(),
        }
    }

    /// A quick version for tests (shorter runs, three step sizes).
    pub fn quick() -> Self {
        Self {
            order_hs: vec![0.01, 0.005, 0.0025],
            pendulum_t: 20.0,
            double_t: 10.0,
            samples: 50,
            constrained: ConstrainedSetup::quick(),
            ..Self::paper()
        }
    }
}

/// One method's order and defect, source beside converted.
#[derive(Clone, Debug)]
pub struct MethodRow {
    /// The source.
    pub method: Method,
    /// The source's claimed `ORDER`.
    pub claimed: u32,
    /// Observed order of the source.
    pub source_order: f64,
    /// Observed order of the converted method.
    pub order: f64,
    /// Global errors of the source at `order_hs`.
    pub source_errors: Vec<f64>,
    /// Global errors of the converted method.
    pub errors: Vec<f64>,
    /// Symplecticity defect of the source.
    pub source_defect: f64,
    /// Symplecticity defect of the converted method.
    pub defect: f64,
}

/// A long run on one model, source beside converted.
#[derive(Clone, Debug)]
pub struct LongRow {
    /// `"pendulum"` or `"double_pendulum"`.
    pub model: &'static str,
    /// The source.
    pub method: Method,
    /// The source's energy error.
    pub source: EnergyTrace,
    /// The converted method's energy error.
    pub converted: EnergyTrace,
}

/// Everything `compute` measures.
#[derive(Clone, Debug)]
pub struct Results {
    /// The setup.
    pub setup: Setup,
    /// Order and defect per method.
    pub methods: Vec<MethodRow>,
    /// Long runs (non-symplectic sources, both models).
    pub long: Vec<LongRow>,
    /// The constrained conversion on the rigid pendula.
    pub constrained: Vec<ConstrainedRow>,
}

fn claimed<P: Hessian<f64, 2> + Clone>(m: Method, sys: &System<f64, P, 2>) -> u32 {
    struct Claim;
    impl<P> Job<P, 2> for Claim {
        type Out = u32;
        fn run<L: StandardLayer<f64, 2, Potential = P>>(&mut self, _: &dyn Fn(f64) -> L) -> u32 {
            L::ORDER
        }
    }
    dispatch(m, sys, &mut Claim)
}

/// Runs the experiment.
pub fn compute(setup: &Setup) -> Results {
    let pendulum = Pendulum::<f64>::paper();
    let sys = pendulum.penalised(setup.omega).expect("valid omega");
    let s0 = pendulum.initial_state();
    let exact = reference::solve_system(&sys, &s0, &[setup.order_t], 1e-13, 1e-13)[0];
    // A generic point with velocity for the Jacobian (off the constraint by 1e-2).
    let s_def = State::new(0.0, vector![0.8, -0.61], vector![0.3, 0.4]);
    let mut methods = Vec::new();
    for m in Method::ALL {
        let mut oj = OrderJob {
            s0,
            t_end: setup.order_t,
            hs: setup.order_hs.clone(),
            exact,
        };
        let (source_errors, errors) = dispatch(m, &sys, &mut oj);
        let (source_defect, defect) = dispatch(
            m,
            &sys,
            &mut DefectJob {
                s0: s_def,
                h: setup.h,
            },
        );
        methods.push(MethodRow {
            method: m,
            claimed: claimed(m, &sys),
            source_order: loglog_slope(&setup.order_hs, &source_errors),
            order: loglog_slope(&setup.order_hs, &errors),
            source_errors,
            errors,
            source_defect,
            defect,
        });
    }
    let dp = DoublePendulum::<f64>::paper();
    let dsys = dp.penalised(setup.omega).expect("valid omega");
    let mut long = Vec::new();
    for m in Method::EXPLICIT {
        let mut job = LongJob {
            s0,
            h: setup.h,
            steps: (setup.pendulum_t / setup.h).round() as usize,
            samples: setup.samples,
        };
        let (source, converted) = dispatch(m, &sys, &mut job);
        long.push(LongRow {
            model: "pendulum",
            method: m,
            source,
            converted,
        });
        let mut job = LongJob {
            s0: dp.initial_state(),
            h: setup.h,
            steps: (setup.double_t / setup.h).round() as usize,
            samples: setup.samples,
        };
        let (source, converted) = dispatch(m, &dsys, &mut job);
        long.push(LongRow {
            model: "double_pendulum",
            method: m,
            source,
            converted,
        });
    }
    Results {
        setup: setup.clone(),
        methods,
        long,
        constrained: compute_constrained(&setup.constrained),
    }
}

fn failed(t: &EnergyTrace) -> String {
    t.failed_at.map_or("-".into(), |t| format!("{t:.1}"))
}

/// Prints the tables, the figure lines and the energy charts.
pub fn report(r: &Results, out: &Output) {
    let s = &r.setup;
    crate::say!(
        out,
        "003: one-step methods converted to variational integrators (penalised pendula, ω = {})",
        s.omega
    );
    crate::say!(
        out,
        "order: global error at t = {} vs DOP853, h = {:?}; defect: one step, h = {}",
        s.order_t,
        s.order_hs,
        s.h
    );
    let t = Table::new(
        out,
        &[
            "method",
            "ORDER",
            "order src",
            "order conv",
            "defect src",
            "defect conv",
        ],
    );
    for m in &r.methods {
        t.row(&[
            m.method.name().into(),
            m.claimed.to_string(),
            format!("{:.3}", m.source_order),
            format!("{:.3}", m.order),
            sci(m.source_defect),
            sci(m.defect),
        ]);
    }
    for m in &r.methods {
        let n = m.method.name();
        figure(&format!("convert.{n}.order"), m.order);
        figure(&format!("convert.{n}.source_order"), m.source_order);
        figure(&format!("convert.{n}.symplectic_defect"), m.defect);
        figure(
            &format!("convert.{n}.source_symplectic_defect"),
            m.source_defect,
        );
    }
    report_long(r, out);
    constrained::report(&r.constrained, &s.constrained, out);
}

/// The long runs: table, figures and the energy-error plots.
fn report_long(r: &Results, out: &Output) {
    let s = &r.setup;
    crate::say!(
        out,
        "\nlong runs, h = {}: pendulum to t = {}, double pendulum to t = {}; max |H − H₀|",
        s.h,
        s.pendulum_t,
        s.double_t
    );
    let t = Table::new(
        out,
        &[
            "model",
            "method",
            "src max",
            "src failed at",
            "conv max",
            "iter mean/max",
        ],
    );
    for l in &r.long {
        t.row(&[
            l.model.into(),
            l.method.name().into(),
            sci(l.source.max),
            failed(&l.source),
            sci(l.converted.max),
            format!(
                "{:.2}/{}",
                l.converted.iterations.0, l.converted.iterations.1
            ),
        ]);
    }
    for l in &r.long {
        let (model, n) = (l.model, l.method.name());
        figure(
            &format!("convert.{model}.{n}.energy_error_max"),
            l.converted.max,
        );
        figure(
            &format!("convert.{model}.{n}.source_energy_error_max"),
            l.source.max,
        );
        figure(
            &format!("convert.{model}.{n}.iterations_mean"),
            l.converted.iterations.0,
        );
    }
    for model in ["pendulum", "double_pendulum"] {
        let mut series = Vec::new();
        for l in r.long.iter().filter(|l| l.model == model) {
            series.push(Series {
                label: format!("{} (source)", l.method.name()),
                points: l.source.points.clone(),
            });
            series.push(Series {
                label: format!("{} converted", l.method.name()),
                points: l.converted.points.clone(),
            });
        }
        emit(
            out,
            &Chart {
                stem: format!("convert.{model}_energy"),
                title: format!("{model}: energy error, source vs converted (h = {})", s.h),
                x_label: "t".into(),
                y_label: "|H − H₀|".into(),
                log_x: true,
                log_y: true,
                series,
            },
        );
    }
}

/// `reproduce convert`.
pub struct ConvertExperiment;

impl Experiment for ConvertExperiment {
    const NAME: &'static str = "convert";
    const SEED: &'static str = "003 §2–3 (S0, unconstrained)";
    const SECONDS: f64 = 10.0;
    const ABOUT: &'static str = "003: explicit Euler/Heun/RK4, symplectic Euler, Verlet converted to variational integrators: order, symplecticity defect, long-run energy on the penalised pendulum and double pendulum";
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
