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
//!   penalised form `V + ½ω²Σgᵢ²` (the conversion is implemented for unconstrained configuration
//!   spaces; see the module docs of `macrostep::convert`).
//!
//! Both models have the energy scale `m g L = 1`, so errors are absolute.

use crate::measure::{integrator_defect, loglog_slope};
use crate::plot::{emit, Chart, Series};
use crate::reference;
use crate::report::{figure, sci, Table};
use macrostep::baselines::{Ordering, SymplecticEuler, VelocityVerlet};
use macrostep::convert::{ConvertParams, Converted, Euler, ExplicitRk, Heun, Rk4, StandardLayer};
use macrostep::model::{Hessian, System};
use macrostep::models::{DoublePendulum, Pendulum};
use macrostep::nalgebra::vector;
use macrostep::{Guards, Integrator, State};

/// The converted sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Explicit Euler (order 1, not symplectic).
    Euler,
    /// Heun's explicit trapezoidal rule (order 2, not symplectic).
    Heun,
    /// Classical RK4 (order 4, not symplectic).
    Rk4,
    /// Symplectic Euler, kick–drift (order 1, symplectic).
    SymplecticEuler,
    /// Störmer–Verlet (order 2, symplectic).
    Verlet,
}

impl Method {
    /// Every method, in table order.
    pub const ALL: [Method; 5] = [
        Self::Euler,
        Self::Heun,
        Self::Rk4,
        Self::SymplecticEuler,
        Self::Verlet,
    ];
    /// The non-symplectic sources (the ones the long runs compare).
    pub const EXPLICIT: [Method; 3] = [Self::Euler, Self::Heun, Self::Rk4];

    /// Name in figure lines.
    pub fn name(self) -> &'static str {
        match self {
            Self::Euler => "euler",
            Self::Heun => "heun",
            Self::Rk4 => "rk4",
            Self::SymplecticEuler => "symplectic_euler",
            Self::Verlet => "verlet",
        }
    }
}

/// A computation generic over the standard layer a [`Method`] builds.
pub trait Job<P, const N: usize> {
    /// What it returns.
    type Out;
    /// Runs with `make(h)`, the source method with step `h`.
    fn run<L: StandardLayer<f64, N, Potential = P>>(
        &mut self,
        make: &dyn Fn(f64) -> L,
    ) -> Self::Out;
}

/// Runs `job` with the layer of `method` on `system`.
pub fn dispatch<P: Hessian<f64, N> + Clone, J: Job<P, N>, const N: usize>(
    method: Method,
    system: &System<f64, P, N>,
    job: &mut J,
) -> J::Out {
    let s = system.clone();
    match method {
        Method::Euler => {
            job.run(&|h| ExplicitRk::<f64, P, Euler, N>::new(s.clone(), h).expect("h > 0"))
        }
        Method::Heun => {
            job.run(&|h| ExplicitRk::<f64, P, Heun, N>::new(s.clone(), h).expect("h > 0"))
        }
        Method::Rk4 => {
            job.run(&|h| ExplicitRk::<f64, P, Rk4, N>::new(s.clone(), h).expect("h > 0"))
        }
        Method::SymplecticEuler => {
            job.run(&|h| SymplecticEuler::new(s.clone(), h, Ordering::KickDrift).expect("h > 0"))
        }
        Method::Verlet => job.run(&|h| VelocityVerlet::new(s.clone(), h).expect("h > 0")),
    }
}

/// The converted integrator of a layer, guards off (the measurements are of the raw maps).
pub fn convert<L: StandardLayer<f64, N>, const N: usize>(layer: L) -> Converted<f64, L, N> {
    Converted::new(layer, ConvertParams::default())
        .expect("default parameters are valid")
        .with_guards(Guards::off())
        .expect("guards off is accepted")
}

/// Global errors `max |Δq|, |Δv|` at `t_end` of source and converted, for each `h`.
pub struct OrderJob<const N: usize> {
    /// Start.
    pub s0: State<f64, N>,
    /// End time (a multiple of every `h`).
    pub t_end: f64,
    /// Steps.
    pub hs: Vec<f64>,
    /// The reference state at `t_end`.
    pub exact: State<f64, N>,
}

fn state_error<const N: usize>(a: &State<f64, N>, b: &State<f64, N>) -> f64 {
    (a.q - b.q).amax().max((a.v - b.v).amax())
}

impl<P, const N: usize> Job<P, N> for OrderJob<N> {
    type Out = (Vec<f64>, Vec<f64>);
    fn run<L: StandardLayer<f64, N, Potential = P>>(
        &mut self,
        make: &dyn Fn(f64) -> L,
    ) -> Self::Out {
        let mut src = Vec::new();
        let mut conv = Vec::new();
        for &h in &self.hs {
            let steps = (self.t_end / h).round() as usize;
            let mut a = make(h).with_guards(Guards::off()).expect("guards off");
            let mut s = self.s0;
            let e = match a.integrate(&mut s, steps) {
                Ok(()) => state_error(&s, &self.exact),
                Err(_) => f64::INFINITY,
            };
            src.push(e);
            let mut c = convert(make(h));
            let mut s = self.s0;
            c.integrate(&mut s, steps).expect("converted run failed");
            conv.push(state_error(&s, &self.exact));
        }
        (src, conv)
    }
}

