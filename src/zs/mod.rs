//! The Zhang–Skeel family: linearly implicit variational integrators and the Newmark methods they
//! linearise (000 §2, 004 Ch. 5).
//!
//! | method | paper | solve per step | symplectic | symmetric |
//! |---|---|---|---|---|
//! | [`ZhangSkeel`] (Z&S) | 000 Integrator 1.1, eq 1.3 | one linear | yes (Thm 2.12) | yes (Cor 2.10) |
//! | [`Sylipn`] (Z&Ss, SyLiPN) | 000 Integrator 2.3, eq 2.7; 004 Integrator 5.2.3 | one linear | only under the commutation condition (Thm 2.4, Rem 2.14) | yes |
//! | [`StiffSylipn`] (stiff Z&Ss) | 000 Integrator 2.6, eq 2.8 | one linear, stiff Hessian only | no (in general) | yes |
//! | [`Newmark`] (γ = ½) | 000 Integrator 2.1, eq 2.1 | Newton to tolerance | no (variational, not canonically symplectic) | yes |
//! | [`PushForwardNewmark`] | 000 Integrator 2.2, eq 2.3 | Newton to tolerance | yes (up to the Newton tolerance, Rem 2.15) | yes |
//! | [`NewmarkOneIteration`] | 000 §4.1 Fig 1 row 5 | one Newton iteration | no | no |
//! | [`DampedZs`] (Z&S, Z&Ss, stiff Z&Ss with damping `C`) | [`damped`]: 000 eq 1.3/2.7/2.8 + trapezoidal Lagrange–d'Alembert damping | one linear, `M + βh² Hess V + ½hC` | no (dissipative) | Z&Ss, stiff Z&Ss: yes; Z&S: no (`O(h⁵C)`) |
//!
//! Each method is an alias of [`ZsFamily`] with its own member type (as nalgebra's matrix
//! aliases; the member types are named only in the aliases' definitions): the state, the
//! constructor checks, the accessors and the step skeletons are written once in the family; each
//! method's file keeps its paper reference, update, constructors and `propose`.
//!
//! Every method is built as `new(system, h, params)` with a `Default` params struct:
//! [`ZsParams`] (`β`) for the linearly implicit methods, [`NewmarkParams`] (`β` and the Newton
//! controls) for [`Newmark`] and [`PushForwardNewmark`]; `with_solver(system, h, params, solver)`
//! picks the linear-solve strategy.
//!
//! All share the two-stage form of 000 eq 2.10:
//!
//! ```text
//! x_{k+1} = x_k + h v_k + ½ h² f_k,     v_{k+1} = v_k + ½ h (f_k + f_{k+1}),
//! ```
//!
//! where `f_k` is an acceleration-like quantity evaluated at `x_k` (and, for the linearly implicit
//! methods, at the step size: `f_k` depends on `h` through `βh²`). Each step computes `f` once at
//! the new position and keeps it for the next step ("first same as last"): the cache is keyed on
//! the position **and** on `h²`, so a step of another size (a composition stage, a step-size
//! change, a reversed step has the same `h²` and may reuse it) never reuses a stale `f`.
//!
//! ## Linear stability (000 Thm 2.5, Thm 2.4)
//! On `q̈ = −ω²q` the linearly implicit methods are Störmer–Verlet with the effective frequency
//! `ω²/(1 + βh²ω²)`; Verlet's condition `h²ω_eff² < 4` becomes `h²ω²(1 − 4β) < 4`. Hence
//! **`β ≥ ¼` gives unconditional linear stability**, and for `β < ¼` the step must satisfy
//! `hω < 2/√(1 − 4β)` (e.g. `4.4721` for `β = 0.2`). [`ZsParams`] accepts any finite `β ≥ 0`.
//!
//! ## Cost
//! A Z&S step costs one gradient, one Hessian (or band), one factorisation and solve, and one
//! third-derivative contraction; Z&Ss drops the contraction; stiff Z&Ss needs only the stiff
//! part's Hessian. The linear solve is a [`ShiftedSolve`](crate::linalg::ShiftedSolve) strategy:
//! [`Dense`](crate::linalg::Dense) by default, [`Banded`](crate::linalg::Banded) for local
//! models (cost linear in the number of bodies).

