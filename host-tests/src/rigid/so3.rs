//! The free rigid body on SO(3) (000 §4.5): the DOP853 references of the rigid and the relaxed
//! systems, the linearised Z&S and Cayley trajectories, and the error, order and symplecticity
//! measurements behind `reproduce so3` and its tests.

use crate::measure::integrator_defect;
use macrostep::lie::{
    hat, matrix_of, orthogonality_error, vec_of, BodyState, CayleyVariational, LinearizedZs,
    RigidBody, So3ZsParams,
};
use macrostep::zs::ImplicitNewtonParams;
use macrostep::{Guards, Integrator, Real, State, Stepper};
use nalgebra::{Matrix3, SVector, Vector3};

/// Max deviation, energy error and orthogonality defect of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunErrors {
    /// `max_k ‖R_k − R_ref(t_k)‖_F`.
    pub max_err_r: f64,
    /// `max_k |E_k − E_0|`.
    pub max_energy_err: f64,
    /// `max_k ‖R_kᵀR_k − I‖_F`.
    pub max_orth_err: f64,
}

/// A trapezoidal (`S = true`) or first-order run of the linearised Z&S: states every step.
pub fn run_zs<T: Real, const S: bool>(
    body: RigidBody<T>,
    params: So3ZsParams<T>,
    h: T,
    s0: &BodyState<T>,
    steps: usize,
) -> Vec<State<T, 9>> {
    let mut zs = LinearizedZs::<T, S>::new(body, h, params).expect("valid setup");
    let mut s = s0.to_relaxed();
    let mut out = Vec::with_capacity(steps + 1);
    out.push(s);
    for _ in 0..steps {
        zs.step(&mut s).expect("Z&S step failed");
        out.push(s);
    }
    out
}

/// A benchmark run under the default guards: states every `every` steps (`steps` a multiple of
/// `every`).
pub fn run_cayley<T: Real>(
    body: RigidBody<T>,
    h: T,
    s0: &BodyState<T>,
    steps: usize,
    every: usize,
) -> Vec<BodyState<T>> {
    run_cayley_with(body, h, Guards::default(), s0, steps, every)
}

/// [`run_cayley`] under `guards`.
pub fn run_cayley_with<T: Real>(
    body: RigidBody<T>,
    h: T,
    guards: Guards<T>,
    s0: &BodyState<T>,
    steps: usize,
    every: usize,
) -> Vec<BodyState<T>> {
    let mut cay = CayleyVariational::new(body, h, ImplicitNewtonParams::default())
        .and_then(|c| c.with_guards(guards))
        .expect("valid setup");
    let mut s = s0.to_relaxed();
    let mut out = Vec::with_capacity(steps / every + 1);
    out.push(*s0);
    for k in 1..=steps {
        cay.step(&mut s).expect("benchmark step failed");
        if k % every == 0 {
            out.push(cay.body_state(&s));
        }
    }
    out
}

/// DOP853 on the rigid body `Ṙ = RΩ̂`, `JΩ̇ = JΩ × Ω + τ_V(R) + u` at `times`.
pub fn rigid_reference(
    body: &RigidBody<f64>,
    torque: Vector3<f64>,
    s0: &BodyState<f64>,
    times: &[f64],
) -> Vec<BodyState<f64>> {
    let mut y0 = vec_of(&s0.rotation).as_slice().to_vec();
    y0.extend_from_slice(s0.omega.as_slice());
    let j = body.inertia;
    let t_end = *times.last().expect("times");
    let ys = crate::reference::solve(
        |_, y, dy| {
            let r = Matrix3::from_column_slice(&y[..9]);
            let w = Vector3::new(y[9], y[10], y[11]);
            let rd = r * hat(&w);
            dy[..9].copy_from_slice(rd.as_slice());
            let jw = j.component_mul(&w);
            let wd = (jw.cross(&w) + body.torque(&r) + torque).component_div(&j);
            dy[9..].copy_from_slice(wd.as_slice());
        },
        s0.t,
        &y0,
        t_end,
        1e-13,
        1e-13,
        times,
    );
    ys.iter()
        .zip(times)
        .map(|(y, &t)| BodyState {
            t,
            rotation: Matrix3::from_column_slice(&y[..9]),
            omega: Vector3::new(y[9], y[10], y[11]),
        })
        .collect()
}

