//! The arm of `arm-peers` (the mechanism `urdf2mech` emits from `planar_arm3.urdf`, and the same
//! links as an articulated-body chain), its reference, and the methods compared on it: the
//! crate's penalty methods (Z&S, SyLiPN) and RATTLE on the emitted mechanism, DOP853 on the O(n)
//! articulated-body chain, and rapier's multibody (with the `peers` feature).
//!
//! Observables: the three joint angles (the mechanism's `joint_angle`: relative, counter-clockwise
//! in the arm's plane, zero at the build pose) at the outputs, flattened. Errors are angle
//! differences wrapped into `(−π, π]` (the wrist is a continuous joint and `joint_angle` reads
//! an `atan2`).

use crate::experiments::peers::zs_methods::{zs_and_sylipn, PenaltyRun};
use crate::experiments::peers::{self, fixed};
use crate::experiments::urdf_arms::models::planar_arm3;
use crate::experiments::work_precision::run_fixed;
use crate::experiments::work_precision::search::{Method, Outcome};
use crate::reference::chain::outputs;
use crate::reference::planar::{solve_at_step_ends, solve_dense, Link, PlanarChain};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::linalg::Dense;
use macrostep::State;
use std::f64::consts::{FRAC_PI_2, PI};

/// Gravity (m/s², the URDF's `−z`).
pub const G: f64 = 9.81;
/// Coordinates and rows of the emitted mechanism.
pub const N: usize = planar_arm3::N;
/// See [`N`].
pub const D: usize = planar_arm3::D;

/// The emitted arm at its zero configuration (stretched horizontally along `+x`), with its
/// joint ids.
pub fn mechanism() -> (planar_arm3::Mech<f64>, [usize; 3]) {
    let (m, ids) = planar_arm3::build::<f64>(G).expect("the emitted arm builds");
    (m, ids.joints)
}

/// The same links as an articulated-body chain, read off the URDF by hand (`planar_arm3.urdf`;
/// the 0.1 kg tool 0.4 m out on the hand fused into it: 0.6 kg, COM 0.15 m, inertia
/// `0.002 + 0.5·0.05² + 0.1·0.25² = 0.0095` kg·m² about it). Angles from the downward vertical:
/// the build pose is `q = (π/2, 0, 0)`.
pub fn chain() -> PlanarChain<3> {
    PlanarChain::new(
        [
            Link::compound(0.4, 1.2, [0.2, 0.0], 0.01625),
            Link::compound(0.3, 0.8, [0.15, 0.0], 0.0061),
            Link::compound(0.4, 0.6, [0.15, 0.0], 0.0095),
        ],
        G,
    )
}

/// The chain's start: the build pose at rest.
pub const START: [f64; 6] = [FRAC_PI_2, 0.0, 0.0, 0.0, 0.0, 0.0];

/// `x` wrapped into `(−π, π]`.
pub fn wrap(x: f64) -> f64 {
    let y = (x + PI).rem_euclid(2.0 * PI) - PI;
    if y == -PI {
        PI
    } else {
        y
    }
}

/// Max wrapped angle difference over two flattened observables (∞ when their lengths differ).
pub fn max_angle_diff(a: &[f64], b: &[f64]) -> f64 {
    peers::max_diff_by(a, b, |d| wrap(d).abs())
}

/// The error of `arm-peers`' problems: its label and [`max_angle_diff`].
pub const ERROR: (&str, peers::Distance) = (
    "max |θ − θ_ref| over joints and outputs [rad]",
    max_angle_diff,
);

/// Joint angles of chain states (`q − q(0)`), flattened.
fn chain_angles(ys: &[[f64; 6]]) -> Vec<f64> {
    ys.iter()
        .flat_map(|y| (0..3).map(move |k| y[k] - START[k]))
        .collect()
}

/// The reference: DOP853 at `rtol = atol = 1e-13` on the articulated-body chain, integrated to
/// each output exactly (step ends).
pub fn reference(span: f64, n_out: usize) -> Vec<f64> {
    let ys = solve_at_step_ends(&chain(), START, 1e-13, &outputs(span, n_out))
        .expect("articulated-body reference");
    chain_angles(&ys)
}

/// DOP853 at `rtol = atol = tol` on the articulated-body chain, one solve with dense output.
pub fn aba_dop853(tol: f64, span: f64, n_out: usize) -> Outcome {
    solve_dense(&chain(), START, tol, &outputs(span, n_out)).map(|ys| chain_angles(&ys))
}

/// The joint-angle observer of the emitted mechanism.
fn observer(
    mech: planar_arm3::Mech<f64>,
    joints: [usize; 3],
) -> impl Fn(&State<f64, N>, &mut Vec<f64>) + Copy {
    move |s: &State<f64, N>, out: &mut Vec<f64>| {
        for j in joints {
            out.push(mech.joint_angle(j, &s.q).unwrap_or(f64::NAN));
        }
    }
}

/// The penalty methods on the emitted arm at ω: Z&S and SyLiPN, dense solve, β = 0.4.
pub fn penalty<'a>(omega: f64, span: f64, n_out: usize) -> Vec<Method<'a>> {
    let (mech, joints) = mechanism();
    let run = PenaltyRun {
        system: mech.penalised(omega).expect("valid ω"),
        omega,
        s0: mech.initial_state(),
        dt: span / n_out as f64,
        n_out,
        obs: observer(mech, joints),
        solver: (Dense, ""),
        h_min: 1e-6,
    };
    zs_and_sylipn(run, false)
}

/// The exact-joint methods and peers: RATTLE on the emitted arm, DOP853 on the articulated-body
/// chain, rapier's multibody at each substep count (with the `peers` feature).
pub fn rigid<'a>(span: f64, n_out: usize) -> Vec<Method<'a>> {
    let (mech, joints) = mechanism();
    let (sys, g, s0) = (mech.system(), mech.constraint(), mech.initial_state());
    let dt = span / n_out as f64;
    let obs = observer(mech, joints);
    let newton = ConstraintNewtonParams {
        tol: 1e-12,
        manifold_tol: 1e-11,
        ..ConstraintNewtonParams::default()
    };
    #[allow(unused_mut)]
    let mut methods = vec![
        fixed(
            "rattle",
            "RATTLE (001 eqs 24–28), exact joints",
            dt,
            1e-6,
            Box::new(move |h| run_fixed(Rattle::new(sys, g, h, newton), s0, dt, n_out, obs)),
        ),
        Method {
            key: "aba_dop853",
            label: "DOP853 on the O(n) articulated-body chain (joint angles)",
            param_name: "tol",
            p_max: 1e2,
            p_min: 1e-13,
            snap: None,
            run: Box::new(move |t| aba_dop853(t, span, n_out)),
        },
    ];
    #[cfg(feature = "peers")]
    for (key, s) in peers::rapier::SUBSTEPS {
        methods.push(fixed(
            key,
            crate::experiments::work_precision::leak(format!("rapier multibody, {s} substep(s)")),
            dt,
            // 10⁵ steps per simulated second at most: a run over T = 10 then costs seconds.
            1e-5,
            Box::new(move |h| super::rapier::run(h, s, dt, n_out)),
        ));
    }
    methods
}