pub mod advice;
pub mod damped;
mod family;
mod handed;
mod newmark;
mod newmark_one;
mod push_forward;
mod stiff_sylipn;
mod sylipn;
mod zhang_skeel;

pub use damped::{DampedZs, InMatrixDamping};
pub use newmark::Newmark;
pub use newmark_one::NewmarkOneIteration;
pub use push_forward::PushForwardNewmark;
pub use stiff_sylipn::StiffSylipn;
pub use sylipn::Sylipn;
pub use zhang_skeel::ZhangSkeel;

pub use family::ZsFamily;
pub use handed::Handed;

/// The members of [`ZsFamily`]: what each method adds to the shared state. Named only in the
/// method aliases ([`ZhangSkeel`] is `ZsFamily<T, P, N, S, member::ZhangSkeelMember<T>>`, …).
#[doc(hidden)]
pub mod member {
    pub use super::family::{LinearlyImplicit, Member};
    pub use super::newmark::NewmarkMember;
    pub use super::newmark_one::NewmarkOneIterationMember;
    pub use super::push_forward::PushForwardNewmarkMember;
    pub use super::stiff_sylipn::StiffSylipnMember;
    pub use super::sylipn::SylipnMember;
    pub use super::zhang_skeel::ZhangSkeelMember;
}

use crate::model::Measured;
use crate::{ConfigError, Real};
use nalgebra::SVector;

/// The parameter of the linearly implicit methods ([`ZhangSkeel`], [`Sylipn`], [`StiffSylipn`])
/// and of [`NewmarkOneIteration`]: `β`.
///
/// `β ≥ ¼` gives unconditional linear stability (000 Thm 2.5); `0 ≤ β < ¼` is accepted (the
/// stability experiments need it) and is stable only for `hω < 2/√(1 − 4β)`. `β = 0` reduces
/// every method of the family to velocity Verlet.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ZsParams<T> {
    /// `β ≥ 0`, finite. Default `0.4` (the value of 000 §4.1–4.2).
    pub beta: T,
}

impl<T: Real> Default for ZsParams<T> {
    fn default() -> Self {
        Self { beta: T::lit(0.4) }
    }
}

impl<T: Real> ZsParams<T> {
    /// Parameters with the given `β`.
    pub fn with_beta(beta: T) -> Self {
        Self { beta }
    }

    /// Checks `β` (finite, `≥ 0`) and returns the checked parameters.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] or [`ConfigError::OutOfRange`] for `"beta"`.
    pub fn validate(&self) -> Result<Self, ConfigError> {
        crate::validate::check_nonnegative(self.beta, "beta")?;
        Ok(*self)
    }
}

/// The parameters of the fully implicit Newmark methods ([`Newmark`], [`PushForwardNewmark`]):
/// `β` and the Newton controls.
///
/// `β` is that of [`ZsParams`] (`≥ 0`; `≥ ¼` for unconditional linear stability, 000 Thm 2.5).
///
/// ```
/// use macrostep::zs::{ImplicitNewtonParams, NewmarkParams};
/// let p = NewmarkParams::<f64>::default();
/// assert_eq!(p.beta, 0.4);
/// assert_eq!(p.newton, ImplicitNewtonParams::default());
/// assert_eq!(NewmarkParams::with_beta(0.25).validate(), Ok(NewmarkParams { beta: 0.25, ..p }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NewmarkParams<T> {
    /// `β ≥ 0`, finite. Default `0.4` (as [`ZsParams`]).
    pub beta: T,
    /// The Newton iteration controls. Default [`ImplicitNewtonParams::default`].
    pub newton: ImplicitNewtonParams<T>,
}

impl<T: Real> Default for NewmarkParams<T> {
    fn default() -> Self {
        Self {
            beta: ZsParams::default().beta,
            newton: ImplicitNewtonParams::default(),
        }
    }
}

impl<T: Real> NewmarkParams<T> {
    /// Parameters with the given `β` and the default Newton controls.
    pub fn with_beta(beta: T) -> Self {
        Self {
            beta,
            newton: ImplicitNewtonParams::default(),
        }
    }