/// Symplecticity defect of one step of source and converted from `s0`.
pub struct DefectJob<const N: usize> {
    /// Where the Jacobian is taken.
    pub s0: State<f64, N>,
    /// Step size.
    pub h: f64,
}

impl<P: Hessian<f64, N>, const N: usize> Job<P, N> for DefectJob<N> {
    type Out = (f64, f64);
    fn run<L: StandardLayer<f64, N, Potential = P>>(
        &mut self,
        make: &dyn Fn(f64) -> L,
    ) -> Self::Out {
        let mut a = make(self.h).with_guards(Guards::off()).expect("guards off");
        let mass = a.system().mass;
        let src = integrator_defect(&mut a, &mass, &self.s0, 1, 1e-6);
        let mut c = convert(make(self.h));
        let conv = integrator_defect(&mut c, &mass, &self.s0, 1, 1e-6);
        (src, conv)
    }
}

/// A long run's energy error `|H − H₀|`, sampled.
#[derive(Clone, Debug, Default)]
pub struct EnergyTrace {
    /// `(t, |H − H₀|)` samples at geometrically spaced times (the maximum over each interval).
    pub points: Vec<(f64, f64)>,
    /// Maximum over the run (until a failure).
    pub max: f64,
    /// When the run failed (a step error or `|H − H₀| > 10`), if it did.
    pub failed_at: Option<f64>,
}

/// Long runs of source and converted.
pub struct LongJob<const N: usize> {
    /// Start.
    pub s0: State<f64, N>,
    /// Step.
    pub h: f64,
    /// Steps.
    pub steps: usize,
    /// Number of samples.
    pub samples: usize,
}

fn trace<I: Integrator<f64, N>, P: macrostep::model::Potential<f64, N>, const N: usize>(
    integ: &mut I,
    system: &System<f64, P, N>,
    job: &LongJob<N>,
) -> EnergyTrace {
    let e0 = system.energy(&job.s0);
    // Geometric sampling (log time axis): the unstable sources fail within a few periods.
    let ratio = (job.steps as f64).powf(1.0 / job.samples.max(1) as f64);
    let mut next = 1usize;
    let mut out = EnergyTrace::default();
    let mut s = job.s0;
    let mut window = 0.0f64;
    for k in 1..=job.steps {
        let err = match integ.step(&mut s) {
            Ok(()) => (system.energy(&s) - e0).abs(),
            Err(_) => f64::INFINITY,
        };
        if err.is_nan() || err > 10.0 {
            out.failed_at = Some(k as f64 * job.h);
            break;
        }
        window = window.max(err);
        out.max = out.max.max(err);
        if k == next {
            out.points.push((k as f64 * job.h, window));
            window = 0.0;
            next = (next + 1).max((next as f64 * ratio) as usize);
        }
    }
    out
}

impl<P: Hessian<f64, N> + Clone, const N: usize> Job<P, N> for LongJob<N> {
    type Out = (EnergyTrace, EnergyTrace);
    fn run<L: StandardLayer<f64, N, Potential = P>>(
        &mut self,
        make: &dyn Fn(f64) -> L,
    ) -> Self::Out {
        let mut a = make(self.h).with_guards(Guards::off()).expect("guards off");
        let system: System<f64, P, N> = a.system().clone();
        let src = trace(&mut a, &system, self);
        let mut c = convert(make(self.h));
        let conv = trace(&mut c, &system, self);
        (src, conv)
    }
}

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
        }
    }

    /// A quick version for tests (shorter runs, three step sizes).
    pub fn quick() -> Self {
        Self {
            order_hs: vec![0.01, 0.005, 0.0025],
            pendulum_t: 20.0,
            double_t: 10.0,
            samples: 50,
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
    }
}

fn failed(t: &EnergyTrace) -> String {
    t.failed_at.map_or("-".into(), |t| format!("{t:.1}"))
}

/// Prints the tables, the figure lines and the energy charts.
pub fn report(r: &Results) {
    let s = &r.setup;
    crate::say!(
        "003: one-step methods converted to variational integrators (penalised pendula, ω = {})",
        s.omega
    );
    crate::say!(
        "order: global error at t = {} vs DOP853, h = {:?}; defect: one step, h = {}",
        s.order_t,
        s.order_hs,
        s.h
    );
    let t = Table::new(&[
        "method",
        "ORDER",
        "order src",
        "order conv",
        "defect src",
        "defect conv",
    ]);
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
    crate::say!(
        "\nlong runs, h = {}: pendulum to t = {}, double pendulum to t = {}; max |H − H₀|",
        s.h,
        s.pendulum_t,
        s.double_t
    );
    let t = Table::new(&["model", "method", "src max", "src failed at", "conv max"]);
    for l in &r.long {
        t.row(&[
            l.model.into(),
            l.method.name().into(),
            sci(l.source.max),
            failed(&l.source),
            sci(l.converted.max),
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
        emit(&Chart {
            stem: format!("convert.{model}_energy"),
            title: format!("{model}: energy error, source vs converted (h = {})", s.h),
            x_label: "t".into(),
            y_label: "|H − H₀|".into(),
            log_x: true,
            log_y: true,
            series,
        });
    }
}

/// `reproduce convert`.
pub fn run() {
    let setup = crate::options::setup(Setup::paper, Setup::quick);
    report(&compute(&setup));
}
