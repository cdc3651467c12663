//! The measurements of `reproduce convert`, generic over the standard layer a [`Method`]
//! builds (one [`Job`] per measurement, [`dispatch`] picks the layer type).

use crate::measure::integrator_defect;
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::convert::{ConvertParams, Converted, Euler, ExplicitRk, Heun, Rk4, StandardLayer};
use macrostep::model::{Hessian, System};
use macrostep::{Guards, Integrator, State, Stepper};

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
        Method::SymplecticEuler => job
            .run(&|h| SymplecticEuler::new(s.clone(), h, EulerOrdering::KickDrift).expect("h > 0")),
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
    /// Mean and maximum fixed-point iterations per step (converted runs; zero for sources).
    pub iterations: (f64, u32),
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
    iterations: impl Fn(&I) -> u32,
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
        let it = iterations(integ);
        out.iterations.0 += (f64::from(it) - out.iterations.0) / k as f64;
        out.iterations.1 = out.iterations.1.max(it);
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
        let src = trace(&mut a, &system, self, |_| 0);
        let mut c = convert(make(self.h));
        let conv = trace(&mut c, &system, self, |c| c.iterations());
        (src, conv)
    }
}
