//! Central differences of one step of an integrator: the reference the exact linearisations
//! ([`macrostep::linearise`]) are measured against.

use macrostep::forcing::Actuate;
use macrostep::linearise::{Linearise, StepJacobian};
use macrostep::model::Mass;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::{Guards, Integrator, State, StepError};

/// One step of a fresh copy of `m` (guards off, held force `u`) from `s`: `(q⁺, v⁺)`.
fn step_map<I, const N: usize>(
    m: &I,
    s: &State<f64, N>,
    u: &SVector<f64, N>,
) -> Result<(SVector<f64, N>, SVector<f64, N>), StepError>
where
    I: Integrator<f64, N> + Actuate<f64, N> + Clone,
{
    let mut m = m.clone();
    m.set_guards(Guards::off()).expect("guards off");
    m.set_force(u)?;
    let mut s = *s;
    m.step(&mut s)?;
    Ok((s.q, s.v))
}

/// The linearisation of one step of `m` from `s` by central differences with relative step
/// `eps` in every coordinate of `q`, `v` and the held force `u`.
///
/// # Errors
/// A step's error.
pub fn central<I, const N: usize>(
    m: &I,
    s: &State<f64, N>,
    eps: f64,
) -> Result<StepJacobian<f64, N>, StepError>
where
    I: Integrator<f64, N> + Actuate<f64, N> + Clone,
{
    let u0 = *m.force();
    let z = SMatrix::<f64, N, N>::zeros();
    let mut j = StepJacobian {
        qq: z,
        qv: z,
        vq: z,
        vv: z,
        bq: z,
        bv: z,
    };
    for c in 0..N {
        // Perturb q, v, u in turn; `which` picks the coordinate set.
        for which in 0..3 {
            let base = match which {
                0 => s.q[c],
                1 => s.v[c],
                _ => u0[c],
            };
            let e = eps * base.abs().max(1.0);
            let at = |d: f64| {
                let (mut s1, mut u1) = (*s, u0);
                match which {
                    0 => s1.q[c] += d,
                    1 => s1.v[c] += d,
                    _ => u1[c] += d,
                }
                step_map(m, &s1, &u1)
            };
            let ((qp, vp), (qm, vm)) = (at(e)?, at(-e)?);
            let (dq, dv) = ((qp - qm) / (2.0 * e), (vp - vm) / (2.0 * e));
            let (a, b) = match which {
                0 => (&mut j.qq, &mut j.vq),
                1 => (&mut j.qv, &mut j.vv),
                _ => (&mut j.bq, &mut j.bv),
            };
            a.set_column(c, &dq);
            b.set_column(c, &dv);
        }
    }
    Ok(j)
}

/// `max(‖A − A_fd‖max / ‖A_fd‖max, ‖B − B_fd‖max / ‖B_fd‖max)`.
pub fn rel_err<const N: usize>(exact: &StepJacobian<f64, N>, fd: &StepJacobian<f64, N>) -> f64 {
    let pairs_a = [
        (exact.qq, fd.qq),
        (exact.qv, fd.qv),
        (exact.vq, fd.vq),
        (exact.vv, fd.vv),
    ];
    let pairs_b = [(exact.bq, fd.bq), (exact.bv, fd.bv)];
    let rel = |pairs: &[(SMatrix<f64, N, N>, SMatrix<f64, N, N>)]| {
        let err = pairs
            .iter()
            .map(|(x, y)| (x - y).amax())
            .fold(0.0, f64::max);
        let scale = pairs.iter().map(|(_, y)| y.amax()).fold(0.0, f64::max);
        err / scale
    };
    rel(&pairs_a).max(rel(&pairs_b))
}

/// What one method's linearisation measures at one state.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// [`rel_err`] against central differences.
    pub fd_rel_err: f64,
    /// [`StepJacobian::symplectic_defect`].
    pub symplectic_defect: f64,
}

/// The exact linearisation of `m` at `s` against central differences (`eps = 1e-5`), and its
/// symplectic defect for the mass `mass`.
///
/// # Errors
/// The linearisation's or a step's error.
pub fn check<I, const N: usize>(
    m: &I,
    s: &State<f64, N>,
    mass: &Mass<f64, N>,
) -> Result<Check, StepError>
where
    I: Linearise<f64, N> + Actuate<f64, N> + Clone,
{
    let exact = m.linearise(s)?;
    let fd = central(m, s, 1e-5)?;
    Ok(Check {
        fd_rel_err: rel_err(&exact, &fd),
        symplectic_defect: exact.symplectic_defect(mass),
    })
}
