//! The cart-pole's LQR gain computed where it runs: from the exact linearisation of one Z&S step
//! of the frozen-mass cart-pole at the upright ([`Linearise`]) and the discrete Riccati equation
//! ([`lqr`]), at start-up, in the scalar of the scenario (on the Cortex-M4F: `f32`).
//!
//! The model linearised is the cart-pole in `(s, θ)` with its mass matrix frozen at the upright,
//! `M₀ = [[m_c + m_p, m_p L], [m_p L, m_p L²]]`, `V = m_p g L cos θ`, the force on `s` (as the
//! host experiment `reproduce linearise` builds it): at the upright at rest it has exactly the
//! linearisation of the full cart-pole, and its state is what the controller observes,
//! `x = (s, θ, ṡ, θ̇)`.

use crate::ScenarioError;
use core::cell::Cell;
use macrostep::control::{lqr, RiccatiParams};
use macrostep::forcing::Actuated;
use macrostep::linearise::{FourthDerivative, Linearise, StepJacobian};
use macrostep::model::{Hessian, Mass, Potential, System, ThirdDerivative};
use macrostep::nalgebra::{SMatrix, SVector};
use macrostep::zs::{ZhangSkeel, ZsParams};
use macrostep::{ConfigError, Real, State};

/// Cart mass (kg).
pub const M_CART: f64 = 1.0;
/// Tip mass (kg).
pub const M_TIP: f64 = 0.1;
/// Rod length (m).
pub const LENGTH: f64 = 0.5;
/// Gravity (m/s²).
pub const GRAVITY: f64 = 9.81;

/// The LQR weights: `Q = diag(q)` on `(s, θ, ṡ, θ̇)` and `R = r` on the force, plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LqrWeights<T> {
    /// The state weight `Q` by rows (symmetric positive semidefinite).
    pub q: [[T; 4]; 4],
    /// The force weight (positive).
    pub r: T,
}

impl<T: Real> LqrWeights<T> {
    /// The cart-pole's weights, `Q = diag(10, 100, 1, 1)`, `R = 0.1`.
    pub fn cart_pole() -> Self {
        let z = T::zero();
        Self {
            q: [
                [T::lit(10.0), z, z, z],
                [z, T::lit(100.0), z, z],
                [z, z, T::one(), z],
                [z, z, z, T::one()],
            ],
            r: T::lit(0.1),
        }
    }
}

/// `V = m_p g L cos θ` on `q = (s, θ)`, with its derivatives in closed form (`∂θ` only):
/// `∇V = (0, −c sin θ)`, `Hess V = diag(0, −c cos θ)`, `∂³V/∂θ³ = c sin θ`, `∂⁴V/∂θ⁴ = c cos θ`,
/// `c = m_p g L`. Closed form rather than the crate's AD: the same values (a host test checks the
/// gain against the AD-built model's), a fraction of the instructions and of the stack (the
/// EKF linearises this model every tick).
///
/// `sin θ` and `cos θ` come from [`sin_cos`] (in `f32` a single-precision kernel, not `libm`'s
/// `sinf`/`cosf` with their software `f64`), computed once per `θ` and remembered: a Z&S
/// linearisation asks for nine derivatives at each of two points (remembering the last two
/// angles, so that the model's step finds both again, costs more in look-ups than it saves).
/// The remembered values are the ones a fresh call returns, so results do not depend on it.
#[derive(Clone, Debug)]
pub struct Upright<T: Real> {
    mgl: T,
    /// `θ` (NaN at first: it equals nothing), `sin θ` and `cos θ` of the last `θ`.
    memo: [Cell<T>; 3],
}

impl<T: Real> Upright<T> {
    /// `V = c cos θ`.
    pub fn new(mgl: T) -> Self {
        Self {
            mgl,
            memo: [
                Cell::new(T::lit(f64::NAN)),
                Cell::new(T::zero()),
                Cell::new(T::one()),
            ],
        }
    }

    /// `(sin θ, cos θ)`, remembered.
    fn sin_cos(&self, theta: T) -> (T, T) {
        let [t, s, c] = &self.memo;
        if t.get() == theta {
            return (s.get(), c.get());
        }
        let v = sin_cos(theta);
        t.set(theta);
        s.set(v.0);
        c.set(v.1);
        v
    }
}

