//! Explicit Runge–Kutta methods: the non-symplectic sources the conversion is meant for.

// Index loops over the stages mirror the Butcher tableau.
#![allow(clippy::needless_range_loop)]

use super::{mass_solve_cols, Segment, StandardLayer};
use crate::guard::Watch;
use crate::model::{Hessian, Potential, System};
use crate::validate::check_step_input;
use crate::{validate::check_step, ConfigError, Integrator, Real, State, StepError};
use core::marker::PhantomData;
use nalgebra::{SMatrix, SVector};

/// The most stages a [`Tableau`] may have.
pub const MAX_STAGES: usize = 4;

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
    system: System<T, P, N>,
    h: T,
    a: [[T; MAX_STAGES]; MAX_STAGES],
    b: [T; MAX_STAGES],
    watch: Watch<T, N>,
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

impl<T: Real, P: Potential<T, N>, K: Tableau, const N: usize> crate::Stepper<T>
    for ExplicitRk<T, P, K, N>
{
    fn step_size(&self) -> T {
        self.h
    }
}

impl<T: Real, P: Potential<T, N>, K: Tableau, const N: usize> Integrator<T, N>
    for ExplicitRk<T, P, K, N>
{
    const ORDER: u32 = K::ORDER;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = false;

    fn watch(&self) -> Option<&Watch<T, N>> {
        Some(&self.watch)
    }

    fn watch_mut(&mut self) -> Option<&mut Watch<T, N>> {
        Some(&mut self.watch)
    }

    fn step_by(&mut self, state: &mut State<T, N>, h: T) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let mut kq = [SVector::<T, N>::zeros(); MAX_STAGES];
        let mut kv = [SVector::<T, N>::zeros(); MAX_STAGES];
        let (mut q, mut v) = (state.q, state.v);
        for i in 0..K::STAGES {
            let (mut qi, mut vi) = (state.q, state.v);
            for j in 0..i {
                qi += kq[j] * (h * self.a[i][j]);
                vi += kv[j] * (h * self.a[i][j]);
            }
            kq[i] = vi;
            kv[i] = self.system.acceleration(&qi);
            q += kq[i] * (h * self.b[i]);
            v += kv[i] * (h * self.b[i]);
        }
        let next = State {
            t: state.t + h,
            q,
            v,
        };
        self.watch.commit(state, &next, h, &self.system)
    }
}

/// One stage's state and tangent: `(q, v)`, `∂(q, v)/∂(q₀, v₀)`.
#[derive(Clone, Copy)]
struct Tangent<T: Real, const N: usize> {
    q: SVector<T, N>,
    v: SVector<T, N>,
    qq: SMatrix<T, N, N>,
    qv: SMatrix<T, N, N>,
    vq: SMatrix<T, N, N>,
    vv: SMatrix<T, N, N>,
}

/// The augmented vector field at a stage and its derivative: `(v, a, L)` and their tangents.
#[derive(Clone, Copy)]
struct Slope<T: Real, const N: usize> {
    t: Tangent<T, N>,
    s: T,
    s_q: SVector<T, N>,
    s_v: SVector<T, N>,
}

impl<T: Real, P: Hessian<T, N>, K: Tableau, const N: usize> ExplicitRk<T, P, K, N> {
    /// `f(Y)` and `Df(Y)·DY` for the augmented system with first variation.
    fn slope(&self, y: &Tangent<T, N>) -> Slope<T, N> {
        let m = &self.system.mass;
        let grad = self.system.potential.gradient(&y.q);
        let hess = self.system.potential.hessian(&y.q);
        let minv_h = mass_solve_cols(m, &hess);
        let mv = m.mul(&y.v);
        Slope {
            t: Tangent {
                q: y.v,
                v: -m.solve(&grad),
                qq: y.vq,
                qv: y.vv,
                vq: -(minv_h * y.qq),
                vv: -(minv_h * y.qv),
            },
            s: m.kinetic(&y.v) - self.system.potential.energy(&y.q),
            s_q: y.vq.transpose() * mv - y.qq.transpose() * grad,
            s_v: y.vv.transpose() * mv - y.qv.transpose() * grad,
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
        for i in 0..K::STAGES {
            let mut yi = y0;
            for j in 0..i {
                let c = t * self.a[i][j];
                yi.q += k[j].t.q * c;
                yi.v += k[j].t.v * c;
                yi.qq += k[j].t.qq * c;
                yi.qv += k[j].t.qv * c;
                yi.vq += k[j].t.vq * c;
                yi.vv += k[j].t.vv * c;
            }
            k[i] = self.slope(&yi);
            let c = t * self.b[i];
            out.q += k[i].t.q * c;
            out.q_q += k[i].t.qq * c;
            out.q_v += k[i].t.qv * c;
            out.s += k[i].s * c;
            out.s_q += k[i].s_q * c;
            out.s_v += k[i].s_v * c;
        }
        out
    }
}
