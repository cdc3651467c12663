//! SIM-type integrators for quasi-quadratic stiff potentials (004 §4.3, Integrators 4.3.1 and
//! 4.3.2).
//!
//! # The problem (004 eq 4.20 with §4.3.2's `U`)
//! ```text
//! H = ½ pᵀp + V(q) + ½ ε⁻¹ q_fastᵀ K(q_slow) q_fast,        q = (q_slow, q_fast)
//! ```
//! `K` is symmetric (positive definite for the diagonal exponential) and slowly varying; `V` is
//! soft. The stiff frequencies `ω_j² = ε⁻¹ λ_j(K(q_slow))` change with the slow variable, so
//! the constant-`K` fast flow of [`super::Sim1`] does not apply.
//!
//! # The splitting (§4.3.1) and the stiff flow (§4.3.3–4.3.4)
//! `H = H¹ + H² + H³` with `H¹ = ½|p_slow|²` (flow φ¹: `q_slow += H p_slow`), `H² = V` (φ²:
//! `p −= H ∇V`) and `H³ = ½|p_fast|² + U` (φ³: `q_slow` frozen, the fast oscillator with
//! `ε⁻¹K(q_slow)` turns `(q_fast, p_fast)` by `F₃ = exp(NH)` and drifts `p_slow` by
//! `−½ zᵀ F₃ᵀ G₂,ᵢ z`, eqs 4.27–4.32, `N = [[0, I], [−ε⁻¹K, 0]]`, `M_i = [[ε⁻¹∂ᵢK, 0], [0, 0]]`).
//! - [`QuasiExp::Diagonal`]: the exact φ³ of eqs 4.24/4.25 when `K` is diagonal (§4.3.3), mode
//!   by mode; the drift integral is evaluated without cancellation at small `ωH`.
//! - [`QuasiExp::Symplectic`]: Integrator 4.3.2 — `[[A, B_i], [0, C]]` of eqs 4.45–4.47 at
//!   `h = H/2ⁿ`, squared `n` times. `C` is one position-Verlet step of the fast oscillator and
//!   `½ zᵀCᵀB_i z = (h/2) x_{½}ᵀ ε⁻¹∂ᵢK x_{½}`, so the micro step *is* position Verlet for `H³`
//!   with `q_slow` frozen, and the squarings compose `2ⁿ` of them exactly: the approximate φ³ is
//!   symplectic (Theorem 4.3.2) and symmetric, for any symmetric `K`, at `O(n)` matrix products.
//!   It is accurate when `ω_max h ≪ 1` and stable only for `ω_max |h| < 2` (Verlet's bound), so
//!   choose `n ≳ log₂(ω_max H)` plus a few (the thesis uses `n = 10` with `ω H = 10`).
//!
//! # The methods
//! - [`Quasi1`]: Integrator 4.3.1, Lie–Trotter `φ³(H)∘φ²(H)∘φ¹(H)` (φ¹ first), eqs 4.34–4.35;
//!   first order, symplectic; its error in `q` is `O(H)` uniformly in `ε⁻¹` (Theorem 4.3.3).
//! - [`Quasi2`]: the symmetric Strang version `φ²(H/2)∘φ¹(H/2)∘φ³(H)∘φ¹(H/2)∘φ²(H/2)` (Remark
//!   4.3.2 mentions higher-order compositions; this one is ours): second order for `H ≪ 1/ω`,
//!   symplectic and symmetric. Its error uniformity in `ω` is not claimed by the seed (measured).
//!
//! # Decisions where the seed is silent or garbled
//! - **Coordinates.** The state is `q = (q_slow, q_fast)` (slow first, as in the examples' `(x, y)`
//!   of eq 4.84), `N = S + F` checked at construction; masses are the identity (§4.3.1 "assume
//!   without loss of generality that M is the identity"), so `v = p`.
//! - **`ε⁻¹` is a number of the model** ([`QuasiSystem::inv_eps`]), `K` is given without it
//!   ([`QuasiStiffness`]), so a study in `ω` changes one number (`ε⁻¹ = ω²` in eqs 4.84/4.85).
//! - **The diagonal case needs `∂ᵢK` diagonal too** (true when `K(·)` is diagonal everywhere);
//!   a non-diagonal or non-positive `K` at a step is a [`StepError::Precondition`].
//! - **Eq 4.42's `F₂(h)`** differs from eq 4.45's `A_k` by the position of `ε⁻¹K` (garbled);
//!   we use eq 4.45, the one Lemma 4.3.3 (`Aᵀ C = I`) holds for (checked in a unit test).
//!
//! # Errors
//! Construction: [`ConfigError::StepSize`]; [`ConfigError::NonFinite`]/[`ConfigError::OutOfRange`]
//! for `inv_eps` (must be `> 0`) and `squarings` (`1..=40`); [`ConfigError::Overflow`] when
//! `ε⁻¹H²` or the micro step `H/2ⁿ` is not representable; [`ConfigError::Inconsistent`] when
//! `N ≠ S + F`. Steps: as [`Integrator::step_by`], plus [`StepError::Precondition`] (diagonal
//! exponential on a non-diagonal or non-positive `K`).

