//! Explicit Runge–Kutta methods: the non-symplectic sources the conversion is meant for.

// Index loops over the stages mirror the Butcher tableau.
#![allow(clippy::needless_range_loop)]

use super::{mass_solve_cols, Segment, StandardLayer};
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::{Hessian, Potential, System};
use crate::{validate::check_step, ConfigError, Real, State, StepError};
use core::marker::PhantomData;
use nalgebra::{SMatrix, SVector};

/// The most stages a [`Tableau`] may have.
pub const MAX_STAGES: usize = 4;

#[doc(hidden)]
/// An explicit Butcher tableau with at most [`MAX_STAGES`] stages (strictly lower `A`).
pub trait Tableau {
    /// The method's name.
    const NAME: &'static str;
    /// Number of stages `s ≤ MAX_STAGES`.
    const STAGES: usize;
    /// Classical order.
    const ORDER: u32;
    /// The coefficients `a_ij` (only `j < i < STAGES` are read).
    const A: [[f64; MAX_STAGES]; MAX_STAGES];
    /// The weights `b_i`.
    const B: [f64; MAX_STAGES];
}

/// Explicit (forward) Euler: one stage, first order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Euler;
impl Tableau for Euler {
    const NAME: &'static str = "explicit Euler";
    const STAGES: usize = 1;
    const ORDER: u32 = 1;
    const A: [[f64; MAX_STAGES]; MAX_STAGES] = [[0.0; MAX_STAGES]; MAX_STAGES];
    const B: [f64; MAX_STAGES] = [1.0, 0.0, 0.0, 0.0];
}

/// Heun's method (explicit trapezoidal rule): two stages, second order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heun;
impl Tableau for Heun {
    const NAME: &'static str = "Heun";
    const STAGES: usize = 2;
    const ORDER: u32 = 2;
    const A: [[f64; MAX_STAGES]; MAX_STAGES] = [
        [0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ];
    const B: [f64; MAX_STAGES] = [0.5, 0.5, 0.0, 0.0];
}

/// The classical Runge–Kutta method: four stages, fourth order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rk4;
impl Tableau for Rk4 {
    const NAME: &'static str = "RK4";
    const STAGES: usize = 4;
    const ORDER: u32 = 4;
    const A: [[f64; MAX_STAGES]; MAX_STAGES] = [
        [0.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    const B: [f64; MAX_STAGES] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
}

/// An explicit Runge–Kutta method with tableau `K` for `q̇ = v`, `v̇ = −M⁻¹∇V(q)`: neither
/// symplectic nor symmetric, order `K::ORDER`. As a [`StandardLayer`] it integrates the action
/// `Ṡ = L(q, v)` and the first-variation equations with the same tableau (003 §4.1).
///
/// ```
/// use macrostep::convert::{ExplicitRk, Rk4};
/// use macrostep::{systems::HarmonicOscillator, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let mut rk = ExplicitRk::<_, _, Rk4, 1>::new(osc.system(), 0.1).unwrap();
/// let mut s = osc.initial_state();
/// rk.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - osc.initial_state().q[0] * 1f64.cos()).abs() < 1e-5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ExplicitRk<T: Real, P, K, const N: usize> {
    pub(super) system: System<T, P, N>,
    pub(super) h: T,
    pub(super) a: [[T; MAX_STAGES]; MAX_STAGES],
    pub(super) b: [T; MAX_STAGES],
    pub(super) watch: Watch<T, N>,
    tableau: PhantomData<K>,
}

impl<T: Real, P: Potential<T, N>, K: Tableau, const N: usize> ExplicitRk<T, P, K, N> {
    /// The method with step `h` (coefficients converted to `T` here, once).
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] when `h` is not positive and finite.
    pub fn new(system: System<T, P, N>, h: T) -> Result<Self, ConfigError> {
        Ok(Self {
            system,
            h: check_step(h)?,
            a: K::A.map(|row| row.map(T::lit)),
            b: K::B.map(T::lit),
            watch: Watch::default(),
            tableau: PhantomData,
        })
    }

    /// The system.
    pub fn system(&self) -> &System<T, P, N> {
        &self.system
    }
}

impl<T: Real, P: Potential<T, N>, K: Tableau, const N: usize> Guarded<T, N>
    for ExplicitRk<T, P, K, N>
{
    type Probe<'a>
        = &'a System<T, P, N>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, &System<T, P, N>) {
        (&mut self.watch, &self.system)
    }
}

impl<T: Real, P: Potential<T, N>, K: Tableau, const N: usize> Method<T, N>
    for ExplicitRk<T, P, K, N>
{
    const ORDER: u32 = K::ORDER;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let sys = &self.system;
        (next.q, next.v) = rk_advance(&self.a, &self.b, K::STAGES, state, h, |q, _| {
            sys.acceleration(q)
        });
        Ok(T::zero())
    }
}

/// One stage's state and tangent: `(q, v)`, `∂(q, v)/∂(q₀, v₀)`.
#[derive(Clone, Copy)]
pub(crate) struct Tangent<T: Real, const N: usize> {
    pub(crate) q: SVector<T, N>,
    pub(crate) v: SVector<T, N>,
    pub(crate) qq: SMatrix<T, N, N>,
    pub(crate) qv: SMatrix<T, N, N>,
    pub(crate) vq: SMatrix<T, N, N>,
    pub(crate) vv: SMatrix<T, N, N>,
}