    /// Checks `β` (as [`ZsParams::validate`]), then the Newton controls (as
    /// [`ImplicitNewtonParams::validate`]), and returns the checked parameters.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"beta"`, `"tol"` and
    /// `"max_iter"`.
    pub fn validate(&self) -> Result<Self, ConfigError> {
        ZsParams::with_beta(self.beta).validate()?;
        self.newton.validate()?;
        Ok(*self)
    }
}

/// Newton iteration controls for the fully implicit Newmark methods.
///
/// The iteration stops after the first update with `‖Δ‖∞ ≤ tol·(1 + ‖x‖∞)`; reaching
/// `max_iter` updates without that is [`StepError::NotConverged`](crate::StepError::NotConverged),
/// never a silent result.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ImplicitNewtonParams<T> {
    /// Relative tolerance on the Newton update, `> 0`. Default `√ε` of the scalar (Newton
    /// converges quadratically, so the solution is then accurate to about `ε`).
    pub tol: T,
    /// Maximum number of Newton updates, `≥ 1`. Default 20.
    pub max_iter: u32,
}

impl<T: Real> Default for ImplicitNewtonParams<T> {
    fn default() -> Self {
        Self {
            tol: T::default_epsilon().sqrt(),
            max_iter: 20,
        }
    }
}

impl<T: Real> ImplicitNewtonParams<T> {
    /// Checks the parameters and returns them.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"tol"` (`≤ 0`) and
    /// [`ConfigError::OutOfRange`] for `"max_iter"` (`0`).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        crate::validate::check_positive(self.tol, "tol")?;
        crate::validate::check_count(self.max_iter, "max_iter")?;
        Ok(*self)
    }

    /// Whether the update `dx` at the iterate `x` meets the tolerance.
    #[inline]
    pub(crate) fn converged<const N: usize>(&self, dx: &SVector<T, N>, x: &SVector<T, N>) -> bool {
        dx.amax() <= self.tol * (T::one() + x.amax())
    }
}

/// What a force evaluation of the family hands to the guards ([`Handed`]): what it measured,
/// if anything. Nothing on a bare-metal target, which measures on the system (its frames and
/// flash grow with the handover more than the evaluations it saves cost).
#[cfg(not(target_os = "none"))]
pub(crate) type Handover<T> = Option<Measured<T>>;
/// See the workstation definition.
#[cfg(target_os = "none")]
pub(crate) type Handover<T> = core::marker::PhantomData<T>;

/// `measured` as a [`Handover`].
#[inline(always)]
pub(crate) fn handover<T>(measured: Option<Measured<T>>) -> Handover<T> {
    #[cfg(target_os = "none")]
    let _ = measured;
    #[cfg(target_os = "none")]
    return core::marker::PhantomData;
    #[cfg(not(target_os = "none"))]
    measured
}

/// The first-same-as-last cache: `f` at position `q` for step size squared `h2`.
///
/// `f` is double-buffered: a step writes `f` at its new position into the slot the cached `f`
/// does not occupy and flips `cur` on success, so nothing is copied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fsal<T: Real, const N: usize> {
    q: SVector<T, N>,
    h2: T,
    f: [SVector<T, N>; 2],
    cur: usize,
    valid: bool,
    /// What the guards measure at `q`, handed over by the force evaluation there (the proposed
    /// position of the last step), or `None`. Not on a bare-metal target, which measures on the
    /// system (see [`Handed`]).
    #[cfg(not(target_os = "none"))]
    measured: Option<Measured<T>>,
}

impl<T: Real, const N: usize> Fsal<T, N> {
    /// An empty cache.
    pub(crate) fn empty() -> Self {
        Self {
            q: SVector::zeros(),
            h2: T::zero(),
            f: [SVector::zeros(); 2],
            cur: 0,
            valid: false,
            #[cfg(not(target_os = "none"))]
            measured: None,
        }
    }

