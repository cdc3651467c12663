//! Forward-mode automatic differentiation: write an energy **once**, generically, and get its
//! exact gradient, Hessian, Hessian–vector product and third-derivative contraction
//! `(a·V‴·a)ᵢ = Σⱼₖ ∂³V/∂qᵢ∂qⱼ∂qₖ aⱼ aₖ` (the Z&S correction term, 000 eq 1.3).
//!
//! # How to use it
//!
//! Implement [`Energy`] (or [`ConstraintFn`] for holonomic constraints) with a method generic over
//! the scalar `S: AdScalar<T>`, and wrap the value in [`AutoDiff`]: it then implements
//! [`Potential`], [`Hessian`] and [`ThirdDerivative`] (or [`Constraint`]) and plugs into every
//! integrator. Inside the generic method write the formula with `+ − × ÷`, mixed operations with
//! plain constants on the right (`x * k`, `x + k`, `k: T`), the elementary functions of
//! [`AdScalar`], `S::cst(k)` to lift a `T` and `S::lit(0.5)` for a literal. Branch on
//! [`AdScalar::value`].
//!
//! ```
//! use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
//! use macrostep::model::{Hessian, Potential, ThirdDerivative};
//! use macrostep::nalgebra::Vector3;
//! use macrostep::Real;
//!
//! /// A Morse bond `D (1 − e^{−α(r − r₀)})²` between an atom at `q` and one fixed at the origin.
//! struct Morse<T> { depth: T, alpha: T, r0: T }
//!
//! impl<T: Real> Energy<T, 3> for Morse<T> {
//!     fn energy<S: AdScalar<T>>(&self, q: &[S; 3]) -> S {
//!         let r = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
//!         let e = ((r - self.r0) * -self.alpha).exp();
//!         let w = -e + T::one();
//!         w * w * self.depth
//!     }
//! }
//!
//! let bond = AutoDiff(Morse { depth: 2.0, alpha: 1.5, r0: 1.0 });
//! let q = Vector3::new(0.6, 0.8, 0.0); // r = 1: the minimum
//! assert!(bond.energy(&q).abs() < 1e-15);
//! assert!(bond.gradient(&q).norm() < 1e-15);
//! // At the minimum the Hessian is 2Dα² û ûᵀ, and a·V‴·a along û is V‴(r₀) = −6Dα³.
//! let u = q;
//! let h = bond.hessian(&q);
//! assert!((h - u * u.transpose() * (2.0 * 2.0 * 1.5 * 1.5)).norm() < 1e-13);
//! let t = bond.third_contraction(&q, &u);
//! assert!((t - u * (-6.0 * 2.0 * 1.5f64.powi(3))).norm() < 1e-12);
//! ```
//!
//! A pendulum in Cartesian coordinates: a gravity energy and a length constraint.
//!
//! ```
//! use macrostep::autodiff::{AdScalar, AutoDiff, ConstraintFn, Energy};
//! use macrostep::model::{Constraint, Penalty, Potential};
//! use macrostep::nalgebra::Vector2;
//! use macrostep::Real;
//!
//! struct Gravity<T>(T);
//! impl<T: Real> Energy<T, 2> for Gravity<T> {
//!     fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
//!         q[1] * self.0
//!     }
//! }
//! /// `g(q) = |q|² − 1`.
//! struct Rod;
//! impl<T: Real> ConstraintFn<T, 2, 1> for Rod {
//!     fn eval<S: AdScalar<T>>(&self, q: &[S; 2]) -> [S; 1] {
//!         [q[0] * q[0] + q[1] * q[1] - T::one()]
//!     }
//! }
//!
//! let q = Vector2::new(0.6, -0.8);
//! assert_eq!(AutoDiff(Rod).jacobian(&q), Vector2::new(1.2, -1.6).transpose());
//! let stiff = Penalty::new(AutoDiff(Gravity(9.81)), AutoDiff(Rod), 100.0).unwrap();
//! assert!((stiff.gradient(&q) - Vector2::new(0.0, 9.81)).norm() < 1e-12);
//! ```
//!
//! The core potentials [`Zero`](crate::model::Zero), [`Quadratic`](crate::model::Quadratic),
//! [`Split`](crate::model::Split) and [`Penalty`](crate::model::Penalty) implement [`Energy`] too
//! (when their parts do), so a composite built from them differentiates as a whole, and so do the
//! potentials and constraints of every built-in model ([`crate::systems`]): e.g.
//! `AutoDiff(Pendulum::paper().penalised(100.0)?.potential)` reproduces the model's hand-written
//! derivatives (the host test `models_ad` checks this for every model). A type that
//! implements both [`Potential`] and [`Energy`] has two methods named `energy`; with both traits in
//! scope call them as `Potential::energy(&v, &q)` / `Energy::energy(&v, &q)`.
//!
//! The wrapped energy steps like any other potential; here velocity Verlet on the penalised
//! pendulum (002 §5) with AD derivatives follows the hand-written model to roundoff:
//!
//! ```
//! use macrostep::autodiff::AutoDiff;
//! use macrostep::baselines::VelocityVerlet;
//! use macrostep::model::System;
//! use macrostep::systems::Pendulum;
//! use macrostep::Integrator;
//!
//! let pendulum = Pendulum::<f64>::paper();
//! let hand = pendulum.penalised(50.0)?;
//! let ad = System::new(hand.mass, AutoDiff(hand.potential));
//! let (mut s1, mut s2) = (pendulum.initial_state(), pendulum.initial_state());
//! let mut v1 = VelocityVerlet::new(hand, 1e-3)?;
//! let mut v2 = VelocityVerlet::new(ad, 1e-3)?;
//! for _ in 0..1000 {
//!     v1.step(&mut s1)?;
//!     v2.step(&mut s2)?;
//! }
//! assert!((s1.q - s2.q).norm() < 1e-10);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! # The number types
//!
//! | type | carries | per value |
//! |---|---|---|
//! | `T` (`f32`, `f64`) | `V(q)` | 1 scalar |
//! | [`VDual<T, N>`] | `V`, `∇V` | `N + 1` |
//! | [`Dual<S>`] over any `S` | `S` and one directional derivative of it | 2 × `S` |
//! | `Dual<VDual<T, N>>` | `V`, `∇V`, `∇V·a`, `Hess V·a` | `2(N + 1)` |
//! | [`Jet2<S>`] over any `S` | `S` and two Taylor coefficients along one direction | 3 × `S` |
//! | `Jet2<VDual<T, N>>` | `V`, `∇V`, `∇V·a`, `Hess V·a`, `½aᵀ Hess V a`, `½a·V‴·a` | `3(N + 1)` |
//! | `Dual<Dual<VDual<T, N>>>` | the same by nesting (kept as a cross-check) | `4(N + 1)` |
//!
//! Seeding (`εⱼ` the gradient slots, `δ`, `δ₁`, `δ₂` the directional ones, all nilpotent):
//!
//! - gradient: one evaluation at `xᵢ = qᵢ + εᵢ`; the `ε` part is `∇V`;
//! - `Hess V · a`: one evaluation at `xᵢ = qᵢ + εᵢ + aᵢ δ`; the `εδ` part is `∇(∇V·a) = Hess V a`;
//! - `Hess V`: `N` such evaluations with `a = eⱼ` (column `j`), symmetrised;
//! - `a·V‴·a`: one evaluation at `xᵢ = qᵢ + εᵢ + aᵢ t` in `Jet2<VDual>`; the `t²` coefficient is
//!   `½ aᵀ Hess V a`, and twice its `ε` part is `∇(aᵀ Hess V a) = a·V‴·a`. (Equivalently, the
//!   `δ₁δ₂` part of `V(q + εᵢ + (δ₁ + δ₂) a)` in `Dual<Dual<VDual>>`, which the unit tests
//!   compare with; the jet needs 3 instead of 4 components and 6 instead of 9 products.)
//!
//! Memory stays `O(N)` per intermediate value (never `N × N`): the widest type,
//! `Jet2<VDual<f32, 40>>`, is 492 bytes, and the input array `[S; N]` of the third-derivative
//! evaluation is `3N(N + 1)` scalars (19.2 KiB for `N = 40` in `f32`, on the stack). Cost: an
//! operation on `VDual` costs `O(N)`, so the gradient, `Hess V·a` and `a·V‴·a` each cost
//! `O(N)` energy evaluations and the Hessian `O(N²)`; `reproduce autodiff` prints the measured
//! ratios (for a 40-coordinate chain on the host: gradient ≈ 4, `Hess V·a` ≈ 20, `a·V‴·a` ≈ 100,
//! Hessian ≈ 2000–3000 energy evaluations). Where a model is large or the budget tight, implement
//! the [`crate::model`] traits by hand (the built-in models do), exploiting sparsity.
//!
//! # Why not a crate
//!
//! - `num-dual` (recursive scalar/vector/hyper duals) needs `std`.
//! - `multicalc` (0.7–0.10) is `no_std`, allocation-free, generic over `f32`/`f64` and since 0.7
//!   exact (forward mode: `Dual`, `HyperDual`, univariate `Jet<T, N>`). But its derivatives are
//!   per variable index (a Hessian entry or a univariate jet at a time), through its own scalar
//!   trait `Numeric` and its own `Vector`/`Matrix` types; it has no vector (gradient-carrying)
//!   dual, so the contraction `a·V‴·a` as a vector would need `N` jet evaluations of third order
//!   plus polarisation, and its API has broken at every minor release. It is also outside the
//!   core's dependency list (nalgebra, libm, heapless, rand_core, defmt).
//!
//! So the module is our own (~1000 lines with tests): three number types and the chain rule for
//! each elementary function (`Dual` and `VDual` share one macro; `Jet2` also needs second derivatives).
//!
//! [`Potential`]: crate::model::Potential
//! [`Hessian`]: crate::model::Hessian
//! [`ThirdDerivative`]: crate::model::ThirdDerivative
//! [`Constraint`]: crate::model::Constraint

