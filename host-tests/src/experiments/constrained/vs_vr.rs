//! `reproduce vs-vr`: SHAKE (VS) vs RATTLE (VR) on the spring chain (001 §3–4, §7, Fig 2).

use crate::experiments::Experiment;
use crate::report::{figure, sci, Output, Table};
use macrostep::constrained::{ConstraintNewtonParams, Rattle, Shake};
use macrostep::model::Constraint;
use macrostep::systems::SpringChain;
use macrostep::Integrator;

/// What to run.
pub struct Setup {
    /// The step size.
    pub h: f64,
    /// The number of steps.
    pub steps: usize,
    /// A table row every this many steps.
    pub every: usize,
}

impl Setup {
    /// 001 §7: h = 0.01, t ∈ [0, 10], a row every 1.0.
    pub fn paper() -> Self {
        Self {
            h: 0.01,
            steps: 1000,
            every: 100,
        }
    }

    /// The paper setup: it runs in milliseconds, nothing to reduce.
    pub fn quick() -> Self {
        Self::paper()
    }
}

/// One table row: `(t, |q_VS − q_VR|, |g'v| VR, |g'v| VS)` (max norms).
pub type Row = (f64, f64, f64, f64);

/// What the experiment measured (maxima over all steps).
pub struct Results {
    /// The step size.
    pub h: f64,
    /// A row every [`Setup::every`] steps.
    pub rows: Vec<Row>,
    /// A row after every step (Fig 2).
    pub trace: Vec<Row>,
    /// `max |q_VS − q_VR|`.
    pub position_diff: f64,
    /// `max |g'(q) v|` of VR.
    pub vr_residual: f64,
    /// `max |g'(q) v|` of VS.
    pub vs_residual: f64,
    /// The same over the first half of the steps.
    pub vs_residual_first_half: f64,
    /// ... and over the second half.
    pub vs_residual_second_half: f64,
    /// `max |H − H₀|` of VR.
    pub vr_energy_error: f64,
    /// `max |H − H₀|` of VS.
    pub vs_energy_error: f64,
}

/// Runs VS and VR side by side from the same start.
pub fn compute(setup: &Setup) -> Results {
    let sc = SpringChain::<f64>::paper();
    let (sys, g) = (sc.system(), sc.constraint());
    let (h, n) = (setup.h, setup.steps);
    let params = ConstraintNewtonParams::default();
    let mut vr = Rattle::new(sys, g, h, params).expect("Rattle");
    let mut vs = Shake::new(sys, g, h, params).expect("Shake");
    let (mut a, mut b) = (sc.initial_state(), sc.initial_state());
    let e0 = sys.energy(&a);
    let mut r = Results {
        h,
        rows: Vec::new(),
        trace: Vec::with_capacity(n),
        position_diff: 0.0,
        vr_residual: 0.0,
        vs_residual: 0.0,
        vs_residual_first_half: 0.0,
        vs_residual_second_half: 0.0,
        vr_energy_error: 0.0,
        vs_energy_error: 0.0,
    };
    for k in 1..=n {
        vr.step(&mut a).expect("VR step");
        vs.step(&mut b).expect("VS step");
        let d = (a.q - b.q).amax();
        let rr = (g.jacobian(&a.q) * a.v).amax();
        let rs = (g.jacobian(&b.q) * b.v).amax();
        r.position_diff = r.position_diff.max(d);
        r.vr_residual = r.vr_residual.max(rr);
        r.vs_residual = r.vs_residual.max(rs);
        if k <= n / 2 {
            r.vs_residual_first_half = r.vs_residual_first_half.max(rs);
        } else {
            r.vs_residual_second_half = r.vs_residual_second_half.max(rs);
        }
        r.vr_energy_error = r.vr_energy_error.max((sys.energy(&a) - e0).abs());
        r.vs_energy_error = r.vs_energy_error.max((sys.energy(&b) - e0).abs());
        r.trace.push((a.t, d, rr, rs));
        if k % setup.every == 0 {
            r.rows.push((a.t, d, rr, rs));
        }
    }
    r
}

/// Prints the table and the `figure` lines.
pub fn report(r: &Results, out: &Output) {
    let h = r.h;
    crate::say!(
        out,
        "001 §7 spring chain: 6 nodes, 5 rods, κ = 1, zigzag start rotating (see SpringChain)"
    );
    crate::say!(out, "VS = SHAKE (eqs 15–18), VR = RATTLE (eqs 24–28), h = {h}, t ∈ [0, 10], Newton tol = 1000 ε");
    let table = Table::new(out, &["t", "|q_VS − q_VR|", "|g'v| VR", "|g'v| VS"]);
    for &(t, d, rr, rs) in &r.rows {
        table.row(&[format!("{t:.1}"), sci(d), sci(rr), sci(rs)]);
    }
    figure("vs-vr.position_diff_max", r.position_diff);
    figure("vs-vr.vr_velocity_residual_max", r.vr_residual);
    figure("vs-vr.vs_velocity_residual_max", r.vs_residual);
    figure(
        "vs-vr.vs_velocity_residual_max_first_half",
        r.vs_residual_first_half,
    );
    figure(
        "vs-vr.vs_velocity_residual_max_second_half",
        r.vs_residual_second_half,
    );
    figure("vs-vr.vr_energy_error_max", r.vr_energy_error);
    figure("vs-vr.vs_energy_error_max", r.vs_energy_error);
    fig2(r, out);
}

/// 001 Fig 2: the velocity-level constraint residual of VS over time, with VR's (rounding
/// level) and the distance between the two position paths.
fn fig2(r: &Results, out: &Output) {
    use crate::plot::{emit, Chart, Series};
    let curve = |f: fn(&Row) -> f64| r.trace.iter().map(|row| (row.0, f(row))).collect();
    emit(
        out,
        &Chart {
            stem: format!("{}.fig2_velocity_residual", VsVrExperiment::NAME),
            title: format!(
                "001 Fig 2: velocity-level constraint residual, spring chain, h = {}",
                r.h
            ),
            x_label: "time t [s]".into(),
            y_label: "max-norm residual or difference [model units]".into(),
            log_x: false,
            log_y: true,
            series: vec![
                Series::new("VS = SHAKE (001 eqs 15–18): |g′(q)v|", curve(|x| x.3)),
                Series::new("VR = RATTLE (001 eqs 24–28): |g′(q)v|", curve(|x| x.2)),
                Series::new("|q_VS − q_VR|", curve(|x| x.1)),
            ],
        },
    );
}

/// `reproduce vs-vr`: 001 §3–4 and Fig 2 on the spring chain (`systems::SpringChain`, κ = 1),
/// t ∈ [0, 10], h = 0.01.
pub struct VsVrExperiment;

impl Experiment for VsVrExperiment {
    const NAME: &'static str = "vs-vr";
    const SEED: &'static str = "001 §3–4 Fig 2";
    const SECONDS: f64 = 0.0;
    const ABOUT: &'static str =
        "001 §3–4, Fig 2: SHAKE (VS) vs RATTLE (VR) on the 6-node spring chain";
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
