//! Langevin building blocks: normal sampling from any `rand_core` RNG, exact Ornstein–Uhlenbeck
//! flows, the stochastic-step trait, and GLA.
//!
//! # The pieces
//! - [`Normal`]: standard normals by Box–Muller over any [`rand_core::Rng`] (a seeded PRNG on the
//!   host, a hardware RNG on a device). Fixed cost: two `next_u64` per pair.
//! - [`Ou`], [`DiagonalOu`]: the exact flow `p ← e^{−ch} p + √((1 − e^{−2ch})·m/β) ξ` of
//!   `dp = −c p dt + σ dW` (scalar, or per component), coefficients computed once. The Langevin
//!   FLAVORs and GLA use it for their momentum half-steps.
//! - [`StochasticIntegrator`] (defined in [`crate::integrator`], re-exported here and at the
//!   crate root): the one-step vocabulary for stochastic methods, `step_noisy(state, rng)`,
//!   `integrate_noisy(state, n, rng)` and `step_with_noise(state, &noise)` with pre-drawn noise.
//!   SIM1/SIM2, [`Gla`], [`AnnealTuneGla`] and the noisy circuit integrator implement it through
//!   the step driver ([`crate::driver::NoisyMethod`]).
//! - [`Gla`]: the Geometric Langevin Algorithm (004 eq 6.3), the small-step baseline; built as
//!   `Gla::new(system, h, GlaParams { friction, inverse_temperature })`.
//! - [`AnnealTuneGla`]: GLA with friction tuned to the local curvature and an annealed
//!   temperature (004 eq 6.6), for faster sampling: `AnnealTuneGla::new(system, h,
//!   AnnealTuneParams { friction, schedule })` with a [`FrictionRule`] and one of the cooling
//!   [`Schedule`]s (eqs 6.33–6.38).
//!
//! # Reproducible draws (host vs device)
//! The draws are a function of the RNG's `next_u64` stream only. `rand_pcg::Pcg32` gives the same
//! stream on 32-bit and 64-bit targets; `rand::rngs::SmallRng` (Xoshiro256++ on 64-bit,
//! Xoshiro128++ on 32-bit) does not. Compare host and device runs with `Pcg32`.
//!
//! # Conventions
//! Friction `c ≥ 0`, inverse temperature `β > 0`; with mass `M` the fluctuation–dissipation
//! relation is `σσᵀ = 2c M/β`, and the stationary momentum covariance is `M/β`.

mod anneal_tune;
mod cooling;
mod gla;
mod normal;
mod ou;

pub use anneal_tune::{constant_temperature, AnnealTuneGla, AnnealTuneParams, FrictionRule};
pub use cooling::{Cooling, Schedule};
pub use gla::{Gla, GlaParams};
pub use normal::Normal;
pub use ou::{DiagonalOu, Ou};

