//! The methods `reproduce forcing` runs, built over the forced double pendulum (penalty form for
//! the Z&S family and the explicit baselines, exact constraints for SHAKE/RATTLE/Reich4), and
//! the DOP853 references of the forced systems.

use macrostep::compose::{Scheme, SymmetricComposition};
use macrostep::constrained::{ConstraintNewtonParams as CNewton, Rattle, Reich4, Shake, Stage};
use macrostep::driver::{Method, Wrapper};
use macrostep::forcing::{Actuate, Actuated, Damped, Driven};
use macrostep::model::{Constraint, Mass, Potential, System, Zero};
use macrostep::nalgebra::vector;
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::systems::DoublePendulum;
use macrostep::zs::{DampedZs, InMatrixDamping, NewmarkOneIteration, ZsParams};
use macrostep::zs::{
    ImplicitNewtonParams, Newmark, NewmarkParams, PushForwardNewmark, StiffSylipn, Sylipn,
    ZhangSkeel,
};
use macrostep::{ConfigError, Integrator, State, StepError};

pub use crate::fixtures::forced_dp::{
    energy, split_system, systems, PenSys, RigidSys, SplitSys, OMEGA,
};
use std::cell::Cell;
use std::rc::Rc;

/// The smooth external force `f(t)` on the four Cartesian coordinates `(x₁, y₁, x₂, y₂)`.
pub fn force(t: f64) -> SVector<f64, 4> {
    SVector::from([
        0.5 * (2.0 * t).sin(),
        0.3 * (3.0 * t).cos(),
        0.4 * t.cos(),
        -0.2 * (1.5 * t).sin(),
    ])
}

/// `force` as the `f(t, q)` a [`Driven`] takes.
pub type ForceFn = fn(f64, &SVector<f64, 4>) -> SVector<f64, 4>;

fn force_tq(t: f64, _q: &SVector<f64, 4>) -> SVector<f64, 4> {
    force(t)
}

/// A base method that adds up the work `uᵀ(q₁ − q₀)` of its held force, step by step (the
/// method's own quadrature of `∫ f·dq`; composition stages each add their own). The work of a
/// proposal is added when the proposal is accepted.
#[derive(Clone)]
pub struct Logged<I> {
    inner: I,
    work: Rc<Cell<f64>>,
    pending: f64,
}

impl<I> Wrapper for Logged<I> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }

    fn accepted(&mut self) {
        self.work.set(self.work.get() + self.pending);
        self.pending = 0.0;
    }
}

impl<I: Method<f64, 4> + Actuate<f64, 4>> Method<f64, 4> for Logged<I> {
    const ORDER: u32 = I::ORDER;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<f64, 4>,
        h: f64,
        next: &mut State<f64, 4>,
    ) -> Result<f64, StepError> {
        let exchanged = self.inner.propose(state, h, next)?;
        self.pending = self.force().dot(&(next.q - state.q));
        Ok(exchanged)
    }
}

impl<I: Actuate<f64, 4>> Actuate<f64, 4> for Logged<I> {
    fn force(&self) -> &SVector<f64, 4> {
        self.inner.force()
    }
    fn set_force(&mut self, u: &SVector<f64, 4>) -> Result<(), StepError> {
        self.inner.set_force(u)
    }
}

/// A step closure.
pub type StepFn = Box<dyn FnMut(&mut State<f64, 4>) -> Result<(), StepError>>;

/// A method ready to run: its name, claims, step and work counter.
pub struct Built {
    /// Figure name.
    pub name: &'static str,
    /// `ORDER` of the driven method.
    pub order: u32,
    /// `SYMPLECTIC` of the driven method.
    pub symplectic: bool,
    /// Whether it integrates the rigid system (exact constraints).
    pub rigid: bool,
    /// One step.
    pub step: StepFn,
    /// The work of the held forces so far.
    pub work: Rc<Cell<f64>>,
}