/// DOP853 on the penalised relaxed system `R̈ J_d = −Bμe₃e₃ᵀ − 2ω²(RRᵀR − R) + ½Rû` at `times`.
pub fn relaxed_reference(
    body: &RigidBody<f64>,
    omega: f64,
    torque: Vector3<f64>,
    s0: &State<f64, 9>,
    times: &[f64],
) -> Vec<State<f64, 9>> {
    let mut y0 = s0.q.as_slice().to_vec();
    y0.extend_from_slice(s0.v.as_slice());
    let jd = body.matrix_inertia();
    let t_end = *times.last().expect("times");
    let ys = crate::reference::solve(
        |_, y, dy| {
            let r = Matrix3::from_column_slice(&y[..9]);
            dy[..9].copy_from_slice(&y[9..]);
            let mut g =
                (r * r.transpose() * r - r) * (-2.0 * omega * omega) + r * hat(&torque) * 0.5;
            g[(2, 2)] -= body.b_mu;
            for l in 0..3 {
                for k in 0..3 {
                    g[(k, l)] /= jd[l];
                }
            }
            dy[9..].copy_from_slice(g.as_slice());
        },
        s0.t,
        &y0,
        t_end,
        1e-13,
        1e-13,
        times,
    );
    ys.iter()
        .zip(times)
        .map(|(y, &t)| State {
            t,
            q: SVector::from_column_slice(&y[..9]),
            v: SVector::from_column_slice(&y[9..]),
        })
        .collect()
}

/// The errors of a relaxed run against reference attitudes `r_ref` at the same times.
pub fn zs_errors<T: Real>(
    body: &RigidBody<f64>,
    omega: f64,
    run: &[State<T, 9>],
    r_ref: &[Matrix3<f64>],
) -> RunErrors {
    let e0 = body.relaxed_energy(&run[0].cast::<f64>(), omega);
    let mut out = RunErrors::default();
    for (s, rr) in run.iter().zip(r_ref) {
        let s = s.cast::<f64>();
        let r = matrix_of(&s.q);
        out.max_err_r = out.max_err_r.max((r - rr).norm());
        out.max_energy_err = out
            .max_energy_err
            .max((body.relaxed_energy(&s, omega) - e0).abs());
        out.max_orth_err = out.max_orth_err.max(orthogonality_error(&r));
    }
    out
}

/// The errors of a benchmark run against reference attitudes at the same times.
pub fn cayley_errors(
    body: &RigidBody<f64>,
    run: &[BodyState<f64>],
    r_ref: &[Matrix3<f64>],
) -> RunErrors {
    let e0 = body.energy(&run[0]);
    let mut out = RunErrors::default();
    for (s, rr) in run.iter().zip(r_ref) {
        out.max_err_r = out.max_err_r.max((s.rotation - rr).norm());
        out.max_energy_err = out.max_energy_err.max((body.energy(s) - e0).abs());
        out.max_orth_err = out.max_orth_err.max(orthogonality_error(&s.rotation));
    }
    out
}

/// Final-time errors `max(‖q − q_ref‖∞, ‖v − v_ref‖∞)` of the linearised Z&S for each `h` against its relaxed
/// DOP853 reference over `[0, t]`; `h` must divide `t`.
pub fn zs_order_errors<const S: bool>(
    body: RigidBody<f64>,
    params: So3ZsParams<f64>,
    s0: &BodyState<f64>,
    t: f64,
    hs: &[f64],
) -> Vec<f64> {
    let refs = relaxed_reference(
        &body,
        params.omega,
        Vector3::zeros(),
        &s0.to_relaxed(),
        &[0.0, t],
    );
    hs.iter()
        .map(|&h| {
            let n = (t / h).round() as usize;
            let run = run_zs::<f64, S>(body, params, h, s0, n);
            (run[n].q - refs[1].q)
                .amax()
                .max((run[n].v - refs[1].v).amax())
        })
        .collect()
}

/// Final-time errors `max(‖R − R_ref‖∞, ‖Ω − Ω_ref‖∞)` of the benchmark for each `h` against the rigid DOP853 reference.
pub fn cayley_order_errors(
    body: RigidBody<f64>,
    s0: &BodyState<f64>,
    t: f64,
    hs: &[f64],
) -> Vec<f64> {
    let refs = rigid_reference(&body, Vector3::zeros(), s0, &[0.0, t]);
    hs.iter()
        .map(|&h| {
            let n = (t / h).round() as usize;
            let run = run_cayley(body, h, s0, n, n);
            (run[1].rotation - refs[1].rotation)
                .amax()
                .max((run[1].omega - refs[1].omega).amax())
        })
        .collect()
}

/// Symplecticity defect of `steps` steps of the linearised Z&S from `s0`, in `(q, M v)`.
pub fn zs_defect<const S: bool>(
    body: RigidBody<f64>,
    params: So3ZsParams<f64>,
    h: f64,
    s0: &State<f64, 9>,
    steps: usize,
) -> f64 {
    let mut zs = LinearizedZs::<f64, S>::new(body, h, params).expect("valid setup");
    let mass = zs.mass();
    integrator_defect(&mut zs, &mass, s0, steps, 1e-6)
}
