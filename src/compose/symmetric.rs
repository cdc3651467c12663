//! Symmetric composition: Yoshida's triple jump and Suzuki's 5-stage scheme.

use crate::driver::{Method, Wrapper};
use crate::{ConfigError, Real, State, StepError};

/// Which symmetric composition scheme (both raise an even order `p` to `p + 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Scheme {
    /// Yoshida's triple jump: `γ₁ = γ₃ = 1/(2 − 2^{1/(p+1)})`, `γ₂ = 1 − 2γ₁` (negative).
    TripleJump,
    /// Suzuki's fractal 5-stage scheme: `γ₁ = γ₂ = γ₄ = γ₅ = 1/(4 − 4^{1/(p+1)})`,
    /// `γ₃ = 1 − 4γ₁`; smaller error constant than the triple jump, one stage more.
    Suzuki5,
}

impl Scheme {
    /// The stage coefficients `(γ₁, …, γ_s)` for a base method of even order `p` (padded with
    /// zeros to five) and the number of stages `s`. The one definition of these coefficients in
    /// the crate ([`Reich4`](crate::constrained::Reich4) takes the triple jump for `p = 2`).
    pub(crate) fn gammas(self, order: u32) -> ([f64; 5], usize) {
        let root = 1.0 / f64::from(order + 1);
        match self {
            Self::TripleJump => {
                let g1 = 1.0 / (2.0 - libm::pow(2.0, root));
                let g2 = 1.0 - 2.0 * g1;
                ([g1, g2, g1, 0.0, 0.0], 3)
            }
            Self::Suzuki5 => {
                let g1 = 1.0 / (4.0 - libm::pow(4.0, root));
                let g3 = 1.0 - 4.0 * g1;
                ([g1, g1, g3, g1, g1], 5)
            }
        }
    }
}

/// A symmetric composition `Φ_{γ_s h} ∘ … ∘ Φ_{γ₁ h}` of a symmetric one-step method `Φ` of even
/// order `p`, of order `p + 2` (Yoshida 1990; Hairer–Lubich–Wanner Thm II.4.2; 000 Rem 2.11).
///
/// The coefficients are computed once, in [`SymmetricComposition::new`], for the base method's
/// order `p = I::ORDER`; the composition is symmetric, and symplectic when the base method is.
/// It costs `s` (3 or 5) base steps per step. The macro step `h` is the base method's configured
/// step size. Applied to [`ZhangSkeel`](crate::zs::ZhangSkeel) it gives the 4th-order Z&S of
/// 000 Remark 2.11.
///
/// The stages are proposals of the base method chained on a local state (the base method keeps
/// what each stage leaves for the next through its `accept`); the composed step is committed
/// once, under the base method's guards, so the guards judge the composed step and the clock
/// advances by `h`.
///
/// # Errors
/// `step` returns the first stage's error; the state is then unchanged (stages run on a copy).
///
/// ```
/// use macrostep::compose::{Scheme, SymmetricComposition};
/// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let zs = ZhangSkeel::new(osc.system(), 0.1, ZsParams::default()).unwrap();
/// let mut zs4 = SymmetricComposition::new(zs, Scheme::TripleJump).unwrap();
/// fn order<I: Integrator<f64, 1>>(_: &I) -> u32 { I::ORDER }
/// assert_eq!(order(&zs4), 4);
/// let mut s = osc.initial_state();
/// zs4.integrate(&mut s, 10).unwrap();
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SymmetricComposition<T: Real, I> {
    inner: I,
    gamma: [T; 5],
    stages: usize,
}

impl<T: Real, I> SymmetricComposition<T, I> {
    /// Composes `inner` with `scheme`.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] when the base method is not symmetric (`I::SYMMETRIC`) or
    /// its order is odd — the schemes need a symmetric method of even order.
    pub fn new<const N: usize>(inner: I, scheme: Scheme) -> Result<Self, ConfigError>
    where
        I: Method<T, N>,
    {
        if !I::SYMMETRIC {
            return Err(ConfigError::Inconsistent {
                name: "composition needs a symmetric base method",
            });
        }
        if I::ORDER % 2 != 0 || I::ORDER == 0 {
            return Err(ConfigError::Inconsistent {
                name: "composition needs a base method of even order",
            });
        }
        let (gamma, stages) = scheme.gammas(I::ORDER);
        Ok(Self {
            inner,
            gamma: gamma.map(T::lit),
            stages,
        })
    }

    /// The base method.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// Mutable access to the base method.
    pub fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }

    /// The stage coefficients `γᵢ` (they sum to 1).
    pub fn coefficients(&self) -> &[T] {
        self.gamma.get(..self.stages).unwrap_or(&[])
    }
}

/// The base method's step size, guard memory and probe: the composed step is committed under
/// the base method's guards.
impl<T: Real, I> Wrapper for SymmetricComposition<T, I> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

impl<T: Real, I: Method<T, N>, const N: usize> Method<T, N> for SymmetricComposition<T, I> {
    const ORDER: u32 = I::ORDER + 2;
    const SYMPLECTIC: bool = I::SYMPLECTIC;
    const SYMMETRIC: bool = true;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let gamma = self.gamma;
        let stages = self.stages;
        let mut exchanged = T::zero();
        // `next` carries the stage's start; `stage` receives its end.
        let mut stage = *state;
        for (k, &g) in gamma.iter().take(stages).enumerate() {
            let sub = g * h;
            exchanged += self.inner.propose(next, sub, &mut stage)?;
            stage.t = next.t + sub;
            if k + 1 < stages {
                self.inner.accept(&stage);
            }
            *next = stage;
        }
        Ok(exchanged)
    }
}

/// The held force of the base method (one `u` over the whole composed step).
impl<T: Real, I: crate::forcing::Actuate<T, N>, const N: usize> crate::forcing::Actuate<T, N>
    for SymmetricComposition<T, I>
{
    fn force(&self) -> &nalgebra::SVector<T, N> {
        self.inner.force()
    }
    fn set_force(&mut self, u: &nalgebra::SVector<T, N>) -> Result<(), StepError> {
        self.inner.set_force(u)
    }
}
