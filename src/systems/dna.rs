//! Mezić's base-pair model of DNA (000 §4.4, eq 4.9).

use super::{check_nonnegative, check_positive};
use crate::model::{Hessian, Mass, Potential, System, ThirdDerivative};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// The potential of the DNA model, 000 eq 4.9, with periodic boundary conditions:
///
/// ```text
/// V(θ) = Σₖ ½ (θₖ₊₁ − θₖ)² + ε Σₖ U(θₖ),   U(θ) = (exp(−a[1 − cos θ − x₀]) − 1)²,
/// ```
///
/// indices modulo `N`, so that `θ̈ₖ = −∂V/∂θₖ = θₖ₊₁ − 2θₖ + θₖ₋₁ − ε U′(θₖ)` (eq 4.9).
///
/// # Boundary condition
/// 000 does not state one; this model closes the chain periodically (`θ_{N+1} = θ₁`,
/// `θ₀ = θ_N`), which keeps the linear coupling translation invariant and matches the
/// `cos(4πk/N)` initial velocity, which is `N`-periodic.
///
/// # Hessian structure
/// `Hess V = L + ε diag(U″(θₖ))` where `L` is the periodic discrete Laplacian: `2` on the diagonal,
/// `−1` on the first off-diagonals and in the two corners `(0, N−1)`, `(N−1, 0)`. The full
/// [`Hessian::hessian`] is an `N × N` matrix (320 KB in `f64` for `N = 200`, mind the stack on a
/// device); [`Hessian::hessian_vector`] and [`DnaPotential::hessian_diagonal`] cost `O(N)` and are
/// what a cyclic-tridiagonal solver needs (the off-diagonals are the constant `−1`).
/// The third-derivative contraction is diagonal: `(a·V‴·a)ₖ = ε U‴(θₖ) aₖ²`.
///
/// With `E = exp(−a[1 − cos θ − x₀])`, `s = sin θ`, `c = cos θ`:
/// `U′ = −2a s E(E − 1)`, `U″ = −2a [c(E² − E) − a s²(2E² − E)]`,
/// `U‴ = −2a [−s(E² − E) − 3a s c(2E² − E) + a² s³(4E² − E)]`.
#[derive(Clone, Copy, Debug)]
pub struct DnaPotential<T: Real, const N: usize> {
    a: T,
    x0: T,
    eps: T,
    two: T,
    three: T,
    four: T,
}

impl<T: Real, const N: usize> DnaPotential<T, N> {
    /// The Morse parameter `a`.
    pub fn a(&self) -> T {
        self.a
    }
    /// The Morse offset `x₀`.
    pub fn x0(&self) -> T {
        self.x0
    }
    /// The coupling `ε` of the on-site potential.
    pub fn eps(&self) -> T {
        self.eps
    }

    /// `E(θ) = exp(−a[1 − cos θ − x₀])`, `sin θ`, `cos θ`.
    #[inline]
    fn parts(&self, theta: T) -> (T, T, T) {
        let (s, c) = theta.sin_cos();
        (((T::one() - c - self.x0) * -self.a).exp(), s, c)
    }

    /// The Morse potential `U(θ) = (E − 1)²`.
    pub fn morse(&self, theta: T) -> T {
        let (e, _, _) = self.parts(theta);
        (e - T::one()) * (e - T::one())
    }

    /// `U′(θ) = −2a sin θ E (E − 1)`.
    pub fn morse_d1(&self, theta: T) -> T {
        let (e, s, _) = self.parts(theta);
        -self.two * self.a * s * e * (e - T::one())
    }

    /// `U″(θ)`.
    pub fn morse_d2(&self, theta: T) -> T {
        let (e, s, c) = self.parts(theta);
        let e2 = e * e;
        -self.two * self.a * (c * (e2 - e) - self.a * s * s * (self.two * e2 - e))
    }

    /// `U‴(θ)`.
    pub fn morse_d3(&self, theta: T) -> T {
        let (e, s, c) = self.parts(theta);
        let e2 = e * e;
        let a = self.a;
        -self.two
            * a
            * (-s * (e2 - e) - self.three * a * s * c * (self.two * e2 - e)
                + a * a * s * s * s * (self.four * e2 - e))
    }

    /// The diagonal of the Hessian, `2 + ε U″(θₖ)` (the off-diagonal entries are the constant `−1`
    /// at `(k, k ± 1 mod N)`).
    pub fn hessian_diagonal(&self, theta: &SVector<T, N>) -> SVector<T, N> {
        theta.map(|t| self.two + self.eps * self.morse_d2(t))
    }

    #[inline]
    fn next(k: usize) -> usize {
        if k + 1 == N {
            0
        } else {
            k + 1
        }
    }
    #[inline]
    fn prev(k: usize) -> usize {
        if k == 0 {
            N - 1
        } else {
            k - 1
        }
    }
}

impl<T: Real, const N: usize> Potential<T, N> for DnaPotential<T, N> {
    /// `V(θ) = Σₖ ½ (θₖ₊₁ − θₖ)² + ε U(θₖ)`, periodic.
    fn energy(&self, theta: &SVector<T, N>) -> T {
        let mut spring = T::zero();
        let mut site = T::zero();
        for k in 0..N {
            let d = theta[Self::next(k)] - theta[k];
            spring += d * d;
            site += self.morse(theta[k]);
        }
        spring / self.two + self.eps * site
    }
    fn gradient(&self, theta: &SVector<T, N>) -> SVector<T, N> {
        SVector::from_fn(|k, _| {
            self.two * theta[k] - theta[Self::next(k)] - theta[Self::prev(k)]
                + self.eps * self.morse_d1(theta[k])
        })
    }
}