/// `(sin x, cos x)`: in `f64` (and any scalar finer than `f32`) `libm`'s `sin` and `cos`; in `f32`
/// a single-precision kernel that never leaves `f32` (`libm`'s `sinf`/`cosf` evaluate their
/// polynomials in `f64`, which the Cortex-M4F emulates in software, ≈ 700 instructions a call;
/// this kernel takes ≈ 50). The kernel reduces by `k = round(2x/π)` with `π/2` split in three
/// parts (Cody–Waite; `k·P₁` exact for `|x| ≤ 8192`) and evaluates the Cephes `sinf`/`cosf`
/// minimax polynomials on `[−π/4, π/4]`: below `|x| = 0.78` (no reduction) within 2 ulp of the
/// correctly rounded value, above within `2 ε` absolute (the reduced argument carries the
/// rounding of `k·P₂`); the host test `f32_sin_cos_kernel_accuracy` measures both against `f64`. Larger or non-finite `x` go to `libm`. The host's `f32` run
/// executes the same operations, so host and device stay bit-identical.
#[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(|x| ≤ 8192)` is also true for NaN
pub fn sin_cos<T: Real>(x: T) -> (T, T) {
    if T::default_epsilon() < T::lit(1e-10) || !(x.abs() <= T::lit(8192.0)) {
        // Two calls rather than `sin_cos`: `libm`'s `sincosf` reserves 664 B of stack for its
        // large-argument reduction on every call.
        return (x.sin(), x.cos());
    }
    if x.abs() <= T::lit(0.78) {
        // Below π/4 with a margin, `k = 0`: the reduction below would return `x` itself.
        return sin_cos_kernel(x);
    }
    let k = (x * T::lit(core::f64::consts::FRAC_2_PI)).round();
    let r = x
        - k * T::lit(1.5703125)
        - k * T::lit(4.837_512_969_970_703e-4)
        - k * T::lit(7.549789954891882e-8);
    let (s, c) = sin_cos_kernel(r);
    // The quadrant `k mod 4` (in `T`: `k` is an integer below 2¹³ in magnitude).
    let four = T::lit(4.0);
    let quadrant = k - (k / four).floor() * four;
    if quadrant == T::zero() {
        (s, c)
    } else if quadrant == T::one() {
        (c, -s)
    } else if quadrant == T::lit(2.0) {
        (-s, -c)
    } else {
        (-c, s)
    }
}

/// The Cephes `sinf`/`cosf` minimax polynomials, for `|r| ≤ π/4`.
fn sin_cos_kernel<T: Real>(r: T) -> (T, T) {
    let z = r * r;
    let s = r + r
        * z
        * (T::lit(-1.666_665_461_1e-1)
            + z * (T::lit(8.332_160_873_6e-3) + z * T::lit(-1.951_529_589_1e-4)));
    let c = T::one() - z * T::lit(0.5)
        + z * z
            * (T::lit(4.166_664_568_298_827e-2)
                + z * (T::lit(-1.388_731_625_493_765e-3) + z * T::lit(2.443_315_711_809_948e-5)));
    (s, c)
}

impl<T: Real> Potential<T, 2> for Upright<T> {
    fn energy(&self, q: &SVector<T, 2>) -> T {
        self.sin_cos(q[1]).1 * self.mgl
    }

    fn gradient(&self, q: &SVector<T, 2>) -> SVector<T, 2> {
        SVector::<T, 2>::new(T::zero(), -(self.sin_cos(q[1]).0 * self.mgl))
    }
}

impl<T: Real> Hessian<T, 2> for Upright<T> {
    fn hessian(&self, q: &SVector<T, 2>) -> SMatrix<T, 2, 2> {
        let z = T::zero();
        SMatrix::<T, 2, 2>::new(z, z, z, -(self.sin_cos(q[1]).1 * self.mgl))
    }
}

impl<T: Real> ThirdDerivative<T, 2> for Upright<T> {
    /// `Σⱼₖ ∂³V/∂qᵢ∂qⱼ∂qₖ aⱼ aₖ = (0, c sin θ · a_θ²)`.
    fn third_contraction(&self, q: &SVector<T, 2>, a: &SVector<T, 2>) -> SVector<T, 2> {
        SVector::<T, 2>::new(T::zero(), self.sin_cos(q[1]).0 * self.mgl * (a[1] * a[1]))
    }
}

impl<T: Real> FourthDerivative<T, 2> for Upright<T> {
    /// `∂ᵦ(a·V‴·a) = (0, c cos θ · a_θ² b_θ)`.
    fn fourth_contraction(
        &self,
        q: &SVector<T, 2>,
        a: &SVector<T, 2>,
        b: &SVector<T, 2>,
    ) -> SVector<T, 2> {
        SVector::<T, 2>::new(
            T::zero(),
            self.sin_cos(q[1]).1 * self.mgl * (a[1] * a[1]) * b[1],
        )
    }
}