/// The stochastic-step trait, defined with the rest of the stepping vocabulary in
/// [`crate::integrator`] and re-exported here beside the stochastic methods.
pub use crate::integrator::StochasticIntegrator;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfigError;

    /// A 64-bit LCG (test-only; host tests use `rand_pcg`).
    struct Lcg(u64);
    impl rand_core::TryRng for Lcg {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok((self.try_next_u64()? >> 32) as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Ok(self.0)
        }
        fn try_fill_bytes(&mut self, d: &mut [u8]) -> Result<(), Self::Error> {
            d.fill(0);
            Ok(())
        }
    }

    #[test]
    fn normal_moments() {
        let mut rng = Lcg(3);
        let n = 200_000;
        let (mut m1, mut m2, mut m4) = (0.0, 0.0, 0.0);
        for _ in 0..n / 2 {
            let (a, b): (f64, f64) = Normal::pair(&mut rng);
            for x in [a, b] {
                m1 += x;
                m2 += x * x;
                m4 += x * x * x * x;
            }
        }
        let nf = n as f64;
        // Standard errors: mean 1/√n, variance √2/√n, fourth moment √96/√n; 5 SE bounds.
        assert!((m1 / nf).abs() < 5.0 / nf.sqrt());
        assert!((m2 / nf - 1.0).abs() < 5.0 * 2f64.sqrt() / nf.sqrt());
        assert!((m4 / nf - 3.0).abs() < 5.0 * 96f64.sqrt() / nf.sqrt());
    }

    #[test]
    fn f32_and_f64_draws_agree() {
        let (mut a, mut b) = (Lcg(11), Lcg(11));
        for _ in 0..1000 {
            let x: f64 = Normal::sample(&mut a);
            let y: f32 = Normal::sample(&mut b);
            assert!((x - y as f64).abs() < 1e-5 * (1.0 + x.abs()));
        }
    }

    #[test]
    fn fill_odd_length_consumes_pairs() {
        let mut a = Lcg(5);
        let mut buf = [0.0f64; 3];
        Normal::fill(&mut a, &mut buf);
        let mut b = Lcg(5);
        let (x0, x1): (f64, f64) = Normal::pair(&mut b);
        let (x2, _): (f64, f64) = Normal::pair(&mut b);
        assert_eq!(buf, [x0, x1, x2]);
        assert_eq!(a.0, b.0);
    }

    #[test]
    fn ou_coefficients_closed_form() {
        let ou = Ou::<f64>::new(2.0, 0.3, 0.05).unwrap();
        assert!((ou.decay() - (-0.1f64).exp()).abs() < 1e-15);
        let var = 0.09 * (1.0 - (-0.2f64).exp()) / 4.0;
        assert!((ou.std_dev() - var.sqrt()).abs() < 1e-15);
        // c = 0: Brownian motion.
        let bm = Ou::<f64>::new(0.0, 0.3, 0.04).unwrap();
        assert!((bm.std_dev() - 0.06).abs() < 1e-15);
        // thermal: σ² = 2cm/β.
        let th = Ou::<f64>::thermal(2.0, 5.0, 3.0, 0.05).unwrap();
        let eq = Ou::<f64>::new(2.0, (2.0 * 2.0 * 3.0 / 5.0f64).sqrt(), 0.05).unwrap();
        assert!((th.std_dev() - eq.std_dev()).abs() < 1e-15);
    }

    /// `step_noisy` draws the noise with the same RNG words `step_with_noise` is given:
    /// same states, same RNG position.
    #[test]
    fn noisy_step_is_draw_then_step_with_noise() {
        use crate::model::{Mass, Quadratic, System};
        use crate::{State, Stepper};
        use nalgebra::{matrix, vector, SVector};
        let sys = System::new(Mass::identity(), Quadratic::new(matrix![1.0_f64]));
        let params = GlaParams {
            friction: 0.5,
            inverse_temperature: 2.0,
        };
        let mut a = Gla::new(sys, 0.01, params).unwrap();
        let mut b = a;
        assert_eq!(a.step_size(), 0.01);
        let s0 = State::new(0.0, vector![1.0], vector![0.0]);
        let (mut x, mut y) = (s0, s0);
        let (mut ra, mut rb) = (Lcg(7), Lcg(7));
        a.integrate_noisy(&mut x, 6, &mut ra).unwrap();
        for _ in 0..6 {
            let xi: SVector<f64, 1> = Normal::vector(&mut rb);
            b.step_with_noise(&mut y, &xi).unwrap();
        }
        assert_ne!(x, s0);
        assert_eq!(x, y);
        assert_eq!(ra.0, rb.0);
    }

    #[test]
    fn ou_rejects_bad_input() {
        assert_eq!(Ou::<f64>::new(1.0, 1.0, 0.0), Err(ConfigError::StepSize));
        assert_eq!(
            Ou::<f64>::new(-1.0, 1.0, 0.1),
            Err(ConfigError::OutOfRange {
                name: "friction",
                bound: ">= 0"
            })
        );
        assert_eq!(
            Ou::<f64>::new(1.0, -1.0, 0.1),
            Err(ConfigError::OutOfRange {
                name: "noise",
                bound: ">= 0"
            })
        );
        assert_eq!(
            Ou::<f64>::thermal(1.0, 0.0, 1.0, 0.1),
            Err(ConfigError::OutOfRange {
                name: "inverse_temperature",
                bound: "> 0"
            })
        );
        assert_eq!(
            Ou::<f64>::new(f64::NAN, 1.0, 0.1),
            Err(ConfigError::NonFinite { name: "friction" })
        );
    }
}
