//! The stochastic variational circuit integrator, 004 §7.1.5 (principle 7.21).

use super::{Circuit, CircuitVi};
use crate::driver::{Guarded, NoisyMethod};
use crate::guard::{NoProbe, Watch};
use crate::langevin::Normal;
#[cfg(doc)]
use crate::langevin::StochasticIntegrator;
use crate::validate::check_derived;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};
use rand_core::Rng;

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
/// ([`Normal::vector`], `2⌈B/2⌉` words of `next_u64`);
/// [`StochasticIntegrator::step_with_noise`] takes them pre-drawn, so a caller can reuse a
/// Brownian path across step sizes (the sum of `r` fine increments `√(h/r) ξ` is one coarse
/// increment `√h ξ'` with `ξ' = Σξ/√r`). The guards (shared with [`NoisyCircuitVi::deterministic`])
/// measure no energy ([`NoProbe`]: the noise heats the circuit); finiteness, the velocity guard
/// and the clock apply.
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
/// vi.integrate_noisy(&mut s, 300, &mut rng).unwrap();
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
}

impl<T: Real, const B: usize, const M: usize> Guarded<T, M> for NoisyCircuitVi<T, B, M> {
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.vi.h
    }

    fn watch(&self) -> &Watch<T, M> {
        &self.vi.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, M>, NoProbe) {
        (&mut self.vi.watch, NoProbe)
    }
}

impl<T: Real, const B: usize, const M: usize> NoisyMethod<T, M> for NoisyCircuitVi<T, B, M> {
    const DETERMINISTIC_ORDER: u32 = 1;

    /// The standard normals `ξ_k`, one per branch.
    type Noise = SVector<T, B>;

    /// Draws `B` standard normals ([`Normal::vector`], `2⌈B/2⌉` calls of `next_u64`).
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> SVector<T, B> {
        Normal::vector::<T, R, B>(rng)
    }

    fn propose_noisy(
        &mut self,
        state: &State<T, M>,
        xi: &SVector<T, B>,
        next: &mut State<T, M>,
    ) -> Result<T, StepError> {
        let kick = self.gs * xi;
        self.vi.advance(state, self.vi.h, &kick, next)?;
        Ok(T::zero())
    }
}
