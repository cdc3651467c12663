//! The Fermi–Pasta–Ulam chain of alternating stiff harmonic and soft quartic springs
//! (004 §2.6.3, eq 2.107, and §4.2.6, eqs 4.18–4.19).
//!
//! The chain has `2m` unit masses between two walls; spring `i` (`i = 1 … m`) between masses
//! `2i − 1` and `2i` is stiff and harmonic, the `m + 1` springs between masses `2i` and `2i + 1`
//! (walls `q₀ = q_{2m+1} = 0`) are soft and quartic:
//!
//! ```text
//! H(q, p) = ½ Σᵢ (p²_{2i−1} + p²_{2i}) + ω²/4 Σᵢ₌₁ᵐ (q_{2i} − q_{2i−1})² + Σᵢ₌₀ᵐ (q_{2i+1} − q_{2i})⁴.   (4.18)
//! ```
//!
//! The thesis works in the rotated coordinates (eq 4.19, an orthogonal change of variables, so the
//! mass matrix stays `I`)
//!
//! ```text
//! xᵢ = (q_{2i} + q_{2i−1})/√2  (centre of stiff spring i, slow),
//! x_{m+i} = (q_{2i} − q_{2i−1})/√2  (elongation of stiff spring i, fast),
//! ```
//!
//! in which the stiff potential is diagonal, `V_f = ω²/2 Σᵢ x²_{m+i}`, and the soft potential is
//!
//! ```text
//! V_s(x) = ¼ [ (x₁ − x_{m+1})⁴ + Σᵢ₌₁^{m−1} (x_{i+1} − x_{m+i+1} − xᵢ − x_{m+i})⁴ + (x_m + x_{2m})⁴ ].
//! ```
//!
//! This module uses those `x` coordinates throughout: `q` of a [`State`] is `x`, `v` is `y`.

use super::check_positive;
use crate::model::{Hessian, Mass, Potential, Quadratic, Split, System, ThirdDerivative};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// The soft quartic potential `V_s` of the FPU chain in the coordinates of 004 eq 4.19.
///
/// `V_s(x) = ¼ Σⱼ₌₀ᵐ dⱼ⁴` with bond elongations (1-based, `m = N/2`)
/// `dⱼ = [x_{j+1} − x_{m+j+1}]_{j<m} − [x_j + x_{m+j}]_{j≥1}`, i.e. `dⱼ = √2 (q_{2j+1} − q_{2j})`.
/// With `cⱼ = ∂dⱼ/∂x`: `∇V_s = Σ dⱼ³ cⱼ`, `Hess V_s = Σ 3dⱼ² cⱼcⱼᵀ`,
/// `a·V_s‴·a = Σ 6dⱼ (cⱼ·a)² cⱼ`.
#[derive(Clone, Copy, Debug)]
pub struct FpuSoft<T: Real, const N: usize> {
    quarter: T,
    three: T,
    six: T,
}

impl<T: Real, const N: usize> FpuSoft<T, N> {
    /// The soft potential for `m = N/2` stiff springs.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"N even"` for odd `N`, [`ConfigError::OutOfRange`] `"N"`
    /// for `N = 0`.
    pub fn new() -> Result<Self, ConfigError> {
        if N == 0 {
            return Err(ConfigError::OutOfRange {
                name: "N",
                bound: ">= 1",
            });
        }
        if !N.is_multiple_of(2) {
            return Err(ConfigError::Inconsistent { name: "N even" });
        }
        Ok(Self::build())
    }

    fn build() -> Self {
        Self {
            quarter: T::lit(0.25),
            three: T::lit(3.0),
            six: T::lit(6.0),
        }
    }

    /// Soft bond `j ∈ 0..=m`: the coordinates it involves with their coefficients `±1` in `dⱼ`
    /// (`count` of the four slots are used).
    #[inline]
    fn bond(j: usize) -> ([usize; 4], [bool; 4], usize) {
        let m = N / 2;
        let mut idx = [0; 4];
        let mut plus = [false; 4];
        let mut n = 0;
        if j < m {
            idx[0] = j;
            plus[0] = true;
            idx[1] = m + j;
            n = 2;
        }
        if j >= 1 {
            idx[n] = j - 1;
            idx[n + 1] = m + j - 1;
            n += 2;
        }
        (idx, plus, n)
    }

    /// `dⱼ = cⱼ·x = [x_{j+1} − x_{m+j+1}]_{j<m} − [x_j + x_{m+j}]_{j≥1}` (1-based as in the type
    /// docs; 0-based below). Reads `x` as its two halves `x[..m]` and `x[m..]`, each at `j` and
    /// `j − 1`: the halves have the constant length `m`, so `get` there is just the `j < m` and
    /// `j ≥ 1` cases of the formula and no bounds-check panic is left.
    #[inline]
    fn dot(x: &SVector<T, N>, j: usize) -> T {
        let (xa, xb) = x.as_slice().split_at(N / 2);
        let mut d = T::zero();
        if let (Some(&a), Some(&b)) = (xa.get(j), xb.get(j)) {
            d += a;
            d -= b;
        }
        if let Some(i) = j.checked_sub(1) {
            if let (Some(&a), Some(&b)) = (xa.get(i), xb.get(i)) {
                d -= a;
                d -= b;
            }
        }
        d
    }

