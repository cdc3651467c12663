//! The Cayley-map variational benchmark of 000 §4.5, eqs 4.12–4.13.

use super::{check_body_input, check_torque, hat, BodyState, RigidBody};
use crate::validate::check_step;
use crate::zs::ImplicitNewtonParams;
use crate::{ConfigError, Real, StepError};
use nalgebra::{Matrix3, Vector3};

/// The Hamilton–Pontryagin backward variational Euler method with the Cayley map (000 eq 4.12,
/// force 4.13; Bou-Rabee & Marsden 2009), for a rigid body with diagonal inertia `J`:
///
/// ```text
/// c       = J Ω_k − ½h Ω_k × JΩ_k + ¼h² (Ω_k·JΩ_k) Ω_k + h (τ_V(R_k) + u),  τ_V = Bμ (R_kᵀe₃) × e₃
/// solve     J Ω + ½h Ω × JΩ + ¼h² (Ω·JΩ) Ω = c   for Ω_{k+1}  (Newton from Ω_k, capped)
/// R_{k+1} = R_k cay(hΩ_{k+1}),  cay(x) = (I − x̂/2)⁻¹(I + x̂/2) = I + 4/(4 + |x|²) (x̂ + ½x̂²)
/// ```
///
/// For `J = I` the solve is the paper's `Ω_{k+1} + ¼h²|Ω_{k+1}|²Ω_{k+1} = Ω_k + ¼h²|Ω_k|²Ω_k +
/// hτ` (the [module docs](super) derive the general form). `u` is an optional body torque
/// ([`CayleyVariational::set_torque`], beyond the paper).
///
/// Properties: **variational** (symplectic on T*SO(3), momentum preserving; energy error bounded,
/// no drift), **first order**, not symmetric; `R` stays in SO(3) to rounding: each step multiplies
/// it by the orthogonal `cay(hΩ)`, so `‖RᵀR − I‖` keeps its initial value plus rounding. Fully
/// implicit: Newton on `Ω_{k+1}` (3×3 Jacobian) with at most `max_iter` updates.
///
/// # Errors
/// `step` returns [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
/// [`StepError::NotConverged`] when Newton misses its tolerance within `max_iter` updates,
/// [`StepError::Singular`] when a Newton Jacobian is singular, [`StepError::NonFiniteResult`]
/// when the result overflows, [`StepError::ClockStalled`] when `t + h` rounds back to `t`. The
/// state is then unchanged.
///
/// ```
/// use macrostep::lie::{BodyState, CayleyVariational, RigidBody, orthogonality_error};
/// use macrostep::zs::ImplicitNewtonParams;
/// let body = RigidBody::<f64>::paper();
/// let mut cay = CayleyVariational::new(body, 0.01, ImplicitNewtonParams::default()).unwrap();
/// let mut s = BodyState::paper();
/// let e0 = body.energy(&s);
/// cay.integrate(&mut s, 1000).unwrap(); // t = 10
/// assert!((body.energy(&s) - e0).abs() < 1e-3);
/// assert!(orthogonality_error(&s.rotation) < 1e-13);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CayleyVariational<T: Real> {
    body: RigidBody<T>,
    h: T,
    newton: ImplicitNewtonParams<T>,
    torque: Vector3<T>,
}

impl<T: Real> CayleyVariational<T> {
    /// Order of global convergence (backward variational Euler).
    pub const ORDER: u32 = 1;
    /// Variational on T*SO(3) (not canonical in ℝ¹⁸ coordinates).
    pub const SYMPLECTIC: bool = true;
    /// Not symmetric.
    pub const SYMMETRIC: bool = false;

    /// The benchmark for `body` with step `h` and Newton controls `newton`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; the errors of [`RigidBody::validate`] and
    /// [`ImplicitNewtonParams::validate`].
    pub fn new(
        body: RigidBody<T>,
        h: T,
        newton: ImplicitNewtonParams<T>,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            body: body.validate()?,
            h: check_step(h)?,
            newton: newton.validate()?,
            torque: Vector3::zeros(),
        })
    }

    /// The configured step size.
    pub fn step_size(&self) -> T {
        self.h
    }

    /// The body being integrated.
    pub fn body(&self) -> &RigidBody<T> {
        &self.body
    }

    /// Sets the body-frame torque `u` applied over the following steps (beyond the paper).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] for `"torque"`; the previous torque is kept.
    pub fn set_torque(&mut self, u: Vector3<T>) -> Result<(), ConfigError> {
        self.torque = check_torque(&u)?;
        Ok(())
    }

    /// Advances `state` by the configured step.
    ///
    /// # Errors
    /// As [`CayleyVariational::step_by`].
    pub fn step(&mut self, state: &mut BodyState<T>) -> Result<(), StepError> {
        self.step_by(state, self.h)
    }

    /// Takes `n` steps, stopping at the first error (the state then holds the last good step).
    ///
    /// # Errors
    /// The first step error.
    pub fn integrate(&mut self, state: &mut BodyState<T>, n: usize) -> Result<(), StepError> {
        for _ in 0..n {
            self.step(state)?;
        }
        Ok(())
    }

    /// Advances `state` by the signed step `h`.
    ///
    /// # Errors
    /// See the type's documentation; the state is unchanged on error.
    pub fn step_by(&mut self, state: &mut BodyState<T>, h: T) -> Result<(), StepError> {
        check_body_input(state, h)?;
        let j = self.body.inertia;
        let half_h = h * T::lit(0.5);
        let quarter_h2 = h * h * T::lit(0.25);
        let w0 = state.omega;
        let m0 = j.component_mul(&w0);
        let tau = self.body.torque(&state.rotation) + self.torque;
        let c = m0 - w0.cross(&m0) * half_h + w0 * (quarter_h2 * w0.dot(&m0)) + tau * h;
        let mut w = w0;
        let mut converged = false;
        for _ in 0..self.newton.max_iter {
            let m = j.component_mul(&w);
            let wm = w.dot(&m);
            let g = m + w.cross(&m) * half_h + w * (quarter_h2 * wm) - c;
            let jac = Matrix3::from_diagonal(&j)
                + (hat(&w) * Matrix3::from_diagonal(&j) - hat(&m)) * half_h
                + (Matrix3::identity() * wm + w * m.transpose() * T::lit(2.0)) * quarter_h2;
            let dw = jac.lu().solve(&g).ok_or(StepError::Singular)?;
            w -= dw;
            if dw.amax() <= self.newton.tol * (T::one() + w.amax()) {
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(StepError::NotConverged);
        }
        let x = w * h;
        let xh = hat(&x);
        let four = T::lit(4.0);
        let cay =
            Matrix3::identity() + (xh + xh * xh * T::lit(0.5)) * (four / (four + x.norm_squared()));
        let next = BodyState {
            t: state.t + h,
            rotation: state.rotation * cay,
            omega: w,
        };
        if !next.is_finite() {
            return Err(StepError::NonFiniteResult);
        }
        if next.t == state.t {
            return Err(StepError::ClockStalled);
        }
        *state = next;
        Ok(())
    }
}
