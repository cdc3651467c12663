//! The exact flow of the stiff linear part `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW`: the
//! modal system and the flow over a step. Their construction (validation, modal decomposition,
//! the increment covariance and its factor) is in `build`, the modal helpers in `modal`.

use crate::langevin::Normal;
use crate::model::Mass;
use crate::Real;
use nalgebra::{Matrix2, SMatrix, SVector};
use rand_core::Rng;

/// The validated stiff linear system `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW` (004 eq 4.12,
/// with `K` already holding `ε⁻¹`), in its modal coordinates.
///
/// With `M = L Lᵀ` and `L⁻¹KL⁻ᵀ = Q Λ Qᵀ` (capped cyclic Jacobi, [`crate::linalg::symmetric_eigen`]),
/// the modal coordinates `z = QᵀLᵀq`, `ζ = QᵀLᵀv = QᵀL⁻¹p` decouple the drift into scalar modes
/// `ż = ζ`, `dζ = −λᵢ z dt − γᵢ ζ dt + (G dW)ᵢ` with `γ = diag(QᵀL⁻¹cLQ)` (friction must commute
/// with the stiffness in this sense — a scalar `c` always does) and `G = QᵀL⁻¹σ`. The noise may
/// couple modes; its covariance `GGᵀ` is kept whole.
#[derive(Clone, Copy, Debug)]
pub struct StiffLinear<T: Real, const N: usize> {
    /// `QᵀLᵀ`: positions (and velocities) to modal coordinates.
    to_modal: SMatrix<T, N, N>,
    /// `L⁻ᵀQ`: modal coordinates back to positions (and velocities).
    from_modal: SMatrix<T, N, N>,
    /// `QᵀL⁻¹`: forces to modal momenta.
    force_to_modal: SMatrix<T, N, N>,
    lambda: SVector<T, N>,
    gamma: SVector<T, N>,
    /// `GGᵀ` in modal coordinates (zero when there is no noise).
    noise_cov: SMatrix<T, N, N>,
    noisy: bool,
    /// Whether the modal transforms are exactly the identity (diagonal `K`, `M = I`).
    trivial: bool,
    mass: Mass<T, N>,
}

impl<T: Real, const N: usize> StiffLinear<T, N> {
    /// Replaces the mass of a blank system (before [`Self::fill`]).
    pub(super) fn set_mass(&mut self, mass: Mass<T, N>) {
        self.mass = mass;
    }

    /// The mass matrix.
    pub fn mass(&self) -> &Mass<T, N> {
        &self.mass
    }

    /// Modal stiffnesses `λᵢ` (squared stiff frequencies `ωᵢ²`).
    pub fn modal_stiffness(&self) -> &SVector<T, N> {
        &self.lambda
    }

    /// Modal frictions `γᵢ`.
    pub fn modal_friction(&self) -> &SVector<T, N> {
        &self.gamma
    }

    /// Whether the system carries noise (σ ≠ 0).
    pub fn is_noisy(&self) -> bool {
        self.noisy
    }

    /// Whether the system has friction (some `γᵢ ≠ 0`).
    pub fn has_friction(&self) -> bool {
        self.gamma.iter().any(|&g| g != T::zero())
    }

    /// The exact deterministic 2×2 map of every mode over `h` (any sign).
    pub fn mode_maps(&self, h: T) -> [Matrix2<T>; N] {
        core::array::from_fn(|i| mode_map(self.lambda[i], self.gamma[i], h))
    }

    /// Applies per-mode maps to `(q, v)`, adding a modal increment `(r_z, r_ζ)`.
    #[inline]
    pub(crate) fn apply_maps(
        &self,
        maps: &[Matrix2<T>; N],
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        noise: Option<(&SVector<T, N>, &SVector<T, N>)>,
    ) -> (SVector<T, N>, SVector<T, N>) {
        let (z, zeta) = if self.trivial {
            (*q, *v)
        } else {
            (self.to_modal * q, self.to_modal * v)
        };
        let mut z2 = SVector::<T, N>::zeros();
        let mut zeta2 = SVector::<T, N>::zeros();
        for (i, m) in maps.iter().enumerate() {
            z2[i] = m[(0, 0)] * z[i] + m[(0, 1)] * zeta[i];
            zeta2[i] = m[(1, 0)] * z[i] + m[(1, 1)] * zeta[i];
        }
        if let Some((rz, rzeta)) = noise {
            z2 += rz;
            zeta2 += rzeta;
        }
        if self.trivial {
            (z2, zeta2)
        } else {
            (self.from_modal * z2, self.from_modal * zeta2)
        }
    }