/// The frozen-mass cart-pole with a held generalized force `(F, 0)`.
pub type FrozenModel<T> = System<T, Actuated<T, Upright<T>, 2>, 2>;

/// [`FrozenModel`] with the cart-pole's masses, length and gravity.
///
/// # Errors
/// None expected ([`ConfigError`] for the mass matrix, which is positive definite).
pub fn frozen_model<T: Real>() -> Result<FrozenModel<T>, ConfigError> {
    let (mc, mp, l) = (T::lit(M_CART), T::lit(M_TIP), T::lit(LENGTH));
    let c = mp * l;
    let mut m = SMatrix::<T, 2, 2>::zeros();
    m[(0, 0)] = mc + mp;
    m[(0, 1)] = c;
    m[(1, 0)] = c;
    m[(1, 1)] = c * l;
    let mgl = c * T::lit(GRAVITY);
    Ok(System::new(
        Mass::full(m)?,
        Actuated::new(Upright::new(mgl)),
    ))
}

/// The LQR gain `K` (`F = −K (s, θ, ṡ, θ̇)`) at step `h` for the weights `w`: Z&S (`β = 0.4`) on
/// [`frozen_model`] linearised at the upright at rest with zero force, `B` its column for `F`,
/// then [`lqr`] with the default [`RiccatiParams`] (at most 64 doubling iterations).
///
/// Not inlined: the linearisation and the Riccati solve live in frames that are gone before the
/// control loop runs (the 2 KiB stack budget).
///
/// # Errors
/// [`ScenarioError::Control`] for bad weights, an unstabilisable pair or a Riccati iteration
/// that does not converge; [`ScenarioError::Step`] when the linearisation fails;
/// [`ScenarioError::Config`] for a bad `h`.
#[inline(never)]
pub fn lqr_gain<T: Real>(h: T, w: &LqrWeights<T>) -> Result<[T; 4], ScenarioError> {
    let (mut a, mut b) = (SMatrix::zeros(), SMatrix::zeros());
    upright_linearisation(h, &mut a, &mut b)?;
    gain(&a, &b, w)
}

/// `(A, B)` of one Z&S step of [`frozen_model`] at the upright at rest, `B` for the force on `s`,
/// written into `a` and `b`. Not inlined: the integrator and the Jacobian blocks are gone before
/// the Riccati solve.
#[inline(never)]
fn upright_linearisation<T: Real>(
    h: T,
    a: &mut SMatrix<T, 4, 4>,
    b: &mut SMatrix<T, 4, 1>,
) -> Result<(), ScenarioError> {
    // The integrator used in place (`&` into its `Result`) and the blocks written in place
    // ([`Linearise::linearise_into`]): nothing large is moved, so the frame holds each once.
    let built = ZhangSkeel::new(frozen_model()?, h, ZsParams::default());
    let zs = match &built {
        Ok(zs) => zs,
        Err(e) => return Err((*e).into()),
    };
    let mut j = StepJacobian::zeros();
    zs.linearise_into(&State::at_rest(SVector::zeros()), &mut j)?;
    for r in 0..2 {
        for c in 0..2 {
            a[(r, c)] = j.qq[(r, c)];
            a[(r, c + 2)] = j.qv[(r, c)];
            a[(r + 2, c)] = j.vq[(r, c)];
            a[(r + 2, c + 2)] = j.vv[(r, c)];
        }
        b[(r, 0)] = j.bq[(r, 0)];
        b[(r + 2, 0)] = j.bv[(r, 0)];
    }
    Ok(())
}

/// The gain of [`lqr`] for `(A, B)` and the weights `w`. Not inlined (see [`lqr_gain`]).
#[inline(never)]
fn gain<T: Real>(
    a: &SMatrix<T, 4, 4>,
    b: &SMatrix<T, 4, 1>,
    w: &LqrWeights<T>,
) -> Result<[T; 4], ScenarioError> {
    // `From<[[T; 4]; 4]>` reads columns; `q` holds rows.
    let q = SMatrix::<T, 4, 4>::from(w.q).transpose();
    let r = SMatrix::<T, 1, 1>::new(w.r);
    let k = lqr(a, b, &q, &r, &RiccatiParams::default())?.k;
    Ok([k[0], k[1], k[2], k[3]])
}
