//! The constrained half of `reproduce convert` (003 §3, stages S1–S4): explicit Euler, Heun and
//! RK4 on the index-1 form of the rigid pendulum (002 §5, `|q| = 1`) and the rigid double
//! pendulum (000 §4.1, two rods), each beside its [`ConvertedConstrained`] map:
//!
//! - order: global error `max(‖q − q_ref‖∞, ‖v − v_ref‖∞)` at `t = order_t` against the
//!   generalised-coordinate references of [`crate::rigid`] (DOP853), log–log slope over `hs`;
//! - symplecticity on the manifold: [`crate::manifold::manifold_defect`], the restriction of
//!   `dq ∧ d(Mv)` to the tangent space of `{g = 0, g′v = 0}` (tangent basis from the null space
//!   of the constraints' derivative, central differences of step `1e-6` along RATTLE-projected
//!   perturbations); the source leaves the manifold, so its defect is that of the same pull-back;
//! - long runs: `|H − H₀|` (maximum, and the ratio of the maxima over the second and the first
//!   half of the run: `≈ 1` bounded, `≈ 2` for a linear drift) and the constraint residual
//!   [`Constraint::residual`] (relative `|‖d‖² − L²| / L²`).

use super::Method;
use crate::manifold::{from_x, manifold_defect, to_x};
use crate::measure::loglog_slope;
use crate::plot::{emit, Chart, Series};
use crate::report::{figure, sci, Output, Table};
use crate::rigid;
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::convert::{
    ConstrainedRk, ConvertParams, ConvertedConstrained, Euler, Heun, Rk4, Tableau,
};
use macrostep::model::{Constraint, Hessian, System};
use macrostep::nalgebra::SVector;
use macrostep::systems::{DoublePendulum, Pendulum};
use macrostep::{Guards, Integrator, State, Stepper};

/// Parameters of the constrained measurements.
#[derive(Clone, Debug)]
pub struct ConstrainedSetup {
    /// Step sizes of the order measurement.
    pub hs: Vec<f64>,
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

impl ConstrainedSetup {
    /// The full run: `h = 0.05`, pendulum to `t = 2000`, double pendulum to `t = 1000`.
    pub fn paper() -> Self {
        Self {
            hs: vec![0.04, 0.02, 0.01],
            order_t: 2.0,
            h: 0.05,
            pendulum_t: 2_000.0,
            double_t: 1_000.0,
            samples: 300,
        }
    }

    /// A quick version for tests (short long runs).
    pub fn quick() -> Self {
        Self {
            pendulum_t: 20.0,
            double_t: 10.0,
            samples: 40,
            ..Self::paper()
        }
    }
}

/// A long run's energy and constraint behaviour.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// `(t, |H − H₀|)` samples at geometrically spaced times (maximum over each interval).
    pub points: Vec<(f64, f64)>,
    /// Maximum of `|H − H₀|` until a failure.
    pub energy_max: f64,
    /// Max of `|H − H₀|` over the second half of the run divided by the max over the first
    /// (infinite when the run failed).
    pub energy_growth: f64,
    /// Maximum constraint residual.
    pub residual_max: f64,
    /// When the run failed (a step error or `|H − H₀| > 10`), if it did.
    pub failed_at: Option<f64>,
    /// Mean and maximum fixed-point iterations per step (converted runs; zero for sources).
    pub iterations: (f64, u32),
}

/// One model and method, source beside converted.
#[derive(Clone, Debug)]
pub struct ConstrainedRow {
    /// `"pendulum"` or `"double_pendulum"`.
    pub model: &'static str,
    /// The source tableau.
    pub method: Method,
    /// The source's claimed `ORDER`.
    pub claimed: u32,
    /// Observed order of the source.
    pub source_order: f64,
    /// Observed order of the converted method.
    pub order: f64,
    /// Global errors of the source at `hs`.
    pub source_errors: Vec<f64>,
    /// Global errors of the converted method.
    pub errors: Vec<f64>,
    /// Symplecticity defect on the manifold of the source.
    pub source_defect: f64,
    /// Symplecticity defect on the manifold of the converted method.
    pub defect: f64,
    /// Long run of the source.
    pub source: Trace,
    /// Long run of the converted method.
    pub converted: Trace,
}