    /// A modal increment expressed as `(Δq, Δv)` in the original coordinates.
    pub fn increment_in_state(&self, r: &Increment<T, N>) -> (SVector<T, N>, SVector<T, N>) {
        (self.from_modal * r.z, self.from_modal * r.zeta)
    }

    /// The velocity change `M⁻¹ Q diag(wᵢ) Qᵀ … F` of a kick whose per-mode weights are `w`
    /// (`wᵢ = h` is the plain kick `h M⁻¹F`; `wᵢ = B₁₂ᵢ(h)` the mollified kick of eq 4.8).
    #[inline]
    pub(crate) fn weighted_kick(&self, w: &SVector<T, N>, f: &SVector<T, N>) -> SVector<T, N> {
        if self.trivial {
            f.component_mul(w)
        } else {
            self.from_modal * (self.force_to_modal * f).component_mul(w)
        }
    }
}

/// The exact flow of a [`StiffLinear`] system over a fixed step `h`: the per-mode deterministic
/// maps `B(h)` and, with noise, a Cholesky factor of the increment covariance `Σ(h)`
/// (Integrator 4.2.2), both computed at construction.
///
/// `Σ(h) = ∫₀ʰ B(h−s) [0; G] [0; G]ᵀ B(h−s)ᵀ ds` is computed pairwise between modes by a
/// bounded doubling recursion `Σ(2τ) = Σ(τ) + B(τ) Σ(τ) B(τ)ᵀ` from a fourth-order Taylor
/// start at `τ₀ = h/2ᵏ` with `τ₀(√λ + γ) ≤ 10⁻³` (`k ≤ 128`), exact for every damping regime
/// including `c = 0`. The Cholesky factor tolerates semi-definite `Σ` (a zero pivot zeroes its
/// column), so noise-free directions draw nothing.
#[derive(Clone, Copy, Debug)]
pub struct FastFlow<T: Real, const N: usize> {
    h: T,
    maps: [Matrix2<T>; N],
    /// Lower block-triangular Cholesky factor of `Σ` in the interleaved ordering
    /// `(z₀, ζ₀, z₁, ζ₁, …)`, stored as four `N×N` quarters: `chol[a][b][(i, j)]` is entry
    /// `(a, b)` of the `2×2` block of modes `i ≥ j` ([`Self::block`]). `N×N` matrices, so that
    /// a construction in place uses two of them as its scratch before the factor is written
    /// ([`Self::scratch`]).
    chol: [[SMatrix<T, N, N>; 2]; 2],
    noisy: bool,
}

/// A Gaussian increment of the fast flow in modal coordinates `(r_z, r_ζ)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Increment<T: Real, const N: usize> {
    /// Modal position part.
    pub z: SVector<T, N>,
    /// Modal momentum part.
    pub zeta: SVector<T, N>,
}

impl<T: Real, const N: usize> Increment<T, N> {
    /// The zero increment.
    pub fn zero() -> Self {
        Self {
            z: SVector::zeros(),
            zeta: SVector::zeros(),
        }
    }
}

impl<T: Real, const N: usize> FastFlow<T, N> {
    /// The `2×2` block of the factor for modes `i`, `j` (zero outside `N`).
    #[inline]
    fn block(&self, i: usize, j: usize) -> Matrix2<T> {
        let at = |a: usize, b: usize| self.chol[a][b].get((i, j)).copied().unwrap_or(T::zero());
        Matrix2::new(at(0, 0), at(0, 1), at(1, 0), at(1, 1))
    }

    /// The step `h`.
    pub fn step_size(&self) -> T {
        self.h
    }

    /// The per-mode deterministic maps `B(h)`.
    pub fn maps(&self) -> &[Matrix2<T>; N] {
        &self.maps
    }

    /// Whether the flow draws noise.
    pub fn is_noisy(&self) -> bool {
        self.noisy
    }