use super::quasi_flow::{diagonal_flow, symplectic_flow, QuasiStiffness};
use crate::driver::{Guarded, Method};
use crate::guard::{NoProbe, Watch};
use crate::model::Potential;
use crate::sealed;
use crate::validate::{check_derived, check_positive, check_step};
#[cfg(doc)]
use crate::Integrator;
use crate::{ConfigError, Real, State, StepError};
use core::marker::PhantomData;
use nalgebra::SVector;

/// How the stiff flow φ³ is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QuasiExp {
    /// Exact flow for a diagonal `K` (004 eqs 4.24/4.25).
    Diagonal,
    /// Integrator 4.3.2: symplectic scaling and squaring with `2^squarings` Verlet micro steps.
    Symplectic {
        /// `n` of Integrator 4.3.2 (`1..=40`; the thesis uses 10).
        squarings: u32,
    },
}

/// The model a [`Quasi1`]/[`Quasi2`] integrates (004 eq 4.20 with §4.3.2's `U`):
/// `H = ½ pᵀp + V(q) + ½ ε⁻¹ q_fastᵀ K(q_slow) q_fast`.
///
/// ```
/// use macrostep::sim::{QuasiStiffness, QuasiSystem};
/// use macrostep::model::Zero;
/// use nalgebra::{SMatrix, SVector};
/// struct K; // K(x) = 1 + x²
/// impl QuasiStiffness<f64, 1, 1> for K {
///     fn stiffness(&self, x: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> { SMatrix::from_element(1.0 + x[0] * x[0]) }
///     fn stiffness_derivative(&self, x: &SVector<f64, 1>, _: usize) -> SMatrix<f64, 1, 1> {
///         SMatrix::from_element(2.0 * x[0])
///     }
/// }
/// let sys = QuasiSystem::new(Zero, K, 1.0e4); // ε⁻¹ = ω² = 10⁴
/// assert_eq!(sys.inv_eps, 1.0e4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct QuasiSystem<T: Real, P, K> {
    /// The soft potential `V` on the whole `q = (q_slow, q_fast)`.
    pub potential: P,
    /// The stiffness `K(q_slow)`, without `ε⁻¹`.
    pub stiffness: K,
    /// `ε⁻¹`, the stiffness scale (`ω²` in eq 4.84); `> 0`.
    pub inv_eps: T,
}

impl<T: Real, P, K> QuasiSystem<T, P, K> {
    /// The system with soft potential `V`, stiffness `K(q_slow)` and scale `ε⁻¹`.
    pub fn new(potential: P, stiffness: K, inv_eps: T) -> Self {
        Self {
            potential,
            stiffness,
            inv_eps,
        }
    }
}

/// Parameters of [`Quasi1`]/[`Quasi2`]: how the stiff flow φ³ is computed. The default is
/// Integrator 4.3.2 with the thesis's `n = 10` squarings, which serves any symmetric `K`.
///
/// ```
/// use macrostep::sim::{QuasiExp, QuasiParams};
/// assert_eq!(QuasiParams::default().exp, QuasiExp::Symplectic { squarings: 10 });
/// let bad = QuasiParams { exp: QuasiExp::Symplectic { squarings: 0 } };
/// assert!(bad.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuasiParams {
    /// How φ³ is computed.
    pub exp: QuasiExp,
}