    /// Adds `s · cⱼ` to `out` (the coordinates of [`Self::dot`]).
    #[inline]
    fn axpy(out: &mut SVector<T, N>, s: T, j: usize) {
        let (ga, gb) = out.as_mut_slice().split_at_mut(N / 2);
        if let (Some(a), Some(b)) = (ga.get_mut(j), gb.get_mut(j)) {
            *a += s;
            *b -= s;
        }
        if let Some(i) = j.checked_sub(1) {
            if let (Some(a), Some(b)) = (ga.get_mut(i), gb.get_mut(i)) {
                *a -= s;
                *b -= s;
            }
        }
    }

    /// `Σⱼ f(cⱼ·x, cⱼ·a) cⱼ` over the soft springs: the directional derivatives of the quartic
    /// spring energies, `f` giving the spring's factor from its extension and its change along `a`.
    #[inline]
    fn spring_sum(x: &SVector<T, N>, a: &SVector<T, N>, f: impl Fn(T, T) -> T) -> SVector<T, N> {
        let mut out = SVector::zeros();
        for j in 0..=N / 2 {
            Self::axpy(&mut out, f(Self::dot(x, j), Self::dot(a, j)), j);
        }
        out
    }
}

impl<T: Real, const N: usize> Potential<T, N> for FpuSoft<T, N> {
    /// `V_s(x) = ¼ Σⱼ dⱼ⁴` (004 §4.2.6).
    fn energy(&self, x: &SVector<T, N>) -> T {
        let mut v = T::zero();
        for j in 0..=N / 2 {
            let d2 = Self::dot(x, j).powi(2);
            v += d2 * d2;
        }
        v * self.quarter
    }
    fn gradient(&self, x: &SVector<T, N>) -> SVector<T, N> {
        let mut g = SVector::zeros();
        for j in 0..=N / 2 {
            let d = Self::dot(x, j);
            Self::axpy(&mut g, d * d * d, j);
        }
        g
    }
}

impl<T: Real, const N: usize> Hessian<T, N> for FpuSoft<T, N> {
    fn hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::<T, N, N>::zeros();
        for j in 0..=N / 2 {
            let (idx, plus, n) = Self::bond(j);
            let d = Self::dot(x, j);
            let w = self.three * d * d;
            for r in 0..n {
                for c in 0..n {
                    let s = if plus[r] == plus[c] { w } else { -w };
                    // The bond's coordinates are below `N` (see `bond`).
                    if let Some(e) = h.get_mut((idx[r], idx[c])) {
                        *e += s;
                    }
                }
            }
        }
        h
    }
    fn hessian_vector(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        Self::spring_sum(x, a, |d, ca| self.three * d * d * ca)
    }
}

impl<T: Real, const N: usize> ThirdDerivative<T, N> for FpuSoft<T, N> {
    fn third_contraction(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        Self::spring_sum(x, a, |d, ca| self.six * d * ca * ca)
    }
}

/// The FPU chain with `m = N/2` stiff springs of frequency `ω` in the coordinates of 004 eq 4.19
/// (see the module docs), unit masses.
///
/// The soft + stiff [`Split`] SIM and FLAVOR need is [`Fpu::split`]: soft `V_s` ([`FpuSoft`]),
/// stiff `V_f = ½ xᵀKx` with `K = diag(0, …, 0, ω², …, ω²)` (linear force, a [`Quadratic`]),
/// switch `α = 1` (`ω²` is already inside `K`; FLAVOR sets `α = 0` to turn the stiff springs
/// off).
///
/// [`Fpu::paper`] (`N = 6`, `m = 3`, `ω = 200`) and [`Fpu::initial_state`] reproduce 004 Fig. 2.10
/// and Fig. 4.3: `x(0) = (1, 0, 0, 1/ω, 0, 0)`, `y(0) = 0`. Fig. 2.9 uses `ω = 1000` and
/// [`Fpu::FIG_2_9_POSITIONS`].
///
/// ```
/// use macrostep::systems::Fpu;
///
/// let fpu = Fpu::<f64, 6>::paper();
/// let s = fpu.initial_state();
/// assert_eq!(s.q.as_slice(), &[1.0, 0.0, 0.0, 1.0 / 200.0, 0.0, 0.0]);
/// let sys = fpu.system();
/// // H = V_f + V_s = ω²/2 (1/ω)² + ¼ ((1 − 1/200)⁴ + (0 − 0 − 1 − 1/200)⁴)
/// let h = 0.5 + 0.25 * (0.995f64.powi(4) + 1.005f64.powi(4));
/// assert!((sys.energy(&s) - h).abs() < 1e-14);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Fpu<T: Real, const N: usize> {
    omega: T,
    soft: FpuSoft<T, N>,
    stiff: Quadratic<T, N>,
}