/// A model: system, constraint, start, reference at `order_t`, a point for the defect.
struct Model<P, G, const N: usize> {
    name: &'static str,
    system: System<f64, P, N>,
    constraint: G,
    s0: State<f64, N>,
    exact: (SVector<f64, N>, SVector<f64, N>),
    defect_at: State<f64, N>,
    t_long: f64,
}

type Source<K, P, G, const N: usize, const D: usize> = ConstrainedRk<f64, P, G, K, N, D>;

fn source<
    K: Tableau,
    P: Hessian<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
    const N: usize,
    const D: usize,
>(
    m: &Model<P, G, N>,
    h: f64,
) -> Source<K, P, G, N, D> {
    ConstrainedRk::new(m.system.clone(), m.constraint.clone(), h)
        .expect("h > 0")
        .with_guards(Guards::off())
        .expect("guards off")
}

/// The converted source, with guards off (the run measures its own failures).
pub fn converted<
    K: Tableau,
    P: Hessian<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
    const N: usize,
    const D: usize,
>(
    system: &System<f64, P, N>,
    constraint: &G,
    h: f64,
) -> ConvertedConstrained<f64, Source<K, P, G, N, D>, N, D> {
    let layer = ConstrainedRk::new(system.clone(), constraint.clone(), h).expect("h > 0");
    ConvertedConstrained::new(
        layer,
        ConvertParams::default(),
        ConstraintNewtonParams::default(),
    )
    .expect("valid parameters")
    .with_guards(Guards::off())
    .expect("guards off")
}

fn global_error<I: Integrator<f64, N>, const N: usize>(
    mut integ: I,
    s0: &State<f64, N>,
    t: f64,
    h: f64,
    exact: &(SVector<f64, N>, SVector<f64, N>),
) -> f64 {
    let mut s = *s0;
    let n = (t / h).round() as usize;
    if integ.integrate(&mut s, n).is_err() {
        return f64::INFINITY;
    }
    (s.q - exact.0).amax().max((s.v - exact.1).amax())
}

fn trace<
    I: Integrator<f64, N>,
    P: Hessian<f64, N>,
    G: Constraint<f64, N, D>,
    const N: usize,
    const D: usize,
>(
    integ: &mut I,
    m: &Model<P, G, N>,
    setup: &ConstrainedSetup,
    iterations: impl Fn(&I) -> u32,
) -> Trace {
    let steps = (m.t_long / setup.h).round() as usize;
    let e0 = m.system.energy(&m.s0);
    let ratio = (steps as f64).powf(1.0 / setup.samples.max(1) as f64);
    let (mut next, mut window, mut halves) = (1usize, 0.0f64, [0.0f64; 2]);
    let mut out = Trace::default();
    let mut s = m.s0;
    for k in 1..=steps {
        let err = match integ.step(&mut s) {
            Ok(()) => (m.system.energy(&s) - e0).abs(),
            Err(_) => f64::INFINITY,
        };
        if err.is_nan() || err > 10.0 {
            out.failed_at = Some(k as f64 * setup.h);
            break;
        }
        out.residual_max = out.residual_max.max(m.constraint.residual(&s.q));
        window = window.max(err);
        halves[usize::from(2 * k > steps)] = halves[usize::from(2 * k > steps)].max(err);
        out.energy_max = out.energy_max.max(err);
        let it = iterations(integ);
        out.iterations.0 += (f64::from(it) - out.iterations.0) / k as f64;
        out.iterations.1 = out.iterations.1.max(it);
        if k == next {
            out.points.push((k as f64 * setup.h, window));
            window = 0.0;
            next = (next + 1).max((next as f64 * ratio) as usize);
        }
    }
    // A run that failed drifted to failure.
    out.energy_growth = if out.failed_at.is_some() {
        f64::INFINITY
    } else {
        halves[1] / halves[0]
    };
    out
}

fn measure<
    K: Tableau,
    P: Hessian<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
    const N: usize,
    const D: usize,