impl Default for QuasiParams {
    fn default() -> Self {
        Self {
            exp: QuasiExp::Symplectic { squarings: 10 },
        }
    }
}

impl QuasiParams {
    /// Checks the parameters on their own (the micro step `H/2ⁿ` is checked against `H` and
    /// `ε⁻¹` by the integrator's constructor).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] for `"squarings"` outside `1..=40`.
    pub fn validate(&self) -> Result<Self, ConfigError> {
        if let QuasiExp::Symplectic { squarings } = self.exp {
            if !(1..=40).contains(&squarings) {
                return Err(ConfigError::OutOfRange {
                    name: "squarings",
                    bound: "in 1..=40",
                });
            }
        }
        Ok(*self)
    }
}

/// The validated model and parameters shared by both splittings.
#[derive(Clone, Copy, Debug)]
struct Core<T: Real, P, K, const S: usize, const F: usize> {
    potential: P,
    stiff: K,
    inv_eps: T,
    h: T,
    exp: QuasiExp,
}

impl<T: Real, P, K, const S: usize, const F: usize> Core<T, P, K, S, F> {
    fn new<const N: usize>(
        system: QuasiSystem<T, P, K>,
        h: T,
        params: QuasiParams,
    ) -> Result<Self, ConfigError> {
        if N != S + F {
            return Err(ConfigError::Inconsistent { name: "N = S + F" });
        }
        let h = check_step(h)?;
        let inv_eps = check_positive(system.inv_eps, "inv_eps")?;
        check_derived(inv_eps * h * h, "inv_eps*h^2")?;
        let params = params.validate()?;
        if let QuasiExp::Symplectic { squarings } = params.exp {
            let micro = h / T::lit(libm::ldexp(1.0, squarings as i32));
            if micro == T::zero() {
                return Err(ConfigError::Overflow {
                    name: "h/2^squarings",
                });
            }
            check_derived(micro, "h/2^squarings")?;
            check_derived(inv_eps * micro * micro * micro, "inv_eps*(h/2^n)^3")?;
        }
        Ok(Self {
            potential: system.potential,
            stiff: system.stiffness,
            inv_eps,
            h,
            exp: params.exp,
        })
    }
}

impl<T: Real, P, K: QuasiStiffness<T, S, F>, const S: usize, const F: usize> Core<T, P, K, S, F> {
    /// φ¹(τ): `q_slow += τ p_slow`.
    fn drift<const N: usize>(s: &mut State<T, N>, tau: T) {
        for i in 0..S {
            s.q[i] += tau * s.v[i];
        }
    }

    /// φ²(τ): `p −= τ ∇V(q)`.
    fn kick<const N: usize>(&self, s: &mut State<T, N>, tau: T)
    where
        P: Potential<T, N>,
    {
        let g = self.potential.gradient(&s.q);
        s.v -= g * tau;
    }

    /// φ³(τ) at the current `q_slow`.
    fn stiff_flow<const N: usize>(&self, s: &mut State<T, N>, tau: T) -> Result<(), StepError> {
        let qs = SVector::<T, S>::from_fn(|i, _| s.q[i]);
        let x = SVector::<T, F>::from_fn(|j, _| s.q[S + j]);
        let y = SVector::<T, F>::from_fn(|j, _| s.v[S + j]);
        let (x1, y1, dp) = match self.exp {
            QuasiExp::Diagonal => diagonal_flow(&self.stiff, self.inv_eps, &qs, &x, &y, tau)?,
            QuasiExp::Symplectic { squarings } => {
                symplectic_flow(&self.stiff, self.inv_eps, &qs, &x, &y, tau, squarings)
            }
        };
        for j in 0..F {
            s.q[S + j] = x1[j];
            s.v[S + j] = y1[j];
        }
        for i in 0..S {
            s.v[i] += dp[i];
        }
        Ok(())
    }
}

