//! RATTLE's linearisation in the tangent coordinates of its solution manifold
//! ([`macrostep::linearise::TangentJacobian`]) measured three ways:
//!
//! - against central differences of the RATTLE step from states perturbed along the tangent basis
//!   and **projected back** onto the manifold with [`Rattle::project`] (positions by Newton along
//!   `M⁻¹g'(q)ᵀμ` onto `g = 0`, then velocities `M`-orthogonally onto `g'(q)v = 0`): position
//!   directions `(q ± ε U eⱼ, v)`, whose projection supplies the velocity correction independently
//!   of the linearisation's own, and velocity directions `(q, v ± ε U eⱼ)`, already tangent; the
//!   end states' difference is read in the end coordinates `(UᵀMδq, UᵀMδv)`;
//! - by the symplectic defect of the reduced map in those (Darboux) coordinates;
//! - on the Cartesian pendulum at its equilibria, by the eigenvalues of the reduced `A` against
//!   those of the angle model's exact linearisation `exp(h [[0, 1], [∓g/L, 0]])`.

use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::forcing::{Actuate, Actuated};
use macrostep::linearise::TangentJacobian;
use macrostep::model::{Constraint, Hessian, Potential, System};
use macrostep::nalgebra::{vector, SMatrix, SVector};
use macrostep::systems::{DoublePendulum, LinearPotential, Pendulum, PlanarDistances};
use macrostep::{Guards, Integrator, State, StepError, Stepper};

/// The double pendulum's potential with a nonlinear spring on the second bob: gravity, a spring
/// of stiffness `k` pulling bob 2 towards `(0.5, −1.5)`, and `¼ x₁⁴` (every Hessian entry varies).
#[derive(Clone, Copy, Debug)]
pub struct Chain {
    /// Spring stiffness.
    pub k: f64,
}

impl Energy<f64, 4> for Chain {
    fn energy<S: AdScalar<f64>>(&self, q: &[S; 4]) -> S {
        let (dx, dy) = (q[2] - 0.5, q[3] + 1.5);
        let x2 = q[0] * q[0];
        (q[1] + q[3] * 2.0) * 9.81 + (dx * dx + dy * dy) * (self.k * 0.5) + x2 * x2 * 0.25
    }
}

/// The actuated chain potential.
pub type ChainP = Actuated<f64, AutoDiff<Chain>, 4>;
/// RATTLE on the double pendulum (masses 1 and 2, rods 1 and 0.8) with [`Chain`].
pub type ChainRattle = Rattle<f64, ChainP, PlanarDistances<f64, 4, 2>, 4, 2>;
/// RATTLE on an actuated Cartesian pendulum.
pub type PendulumRattle =
    Rattle<f64, Actuated<f64, LinearPotential<f64, 2>, 2>, PlanarDistances<f64, 2, 1>, 2, 1>;

/// The double pendulum of [`ChainRattle`].
pub fn double_pendulum() -> DoublePendulum<f64> {
    DoublePendulum::new([1.0, 2.0], 9.81, [1.0, 0.8]).expect("valid")
}

/// RATTLE on the double pendulum at step `h` with the held force `(0.3, −0.2, 0.1, 0.4)`.
///
/// # Panics
/// When a built-in configuration is refused (a bug).
pub fn chain_rattle(h: f64) -> ChainRattle {
    let dp = double_pendulum();
    let p = Actuated::with_force(AutoDiff(Chain { k: 3.0 }), vector![0.3, -0.2, 0.1, 0.4])
        .expect("finite");
    let sys = System::new(dp.system().mass, p);
    Rattle::new(sys, dp.constraint(), h, ConstraintNewtonParams::default()).expect("rattle")
}

/// Starts on the double pendulum's solution manifold: angles and a velocity projected onto the
/// hidden constraint, one near the hanging rest, one swinging hard.
pub fn chain_starts(m: &ChainRattle) -> [State<f64, 4>; 2] {
    let dp = double_pendulum();
    let mut a = State::new(0.0, dp.from_angles(0.3, -0.5), vector![0.4, 0.2, -0.7, 0.5]);
    let mut b = State::new(1.0, dp.from_angles(2.1, 0.4), vector![-2.0, 1.5, 3.0, 2.5]);
    m.project(&mut a).expect("project");
    m.project(&mut b).expect("project");
    [a, b]
}

/// RATTLE on the Cartesian pendulum of mass `m`, gravity `g`, rod `l`, at step `h`, no held force.
///
/// # Panics
/// When a built-in configuration is refused (a bug).
pub fn pendulum_rattle(m: f64, g: f64, l: f64, h: f64) -> PendulumRattle {
    let p = Pendulum::new(m, g, l).expect("valid");
    let s = p.system();
    let sys = System::new(s.mass, Actuated::new(s.potential));
    Rattle::new(sys, p.constraint(), h, ConstraintNewtonParams::default()).expect("rattle")
}

/// One step of a fresh copy of `m` (guards off, held force `u`) from `s`.
fn step_map<P, G, const N: usize, const D: usize>(
    m: &Rattle<f64, Actuated<f64, P, N>, G, N, D>,
    s: &State<f64, N>,
    u: &SVector<f64, N>,
) -> Result<State<f64, N>, StepError>
where
    P: Potential<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
{
    let mut m = m.clone();
    m.set_guards(Guards::off()).expect("guards off");
    m.set_force(u)?;
    let mut s = *s;
    m.step(&mut s)?;
    Ok(s)
}