/// The augmented vector field at a stage and its derivative: `(v, a, L)` and their tangents.
#[derive(Clone, Copy)]
pub(crate) struct Slope<T: Real, const N: usize> {
    pub(crate) t: Tangent<T, N>,
    pub(crate) s: T,
    pub(crate) s_q: SVector<T, N>,
    pub(crate) s_v: SVector<T, N>,
}

/// One explicit Runge–Kutta step of `q̇ = v`, `v̇ = acc(q, v)` from `state` with step `h`.
pub(crate) fn rk_advance<T: Real, const N: usize>(
    a: &[[T; MAX_STAGES]; MAX_STAGES],
    b: &[T; MAX_STAGES],
    stages: usize,
    state: &State<T, N>,
    h: T,
    mut acc: impl FnMut(&SVector<T, N>, &SVector<T, N>) -> SVector<T, N>,
) -> (SVector<T, N>, SVector<T, N>) {
    let mut kq = [SVector::<T, N>::zeros(); MAX_STAGES];
    let mut kv = [SVector::<T, N>::zeros(); MAX_STAGES];
    let (mut q, mut v) = (state.q, state.v);
    for i in 0..stages {
        let (mut qi, mut vi) = (state.q, state.v);
        for j in 0..i {
            qi += kq[j] * (h * a[i][j]);
            vi += kv[j] * (h * a[i][j]);
        }
        kq[i] = vi;
        kv[i] = acc(&qi, &vi);
        q += kq[i] * (h * b[i]);
        v += kv[i] * (h * b[i]);
    }
    (q, v)
}

/// The action slope `L = ½vᵀMv − V(q)` at a stage and its derivative along the stage's tangent
/// (`∂L/∂q = −∇V`, `∂L/∂v = Mv`), given the stage's `∇V` and `V`.
pub(crate) fn action_slope<T: Real, const N: usize>(
    m: &crate::model::Mass<T, N>,
    y: &Tangent<T, N>,
    grad: &SVector<T, N>,
    energy: T,
) -> (T, SVector<T, N>, SVector<T, N>) {
    let mv = m.mul(&y.v);
    (
        m.kinetic(&y.v) - energy,
        y.vq.transpose() * mv - y.qq.transpose() * grad,
        y.vv.transpose() * mv - y.qv.transpose() * grad,
    )
}

/// `R_t(q, v)` with its tangent map for the explicit tableau `(a, b)` and the augmented field
/// `field` (003 §4.1: the same tableau on the first-variation equations).
pub(crate) fn rk_segment<T: Real, const N: usize>(
    a: &[[T; MAX_STAGES]; MAX_STAGES],
    b: &[T; MAX_STAGES],
    stages: usize,
    q: &SVector<T, N>,
    v: &SVector<T, N>,
    t: T,
    field: impl Fn(&Tangent<T, N>) -> Slope<T, N>,
) -> Segment<T, N> {
    let y0 = Tangent {
        q: *q,
        v: *v,
        qq: SMatrix::identity(),
        qv: SMatrix::zeros(),
        vq: SMatrix::zeros(),
        vv: SMatrix::identity(),
    };
    let zero = Slope {
        t: y0,
        s: T::zero(),
        s_q: SVector::zeros(),
        s_v: SVector::zeros(),
    };
    let mut k = [zero; MAX_STAGES];
    let mut out = Segment {
        q: *q,
        q_q: y0.qq,
        q_v: y0.qv,
        s: T::zero(),
        s_q: SVector::zeros(),
        s_v: SVector::zeros(),
    };
    for i in 0..stages {
        let mut yi = y0;
        for j in 0..i {
            let c = t * a[i][j];
            yi.q += k[j].t.q * c;
            yi.v += k[j].t.v * c;
            yi.qq += k[j].t.qq * c;
            yi.qv += k[j].t.qv * c;
            yi.vq += k[j].t.vq * c;
            yi.vv += k[j].t.vv * c;
        }
        k[i] = field(&yi);
        let c = t * b[i];
        out.q += k[i].t.q * c;
        out.q_q += k[i].t.qq * c;
        out.q_v += k[i].t.qv * c;
        out.s += k[i].s * c;
        out.s_q += k[i].s_q * c;
        out.s_v += k[i].s_v * c;
    }
    out
}

impl<T: Real, P: Hessian<T, N>, K: Tableau, const N: usize> ExplicitRk<T, P, K, N> {
    /// `f(Y)` and `Df(Y)·DY` for the augmented system with first variation.
    fn slope(&self, y: &Tangent<T, N>) -> Slope<T, N> {
        let m = &self.system.mass;
        let grad = self.system.potential.gradient(&y.q);
        let hess = self.system.potential.hessian(&y.q);
        let minv_h = mass_solve_cols(m, &hess);
        let (s, s_q, s_v) = action_slope(m, y, &grad, self.system.potential.energy(&y.q));
        Slope {
            t: Tangent {
                q: y.v,
                v: -m.solve(&grad),
                qq: y.vq,
                qv: y.vv,
                vq: -(minv_h * y.qq),
                vv: -(minv_h * y.qv),
            },
            s,
            s_q,
            s_v,
        }
    }
}

impl<T: Real, P: Hessian<T, N>, K: Tableau, const N: usize> StandardLayer<T, N>
    for ExplicitRk<T, P, K, N>
{
    type Potential = P;

    fn system(&self) -> &System<T, P, N> {
        &self.system
    }

    fn segment(&self, q: &SVector<T, N>, v: &SVector<T, N>, t: T) -> Segment<T, N> {
        rk_segment(&self.a, &self.b, K::STAGES, q, v, t, |y| self.slope(y))
    }
}