mod derivatives;
mod dual;
mod elementary;
mod impls;
mod jet;
mod models;
mod ops;
mod vdual;
mod wrapper;

use ops::number_ops;

pub use derivatives::{
    constraint_value, energy, gradient, hessian, hessian_times, hessian_vector, jacobian,
    third_contraction, value_gradient, weighted_hessian, weighted_third_contraction,
};
pub use dual::Dual;
pub use jet::Jet2;
pub use vdual::VDual;
pub use wrapper::AutoDiff;

use crate::Real;
use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use nalgebra::{ComplexField, RealField};

/// A scalar an energy can be evaluated in: the plain `T` or a dual number over it.
///
/// Arithmetic among `Self`, mixed arithmetic with a plain `T` on the right, and the elementary
/// functions, each with its exact derivative propagated. Write formulas against this trait only.
pub trait AdScalar<T: Real>:
    Copy
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<T, Output = Self>
    + Sub<T, Output = Self>
    + Mul<T, Output = Self>
    + Div<T, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// A constant (zero derivative parts).
    fn cst(x: T) -> Self;
    /// A constant from an `f64` literal.
    #[inline]
    fn lit(x: f64) -> Self {
        Self::cst(<T as Real>::lit(x))
    }
    /// The plain value, without derivatives (for branches and comparisons).
    fn value(&self) -> T;

    /// `sin x`.
    fn sin(self) -> Self;
    /// `cos x`.
    fn cos(self) -> Self;
    /// `tan x`.
    fn tan(self) -> Self;
    /// `asin x`.
    fn asin(self) -> Self;
    /// `acos x`.
    fn acos(self) -> Self;
    /// `atan x`.
    fn atan(self) -> Self;
    /// `atan2(self, x)`: the angle of the point `(x, self)`.
    fn atan2(self, x: Self) -> Self;
    /// `sinh x`.
    fn sinh(self) -> Self;
    /// `cosh x`.
    fn cosh(self) -> Self;
    /// `tanh x`.
    fn tanh(self) -> Self;
    /// `eˣ`.
    fn exp(self) -> Self;
    /// `ln x`.
    fn ln(self) -> Self;
    /// `√x`.
    fn sqrt(self) -> Self;
    /// `∛x`.
    fn cbrt(self) -> Self;
    /// `xⁿ` for an integer `n`.
    fn powi(self, n: i32) -> Self;
    /// `xᶜ` for a constant real `c`.
    fn powf(self, c: T) -> Self;
    /// `1/x`.
    fn recip(self) -> Self;
    /// `|x|` (derivative `sign x`, taken as `+1` at `0`).
    ///
    /// The default negates the whole number when its value is negative, which carries every
    /// derivative part along (the plain scalar overrides it with its own `abs`).
    #[inline]
    fn abs(self) -> Self {
        if self.value() < T::zero() {
            -self
        } else {
            self
        }
    }
}