fn driven<I>(name: &'static str, base: I, rigid: bool, compose: bool) -> Built
where
    I: Method<f64, 4> + Actuate<f64, 4> + 'static,
{
    let work = Rc::new(Cell::new(0.0));
    let logged = Logged {
        inner: base,
        work: work.clone(),
        pending: 0.0,
    };
    let d = Driven::new(logged, force_tq as ForceFn);
    if compose {
        let mut c = SymmetricComposition::new(d, Scheme::TripleJump).expect("symmetric");
        Built {
            name,
            order: order_of(&c),
            symplectic: symplectic_of(&c),
            rigid,
            step: Box::new(move |s| c.step(s)),
            work,
        }
    } else {
        let mut d = d;
        Built {
            name,
            order: order_of(&d),
            symplectic: symplectic_of(&d),
            rigid,
            step: Box::new(move |s| d.step(s)),
            work,
        }
    }
}

fn order_of<I: Integrator<f64, 4>>(_: &I) -> u32 {
    I::ORDER
}

fn symplectic_of<I: Integrator<f64, 4>>(_: &I) -> bool {
    I::SYMPLECTIC
}

/// `β` of `p` and Newton controls tight enough that the fully implicit methods' maps are exact
/// to roundoff.
pub fn newmark_params(p: ZsParams<f64>) -> NewmarkParams<f64> {
    NewmarkParams {
        beta: p.beta,
        newton: ImplicitNewtonParams {
            tol: 1e-11,
            max_iter: 30,
        },
    }
}

/// RATTLE/SHAKE controls with a tolerance near roundoff (symplecticity by differences).
pub fn rattle_newton() -> CNewton<f64> {
    CNewton {
        tol: 1e-14,
        ..CNewton::default()
    }
}

/// Every driven method at step `h`.
pub fn driven_methods(h: f64) -> Vec<Built> {
    let (pen, rigid, g) = systems();
    let p = ZsParams::default();
    let split = split_system();
    use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
    vec![
        driven(
            "verlet",
            VelocityVerlet::new(pen, h).expect("h"),
            false,
            false,
        ),
        driven(
            "symplectic_euler",
            SymplecticEuler::new(pen, h, EulerOrdering::KickDrift).expect("h"),
            false,
            false,
        ),
        driven("zs", ZhangSkeel::new(pen, h, p).expect("h"), false, false),
        driven("sylipn", Sylipn::new(pen, h, p).expect("h"), false, false),
        driven(
            "stiff_sylipn",
            StiffSylipn::new(split, h, p).expect("h"),
            false,
            false,
        ),
        driven(
            "newmark",
            Newmark::new(pen, h, newmark_params(p)).expect("h"),
            false,
            false,
        ),
        driven(
            "push_forward_newmark",
            PushForwardNewmark::new(pen, h, newmark_params(p)).expect("h"),
            false,
            false,
        ),
        driven(
            "newmark_one_iteration",
            NewmarkOneIteration::new(pen, h, p).expect("h"),
            false,
            false,
        ),
        driven("zs4", ZhangSkeel::new(pen, h, p).expect("h"), false, true),
        driven(
            "rattle",
            Rattle::new(rigid, g, h, rattle_newton()).expect("h"),
            true,
            false,
        ),
        driven(
            "shake",
            Shake::new(rigid, g, h, rattle_newton()).expect("h"),
            true,
            false,
        ),
        driven(
            "reich4",
            Reich4::new(rigid, g, h, Stage::Reich, rattle_newton()).expect("h"),
            true,
            false,
        ),
        driven(
            "rattle4",
            Rattle::new(rigid, g, h, rattle_newton()).expect("h"),
            true,
            true,
        ),
    ]
}

/// Damped methods (`C = c I`, a dashpot to ground on every coordinate) at step `h`, unforced.
pub fn damped_methods(h: f64, c: f64) -> Vec<(&'static str, bool, StepFn)> {
    let (pen, rigid, g) = systems();
    let p = ZsParams::default();
    let cm = SMatrix::<f64, 4, 4>::identity() * c;
    fn boxed<I: Method<f64, 4> + 'static>(
        i: I,
        mass: macrostep::model::Mass<f64, 4>,
        c: SMatrix<f64, 4, 4>,
    ) -> StepFn {
        let mut d = Damped::new(i, mass, c).expect("damping");
        Box::new(move |s| d.step(s))
    }
    use macrostep::baselines::VelocityVerlet;
    let m = pen.mass;
    vec![
        (
            "verlet",
            false,
            boxed(VelocityVerlet::new(pen, h).expect("h"), m, cm),
        ),
        (
            "zs",
            false,
            boxed(ZhangSkeel::new(pen, h, p).expect("h"), m, cm),
        ),
        (
            "sylipn",
            false,
            boxed(Sylipn::new(pen, h, p).expect("h"), m, cm),
        ),
        (
            "newmark",
            false,
            boxed(Newmark::new(pen, h, newmark_params(p)).expect("h"), m, cm),
        ),
        (
            "rattle",
            true,
            boxed(Rattle::new(rigid, g, h, rattle_newton()).expect("h"), m, cm),
        ),
        (
            "zs_in_solve",
            false,
            in_solve(ZhangSkeel::new(pen, h, p).expect("h"), cm),
        ),
        (
            "sylipn_in_solve",
            false,
            in_solve(Sylipn::new(pen, h, p).expect("h"), cm),
        ),
        (
            "stiff_sylipn_in_solve",
            false,
            in_solve(StiffSylipn::new(split_system(), h, p).expect("h"), cm),
        ),
    ]
}

