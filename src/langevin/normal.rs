//! Standard normal draws from any `rand_core` RNG (Box–Muller, bounded cost).

use crate::Real;
use nalgebra::SVector;
use rand_core::Rng;

/// Standard normal samples `N(0, 1)` from any [`rand_core::Rng`] by the Box–Muller transform.
///
/// Each pair of normals consumes exactly two `next_u64` calls: `u₁ = (⌊x₁/2¹¹⌋ + 1)·2⁻⁵³ ∈ (0, 1]`,
/// `u₂ = ⌊x₂/2¹¹⌋·2⁻⁵³ ∈ [0, 1)`, then `z₁ = √(−2 ln u₁) cos 2πu₂`, `z₂ = √(−2 ln u₁) sin 2πu₂`.
/// The cost is fixed (no rejection loop), so a stochastic step has a bounded cost, and the number
/// of RNG words consumed does not depend on the scalar type: an `f32` run and an `f64` run from the
/// same seed see the same uniforms (rounded to the scalar), so their draws agree to `f32`
/// roundoff.
///
/// # Reproducing draws across targets
/// Use an RNG whose output stream is defined independently of the pointer width. `rand_pcg::Pcg32`
/// (`Lcg64Xsh32`) is: its `next_u64` is two `next_u32` calls, bit-identical on 32-bit (Cortex-M)
/// and 64-bit hosts. `rand::rngs::SmallRng` is **not**: it is Xoshiro256++ on 64-bit targets and
/// Xoshiro128++ on 32-bit ones, so the same seed gives different draws on the device and on the
/// host. A hardware RNG implementing `rand_core::Rng` is of course not reproducible at all.
///
/// The sampler is stateless (no cached second value): [`Normal::fill`] draws pairs and discards
/// the second member of the last pair when the length is odd.
///
/// ```
/// use macrostep::langevin::Normal;
/// use rand_pcg::{rand_core::SeedableRng, Pcg32};
/// let mut rng = Pcg32::seed_from_u64(7); // any rand_core::Rng
/// let (a, b): (f64, f64) = Normal::pair(&mut rng);
/// assert!(a.is_finite() && b.is_finite());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Normal;

const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

impl Normal {
    /// A uniform in `(0, 1]` from one `next_u64` (53 bits).
    #[inline]
    pub fn uniform_open0<R: Rng + ?Sized>(rng: &mut R) -> f64 {
        ((rng.next_u64() >> 11) as f64 + 1.0) * TWO_POW_M53
    }

    /// A uniform in `[0, 1)` from one `next_u64` (53 bits).
    #[inline]
    pub fn uniform<R: Rng + ?Sized>(rng: &mut R) -> f64 {
        (rng.next_u64() >> 11) as f64 * TWO_POW_M53
    }

    /// Two independent standard normals (one Box–Muller pair; two `next_u64` calls).
    #[inline]
    pub fn pair<T: Real, R: Rng + ?Sized>(rng: &mut R) -> (T, T) {
        let u1 = T::lit(Self::uniform_open0(rng));
        let u2 = T::lit(Self::uniform(rng));
        let r = (-(T::one() + T::one()) * u1.ln()).sqrt();
        let (s, c) = (T::two_pi() * u2).sin_cos();
        (r * c, r * s)
    }

    /// One standard normal (draws a pair and discards the second member).
    #[inline]
    pub fn sample<T: Real, R: Rng + ?Sized>(rng: &mut R) -> T {
        Self::pair::<T, R>(rng).0
    }

    /// Fills a slice with independent standard normals (`2·⌈len/2⌉` calls of `next_u64`).
    pub fn fill<T: Real, R: Rng + ?Sized>(rng: &mut R, out: &mut [T]) {
        let mut chunks = out.chunks_mut(2);
        for chunk in &mut chunks {
            let (a, b) = Self::pair::<T, R>(rng);
            if let Some(x) = chunk.first_mut() {
                *x = a;
            }
            if let Some(x) = chunk.get_mut(1) {
                *x = b;
            }
        }
    }

    /// A vector of `N` independent standard normals.
    pub fn vector<T: Real, R: Rng + ?Sized, const N: usize>(rng: &mut R) -> SVector<T, N> {
        let mut v = SVector::<T, N>::zeros();
        Self::fill(rng, v.as_mut_slice());
        v
    }
}
