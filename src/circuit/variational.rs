//! The variational circuit integrator, 004 eq 7.15.

use super::Circuit;
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::validate::check_step;
#[cfg(doc)]
use crate::Integrator;
use crate::{ConfigError, Real, State, StepError};
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
/// Guards: for a lossless circuit the energy guards measure the conserved `H − fᵀq̃` (the
/// [`Circuit`] is the probe), so a step size past the stability limit (`h ω_max ≥ 2`) is refused
/// early instead of running to an infinite energy; a dissipative circuit has no energy the guards
/// check. [`CircuitVi::set_source`] keeps the run going (the reference energy moves by the change
/// of `−fᵀq̃`), [`CircuitVi::set_inverse_capacitance`] starts a new one.
///
/// # Errors
/// [`CircuitVi::new`]: [`ConfigError::StepSize`], and as [`Circuit::solve_matrix_inverse`]
/// (`𝕃 + hD` not positive definite or ill-conditioned, judged scaled, or its inverse
/// overflowing). `step_by`: [`StepError::StepSize`], [`StepError::NonFiniteState`],
/// [`StepError::Singular`] (a step size other than the configured one for which
/// [`Circuit::solve_matrix_inverse`] fails),
/// [`StepError::NonFiniteResult`], [`StepError::Diverged`] (a guard), [`StepError::ClockStalled`];
/// the state is unchanged on error.
///
/// ```
/// use macrostep::circuit::{Circuit, CircuitParams, CircuitVi};
/// use macrostep::{Integrator, State, StepError, nalgebra::Vector2};
/// // The high-order LC circuit of 004 §7.1.6, h = 0.1, q̃₀ = (1, 0), ṽ₀ = 0.
/// let circuit = Circuit::new(CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.0)).unwrap();
/// let mut vi = CircuitVi::new(circuit, 0.1).unwrap();
/// let mut s = State::at_rest(Vector2::new(1.0, 0.0));
/// let e0 = circuit.energy(&s);
/// vi.integrate(&mut s, 3000).unwrap(); // t = 300
/// assert!((circuit.energy(&s) - e0).abs() < 0.1 * e0); // bounded energy error, no drift
/// // Past the stability limit (h < 1.397 here) the energy guard refuses the run.
/// let mut vi = CircuitVi::new(circuit, 1.5).unwrap();
/// let mut s = State::at_rest(Vector2::new(1.0, 0.0));
/// assert!(matches!(vi.integrate(&mut s, 1000), Err(StepError::Diverged { .. })));
/// assert!(circuit.energy(&s).is_finite());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CircuitVi<T: Real, const B: usize, const M: usize> {
    circuit: Circuit<T, B, M>,
    pub(super) h: T,
    /// `(𝕃 + hD)⁻¹` for the configured `h`.
    a_inv: SMatrix<T, M, M>,
    pub(super) watch: Watch<T, M>,
}

impl<T: Real, const B: usize, const M: usize> CircuitVi<T, B, M> {
    /// The integrator for `circuit` with step `h > 0`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(circuit: Circuit<T, B, M>, h: T) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let a_inv = circuit.solve_matrix_inverse(h)?;
        Ok(Self {
            circuit,
            h,
            a_inv,
            watch: Watch::default(),
        })
    }

    /// The circuit.
    pub fn circuit(&self) -> &Circuit<T, B, M> {
        &self.circuit
    }

    /// Replaces the held source voltages `u_s` (see [`Circuit::set_source`]); the guards' run
    /// continues, its reference energy moved by the change `−Δfᵀq̃` at the last committed state.
    ///
    /// # Errors
    /// As [`Circuit::set_source`]; unchanged on error.
    pub fn set_source(&mut self, source: SVector<T, B>) -> Result<(), ConfigError> {
        let f0 = self.circuit.f;
        self.circuit.set_source(source)?;
        let df = self.circuit.f - f0;
        self.watch.account(|last| -df.dot(&last.q));
        Ok(())
    }

    /// Replaces the inverse capacitance of one branch (see [`Circuit::set_inverse_capacitance`];
    /// `𝕃 + hD` does not depend on it, so nothing is re-factorised); the guards start a new run
    /// at the next step.
    ///
    /// # Errors
    /// As [`Circuit::set_inverse_capacitance`]; unchanged on error.
    pub fn set_inverse_capacitance(&mut self, branch: usize, value: T) -> Result<(), ConfigError> {
        self.circuit.set_inverse_capacitance(branch, value)?;
        self.watch.restart();
        Ok(())
    }

    /// Writes one step of size `h` from `state` into `next.q`, `next.v`, with the extra mesh
    /// impulse `kick` added to the flux update (the noise of [`super::NoisyCircuitVi`]).
    ///
    /// # Errors
    /// [`StepError::Singular`] when `h` is not the configured step and `𝕃 + hD` is singular.
    pub(super) fn advance(
        &self,
        state: &State<T, M>,
        h: T,
        kick: &SVector<T, M>,
        next: &mut State<T, M>,
    ) -> Result<(), StepError> {
        let fresh;
        let a_inv = if h == self.h {
            &self.a_inv
        } else {
            fresh = self
                .circuit
                .solve_matrix_inverse(h)
                .map_err(|_| StepError::Singular)?;
            &fresh
        };
        let c = &self.circuit;
        next.q = state.q + state.v * h;
        let rhs = c.l * state.v + (c.f - c.s * next.q) * h + kick;
        next.v = a_inv * rhs;
        Ok(())
    }
}

impl<T: Real, const B: usize, const M: usize> Guarded<T, M> for CircuitVi<T, B, M> {
    type Probe<'a>
        = &'a Circuit<T, B, M>
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, M> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, M>, &Circuit<T, B, M>) {
        (&mut self.watch, &self.circuit)
    }
}

impl<T: Real, const B: usize, const M: usize> Method<T, M> for CircuitVi<T, B, M> {
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    /// The step of [`Integrator::step_by`]; exchanges no energy the guards measure (the source is
    /// part of the probe's potential, a dissipative circuit has no probed energy).
    fn propose(
        &mut self,
        state: &State<T, M>,
        h: T,
        next: &mut State<T, M>,
    ) -> Result<T, StepError> {
        self.advance(state, h, &SVector::zeros(), next)?;
        Ok(T::zero())
    }
}
