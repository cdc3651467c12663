//! Springs with a rest length between mechanism nodes or to ground pins, and [`Loads`]: gravity
//! plus springs, the conservative part of a mechanism with springs.

use super::linkage::{dot, Place, Rod};
use crate::model::{Hessian, Potential, ThirdDerivative};
use crate::systems::LinearPotential;
use crate::Real;
use nalgebra::{SMatrix, SVector};

/// One spring `V = ½ k (|p_a − p_b| − L₀)²` (see [`Springs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring<T: Real, const DIM: usize> {
    ends: Rod<T, DIM>,
    k: T,
    rest: T,
}

impl<T: Real, const DIM: usize> Spring<T, DIM> {
    /// From validated ends, `k ≥ 0` and `L₀ ≥ 0` (the builder checks them).
    pub(super) fn from_valid(a: Place<T, DIM>, b: Place<T, DIM>, k: T, rest: T) -> Self {
        Self {
            ends: Rod {
                a,
                b,
                length2: rest * rest,
            },
            k,
            rest,
        }
    }

    /// A placeholder for unused slots (no force: `k = 0`, both ends at `g`), `zero` the
    /// scalar's zero; a `const fn`, so that it can be part of a constant.
    pub(super) const fn blank(g: Place<T, DIM>, zero: T) -> Self {
        Self {
            ends: Rod {
                a: g,
                b: g,
                length2: zero,
            },
            k: zero,
            rest: zero,
        }
    }

    /// The first end.
    pub fn a(&self) -> Place<T, DIM> {
        self.ends.a
    }
    /// The second end.
    pub fn b(&self) -> Place<T, DIM> {
        self.ends.b
    }
    /// The stiffness `k` (N/m).
    pub fn stiffness(&self) -> T {
        self.k
    }
    /// The rest length `L₀` (m).
    pub fn rest_length(&self) -> T {
        self.rest
    }

    /// `(d, r, 1 − L₀/r)` at `q` with `d = p_a − p_b`, `r = |d|` (`r` and the ratio are not
    /// formed for `L₀ = 0`: the spring is then the smooth quadratic `½ k |d|²`).
    #[inline]
    fn geometry<const N: usize>(&self, q: &SVector<T, N>) -> ([T; DIM], T, T) {
        let d = self.ends.difference(q);
        if self.rest == T::zero() {
            return (d, T::zero(), T::one());
        }
        let r = dot(&d, &d).sqrt();
        (d, r, T::one() - self.rest / r)
    }
}

