//! The variational circuit integrator, 004 eq 7.15.

use super::Circuit;
use crate::integrator::commit;
use crate::validate::check_step_input;
use crate::validate::{check_derived, check_step};
use crate::{ConfigError, Integrator, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// The discrete reduced Lagrange–d'Alembert–Pontryagin integrator of a circuit (004 §7.1.3,
/// eqs 7.14–7.16), in mesh charges `q̃` and mesh currents `ṽ`:
///
/// ```text
/// q̃_k = q̃_{k−1} + h ṽ_{k−1}
/// p̃_k = p̃_{k−1} + h K₂ᵀ(−C K₂ q̃_k − diag(R) K₂ ṽ_k + u_s)
/// p̃_k = K₂ᵀLK₂ ṽ_k
/// ```
///
/// solved as `(𝕃 + hD) ṽ_k = 𝕃 ṽ_{k−1} + h(f − S q̃_k)` with the inverse of `𝕃 + hD` computed
/// once (see [`crate::circuit`]). A degenerate circuit (`𝕃` singular) is fine as long as
/// `𝕃 + hD` is positive definite (the seed's remark after eq 7.16).
///
/// Properties: first order; for `R = 0` and regular `𝕃` it is symplectic Euler in `(q̃, p̃)`, hence
/// symplectic (`SYMPLECTIC` refers to this lossless case); with resistors a step scales phase
/// volume by `det 𝕃 / det(𝕃 + hD)` (the Lagrange–d'Alembert dissipation); not symmetric.
/// Both Kirchhoff laws hold exactly (the state lives on the meshes).
///
/// # Errors
/// [`CircuitVi::new`]: [`ConfigError::StepSize`], [`ConfigError::NotPositiveDefinite`]
/// `{ name: "inductance + h resistance" }`, [`ConfigError::Overflow`] for its inverse.
/// `step_by`: [`StepError::StepSize`], [`StepError::NonFiniteState`], [`StepError::Singular`]
/// (a step size other than the configured one making `𝕃 + hD` singular),
/// [`StepError::NonFiniteResult`], [`StepError::ClockStalled`]; the state is unchanged on error.
///
/// ```
/// use macrostep::circuit::{Circuit, CircuitParams, CircuitVi};
/// use macrostep::{Integrator, State, nalgebra::Vector2};
/// // The high-order LC circuit of 004 §7.1.6, h = 0.1, q̃₀ = (1, 0), ṽ₀ = 0.
/// let circuit = Circuit::new(CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.0)).unwrap();
/// let mut vi = CircuitVi::new(circuit, 0.1).unwrap();
/// let mut s = State::at_rest(Vector2::new(1.0, 0.0));
/// let e0 = circuit.energy(&s);
/// vi.integrate(&mut s, 3000).unwrap(); // t = 300
/// assert!((circuit.energy(&s) - e0).abs() < 0.1 * e0); // bounded energy error, no drift
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CircuitVi<T: Real, const B: usize, const M: usize> {
    circuit: Circuit<T, B, M>,
    h: T,
    /// `(𝕃 + hD)⁻¹` for the configured `h`.
    a_inv: SMatrix<T, M, M>,
}

impl<T: Real, const B: usize, const M: usize> CircuitVi<T, B, M> {
    /// The integrator for `circuit` with step `h > 0`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(circuit: Circuit<T, B, M>, h: T) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let a = circuit.l + circuit.d * h;
        let a_inv = a
            .cholesky()
            .map(|c| c.inverse())
            .ok_or(ConfigError::NotPositiveDefinite {
                name: "inductance + h resistance",
            })?;
        for x in a_inv.iter() {
            check_derived(*x, "(inductance + h resistance)^-1")?;
        }
        Ok(Self { circuit, h, a_inv })
    }

    /// The circuit.
    pub fn circuit(&self) -> &Circuit<T, B, M> {
        &self.circuit
    }

    /// Replaces the held source voltages `u_s` (see [`Circuit::set_source`]).
    ///
    /// # Errors
    /// As [`Circuit::set_source`]; unchanged on error.
    pub fn set_source(&mut self, source: SVector<T, B>) -> Result<(), ConfigError> {
        self.circuit.set_source(source)
    }

    /// Replaces the inverse capacitance of one branch (see [`Circuit::set_inverse_capacitance`];
    /// `𝕃 + hD` does not depend on it, so nothing is re-factorised).
    ///
    /// # Errors
    /// As [`Circuit::set_inverse_capacitance`]; unchanged on error.
    pub fn set_inverse_capacitance(&mut self, branch: usize, value: T) -> Result<(), ConfigError> {
        self.circuit.set_inverse_capacitance(branch, value)
    }

    /// One step of size `h` with the extra mesh impulse `kick` added to the flux update (the
    /// noise of [`super::NoisyCircuitVi`]); commits or leaves `state` unchanged.
    pub(super) fn advance(
        &self,
        state: &mut State<T, M>,
        h: T,
        kick: &SVector<T, M>,
    ) -> Result<(), StepError> {
        check_step_input(state, h)?;
        let fresh;
        let a_inv = if h == self.h {
            &self.a_inv
        } else {
            fresh = (self.circuit.l + self.circuit.d * h)
                .try_inverse()
                .ok_or(StepError::Singular)?;
            &fresh
        };
        let c = &self.circuit;
        let q = state.q + state.v * h;
        let rhs = c.l * state.v + (c.f - c.s * q) * h + kick;
        let v = a_inv * rhs;
        commit(
            state,
            State {
                t: state.t + h,
                q,
                v,
            },
        )
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, const B: usize, const M: usize] CircuitVi<T, B, M> => h
);

impl<T: Real, const B: usize, const M: usize> Integrator<T, M> for CircuitVi<T, B, M> {
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    fn step_by(&mut self, state: &mut State<T, M>, h: T) -> Result<(), StepError> {
        self.advance(state, h, &SVector::zeros())
    }
}