/// The tangent-coordinate linearisation by central differences (step `eps`) in the bases of
/// `exact` (see the module docs for the perturbations and the projection).
///
/// # Errors
/// A projection's or a step's error.
pub fn central<P, G, const N: usize, const D: usize, const R: usize>(
    m: &Rattle<f64, Actuated<f64, P, N>, G, N, D>,
    s: &State<f64, N>,
    exact: &TangentJacobian<f64, N, R>,
    eps: f64,
) -> Result<TangentJacobian<f64, N, R>, StepError>
where
    P: Potential<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
{
    let u0 = *m.force();
    let mass = m.system().mass.matrix();
    let read = exact.end_basis.transpose() * mass;
    let mut fd = TangentJacobian {
        qq: SMatrix::zeros(),
        qv: SMatrix::zeros(),
        vq: SMatrix::zeros(),
        vv: SMatrix::zeros(),
        bq: SMatrix::zeros(),
        bv: SMatrix::zeros(),
        ..*exact
    };
    let diff = |plus: State<f64, N>, minus: State<f64, N>| {
        let dq = read * (plus.q - minus.q) / (2.0 * eps);
        let dv = read * (plus.v - minus.v) / (2.0 * eps);
        (dq, dv)
    };
    for j in 0..R {
        let dir = exact.start_basis.column(j).into_owned();
        let moved = |d: f64, position: bool| {
            let mut x = *s;
            if position {
                x.q += dir * d;
            } else {
                x.v += dir * d;
            }
            m.project(&mut x)?;
            step_map(m, &x, &u0)
        };
        let (dq, dv) = diff(moved(eps, true)?, moved(-eps, true)?);
        fd.qq.set_column(j, &dq);
        fd.vq.set_column(j, &dv);
        let (dq, dv) = diff(moved(eps, false)?, moved(-eps, false)?);
        fd.qv.set_column(j, &dq);
        fd.vv.set_column(j, &dv);
    }
    for j in 0..N {
        let at = |d: f64| {
            let mut u = u0;
            u[j] += d;
            step_map(m, s, &u)
        };
        let (dq, dv) = diff(at(eps)?, at(-eps)?);
        fd.bq.set_column(j, &dq);
        fd.bv.set_column(j, &dv);
    }
    Ok(fd)
}

/// `max(‖A − A_fd‖max / ‖A_fd‖max, ‖B − B_fd‖max / ‖B_fd‖max)`.
pub fn rel_err<const N: usize, const R: usize>(
    exact: &TangentJacobian<f64, N, R>,
    fd: &TangentJacobian<f64, N, R>,
) -> f64 {
    let a = [
        (exact.qq, fd.qq),
        (exact.qv, fd.qv),
        (exact.vq, fd.vq),
        (exact.vv, fd.vv),
    ];
    let b = [(exact.bq, fd.bq), (exact.bv, fd.bv)];
    let err_a = a.iter().map(|(x, y)| (x - y).amax()).fold(0.0, f64::max);
    let scale_a = a.iter().map(|(_, y)| y.amax()).fold(0.0, f64::max);
    let err_b = b.iter().map(|(x, y)| (x - y).amax()).fold(0.0, f64::max);
    let scale_b = b.iter().map(|(_, y)| y.amax()).fold(0.0, f64::max);
    (err_a / scale_a).max(err_b / scale_b)
}

/// What RATTLE's linearisation measures at one state.
#[derive(Clone, Copy, Debug)]
pub struct TangentCheck {
    /// [`rel_err`] against [`central`] (`ε = 1e-5`).
    pub fd_rel_err: f64,
    /// [`TangentJacobian::symplectic_defect`].
    pub symplectic_defect: f64,
}

/// The exact tangent linearisation of `m` at `s` against central differences.
///
/// # Errors
/// The linearisation's, a projection's or a step's error.
pub fn check<P, G, const N: usize, const D: usize, const R: usize>(
    m: &Rattle<f64, Actuated<f64, P, N>, G, N, D>,
    s: &State<f64, N>,
) -> Result<TangentCheck, StepError>
where
    P: Hessian<f64, N> + Clone,
    G: Constraint<f64, N, D> + Clone,
{
    let exact = m.linearise_tangent::<R>(s)?;
    let fd = central(m, s, &exact, 1e-5)?;
    Ok(TangentCheck {
        fd_rel_err: rel_err(&exact, &fd),
        symplectic_defect: exact.symplectic_defect(),
    })
}

/// The pendulum's equilibria: hanging (`upright = false`, eigenvalues `e^{±iωh}`) and upright
/// (`e^{±ωh}`), `ω = √(g/L)`.
///
/// The gap between the reduced `A`'s eigenvalues and the angle model's at step `h`: hanging,
/// `|arg λ − ωh|`; upright, `|λ_max − e^{ωh}|`.
///
/// # Errors
/// The linearisation's.
pub fn pendulum_eigen_gap(m: f64, g: f64, l: f64, h: f64, upright: bool) -> Result<f64, StepError> {
    let r = pendulum_rattle(m, g, l, h);
    let y = if upright { l } else { -l };
    let j = r.linearise_tangent::<1>(&State::at_rest(vector![0.0, y]))?;
    let a: SMatrix<f64, 2, 2> = j.a();
    let (tr, det) = (a.trace(), a.determinant());
    let omega = (g / l).sqrt();
    Ok(if upright {
        let lmax = 0.5 * (tr + (tr * tr - 4.0 * det).sqrt());
        (lmax - (omega * h).exp()).abs()
    } else {
        let phase = (0.5 * tr / det.sqrt()).acos();
        (phase - omega * h).abs()
    })
}
