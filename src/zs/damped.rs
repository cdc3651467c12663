//! Linear damping inside the one linear solve of the Z&S family: `M + βh² Hess V + ½hC`.
//!
//! ## Derivation (discrete Lagrange–d'Alembert, trapezoidal damping forces)
//! Every member of the family is the two-stage map of 000 eq 2.10, which eliminating `v` gives
//! `M (x_{k+1} − 2x_k + x_{k−1}) / h² = M f_k` with `f_k` the method's force (Z&S eq 1.3:
//! `(M + βh² Hess V(x_k)) a_k = −∇V(x_k)`, `f_k = a_k − ½β²h⁴M⁻¹ a_k·V‴·a_k`). Marsden & West
//! (2001 §3.2) add a force to a variational integrator as discrete forces `f⁻, f⁺` on the two
//! ends of each step; the trapezoidal rule for the damping force `−C ẋ` with the step's secant
//! velocity `(x_{k+1} − x_k)/h` gives `f⁻ = f⁺ = −½ C (x_{k+1} − x_k)`, and the discrete
//! equations become
//!
//! ```text
//! M (x_{k+1} − 2x_k + x_{k−1}) / h² = M f_k − C (x_{k+1} − x_{k−1}) / (2h).
//! ```
//!
//! With the half-step velocities `v_{k±½} = (x_{k+1/2±1/2} − x_{k−1/2±1/2})/h` the damping term
//! is `−C (v_{k−½} + v_{k+½})/2 = −C (v_{k−½} + ½h f_k)`: it is **linear in the unknown force**,
//! and so is the Z&S linear system. For Z&Ss (`f_k = a_k`) the two merge into the one solve
//!
//! ```text
//! (M + βh² Hess V(x_k) + ½h C) a_k = −∇V(x_k) − C v_{k−½},     γ = ½,
//! ```
//!
//! the implicit (trapezoidal) half kick `(M + ½hC) v_k = M v_{k−½} + ½h F` of a damped
//! velocity Verlet, with `F` the linearly implicit force. Nothing beyond the matrix already
//! assembled is factorised: the extra cost is adding `½hC` into it (`N²` additions) and one
//! product `C v_{k−½}` (`N²` multiply-adds) for the right-hand side, plus the trapezoidal
//! dissipation `½h(v_kᵀCv_k + v_{k+1}ᵀCv_{k+1})` (two more products) that the energy guard
//! is told about.
//!
//! **As a two-stage step** (what the code does): from `(x_k, v_k)` with the cached `f_k`,
//! `x_{k+1} = x_k + h v_k + ½h² f_k` (the undamped formula, so `C = 0` is bit-identical),
//! `v_{k+½} = v_k + ½h f_k`, then `f_{k+1}` from the damped solve above at `x_{k+1}`, and
//! `v_{k+1} = v_k + ½h (f_k + f_{k+1})`. The force is a function `F(x, v)` of the position and
//! of the velocity *at* that position (`M F = −∇V − βh² Hess V · F − C v` for Z&Ss): the closing
//! half kick is implicit in `v_{k+1}`, the opening one explicit in `v_k` with the same `F`
//! (cached), and the two are adjoint, so the damped map is **symmetric** (`Φ₋ₕ = Φₕ⁻¹`; a
//! reversed step assembles `M + βh²K − ½|h|C`) and therefore **second order**. Not symplectic
//! (dissipative). A step from a state the method did not return (start of a run, edited
//! velocity) evaluates `F(x_k, v_k)` with the matrix `M + βh² Hess V` (no `C`: `v_k` is known).
//!
//! **Z&S.** The third-derivative correction is applied to the damped `a` (`f = a − ½β²h⁴M⁻¹
//! a·V‴·a`), which keeps one solve; the damping term then sees `a` instead of `f`, an `O(h⁵ C)`
//! difference per step: second order, but not exactly symmetric (`SYMMETRIC = false` for the
//! damped Z&S, `true` for damped Z&Ss and stiff Z&Ss).
//!
//! **Energy.** For `C ≥ 0` the dashpots only take energy out; whether the discrete `E = K + V`
//! decreases at *every* step is a question of the conservative method's own `O(h²)` energy
//! oscillation against one step's dissipation — measured in `reproduce forcing`
//! (`damping.monotone.*`, see [`crate::forcing`]).
//!
//! **Solver.** The damped solve is dense and solves as [`Dense`] does (`2×2` blocks for `N = 4`
//! in `f64`, `LDLᵀ` otherwise, LU fallback), so zero damping is the undamped method bit for
//! bit; a banded `C` with the banded strategy is not provided.

use super::member::LinearlyImplicit;
use super::{Fsal, ZsFamily};
#[cfg(doc)]
use super::{StiffSylipn, Sylipn, ZhangSkeel};
use crate::driver::{Method, Wrapper};
use crate::linalg::{all_finite, solve_dense_in_place, Dense};
use crate::model::{Hessian as _, Potential, System};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