/// Expands, inside `impl AdScalar<T> for T`, to methods that call the scalar's own function of
/// the same name in `Trait` (a trait method cannot be supplied by a helper function).
macro_rules! forward_to {
    ($tr:ident: $($f:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            #[inline]
            fn $f(self $(, $arg: $ty)*) -> T {
                $tr::$f(self $(, $arg)*)
            }
        )*
    };
}

/// The plain scalar: no derivative parts, every function its own.
impl<T: Real> AdScalar<T> for T {
    #[inline]
    fn cst(x: T) -> T {
        x
    }
    #[inline]
    fn value(&self) -> T {
        *self
    }
    forward_to!(ComplexField: sin(), cos(), tan(), asin(), acos(), atan());
    forward_to!(RealField: atan2(x: T));
    forward_to!(ComplexField: sinh(), cosh(), tanh(), exp(), ln(), sqrt(), cbrt());
    forward_to!(ComplexField: powi(n: i32), powf(c: T), recip(), abs());
}

/// A potential energy `V: ℝᴺ → ℝ` written once, generically over the scalar.
///
/// Wrap it in [`AutoDiff`] to get [`Potential`](crate::model::Potential),
/// [`Hessian`](crate::model::Hessian) and [`ThirdDerivative`](crate::model::ThirdDerivative).
pub trait Energy<T: Real, const N: usize> {
    /// `V(q)`, evaluated in any [`AdScalar`].
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S;
}

/// Holonomic constraints `g: ℝᴺ → ℝᴰ` written once, generically over the scalar.
///
/// Wrap them in [`AutoDiff`] to get [`Constraint`](crate::model::Constraint).
pub trait ConstraintFn<T: Real, const N: usize, const D: usize> {
    /// `g(q)`, evaluated in any [`AdScalar`].
    fn eval<S: AdScalar<T>>(&self, q: &[S; N]) -> [S; D];
}

impl<T: Real, const N: usize, F: Energy<T, N> + ?Sized> Energy<T, N> for &F {
    #[inline]
    fn energy<S: AdScalar<T>>(&self, q: &[S; N]) -> S {
        (**self).energy(q)
    }
}

impl<T: Real, const N: usize, const D: usize, G: ConstraintFn<T, N, D> + ?Sized>
    ConstraintFn<T, N, D> for &G
{
    #[inline]
    fn eval<S: AdScalar<T>>(&self, q: &[S; N]) -> [S; D] {
        (**self).eval(q)
    }
}

#[cfg(test)]
mod tests;