>(
    m: &Model<P, G, N>,
    method: Method,
    setup: &ConstrainedSetup,
) -> ConstrainedRow {
    let (mut source_errors, mut errors) = (Vec::new(), Vec::new());
    for &h in &setup.hs {
        source_errors.push(global_error(
            source::<K, _, _, N, D>(m, h),
            &m.s0,
            setup.order_t,
            h,
            &m.exact,
        ));
        let c = converted::<K, _, _, N, D>(&m.system, &m.constraint, h);
        errors.push(global_error(c, &m.s0, setup.order_t, h, &m.exact));
    }
    let mass = m.system.mass;
    let rattle = Rattle::new(
        m.system.clone(),
        m.constraint.clone(),
        setup.h,
        ConstraintNewtonParams::default(),
    )
    .expect("valid RATTLE");
    let project = |x: &_| {
        let mut s = from_x(x, &mass);
        rattle.project(&mut s).expect("projection converges");
        to_x(&s, &mass)
    };
    let x0 = to_x(&m.defect_at, &mass);
    let mut src = source::<K, _, _, N, D>(m, setup.h);
    let source_defect = manifold_defect(
        &m.constraint,
        &mass,
        &x0,
        |x| {
            let mut s = from_x(x, &mass);
            src.step(&mut s).expect("source step");
            to_x(&s, &mass)
        },
        project,
        1e-6,
    );
    let mut conv = converted::<K, _, _, N, D>(&m.system, &m.constraint, setup.h);
    let defect = manifold_defect(
        &m.constraint,
        &mass,
        &x0,
        |x| {
            let mut s = from_x(x, &mass);
            conv.step(&mut s).expect("converted step");
            to_x(&s, &mass)
        },
        project,
        1e-6,
    );
    let mut src = source::<K, _, _, N, D>(m, setup.h);
    let source = trace(&mut src, m, setup, |_| 0);
    let mut conv = converted::<K, _, _, N, D>(&m.system, &m.constraint, setup.h);
    let converted = trace(&mut conv, m, setup, |c| c.iterations());
    ConstrainedRow {
        model: m.name,
        method,
        claimed: K::ORDER,
        source_order: loglog_slope(&setup.hs, &source_errors),
        order: loglog_slope(&setup.hs, &errors),
        source_errors,
        errors,
        source_defect,
        defect,
        source,
        converted,
    }
}

fn rows<
    P: Hessian<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
    const N: usize,
    const D: usize,
>(
    m: &Model<P, G, N>,
    setup: &ConstrainedSetup,
) -> Vec<ConstrainedRow> {
    Method::EXPLICIT
        .iter()
        .map(|&method| match method {
            Method::Euler => measure::<Euler, _, _, N, D>(m, method, setup),
            Method::Heun => measure::<Heun, _, _, N, D>(m, method, setup),
            _ => measure::<Rk4, _, _, N, D>(m, method, setup),
        })
        .collect()
}

fn arr<const N: usize>(x: &SVector<f64, N>) -> [f64; N] {
    core::array::from_fn(|i| x[i])
}

/// Every constrained row: the pendulum's three methods, then the double pendulum's.
pub fn compute_constrained(setup: &ConstrainedSetup) -> Vec<ConstrainedRow> {
    let p = Pendulum::<f64>::paper();
    let s0 = p.initial_state();
    let r =
        rigid::Pendulum::default().solve(&arr(&s0.q), &arr(&s0.v), &[setup.order_t], 1e-13, 1e-13);
    let (a, w) = (0.7f64, 0.5f64);
    let pendulum = Model {
        name: "pendulum",
        system: p.system(),
        constraint: p.constraint(),
        s0,
        exact: (SVector::from(r[0].q), SVector::from(r[0].v)),
        defect_at: State::new(
            0.0,
            [a.sin(), -a.cos()].into(),
            [w * a.cos(), w * a.sin()].into(),
        ),
        t_long: setup.pendulum_t,
    };
    let mut out = rows::<_, _, 2, 1>(&pendulum, setup);
    let dp = DoublePendulum::<f64>::paper();
    let s0 = dp.initial_state();
    let r = rigid::DoublePendulum::seed().solve(
        &arr(&s0.q),
        &arr(&s0.v),
        &[setup.order_t],
        1e-13,
        1e-13,
    );
    // A moving configuration: angles (0.5, −0.3), angular velocities (0.4, 0.7).
    let (th, ph, dth, dph) = (0.5f64, -0.3f64, 0.4f64, 0.7f64);
    let l = dp.lengths();
    let v1 = [l[0] * th.cos() * dth, l[0] * th.sin() * dth];
    let v = [
        v1[0],
        v1[1],
        v1[0] + l[1] * ph.cos() * dph,
        v1[1] + l[1] * ph.sin() * dph,
    ];
    let double = Model {
        name: "double_pendulum",
        system: dp.system(),
        constraint: dp.constraint(),
        s0,
        exact: (SVector::from(r[0].q), SVector::from(r[0].v)),
        defect_at: State::new(0.0, dp.from_angles(th, ph), v.into()),
        t_long: setup.double_t,
    };
    out.extend(rows::<_, _, 4, 2>(&double, setup));
    out
}

