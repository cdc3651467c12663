//! The stochastic variational circuit integrator, 004 §7.1.5 (principle 7.21).

use super::{Circuit, CircuitVi};
#[cfg(doc)]
use crate::langevin::{Normal, StochasticIntegrator};
use crate::validate::check_derived;
use crate::{ConfigError, Real, State, StepError, Stepper};
use nalgebra::{SMatrix, SVector};

/// The stochastic variational integrator of a noisy circuit (004 §7.1.5): the discrete
/// reduced stochastic Euler–Lagrange equations of principle (7.21) with left-point noise,
///
/// ```text
/// q̃_k = q̃_{k−1} + h ṽ_{k−1}
/// p̃_k = p̃_{k−1} + h K₂ᵀ(−C K₂ q̃_k − diag(R) K₂ ṽ_k + u_s) + √h K₂ᵀ Σ ξ_k,   ξ_k ~ N(0, I_B)
/// p̃_k = K₂ᵀLK₂ ṽ_k
/// ```
///
/// for the reduced SDE (7.20) `dp̃ = (−Sq̃ − Dṽ + f) dt + K₂ᵀΣ dW` (additive noise: Itô and
/// Stratonovich agree). With `Σ = 0` it is [`CircuitVi`].
///
/// Properties: first order in the deterministic limit; for additive noise the scheme has strong
/// and weak order 1 (measured by the `lc-circuit` reproduction); symplectic almost surely for
/// `R = 0` (the noise is a state-independent kick). Each step draws `B` normals
/// ([`Normal::vector`], `2⌈B/2⌉` words of `next_u64`).
///
/// # Errors
/// As [`CircuitVi::new`], plus [`ConfigError::Overflow`] `{ name: "sqrt(h) K2^T Sigma" }`.
/// Steps: as [`CircuitVi`]'s; the state is unchanged on error (the RNG has advanced).
///
/// ```
/// use macrostep::circuit::{Circuit, CircuitParams, NoisyCircuitVi};
/// use macrostep::langevin::StochasticIntegrator;
/// use macrostep::{State, nalgebra::Vector2};
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// // 004 §7.1.6: Σ_jj = 0.01, h = 0.1, T = 30, q̃₀ = (1, 0).
/// let circuit = Circuit::new(CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.01)).unwrap();
/// let mut vi = NoisyCircuitVi::new(circuit, 0.1).unwrap();
/// let mut rng = Pcg32::seed_from_u64(3);
/// let mut s = State::at_rest(Vector2::new(1.0, 0.0));
/// vi.integrate(&mut s, 300, &mut rng).unwrap();
/// assert!((s.t - 30.0).abs() < 1e-9);
/// assert!(circuit.energy(&s) < 1.0); // E₀ = 0.55 plus a little noise heating
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NoisyCircuitVi<T: Real, const B: usize, const M: usize> {
    vi: CircuitVi<T, B, M>,
    /// `√h K₂ᵀΣ`.
    gs: SMatrix<T, M, B>,
}

impl<T: Real, const B: usize, const M: usize> NoisyCircuitVi<T, B, M> {
    /// The stochastic integrator for `circuit` (its `noise` is `Σ`) with step `h > 0`.
    ///
    /// # Errors
    /// See the type docs.
    pub fn new(circuit: Circuit<T, B, M>, h: T) -> Result<Self, ConfigError> {
        let vi = CircuitVi::new(circuit, h)?;
        let gs = circuit.g * h.sqrt();
        for x in gs.iter() {
            check_derived(*x, "sqrt(h) K2^T Sigma")?;
        }
        Ok(Self { vi, gs })
    }

    /// The circuit.
    pub fn circuit(&self) -> &Circuit<T, B, M> {
        self.vi.circuit()
    }

    /// The deterministic integrator underneath (same circuit and step).
    pub fn deterministic(&self) -> &CircuitVi<T, B, M> {
        &self.vi
    }

    /// Replaces the held source voltages `u_s` (see [`Circuit::set_source`]).
    ///
    /// # Errors
    /// As [`Circuit::set_source`]; unchanged on error.
    pub fn set_source(&mut self, source: SVector<T, B>) -> Result<(), ConfigError> {
        self.vi.set_source(source)
    }

    /// One step with the given standard normals `ξ_k` (one per branch): a caller can reuse a
    /// Brownian path across step sizes (the sum of `r` fine increments `√(h/r) ξ` is one coarse
    /// increment `√h ξ'` with `ξ' = Σξ/√r`).
    ///
    /// # Errors
    /// As [`StochasticIntegrator::step`].
    pub fn step_with_normals(
        &mut self,
        state: &mut State<T, M>,
        xi: &SVector<T, B>,
    ) -> Result<(), StepError> {
        let kick = self.gs * xi;
        self.vi.advance(state, self.vi.step_size(), &kick)
    }
}

crate::integrator::impl_stepper!(
    impl[T: Real, const B: usize, const M: usize] NoisyCircuitVi<T, B, M> => vi.step_size()
);

crate::langevin::impl_step_from_normals!(
    impl[T: Real, const B: usize, const M: usize] NoisyCircuitVi<T, B, M>
    => dof M, normals B, order 1
);