#[doc(hidden)]
/// The Z&S-family methods that take a damping matrix into their linear solve
/// ([`ZhangSkeel`], [`Sylipn`], [`StiffSylipn`] with the [`Dense`] strategy); see [`DampedZs`].
pub trait InMatrixDamping<T: Real, const N: usize>: Method<T, N> + sealed::Sealed {
    /// Whether the damped map is symmetric (see the [module docs](self)).
    const DAMPED_SYMMETRIC: bool;
    /// The potential of the method's system.
    type Potential: Potential<T, N>;
    /// The member of the family: its linear system takes the damping.
    #[doc(hidden)]
    type Member: LinearlyImplicit<T, Self::Potential, N>;

    /// The system, `β` and the member.
    #[doc(hidden)]
    fn damped_parts(&self) -> Parts<'_, T, Self::Potential, Self::Member, N>;
}

/// What [`DampedZs`] borrows of the undamped method: the system, `β` and the member.
type Parts<'a, T, P, M, const N: usize> = (&'a System<T, P, N>, T, M);

impl<T: Real, P, const N: usize, M: LinearlyImplicit<T, P, N>> sealed::Sealed
    for ZsFamily<T, P, N, Dense, M>
{
}

impl<T: Real, P: Potential<T, N>, const N: usize, M> InMatrixDamping<T, N>
    for ZsFamily<T, P, N, Dense, M>
where
    M: LinearlyImplicit<T, P, N>,
    Self: Method<T, N>,
{
    const DAMPED_SYMMETRIC: bool = M::DAMPED_SYMMETRIC;
    type Potential = P;
    type Member = M;

    fn damped_parts(&self) -> Parts<'_, T, P, M, N> {
        (&self.system, self.beta, self.member)
    }
}

/// The force `f` of `member` at `x` for step size squared `h2` into `out`, with the damping in
/// its linear system: `rhs = −C w` (`w` the known velocity) added to `−∇V`, `c_h = ½h C` added
/// into the matrix (`None`: nothing added); the dense solve of [`Dense`].
///
/// # Errors
/// [`StepError::Singular`] / [`StepError::NonFiniteResult`] from the solve.
#[allow(clippy::too_many_arguments)]
#[inline]
fn damped_force<T: Real, P: Potential<T, N>, const N: usize, M: LinearlyImplicit<T, P, N>>(
    member: &M,
    system: &System<T, P, N>,
    beta: T,
    x: &SVector<T, N>,
    h2: T,
    rhs: Option<&SVector<T, N>>,
    c_h: Option<&SMatrix<T, N, N>>,
    out: &mut SVector<T, N>,
) -> Result<(), StepError> {
    let g = system.potential.gradient(x);
    for i in 0..N {
        out[i] = -g[i];
    }
    if let Some(r) = rhs {
        for i in 0..N {
            out[i] += r[i];
        }
    }
    let mut a = SMatrix::zeros();
    system.mass.add_to(&mut a);
    let shift = M::shift(&system.potential, beta * h2);
    M::matrix(&system.potential).add_hessian(x, shift, &mut a);
    if let Some(c) = c_h {
        a += c;
    }
    solve_dense_in_place(&mut a, out)?;
    member.correct(system, x, h2, out);
    Ok(())
}

/// A Z&S-family method with linear damping `M q̈ = −∇V − C q̇` inside its one linear solve
/// `(M + βh² Hess V + ½hC) a = −∇V − C v_{k−½}` (derivation in the [module docs](self); 000
/// eq 1.3 / 2.7 / 2.8 with the trapezoidal Lagrange–d'Alembert damping force).
///
/// `C` is symmetric positive semi-definite (a matrix, or per-link dashpots assembled into one).
/// Properties: `ORDER = 2`; `SYMMETRIC` for Z&Ss and stiff Z&Ss (not for Z&S: the correction
/// term, `O(h⁵C)`); not symplectic; with `C = 0` every step is bit-identical to the undamped
/// method. Cost per step over the undamped method: `½hC` added into the assembled matrix and
/// three `N × N` products; no extra factorisation. The energy the dashpots take (trapezoidal,
/// `½h(vₖᵀCvₖ + vₖ₊₁ᵀCvₖ₊₁)`) is reported to the guards, so the run guard bounds
/// `|E − E_ref + D|` from the first step of a run.
///
/// # Errors
/// [`DampedZs::new`]: [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`],
/// [`ConfigError::NotPositiveDefinite`] `{ name: "damping" }`. `step`: the method's errors
/// (bad input, [`StepError::Singular`], [`StepError::NonFiniteResult`], guards); the state is
/// then unchanged.
///
/// ```
/// use macrostep::systems::HarmonicOscillator;
/// use macrostep::zs::{DampedZs, Sylipn, ZsParams};
/// use macrostep::{Integrator, nalgebra::Matrix1};
///
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let zss = Sylipn::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut damped = DampedZs::new(zss, Matrix1::new(0.2)).unwrap();
/// let mut s = osc.initial_state();
/// let e0 = osc.system().energy(&s);
/// damped.integrate(&mut s, 1000).unwrap(); // t = 10: E ≈ e^{−c t} E₀ for light damping
/// let e = osc.system().energy(&s);
/// assert!((e / e0 - (-2.0f64).exp()).abs() < 0.05);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DampedZs<T: Real, I, const N: usize> {
    inner: I,
    c: SMatrix<T, N, N>,
    /// `C ≠ 0`: with `C = 0` the step does exactly the undamped arithmetic.
    on: bool,
    cache: Fsal<T, N>,
    /// The velocity the cached force was computed with (`F` depends on it).
    cache_v: SVector<T, N>,
}