fn failed(t: &Trace) -> String {
    t.failed_at.map_or("-".into(), |t| format!("{t:.1}"))
}

/// Prints the constrained table, its figure lines and the energy charts.
pub fn report(rows: &[ConstrainedRow], s: &ConstrainedSetup, out: &Output) {
    crate::say!(
        out,
        "\n003 §3: constrained conversion on the rigid pendula (Cartesian, |q| = L), sources on the \
         index-1 ODE; order at t = {} vs the angle-coordinate reference, h = {:?}; defect on the \
         manifold and long runs at h = {} (pendulum to t = {}, double pendulum to t = {})",
        s.order_t,
        s.hs,
        s.h,
        s.pendulum_t,
        s.double_t
    );
    let t = Table::new(
        out,
        &[
            "model",
            "method",
            "ORDER",
            "ord src",
            "ord conv",
            "defect src",
            "defect conv",
            "|ΔH| src",
            "growth src",
            "failed",
            "|ΔH| conv",
            "growth conv",
            "resid src",
            "resid conv",
            "iter",
        ],
    );
    for r in rows {
        t.row(&[
            r.model.into(),
            r.method.name().into(),
            r.claimed.to_string(),
            format!("{:.3}", r.source_order),
            format!("{:.3}", r.order),
            sci(r.source_defect),
            sci(r.defect),
            sci(r.source.energy_max),
            if r.source.failed_at.is_some() {
                "-".into()
            } else {
                format!("{:.2}", r.source.energy_growth)
            },
            failed(&r.source),
            sci(r.converted.energy_max),
            format!("{:.2}", r.converted.energy_growth),
            sci(r.source.residual_max),
            sci(r.converted.residual_max),
            format!(
                "{:.1}/{}",
                r.converted.iterations.0, r.converted.iterations.1
            ),
        ]);
    }
    for r in rows {
        let p = format!("convert.constrained.{}.{}", r.model, r.method.name());
        figure(&format!("{p}.order"), r.order);
        figure(&format!("{p}.source_order"), r.source_order);
        figure(&format!("{p}.symplectic_defect"), r.defect);
        figure(&format!("{p}.source_symplectic_defect"), r.source_defect);
        figure(&format!("{p}.residual_max"), r.converted.residual_max);
        figure(&format!("{p}.source_residual_max"), r.source.residual_max);
        figure(&format!("{p}.energy_error_max"), r.converted.energy_max);
        figure(&format!("{p}.source_energy_error_max"), r.source.energy_max);
        figure(&format!("{p}.energy_growth"), r.converted.energy_growth);
        figure(&format!("{p}.iterations_mean"), r.converted.iterations.0);
    }
    plot_energy(rows, s, out);
}

/// The energy-error curves, source vs converted, one chart per model.
fn plot_energy(rows: &[ConstrainedRow], s: &ConstrainedSetup, out: &Output) {
    for model in ["pendulum", "double_pendulum"] {
        let mut series = Vec::new();
        for r in rows.iter().filter(|r| r.model == model) {
            series.push(Series {
                label: format!("{} (source, index-1 ODE)", r.method.name()),
                points: r.source.points.clone(),
            });
            series.push(Series {
                label: format!("{} converted", r.method.name()),
                points: r.converted.points.clone(),
            });
        }
        emit(
            out,
            &Chart {
                stem: format!("convert.constrained_{model}_energy"),
                title: format!(
                    "rigid {model}: energy error, source vs converted (h = {})",
                    s.h
                ),
                x_label: "t".into(),
                y_label: "|H − H₀|".into(),
                log_x: true,
                log_y: true,
                series,
            },
        );
    }
}
