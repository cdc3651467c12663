//! The Cayley-map variational benchmark of 000 §4.5, eqs 4.12–4.13.

use super::{
    check_rotation, check_torque, hat, matrix_of, vec_of, vee, BodyState, RigidBody, So3Probe,
};
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::validate::check_step;
use crate::zs::ImplicitNewtonParams;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{Matrix3, SVector, Vector3};

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
/// The state is the relaxed [`State<T, 9>`] the linearised Z&S steps: `q = vec R`,
/// `v = vec Ṙ = vec(RΩ̂)` (column-major; [`BodyState::to_relaxed`] builds it,
/// [`CayleyVariational::body_state`] reads it back). `Ω_k` is the `Ω_{k+1}` of the previous step
/// when the state is the one that step committed (kept bit-exact), `vee(R_kᵀṘ_k)` otherwise.
///
/// Properties: **variational** (symplectic on T*SO(3), momentum preserving; energy error bounded,
/// no drift), **first order**, not symmetric; `R` stays in SO(3) to rounding: each step multiplies
/// it by the orthogonal `cay(hΩ)`, so `‖RᵀR − I‖` keeps its initial value plus rounding. Fully
/// implicit: Newton on `Ω_{k+1}` (3×3 Jacobian) with at most `max_iter` updates. Steps go through
/// the crate's driver; the guards measure [`So3Probe`] without penalty: the energy
/// `½ΩᵀJΩ + Bμ R₃₃` and the orthogonality defect.
///
/// # Errors
/// `step` returns [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
/// [`StepError::NotConverged`] when Newton misses its tolerance within `max_iter` updates,
/// [`StepError::Singular`] when a Newton Jacobian is singular, [`StepError::NonFiniteResult`]
/// when the result overflows, [`StepError::Diverged`] when a step guard is violated,
/// [`StepError::ClockStalled`] when `t + h` cannot be represented. The state is then unchanged.
///
/// ```
/// use macrostep::lie::{orthogonality_error, BodyState, CayleyVariational, RigidBody};
/// use macrostep::zs::ImplicitNewtonParams;
/// use macrostep::Integrator;
/// let body = RigidBody::<f64>::paper();
/// let mut cay = CayleyVariational::new(body, 0.01, ImplicitNewtonParams::default()).unwrap();
/// let mut s = BodyState::paper().to_relaxed();
/// let e0 = body.energy(&BodyState::paper());
/// cay.integrate(&mut s, 1000).unwrap(); // t = 10
/// let b = cay.body_state(&s);
/// assert!((body.energy(&b) - e0).abs() < 1e-3);
/// assert!(orthogonality_error(&b.rotation) < 1e-13);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CayleyVariational<T: Real> {
    body: RigidBody<T>,
    h: T,
    newton: ImplicitNewtonParams<T>,
    torque: Vector3<T>,
    /// `Ω` of the last committed state.
    omega: OmegaAt<T>,
    /// `Ω_{k+1}` of the last proposal, moved to `omega` when the driver commits it.
    proposed: OmegaAt<T>,
    probe: So3Probe<T>,
    watch: Watch<T, 9>,
}

/// The body angular velocity `w` of the state `(q, v)` it belongs to.
#[derive(Clone, Copy, Debug)]
struct OmegaAt<T: Real> {
    q: SVector<T, 9>,
    v: SVector<T, 9>,
    w: Vector3<T>,
    valid: bool,
}

impl<T: Real> OmegaAt<T> {
    fn none() -> Self {
        Self {
            q: SVector::zeros(),
            v: SVector::zeros(),
            w: Vector3::zeros(),
            valid: false,
        }
    }

    /// `w` when `(q, v)` is the state it belongs to.
    #[inline]
    fn of(&self, q: &SVector<T, 9>, v: &SVector<T, 9>) -> Option<Vector3<T>> {
        (self.valid && self.q == *q && self.v == *v).then_some(self.w)
    }
}

/// `Ω = vee(RᵀṘ)` (the skew part; exact when `R` is orthogonal).
#[inline]
fn omega_of<T: Real>(r: &Matrix3<T>, v: &SVector<T, 9>) -> Vector3<T> {
    vee(&(r.transpose() * matrix_of(v)))
}

impl<T: Real> CayleyVariational<T> {
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
        let body = body.validate()?;
        Ok(Self {
            body,
            h: check_step(h)?,
            newton: newton.validate()?,
            torque: Vector3::zeros(),
            omega: OmegaAt::none(),
            proposed: OmegaAt::none(),
            probe: So3Probe::new(&body, T::zero()),
            watch: Watch::default(),
        })
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

    /// The body-frame torque currently applied.
    pub fn torque(&self) -> Vector3<T> {
        self.torque
    }

    /// The body view `(t, R, Ω)` of `state`: `Ω` is the benchmark's own when `state` is the one
    /// it committed last (bit-exact along a run), `vee(RᵀṘ)` otherwise (as
    /// [`BodyState::from_relaxed`]).
    pub fn body_state(&self, state: &State<T, 9>) -> BodyState<T> {
        let r = matrix_of(&state.q);
        BodyState {
            t: state.t,
            rotation: r,
            omega: self
                .omega
                .of(&state.q, &state.v)
                .unwrap_or_else(|| omega_of(&r, &state.v)),
        }
    }
}

impl<T: Real> Guarded<T, 9> for CayleyVariational<T> {
    type Probe<'a>
        = &'a So3Probe<T>
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, 9> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, 9>, &So3Probe<T>) {
        (&mut self.watch, &self.probe)
    }

    fn accept(&mut self, state: &State<T, 9>) {
        if self.proposed.of(&state.q, &state.v).is_some() {
            self.omega = self.proposed;
        }
    }
}

impl<T: Real> Method<T, 9> for CayleyVariational<T> {
    /// Backward variational Euler.
    const ORDER: u32 = 1;
    /// Variational on T*SO(3) (not canonical in ℝ¹⁸ coordinates).
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    /// One step; returns the work `h u·Ω_{k+1}` of the body torque (zero without one).
    fn propose(
        &mut self,
        state: &State<T, 9>,
        h: T,
        next: &mut State<T, 9>,
    ) -> Result<T, StepError> {
        let r0 = matrix_of(&state.q);
        check_rotation(&r0.data.0)?;
        let w0 = match self.omega.of(&state.q, &state.v) {
            Some(w) => w,
            None => omega_of(&r0, &state.v),
        };
        let j = self.body.inertia;
        let half_h = h * T::lit(0.5);
        let quarter_h2 = h * h * T::lit(0.25);
        let m0 = j.component_mul(&w0);
        let tau = self.body.torque(&r0) + self.torque;
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
        let r1 = r0 * cay;
        next.q = vec_of(&r1);
        next.v = vec_of(&(r1 * hat(&w)));
        self.proposed = OmegaAt {
            q: next.q,
            v: next.v,
            w,
            valid: true,
        };
        Ok(if self.torque != Vector3::zeros() {
            self.torque.dot(&w) * h
        } else {
            T::zero()
        })
    }
}
