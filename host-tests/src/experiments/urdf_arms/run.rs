//! One free (uncontrolled) run of an emitted mechanism under gravity, from rest at its build
//! pose, by RATTLE on the exact constraints or Z&S on the penalty form.

use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::mechanism::Mechanism;
use macrostep::model::Constraint;
use macrostep::nalgebra::SVector;
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{Integrator, State, StepError};

/// The method of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// RATTLE on the mechanism's exact constraints (`Mechanism::system` + `constraint`).
    Rattle,
    /// Z&S on the penalty form `V + ½ ω² Σ gₖ²` with this `ω`.
    Zs(f64),
}

/// What one run measured.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Steps completed.
    pub steps: usize,
    /// The error that stopped the run early, if one did.
    pub error: Option<StepError>,
    /// The energy at the start (J): `½ vᵀMv + V` (plus the penalty energy for Z&S).
    pub e0: f64,
    /// `max |E(t) − E(0)|` (J).
    pub max_de: f64,
    /// `max` over the run of the constraint residual (`Linkage::residual`: each row's violation
    /// relative to its length scale squared, dimensionless).
    pub residual: f64,
    /// `max |L_z(t) − L_z(0)|`, angular momentum about the world `z` axis through the origin
    /// (kg m²/s; conserved in 3-D when the base joint turns about `z` and gravity is along `−z`).
    pub lz_drift: f64,
    /// `(t, E(t) − E(0))` every `sample` steps.
    pub energy: Vec<(f64, f64)>,
    /// Each joint's angle at the end (rad, `Mechanism::joint_angle`).
    pub angles: Vec<f64>,
}

/// Steps `mech` (with `joints` to read at the end) from rest for `t_end` with step `h`,
/// recording `E(t) − E(0)` every `sample` steps.
pub fn run<const DIM: usize, const N: usize, const D: usize, const B: usize, const J: usize>(
    mech: &Mechanism<f64, DIM, N, D, 0, B, J>,
    joints: &[usize],
    method: Method,
    h: f64,
    t_end: f64,
    sample: usize,
) -> Run {
    let steps = (t_end / h).round() as usize;
    let mut s = mech.initial_state();
    let mut out = Run::default();
    match method {
        Method::Rattle => {
            let sys = mech.system();
            let mut r = Rattle::new(sys, mech.constraint(), h, ConstraintNewtonParams::default())
                .expect("a valid step");
            walk(
                mech,
                &mut s,
                steps,
                sample,
                &mut out,
                |s| sys.energy(s),
                |s| r.step(s),
            );
        }
        Method::Zs(omega) => {
            let sys = mech.penalised(omega).expect("a valid ω");
            let mut z = ZhangSkeel::new(sys, h, ZsParams::default()).expect("a valid step");
            walk(
                mech,
                &mut s,
                steps,
                sample,
                &mut out,
                |s| sys.energy(s),
                |s| z.step(s),
            );
        }
    }
    out.angles = joints
        .iter()
        .map(|&j| mech.joint_angle(j, &s.q).unwrap_or(f64::NAN))
        .collect();
    out
}

/// The stepping loop shared by both methods.
fn walk<const DIM: usize, const N: usize, const D: usize, const B: usize, const J: usize>(
    mech: &Mechanism<f64, DIM, N, D, 0, B, J>,
    s: &mut State<f64, N>,
    steps: usize,
    sample: usize,
    out: &mut Run,
    energy: impl Fn(&State<f64, N>) -> f64,
    mut step: impl FnMut(&mut State<f64, N>) -> Result<(), StepError>,
) {
    let g = mech.constraint();
    let lz = |q: &SVector<f64, N>, v: &SVector<f64, N>| mech.angular_momentum(q, v)[2];
    let lz0 = lz(&s.q, &s.v);
    out.e0 = energy(s);
    out.energy.push((s.t, 0.0));
    for k in 1..=steps {
        if let Err(e) = step(s) {
            out.error = Some(e);
            return;
        }
        out.steps = k;
        let de = energy(s) - out.e0;
        out.max_de = out.max_de.max(de.abs());
        out.residual = out.residual.max(g.residual(&s.q));
        out.lz_drift = out.lz_drift.max((lz(&s.q, &s.v) - lz0).abs());
        if k % sample.max(1) == 0 {
            out.energy.push((s.t, de));
        }
    }
}