/// Damping inside the Z&S-family linear solve (`M + βh² Hess V + ½hC`, [`DampedZs`]).
fn in_solve<I: InMatrixDamping<f64, 4> + 'static>(i: I, c: SMatrix<f64, 4, 4>) -> StepFn {
    let mut d = DampedZs::new(i, c).expect("damping");
    Box::new(move |s| d.step(s))
}

/// DOP853 reference of the forced penalised system at `t_end` from `s0`.
pub fn reference_penalty(s0: &State<f64, 4>, t_end: f64) -> State<f64, 4> {
    let (pen, _, _) = systems();
    let f = |t: f64, y: &[f64], dy: &mut [f64]| {
        let q = SVector::<f64, 4>::from_column_slice(&y[..4]);
        let a = pen
            .mass
            .solve(&(force(t) - pen.potential.potential.gradient(&q)));
        dy[..4].copy_from_slice(&y[4..]);
        dy[4..].copy_from_slice(a.as_slice());
    };
    to_state(s0, t_end, f)
}

/// DOP853 reference of the forced rigid double pendulum (index-1 DAE: `λ` from the
/// acceleration-level constraint `g'q̈ + (vᵀ Hess gᵢ v)ᵢ = 0`) at `t_end` from `s0`.
pub fn reference_rigid(s0: &State<f64, 4>, t_end: f64) -> State<f64, 4> {
    let (_, rig, g) = systems();
    let f = |t: f64, y: &[f64], dy: &mut [f64]| {
        let q = SVector::<f64, 4>::from_column_slice(&y[..4]);
        let v = SVector::<f64, 4>::from_column_slice(&y[4..]);
        let free = force(t) - rig.potential.potential.gradient(&q);
        let j = g.jacobian(&q);
        let curv = g.hessian_times(&q, &v) * v;
        let minv_jt = SMatrix::<f64, 4, 2>::from_columns(&[
            rig.mass.solve(&j.row(0).transpose()),
            rig.mass.solve(&j.row(1).transpose()),
        ]);
        let lhs = j * minv_jt;
        let rhs = -(j * rig.mass.solve(&free)) - curv;
        let lam = lhs.lu().solve(&rhs).expect("regular");
        let a = rig.mass.solve(&(free + j.transpose() * lam));
        dy[..4].copy_from_slice(v.as_slice());
        dy[4..].copy_from_slice(a.as_slice());
    };
    to_state(s0, t_end, f)
}

fn to_state(s0: &State<f64, 4>, t_end: f64, f: impl Fn(f64, &[f64], &mut [f64])) -> State<f64, 4> {
    let y0: Vec<f64> = s0.q.iter().chain(s0.v.iter()).copied().collect();
    let y = crate::reference::solve_to(f, s0.t, &y0, t_end, 1e-13, 1e-13);
    State::new(
        t_end,
        SVector::from_column_slice(&y[..4]),
        SVector::from_column_slice(&y[4..]),
    )
}