/// `S` linear springs `V = Σ ½ kⱼ (|p_a − p_b| − L₀ⱼ)²` on a mechanism's nodes (free, on rails
/// or ground pins: `p = A q + c`, `B = A_a − A_b`, `d = p_a − p_b`, `r = |d|`), with exact
/// derivatives (per spring, pulled back by `B`):
///
/// - `∇V = k (1 − L₀/r) Bᵀ d`,
/// - `Hess V = k Bᵀ [(1 − L₀/r) I + (L₀/r³) d dᵀ] B`,
/// - `a·V‴·a = k (L₀/r³) Bᵀ [2 (d·δ) δ + |δ|² d − 3 ((d·δ)²/r²) d]` with `δ = B a`.
///
/// A spring of rest length `L₀ = 0` is the quadratic `½ k |d|²` (Hessian `k BᵀB`, `V‴ = 0`),
/// smooth everywhere. With `L₀ > 0` the force direction is undefined where the ends coincide
/// (`r = 0`): the gradient is then not finite and a step refuses it with a typed error, the
/// state unchanged (the builder refuses such a spring whose ends *start* at one point).
///
/// Built by [`MechanismBuilder::spring`](super::MechanismBuilder::spring); see
/// [`Loads`] for gravity plus springs.
///
/// ```
/// use macrostep::mechanism::MechanismBuilder;
/// use macrostep::zs::{ZhangSkeel, ZsParams};
/// use macrostep::Integrator;
///
/// // A 2 kg mass hanging from a ground pin by a spring k = 50 N/m, L₀ = 1 m, released from
/// // rest at its equilibrium 1 + m g / k below the pin: it stays there (no rods: D = 0).
/// let (m, k, g) = (2.0, 50.0, 9.81);
/// let mut b = MechanismBuilder::<f64, 2, 2, 0, 1>::new()?;
/// let bob = b.node(m, [0.0, -(1.0 + m * g / k)])?;
/// b.spring_to_ground(bob, [0.0, 0.0], k, 1.0)?;
/// b.gravity(g)?;
/// let mech = b.build()?;
/// let mut zs = ZhangSkeel::new(mech.system_with_springs(), 0.01, ZsParams::default())?;
/// let mut s = mech.initial_state();
/// zs.integrate(&mut s, 100).unwrap();
/// assert!((s.q - mech.initial_state().q).amax() < 1e-12);
/// # Ok::<(), macrostep::ConfigError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Springs<T: Real, const DIM: usize, const N: usize, const S: usize> {
    springs: [Spring<T, DIM>; S],
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> Springs<T, DIM, N, S> {
    pub(super) const fn from_valid(springs: [Spring<T, DIM>; S]) -> Self {
        Self { springs }
    }

    /// The springs.
    pub fn springs(&self) -> &[Spring<T, DIM>; S] {
        &self.springs
    }

    /// `out += Σ k (1 − L₀/r) Bᵀ d`.
    #[inline]
    fn add_gradient(&self, q: &SVector<T, N>, out: &mut SVector<T, N>) {
        for s in self.springs.iter() {
            let (mut d, _, ratio) = s.geometry(q);
            let f = s.k * ratio;
            for x in d.iter_mut() {
                *x *= f;
            }
            s.ends.scatter(out, &d);
        }
    }
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> Potential<T, N>
    for Springs<T, DIM, N, S>
{
    /// `Σ ½ k (r − L₀)²`.
    fn energy(&self, q: &SVector<T, N>) -> T {
        let half = T::lit(0.5);
        let mut e = T::zero();
        for s in self.springs.iter() {
            let d = s.ends.difference(q);
            let r2 = dot(&d, &d);
            e += if s.rest == T::zero() {
                half * s.k * r2
            } else {
                let x = r2.sqrt() - s.rest;
                half * s.k * x * x
            };
        }
        e
    }

    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let mut g = SVector::zeros();
        self.add_gradient(q, &mut g);
        g
    }
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> Hessian<T, N>
    for Springs<T, DIM, N, S>
{
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::zeros();
        self.add_hessian(q, T::one(), &mut h);
        h
    }

    /// Adds `scale · k Bᵀ [(1 − L₀/r) I + (L₀/r³) d dᵀ] B` spring by spring.
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        for s in self.springs.iter() {
            let (d, r, ratio) = s.geometry(q);
            let ks = s.k * scale;
            let diag = ks * ratio;
            let outer = if s.rest == T::zero() {
                T::zero()
            } else {
                ks * s.rest / (r * r * r)
            };
            s.ends.add_block(out, outer, diag, T::one(), &d);
        }
    }
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> ThirdDerivative<T, N>
    for Springs<T, DIM, N, S>
{
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let mut out = SVector::zeros();
        let (two, three) = (T::lit(2.0), T::lit(3.0));
        for s in self.springs.iter() {
            if s.rest == T::zero() {
                continue; // a quadratic: V‴ = 0
            }
            let (d, r, _) = s.geometry(q);
            let delta = s.ends.delta(a, false);
            let r2 = r * r;
            let c = s.k * s.rest / (r2 * r);
            let (dd, aa) = (dot(&d, &delta), dot(&delta, &delta));
            let along = aa - three * dd * dd / r2;
            let mut v = [T::zero(); DIM];
            for i in 0..DIM {
                v[i] = c * (two * dd * delta[i] + along * d[i]);
            }
            s.ends.scatter(&mut out, &v);
        }
        out
    }
}

/// The conservative loads of a mechanism with springs: gravity (a [`LinearPotential`]) plus
/// [`Springs`]. What [`Mechanism::loads`](super::Mechanism::loads) returns, and the base
/// potential of [`Mechanism::penalised_with_springs`](super::Mechanism::penalised_with_springs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loads<T: Real, const DIM: usize, const N: usize, const S: usize> {
    /// Gravity.
    pub gravity: LinearPotential<T, N>,
    /// The springs.
    pub springs: Springs<T, DIM, N, S>,
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> Potential<T, N>
    for Loads<T, DIM, N, S>
{
    fn energy(&self, q: &SVector<T, N>) -> T {
        self.gravity.energy(q) + self.springs.energy(q)
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let mut g = *self.gravity.coefficients();
        self.springs.add_gradient(q, &mut g);
        g
    }
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> Hessian<T, N>
    for Loads<T, DIM, N, S>
{
    /// The springs' Hessian (gravity's is zero).
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        self.springs.hessian(q)
    }
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        self.springs.add_hessian(q, scale, out);
    }
}

impl<T: Real, const DIM: usize, const N: usize, const S: usize> ThirdDerivative<T, N>
    for Loads<T, DIM, N, S>
{
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        self.springs.third_contraction(q, a)
    }
}