#[doc(hidden)]
/// The splitting a [`Quasi`] step composes (sealed): [`LieTrotterSplit`] for [`Quasi1`],
/// [`StrangSplit`] for [`Quasi2`].
pub trait QuasiSplitting: sealed::Sealed {
    /// The order of the composition.
    const ORDER: u32;
    /// `false`: Lie–Trotter `φ³(H)∘φ²(H)∘φ¹(H)`; `true`: Strang
    /// `φ²(H/2)∘φ¹(H/2)∘φ³(H)∘φ¹(H/2)∘φ²(H/2)`.
    const SYMMETRIC: bool;
}

/// Integrator 4.3.1's Lie–Trotter splitting, the strategy of [`Quasi1`].
#[derive(Clone, Copy, Debug)]
pub enum LieTrotterSplit {}

/// The symmetric Strang splitting, the strategy of [`Quasi2`].
#[derive(Clone, Copy, Debug)]
pub enum StrangSplit {}

impl sealed::Sealed for LieTrotterSplit {}
impl sealed::Sealed for StrangSplit {}

impl QuasiSplitting for LieTrotterSplit {
    const ORDER: u32 = 1;
    const SYMMETRIC: bool = false;
}

impl QuasiSplitting for StrangSplit {
    const ORDER: u32 = 2;
    const SYMMETRIC: bool = true;
}

/// The SIM-type integrator for quasi-quadratic stiff potentials with splitting `M`: the common
/// body of [`Quasi1`] and [`Quasi2`] (see those and the [module docs](self)).
#[derive(Clone, Copy, Debug)]
pub struct Quasi<T: Real, P, K, M, const N: usize, const S: usize, const F: usize> {
    core: Core<T, P, K, S, F>,
    watch: Watch<T, N>,
    split: PhantomData<M>,
}

impl<T, P, K, M, const N: usize, const S: usize, const F: usize> Quasi<T, P, K, M, N, S, F>
where
    T: Real,
    P: Potential<T, N>,
    K: QuasiStiffness<T, S, F>,
    M: QuasiSplitting,
{
    /// The integrator for the model `system` (004 eq 4.20: soft potential `V` on the whole `q`,
    /// stiffness `K(q_slow)`, scale `ε⁻¹`), macro step `H` and stiff-flow parameters `params`
    /// (see [`Quasi1`] for an example).
    ///
    /// # Errors
    /// See the [module docs](self).
    pub fn new(
        system: QuasiSystem<T, P, K>,
        h: T,
        params: QuasiParams,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            core: Core::new::<N>(system, h, params)?,
            watch: Watch::default(),
            split: PhantomData,
        })
    }

    /// The slow potential `V`.
    pub fn potential(&self) -> &P {
        &self.core.potential
    }

    /// The stiffness `K(q_slow)`.
    pub fn stiffness(&self) -> &K {
        &self.core.stiff
    }

    /// The total energy `½|v|² + V(q) + ½ ε⁻¹ q_fastᵀ K(q_slow) q_fast` of `s`.
    pub fn energy(&self, s: &State<T, N>) -> T {
        let qs = SVector::<T, S>::from_fn(|i, _| s.q[i]);
        let x = SVector::<T, F>::from_fn(|j, _| s.q[S + j]);
        let u = (self.core.stiff.stiffness(&qs) * x).dot(&x);
        T::lit(0.5) * (s.v.dot(&s.v) + self.core.inv_eps * u) + self.core.potential.energy(&s.q)
    }
}

impl<T, P, K, M, const N: usize, const S: usize, const F: usize> Guarded<T, N>
    for Quasi<T, P, K, M, N, S, F>