impl<T: Real, const N: usize> Hessian<T, N> for DnaPotential<T, N> {
    fn hessian(&self, theta: &SVector<T, N>) -> SMatrix<T, N, N> {
        let mut h = SMatrix::from_diagonal(&self.hessian_diagonal(theta));
        for k in 0..N {
            h[(k, Self::next(k))] -= T::one();
            h[(Self::next(k), k)] -= T::one();
        }
        h
    }
    fn hessian_vector(&self, theta: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        SVector::from_fn(|k, _| {
            (self.two + self.eps * self.morse_d2(theta[k])) * a[k]
                - a[Self::next(k)]
                - a[Self::prev(k)]
        })
    }
}

impl<T: Real, const N: usize> ThirdDerivative<T, N> for DnaPotential<T, N> {
    fn third_contraction(&self, theta: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        SVector::from_fn(|k, _| self.eps * self.morse_d3(theta[k]) * a[k] * a[k])
    }
}

/// The DNA model of 000 §4.4: `N` base-pair angles `θₖ`, unit masses, potential
/// [`DnaPotential`] (periodic chain, see its docs).
///
/// [`Dna::paper`]: `a = 7`, `x₀ = 0.3`, `ε = 1/1400` (the seed uses `N = 200`); start
/// `θₖ(0) = 0.8 + 0.1 ξₖ` with `ξₖ` i.i.d. standard normal *supplied by the caller*
/// ([`Dna::initial_state`]; the model holds no random number generator) and
/// `θ̇ₖ(0) = cos(4πk/N)/√N`, `k = 1 … N`. The meta-stable closed states are near
/// `θ = arccos(0.7) ≈ 0.795` and `2π − arccos(0.7) ≈ 5.49`.
///
/// ```
/// use macrostep::model::Potential;
/// use macrostep::systems::Dna;
/// use nalgebra::SVector;
///
/// let dna = Dna::<f64, 16>::paper();
/// let xi = SVector::<f64, 16>::from_fn(|k, _| if k % 2 == 0 { 1.0 } else { -1.0 });
/// let s = dna.initial_state(&xi);
/// assert!((s.q[0] - 0.9).abs() < 1e-15);
/// assert_eq!(s.v[15], 1.0 / 4.0); // k = 16: cos(4π) / √16
/// let g = dna.system().potential.gradient(&s.q);
/// assert!(g.iter().all(|x| x.is_finite()));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dna<T: Real, const N: usize> {
    potential: DnaPotential<T, N>,
}

impl<T: Real, const N: usize> Dna<T, N> {
    const SHAPE: () = assert!(N >= 3, "Dna<T, N> needs N >= 3");

    /// A DNA model with Morse parameters `a`, `x₀` and on-site coupling `ε`.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"N"` when `N < 3`; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"a"` (`a ≤ 0`), `"x0"`, `"eps"` (`ε < 0`).
    pub fn new(a: T, x0: T, eps: T) -> Result<Self, ConfigError> {
        if N < 3 {
            return Err(ConfigError::OutOfRange {
                name: "N",
                bound: ">= 3",
            });
        }
        check_positive(a, "a")?;
        crate::validate::check_finite(x0, "x0")?;
        check_nonnegative(eps, "eps")?;
        Ok(Self::build(a, x0, eps))
    }

    /// The seed's parameters (000 §4.4): `a = 7`, `x₀ = 0.3`, `ε = 1/1400`.
    pub fn paper() -> Self {
        let () = Self::SHAPE;
        Self::build(T::lit(7.0), T::lit(0.3), T::lit(1.0 / 1400.0))
    }

    fn build(a: T, x0: T, eps: T) -> Self {
        Self {
            potential: DnaPotential {
                a,
                x0,
                eps,
                two: T::lit(2.0),
                three: T::lit(3.0),
                four: T::lit(4.0),
            },
        }
    }

    /// The potential.
    pub fn potential(&self) -> DnaPotential<T, N> {
        self.potential
    }

    /// The system `M = I`, `V` of eq 4.9.
    pub fn system(&self) -> System<T, DnaPotential<T, N>, N> {
        System::new(Mass::identity(), self.potential)
    }

    /// The seed's start from caller-supplied standard normal samples `ξ`:
    /// `θₖ = 0.8 + 0.1 ξₖ`, `θ̇ₖ = cos(4πk/N)/√N` with `k = 1 … N` (component `k − 1`).
    pub fn initial_state(&self, xi: &SVector<T, N>) -> State<T, N> {
        self.initial_state_from_fn(|k| xi[k])
    }

    /// As [`Dna::initial_state`], drawing `ξₖ` from `xi(k)` for `k = 0 … N − 1` in order (e.g. a
    /// closure around a seeded normal sampler).
    pub fn initial_state_from_fn(&self, mut xi: impl FnMut(usize) -> T) -> State<T, N> {
        let centre = T::lit(0.8);
        let spread = T::lit(0.1);
        let q = SVector::from_fn(|k, _| centre + spread * xi(k));
        let n = T::lit(N as f64);
        let w = T::lit(4.0) * T::pi() / n;
        let scale = T::one() / n.sqrt();
        let v = SVector::from_fn(|k, _| (w * T::lit((k + 1) as f64)).cos() * scale);
        State::new(T::zero(), q, v)
    }

    /// The slow reaction coordinate `θ̄ = Σ θₖ / N` (000 §4.4, Fig. 8).
    pub fn mean_angle(&self, theta: &SVector<T, N>) -> T {
        theta.sum() / T::lit(N as f64)
    }
}