    /// The increment `Lξ` for `2N` given standard normals in the interleaved order
    /// `(ξ_z₀, ξ_ζ₀, ξ_z₁, …)`, passed as the `z` and `zeta` halves of `xi`.
    pub fn increment_from_normals(&self, xi: &Increment<T, N>) -> Increment<T, N> {
        let mut out = Increment::zero();
        if !self.noisy {
            return out;
        }
        for i in 0..N {
            let mut acc = nalgebra::Vector2::zeros();
            for j in 0..=i {
                acc += self.block(i, j) * nalgebra::Vector2::new(xi.z[j], xi.zeta[j]);
            }
            out.z[i] = acc[0];
            out.zeta[i] = acc[1];
        }
        out
    }

    /// Draws an increment `~ N(0, Σ(h))` (`2N` normals, `2N` calls of `next_u64`; none when the
    /// flow is noise-free).
    pub fn sample_increment<R: Rng + ?Sized>(&self, rng: &mut R) -> Increment<T, N> {
        if !self.noisy {
            return Increment::zero();
        }
        let mut xi = Increment::zero();
        for i in 0..N {
            let (a, b) = Normal::pair::<T, R>(rng);
            xi.z[i] = a;
            xi.zeta[i] = b;
        }
        self.increment_from_normals(&xi)
    }

    /// Propagates an increment of an earlier sub-step through this flow's deterministic map:
    /// `B(h) r` (used to aggregate `R(2h) = B(h) R₁ + R₂` exactly).
    pub fn carry(&self, r: &Increment<T, N>) -> Increment<T, N> {
        let mut out = Increment::zero();
        for (i, m) in self.maps.iter().enumerate() {
            out.z[i] = m[(0, 0)] * r.z[i] + m[(0, 1)] * r.zeta[i];
            out.zeta[i] = m[(1, 0)] * r.z[i] + m[(1, 1)] * r.zeta[i];
        }
        out
    }

    /// The covariance block `Σᵢⱼ` (modes `i`, `j`) reconstructed from the factor (for tests).
    pub fn covariance_block(&self, i: usize, j: usize) -> Matrix2<T> {
        let mut s = Matrix2::zeros();
        if i >= N || j >= N {
            return s;
        }
        for k in 0..=i.min(j) {
            s += self.block(i, k) * self.block(j, k).transpose();
        }
        s
    }
}

/// `exp(t [[0, 1], [−λ, −γ]])` in closed form, for `λ ≥ 0`, `γ ≥ 0` and any sign of `t`.
///
/// With `g = γ/2`, `d = λ − g²`, `C = cos √d t`, `S = sin(√d t)/√d` (hyperbolic when `d < 0`,
/// series when `|d|t²` is small): `e^{−gt} [[C + gS, S], [−λS, C − gS]]`.
pub fn mode_map<T: Real>(lambda: T, gamma: T, t: T) -> Matrix2<T> {
    let g = gamma * T::lit(0.5);
    let d = lambda - g * g;
    let x = d * t * t;
    let (ec, es) = if x.abs() <= T::lit(1e-2) {
        // Series: C = Σ (−x)ᵏ/(2k)!, S = t Σ (−x)ᵏ/(2k+1)!; 10 terms reach 1e-40.
        let mut c = T::zero();
        let mut s = T::zero();
        let mut term_c = T::one();
        let mut term_s = T::one();
        for k in 0..10 {
            c += term_c;
            s += term_s;
            let k2 = T::lit((2 * k + 1) as f64);
            let k3 = T::lit((2 * k + 2) as f64);
            let k4 = T::lit((2 * k + 3) as f64);
            term_c = -term_c * x / (k2 * k3);
            term_s = -term_s * x / (k3 * k4);
        }
        let e = (-g * t).exp();
        (e * c, e * s * t)
    } else if d > T::zero() {
        let w = d.sqrt();
        let (sn, cs) = (w * t).sin_cos();
        let e = (-g * t).exp();
        (e * cs, e * sn / w)
    } else {
        let r = (-d).sqrt();
        // −g + r = −λ/(g + r), stable when λ ≪ g².
        let slow = -lambda / (g + r);
        let ep = (slow * t).exp();
        let em = (-(g + r) * t).exp();
        let half = T::lit(0.5);
        ((ep + em) * half, (ep - em) * half / r)
    };
    Matrix2::new(ec + g * es, es, -lambda * es, ec - g * es)
}

mod build;
mod modal;