impl<T: Real> Fpu<T, 6> {
    /// 004 Fig. 2.10 / Fig. 4.3: `m = 3`, `ω = 200`.
    pub fn paper() -> Self {
        Self::build(T::lit(200.0))
    }
}

impl<T: Real, const N: usize> Fpu<T, N> {
    /// The randomly chosen start `x(0)` of 004 Fig. 2.9 (`m = 3`, `ω = 1000`, `y(0) = 0`).
    ///
    /// §2.6.3 writes the Hamiltonian in the chain positions `q` (eq 2.107) but names this start
    /// `x(0)`, the name §4.2.6 gives the rotated coordinates of eq 4.19; it is used here as rotated
    /// coordinates, like the start of Figs. 2.10 and 4.3 (which only makes sense in them: `1/ω` is
    /// the elongation of a stiff spring). Apply [`Fpu::from_chain`] to read it as `q` instead.
    pub const FIG_2_9_POSITIONS: [f64; 6] = [0.4642, -0.4202, 0.0344, 0.1371, 0.0626, 0.0810];

    /// An FPU chain with `m = N/2` stiff springs of frequency `ω`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ω ≤ 0`); as
    /// [`FpuSoft::new`] for odd or zero `N`; [`ConfigError::Overflow`] for `"omega^2"`, `"1/omega"`.
    pub fn new(omega: T) -> Result<Self, ConfigError> {
        FpuSoft::<T, N>::new()?;
        check_positive(omega, "omega")?;
        // `ω²` (the stiff springs) and `1/ω` (the initial state) must be representable.
        crate::validate::check_derived(omega * omega, "omega^2")?;
        crate::validate::check_derived(T::one() / omega, "1/omega")?;
        Ok(Self::build(omega))
    }

    fn build(omega: T) -> Self {
        let m = N / 2;
        let w2 = omega * omega;
        let k = SMatrix::from_fn(|r, c| if r == c && r >= m { w2 } else { T::zero() });
        Self {
            omega,
            soft: FpuSoft::build(),
            stiff: Quadratic::new(k),
        }
    }

    /// The stiff frequency `ω`.
    pub fn omega(&self) -> T {
        self.omega
    }

    /// The soft + stiff split `V_s + α V_f` with `α = 1`.
    pub fn split(&self) -> Split<T, FpuSoft<T, N>, Quadratic<T, N>> {
        Split::new(self.soft, self.stiff, T::one())
    }

    /// The system `M = I`, `V = V_s + V_f` (as a [`Split`] with `α = 1`).
    pub fn system(&self) -> System<T, Split<T, FpuSoft<T, N>, Quadratic<T, N>>, N> {
        System::new(Mass::identity(), self.split())
    }

    /// The start of 004 Figs. 2.10 and 4.3 generalised to any `m`: energy in the leftmost soft
    /// and stiff springs, `x₁ = 1`, `x_{m+1} = 1/ω`, all other `x` and all `y` zero.
    pub fn initial_state(&self) -> State<T, N> {
        let m = N / 2;
        let inv = T::one() / self.omega;
        State::at_rest(SVector::from_fn(|r, _| {
            if r == 0 {
                T::one()
            } else if r == m {
                inv
            } else {
                T::zero()
            }
        }))
    }

    /// The energy of stiff spring `i` (`0 ≤ i < m`), `½ y²_{m+i} + ω²/2 x²_{m+i}` (Subplot 3 of
    /// 004 Figs. 2.9–2.10, 4.3); `None` when `i ≥ m`.
    pub fn stiff_spring_energy(&self, s: &State<T, N>, i: usize) -> Option<T> {
        let k = N / 2 + i;
        if i >= N / 2 {
            return None;
        }
        let half = T::lit(0.5);
        Some(half * (s.v[k] * s.v[k] + self.omega * self.omega * s.q[k] * s.q[k]))
    }

    /// The chain's mass positions `q` from the coordinates `x` (inverse of eq 4.19):
    /// `q_{2i−1} = (xᵢ − x_{m+i})/√2`, `q_{2i} = (xᵢ + x_{m+i})/√2`. Also maps `y` to `p`.
    pub fn to_chain(&self, x: &SVector<T, N>) -> SVector<T, N> {
        let m = N / 2;
        let r = T::lit(core::f64::consts::FRAC_1_SQRT_2);
        SVector::from_fn(|k, _| {
            let i = k / 2;
            if k.is_multiple_of(2) {
                (x[i] - x[m + i]) * r
            } else {
                (x[i] + x[m + i]) * r
            }
        })
    }

    /// The coordinates `x` from the chain's positions `q` (eq 4.19). Also maps `p` to `y`.
    pub fn from_chain(&self, q: &SVector<T, N>) -> SVector<T, N> {
        let m = N / 2;
        let r = T::lit(core::f64::consts::FRAC_1_SQRT_2);
        SVector::from_fn(|k, _| {
            if k < m {
                (q[2 * k + 1] + q[2 * k]) * r
            } else {
                (q[2 * (k - m) + 1] - q[2 * (k - m)]) * r
            }
        })
    }
}