where
    T: Real,
    P: Potential<T, N>,
    K: QuasiStiffness<T, S, F>,
    M: QuasiSplitting,
{
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.core.h
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T, P, K, M, const N: usize, const S: usize, const F: usize> Method<T, N>
    for Quasi<T, P, K, M, N, S, F>
where
    T: Real,
    P: Potential<T, N>,
    K: QuasiStiffness<T, S, F>,
    M: QuasiSplitting,
{
    const ORDER: u32 = M::ORDER;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = M::SYMMETRIC;

    /// The flows act on `next` in place (it holds a copy of the state on entry).
    fn propose(
        &mut self,
        _state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        if M::SYMMETRIC {
            let half = h * T::lit(0.5);
            self.core.kick(next, half);
            Core::<T, P, K, S, F>::drift(next, half);
            self.core.stiff_flow(next, h)?;
            Core::<T, P, K, S, F>::drift(next, half);
            self.core.kick(next, half);
        } else {
            Core::<T, P, K, S, F>::drift(next, h);
            self.core.kick(next, h);
            self.core.stiff_flow(next, h)?;
        }
        Ok(T::zero())
    }
}

/// Integrator 4.3.1 of 004 (first-order Lie–Trotter, eqs 4.34–4.35) for quasi-quadratic stiff
/// potentials, with the stiff flow exact (diagonal `K`) or by Integrator 4.3.2:
///
/// ```text
/// q_slow' = q_slow + H p_slow                         φ¹(H)
/// p'      = p − H ∇V(q')                              φ²(H)
/// z⁺ = F₃ z',  p_slow,i⁺ = p_slow,i' − ½ z'ᵀF₃ᵀG₂,ᵢ z'   φ³(H), z = (q_fast, p_fast), K at q_slow'
/// ```
///
/// First order, symplectic (Theorem 4.3.2), not symmetric; error in `q` uniform in `ε⁻¹`
/// (Theorem 4.3.3). See the [module docs](self) for the model, the decisions and `# Errors`.
///
/// ```
/// use macrostep::sim::{Quasi1, QuasiExp, QuasiParams, QuasiStiffness, QuasiSystem};
/// use macrostep::{model::Potential, Integrator, State};
/// use nalgebra::{vector, SMatrix, SVector, Vector2};
/// // Eq 4.84: V = (x² + y² − 1)², K(x) = 1 + x², ε⁻¹ = ω² = 10⁴; q = (x, y).
/// struct V;
/// impl Potential<f64, 2> for V {
///     fn energy(&self, q: &Vector2<f64>) -> f64 { (q.dot(q) - 1.0).powi(2) }
///     fn gradient(&self, q: &Vector2<f64>) -> Vector2<f64> { q * (4.0 * (q.dot(q) - 1.0)) }
/// }
/// struct K;
/// impl QuasiStiffness<f64, 1, 1> for K {
///     fn stiffness(&self, x: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> { SMatrix::from_element(1.0 + x[0] * x[0]) }
///     fn stiffness_derivative(&self, x: &SVector<f64, 1>, _: usize) -> SMatrix<f64, 1, 1> {
///         SMatrix::from_element(2.0 * x[0])
///     }
/// }
/// let system = QuasiSystem::new(V, K, 1.0e4);
/// let params = QuasiParams { exp: QuasiExp::Diagonal };
/// let mut m = Quasi1::<f64, V, K, 2, 1, 1>::new(system, 0.01, params).unwrap();
/// let mut s = State::at_rest(vector![1.1, 0.007]);
/// let e0 = m.energy(&s);
/// m.integrate(&mut s, 100).unwrap(); // T = 1 with ωH = 1
/// assert!((m.energy(&s) - e0).abs() < 0.05 * e0);
/// ```
pub type Quasi1<T, P, K, const N: usize, const S: usize, const F: usize> =
    Quasi<T, P, K, LieTrotterSplit, N, S, F>;

/// The symmetric (Strang) version of [`Quasi1`]:
/// `φ²(H/2)∘φ¹(H/2)∘φ³(H)∘φ¹(H/2)∘φ²(H/2)` — half kick, half slow drift, the stiff flow at the
/// midpoint `q_slow`, half drift, half kick (one φ³ per step, two `∇V`).
///
/// Second order (for `H ≪ 1/ω`), symplectic and symmetric (every factor is, and φ³ of
/// Integrator 4.3.2 is a power of position Verlet). See the [module docs](self).
pub type Quasi2<T, P, K, const N: usize, const S: usize, const F: usize> =
    Quasi<T, P, K, StrangSplit, N, S, F>;
