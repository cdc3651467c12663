//! A force function `f(t, q)` sampled once per step and held over it.

use super::Actuate;
use crate::driver::{Method, Wrapper};
use crate::{Real, State, StepError};
use nalgebra::SVector;

/// A time-dependent force `f(t, q)` applied to an [`Actuate`] method: before each step of
/// signed size `h` from `(t, q, v)` it holds `u = f(t + h/2, q + (h/2) v)` (midpoint rule of the
/// discrete Lagrange–d'Alembert principle, see [`crate::forcing`]).
///
/// Properties: `ORDER = min(I::ORDER, 2)` — the midpoint sample is second order; wrap the base
/// method and compose `Driven<base>` for higher order (each stage samples its own midpoint).
/// `SYMPLECTIC` and `SYMMETRIC` are the base method's, for a force of `t` only (the map of each
/// step is the base map for the potential `V − uᵀq`); a force depending on `q` is neither.
/// Cost: one call of `f` per step, plus the first-same-as-last cache miss of a changed `u`.
///
/// # Errors
/// [`StepError::NonFiniteForce`] when `f` returns a NaN or an infinity; the base method's
/// errors. The state is unchanged on error (the base method then holds the sampled `u`).
///
/// ```
/// use macrostep::forcing::{Actuated, Driven};
/// use macrostep::model::{Mass, System, Zero};
/// use macrostep::baselines::VelocityVerlet;
/// use macrostep::{Integrator, State};
/// use nalgebra::vector;
///
/// // A free unit mass under u = cos t: x(t) = 1 − cos t from rest at 0.
/// let sys = System::new(Mass::<f64, 1>::identity(), Actuated::new(Zero));
/// let vv = VelocityVerlet::new(sys, 0.01).unwrap();
/// let mut driven = Driven::new(vv, |t: f64, _q: &nalgebra::SVector<f64, 1>| vector![t.cos()]);
/// let mut s = State::at_rest(vector![0.0]);
/// driven.integrate(&mut s, 100).unwrap();
/// assert!((s.q[0] - (1.0 - 1f64.cos())).abs() < 1e-5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Driven<T: Real, I, F> {
    inner: I,
    f: F,
    half: T,
}

impl<T: Real, I, F> Driven<T, I, F> {
    /// `inner` driven by the force function `f(t, q)`.
    pub fn new(inner: I, f: F) -> Self {
        Self {
            inner,
            f,
            half: T::lit(0.5),
        }
    }

    /// The base method.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// Mutable access to the base method.
    pub fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

impl<T: Real, I, F> Wrapper for Driven<T, I, F> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

impl<T, I, F, const N: usize> Method<T, N> for Driven<T, I, F>
where
    T: Real,
    I: Method<T, N> + Actuate<T, N>,
    F: FnMut(T, &SVector<T, N>) -> SVector<T, N>,
{
    const ORDER: u32 = if I::ORDER < 2 { I::ORDER } else { 2 };
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let tau = h * self.half;
        let u = (self.f)(state.t + tau, &(state.q + state.v * tau));
        self.inner.set_force(&u)?;
        self.inner.propose(state, h, next)
    }
}