/// Bad input: each case must give its typed error and leave state (and force) as they
/// were. Returns (cases passed, cases).
pub fn bad_input() -> (usize, usize) {
    let (pen, rigid, g) = systems();
    let mut ok = Vec::new();
    // 1. A NaN force on Z&S: refused, force unchanged, the next step as if never tried.
    let mut zs = ZhangSkeel::new(pen, 0.01, ZsParams::default()).expect("h");
    let mut twin = zs;
    let u = vector![0.1, 0.0, 0.0, 0.0];
    zs.set_force(&u).expect("finite");
    twin.set_force(&u).expect("finite");
    let bad = vector![f64::NAN, 0.0, 0.0, 0.0];
    ok.push(zs.set_force(&bad) == Err(StepError::NonFiniteForce) && *zs.force() == u);
    let (mut a, mut b) = (
        DoublePendulum::<f64>::paper().initial_state(),
        DoublePendulum::<f64>::paper().initial_state(),
    );
    zs.step(&mut a).expect("step");
    twin.step(&mut b).expect("step");
    ok.push(a == b);
    // 2. An infinite force on RATTLE.
    let mut ra = Rattle::new(rigid, g, 0.01, rattle_newton()).expect("h");
    let inf = vector![0.0, f64::INFINITY, 0.0, 0.0];
    ok.push(ra.set_force(&inf) == Err(StepError::NonFiniteForce) && ra.force().amax() == 0.0);
    // 3. A force function that returns NaN after t = 0.05: the step is refused, state bit-identical.
    let f = |t: f64, _q: &SVector<f64, 4>| {
        if t > 0.05 {
            vector![f64::NAN, 0.0, 0.0, 0.0]
        } else {
            SVector::<f64, 4>::zeros()
        }
    };
    let mut d = Driven::new(
        ZhangSkeel::new(pen, 0.01, ZsParams::default()).expect("h"),
        f,
    );
    let mut s = DoublePendulum::<f64>::paper().initial_state();
    let mut res = Ok(());
    for _ in 0..10 {
        let before = s;
        res = d.step(&mut s);
        if res.is_err() {
            ok.push(s == before);
            break;
        }
    }
    ok.push(res == Err(StepError::NonFiniteForce));
    // 4. Damping matrices: asymmetric, indefinite, NaN.
    let zs0 = ZhangSkeel::new(pen, 0.01, ZsParams::default()).expect("h");
    let m = pen.mass;
    let mut asym = SMatrix::<f64, 4, 4>::identity();
    asym[(0, 1)] = 0.5;
    ok.push(matches!(
        Damped::new(zs0, m, asym),
        Err(ConfigError::NotSymmetric { .. })
    ));
    let neg = -SMatrix::<f64, 4, 4>::identity();
    ok.push(matches!(
        Damped::new(zs0, m, neg),
        Err(ConfigError::NotPositiveDefinite { .. })
    ));
    let nan = SMatrix::<f64, 4, 4>::identity() * f64::NAN;
    ok.push(matches!(
        Damped::new(zs0, m, nan),
        Err(ConfigError::NonFinite { .. })
    ));
    // 5. A non-finite force at construction.
    ok.push(matches!(
        Actuated::with_force(Zero, vector![f64::NAN]),
        Err(ConfigError::NonFinite { name: "u" })
    ));
    // 6. The sign convention: +u pushes the coordinate up (free unit mass, u = +1 for 1 s).
    let free = System::new(Mass::<f64, 1>::identity(), Actuated::new(Zero));
    let mut zf = ZhangSkeel::new(free, 0.01, ZsParams::default()).expect("h");
    zf.set_force(&vector![1.0]).expect("finite");
    let mut s1 = State::at_rest(vector![0.0]);
    zf.integrate(&mut s1, 100).expect("steps");
    ok.push(s1.q[0] > 0.49 && s1.v[0] > 0.99);
    (ok.iter().filter(|&&b| b).count(), ok.len())
}