    /// Forgets the cached `f` and what the guards measure at its position.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.valid = false;
        self.forget_measured();
    }

    /// Keeps what the force evaluation at `q` measured for the guards. A bare-metal build
    /// measures on the system (see [`Handed`]) and keeps nothing.
    #[inline(always)]
    pub(crate) fn keep_measured(&mut self, measured: Handover<T>) {
        #[cfg(not(target_os = "none"))]
        {
            self.measured = measured;
        }
        #[cfg(target_os = "none")]
        let _ = measured;
    }

    /// Forgets what was measured at `q`.
    #[inline(always)]
    pub(crate) fn forget_measured(&mut self) {
        #[cfg(not(target_os = "none"))]
        {
            self.measured = None;
        }
    }

    /// What was measured at `q`, if anything.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(crate) fn measured(&self) -> Option<Measured<T>> {
        self.measured
    }

    /// Whether the cache holds `f` at `q` for `h2` (exact comparison).
    #[inline]
    fn hit(&self, q: &SVector<T, N>, h2: T) -> bool {
        let mut same = self.valid && self.h2 == h2;
        for i in 0..N {
            same &= self.q[i] == q[i];
        }
        same
    }

    /// The cached `f` at `q` for `h2`, if any.
    #[inline]
    pub(crate) fn lookup(&self, q: &SVector<T, N>, h2: T) -> Option<SVector<T, N>> {
        if self.hit(q, h2) {
            Some(self.f[self.cur & 1])
        } else {
            None
        }
    }

    /// The cached position, `h²` and `f` (to refresh `f` in place after a change of the held
    /// force), or `None` when the cache holds nothing.
    #[inline]
    pub(crate) fn slot(&mut self) -> Option<(&SVector<T, N>, T, &mut SVector<T, N>)> {
        if self.valid {
            Some((&self.q, self.h2, &mut self.f[self.cur & 1]))
        } else {
            None
        }
    }

    /// Caches `f` at `q` for `h2`.
    #[inline]
    pub(crate) fn store(&mut self, q: SVector<T, N>, h2: T, f: SVector<T, N>) {
        self.q = q;
        self.h2 = h2;
        self.cur = 0;
        self.f[0] = f;
        self.valid = true;
        self.forget_measured();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_validate() {
        assert_eq!(
            ZsParams::<f64>::default().validate(),
            Ok(ZsParams::with_beta(0.4))
        );
        assert_eq!(
            ZsParams::with_beta(-0.1f64).validate(),
            Err(ConfigError::OutOfRange {
                name: "beta",
                bound: ">= 0"
            })
        );
        assert_eq!(
            ZsParams::with_beta(f64::NAN).validate(),
            Err(ConfigError::NonFinite { name: "beta" })
        );
        assert_eq!(
            ZsParams::with_beta(f64::INFINITY).validate(),
            Err(ConfigError::NonFinite { name: "beta" })
        );
        let n = ImplicitNewtonParams::<f32>::default();
        assert!(n.validate().is_ok());
        let bad = ImplicitNewtonParams {
            tol: 0.0f64,
            max_iter: 3,
        };
        assert_eq!(
            bad.validate(),
            Err(ConfigError::OutOfRange {
                name: "tol",
                bound: "> 0"
            })
        );
        let bad = ImplicitNewtonParams {
            tol: f64::NAN,
            max_iter: 3,
        };
        assert_eq!(bad.validate(), Err(ConfigError::NonFinite { name: "tol" }));
        let bad = ImplicitNewtonParams {
            tol: 1e-10f64,
            max_iter: 0,
        };
        assert_eq!(
            bad.validate(),
            Err(ConfigError::OutOfRange {
                name: "max_iter",
                bound: ">= 1"
            })
        );
    }

    #[test]
    fn newmark_params_validate_beta_then_newton() {
        let d = NewmarkParams::<f64>::default();
        assert_eq!(d.beta, ZsParams::<f64>::default().beta);
        assert_eq!(d.newton, ImplicitNewtonParams::default());
        assert_eq!(d.validate(), Ok(d));
        let no_newton = ImplicitNewtonParams {
            tol: f64::NAN,
            max_iter: 0,
        };
        let both = NewmarkParams {
            beta: -1.0,
            newton: no_newton,
        };
        assert_eq!(
            both.validate(),
            Err(ConfigError::OutOfRange {
                name: "beta",
                bound: ">= 0"
            })
        );
        let newton = NewmarkParams { beta: 0.25, ..both };
        assert_eq!(
            newton.validate(),
            Err(ConfigError::NonFinite { name: "tol" })
        );
    }
}