impl<T: Real, I: InMatrixDamping<T, N>, const N: usize> DampedZs<T, I, N> {
    /// `method` with the damping matrix `c`.
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(method: I, c: SMatrix<T, N, N>) -> Result<Self, ConfigError> {
        let on = crate::forcing::check_damping(&c)?;
        Ok(Self {
            inner: method,
            c,
            on,
            cache: Fsal::empty(),
            cache_v: SVector::zeros(),
        })
    }

    /// The undamped method.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// The damping matrix `C`.
    pub fn damping(&self) -> &SMatrix<T, N, N> {
        &self.c
    }

    /// The cached force at `state` for `h2`, when the cache holds it.
    #[inline]
    fn cached(&self, state: &State<T, N>, h2: T) -> bool {
        self.cache.lookup(&state.q, h2).is_some() && (!self.on || self.cache_v == state.v)
    }
}

impl<T: Real, I, const N: usize> Wrapper for DampedZs<T, I, N> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

/// The proposal returns the energy the dashpots took over the step (trapezoidal,
/// `−½h(vₖᵀCvₖ + vₖ₊₁ᵀCvₖ₊₁)`), so the run guard bounds `|E − E_ref + D|`.
impl<T: Real, I: InMatrixDamping<T, N>, const N: usize> Method<T, N> for DampedZs<T, I, N> {
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = I::DAMPED_SYMMETRIC;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let h2 = h * h;
        let half = T::lit(0.5);
        let (c0, ch) = (h2 * half, h * half);
        let hit = self.cached(state, h2);
        let on = self.on;
        let (c, cache, cache_v) = (&self.c, &mut self.cache, &mut self.cache_v);
        let (model, beta, member) = self.inner.damped_parts();
        let mut f0 = SVector::<T, N>::zeros();
        match cache.lookup(&state.q, h2) {
            Some(f) if hit => f0 = f,
            _ => {
                let d = if on { Some(-(c * state.v)) } else { None };
                damped_force(
                    &member,
                    model,
                    beta,
                    &state.q,
                    h2,
                    d.as_ref(),
                    None,
                    &mut f0,
                )?;
            }
        }
        for i in 0..N {
            next.q[i] = state.q[i] + state.v[i] * h + f0[i] * c0;
        }
        if !all_finite(next.q.as_slice()) {
            return Err(StepError::NonFiniteResult);
        }
        let mut f1 = SVector::zeros();
        let (d, c_h) = if on {
            let v_half = state.v + f0 * ch;
            (Some(-(c * v_half)), Some(c * ch))
        } else {
            (None, None)
        };
        damped_force(
            &member,
            model,
            beta,
            &next.q,
            h2,
            d.as_ref(),
            c_h.as_ref(),
            &mut f1,
        )?;
        for i in 0..N {
            next.v[i] = state.v[i] + (f0[i] + f1[i]) * ch;
        }
        // Keyed on the proposed position and velocity: valid whether or not it is committed.
        cache.store(next.q, h2, f1);
        *cache_v = next.v;
        if on {
            // The energy the dashpots took over the step (trapezoidal; negative for h > 0).
            Ok(-(state.v.dot(&(c * state.v)) + next.v.dot(&(c * next.v))) * ch)
        } else {
            Ok(T::zero())
        }
    }
}

/// A held force through the inner method ([`crate::forcing::Actuate`]); a change of `u`
/// clears the cached force (the next step evaluates it afresh).
impl<T: Real, I: InMatrixDamping<T, N> + crate::forcing::Actuate<T, N>, const N: usize>
    crate::forcing::Actuate<T, N> for DampedZs<T, I, N>
{
    fn force(&self) -> &SVector<T, N> {
        self.inner.force()
    }

    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        let changed = self.inner.force() != u;
        self.inner.set_force(u)?;
        if changed {
            self.cache.clear();
        }
        Ok(())
    }
}
