//! The exact flow of the stiff linear part `M dq = p dt`, `dp = −Kq dt − c p dt + σ dW`.

use super::{FastParams, Friction, Noise};
use crate::langevin::Normal;
use crate::model::Mass;
use crate::{ConfigError, Real};
use modal::{
    check_stiffness, friction_frame, joint_modes, modal_friction, modal_noise_covariance,
    modal_stiffness,
};
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
    /// Validates the stiffness `K` and the parameters and diagonalises the stiff part (bounded
    /// work, no std).
    ///
    /// # Errors
    /// - `"stiffness"`: [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`], or
    ///   [`ConfigError::NotPositiveDefinite`] when `K` has a negative eigenvalue (positive
    ///   *semi*-definite `K` is accepted: soft coordinates without a stiff force, as in the FPU
    ///   chain);
    /// - as [`FastParams::validate`];
    /// - `"friction"`: negative modal friction ([`ConfigError::OutOfRange`]);
    ///   [`ConfigError::Inconsistent`] `"friction commutes with stiffness"` when `QᵀL⁻¹cLQ` is
    ///   not diagonal;
    /// - [`ConfigError::Inconsistent`] `"eigendecomposition converged"` if Jacobi hits its cap.
    ///
    /// ```
    /// use macrostep::{sim::{FastParams, StiffLinear}, model::Mass};
    /// use nalgebra::{matrix, vector};
    /// let k = matrix![4.0_f64, 0.0; 0.0, 9.0];
    /// let lin = StiffLinear::new(Mass::identity(), k, FastParams::langevin(0.5, 0.0)).unwrap();
    /// assert_eq!(lin.modal_stiffness(), &vector![4.0, 9.0]); // ωᵢ²
    /// assert!(lin.has_friction() && !lin.is_noisy());
    /// ```
    pub fn new(
        mass: Mass<T, N>,
        stiffness: SMatrix<T, N, N>,
        params: FastParams<T, N>,
    ) -> Result<Self, ConfigError> {
        let mut lin = Self::blank(mass);
        let mut scratch = [SMatrix::zeros(); 2];
        lin.fill(&stiffness, &params, &mut scratch)?;
        Ok(lin)
    }

    /// Zero transforms for `mass`: not a usable system until [`Self::fill`] succeeds.
    pub(super) fn blank(mass: Mass<T, N>) -> Self {
        Self {
            to_modal: SMatrix::zeros(),
            from_modal: SMatrix::zeros(),
            force_to_modal: SMatrix::zeros(),
            lambda: SVector::zeros(),
            gamma: SVector::zeros(),
            noise_cov: SMatrix::zeros(),
            noisy: false,
            trivial: false,
            mass,
        }
    }

    /// The body of [`Self::new`] in place: the intermediate matrices live in `self`'s own
    /// (`L` in `to_modal`, `L⁻¹` in `force_to_modal`, `A = L⁻¹KL⁻ᵀ` in `from_modal`, the
    /// friction frame in `noise_cov`) and in `scratch` (`Q` and the Jacobi work), each replaced
    /// by its final value once it is no longer needed; each product is evaluated out of line
    /// ([`product`]). The operations are those of the plain formulas, so are the bits; beyond
    /// `scratch` the stack holds one `N×N` temporary at a time, so an integrator built in a
    /// `static` on a microcontroller needs little of it ([`Sim1::new_in`](super::Sim1::new_in)).
    ///
    /// # Errors
    /// As [`Self::new`]; `self` is then unusable.
    #[inline(never)]
    pub(super) fn fill(
        &mut self,
        k: &SMatrix<T, N, N>,
        params: &FastParams<T, N>,
        scratch: &mut [SMatrix<T, N, N>; 2],
    ) -> Result<(), ConfigError> {
        check_stiffness(k)?;
        params.check()?;
        let [qm, work] = scratch;
        let scalar_c = self.factor_mass(&params.friction)?;
        let l_inv = &self.force_to_modal;
        // Each product through an out-of-line helper writing into place: its temporaries live
        // in the helper's frame only.
        product(work, |w| *w = l_inv * k * l_inv.transpose());
        // `x/2 + y/2` is `(x + y)/2` bit for bit, and cannot overflow.
        let half = T::lit(0.5);
        for j in 0..N {
            for i in 0..N {
                self.from_modal[(i, j)] = work[(i, j)] * half + work[(j, i)] * half;
            }
        }
        let a = &self.from_modal;
        joint_modes(a, &self.noise_cov, scalar_c.is_some(), qm, work)?;
        let qm = &*qm;
        product(work, |w| *w = qm.transpose() * a * qm);
        self.lambda = modal_stiffness(work)?;
        product(work, |w| *w = qm.transpose() * self.noise_cov * qm);
        self.gamma = modal_friction(work)?;
        product(work, |w| *w = qm.transpose() * l_inv);
        match params.noise {
            // No noise: `GGᵀ = 0` (the product gives it up to the signs of its zeros, which
            // nothing reads).
            Noise::Scalar(s) if s == T::zero() => self.noise_cov.fill(T::zero()),
            _ => modal_noise_covariance(&params.noise, work, scalar_c, &mut self.noise_cov)?,
        }
        self.noisy = self.noise_cov.iter().any(|&x| x != T::zero());
        product(&mut self.from_modal, |w| *w = l_inv.transpose() * qm);
        product(work, |w| *w = qm.transpose() * self.to_modal.transpose());
        self.to_modal = *work;
        product(work, |w| *w = qm.transpose() * self.force_to_modal);
        self.force_to_modal = *work;
        self.trivial = is_identity(&self.to_modal)
            && is_identity(&self.from_modal)
            && is_identity(&self.force_to_modal);
        Ok(())
    }

    /// The first part of [`Self::fill`]: `L` (`M = LLᵀ`) into `to_modal`, `L⁻¹` into
    /// `force_to_modal`, the friction in the mass-weighted frame into `noise_cov`; returns the
    /// scalar friction when it is one. Out of line, so its temporaries leave the stack before
    /// the eigendecomposition.
    ///
    /// Each result is written in place (the triangular solve too, which `solve_lower_triangular`
    /// performs on a copy of its right-hand side: the same operations).
    #[inline(never)]
    fn factor_mass(&mut self, friction: &Friction<T, N>) -> Result<Option<T>, ConfigError> {
        self.mass.cholesky_factor_into(&mut self.to_modal);
        self.force_to_modal.fill_with_identity();
        if !self
            .to_modal
            .solve_lower_triangular_mut(&mut self.force_to_modal)
        {
            return Err(ConfigError::NotPositiveDefinite { name: "mass" });
        }
        Ok(friction_frame(
            friction,
            &self.to_modal,
            &self.force_to_modal,
            &mut self.noise_cov,
        ))
    }

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
    /// The flow of `sys` over the step `h` (any non-zero finite `h` for a noise-free system;
    /// `h > 0` with noise).
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h` zero or non-finite, or negative with noise.
    pub fn new(sys: &StiffLinear<T, N>, h: T) -> Result<Self, ConfigError> {
        let mut flow = Self::blank();
        flow.fill(sys, h)?;
        Ok(flow)
    }

    /// A flow of no step: not usable until [`Self::fill`] succeeds.
    pub(super) fn blank() -> Self {
        Self {
            h: T::zero(),
            maps: [Matrix2::zeros(); N],
            chol: [[SMatrix::zeros(); 2]; 2],
            noisy: false,
        }
    }

    /// [`Self::new`] in place (for an integrator built in a `static`).
    ///
    /// # Errors
    /// As [`Self::new`]; `self` is then unchanged.
    #[inline(never)]
    pub(super) fn fill(&mut self, sys: &StiffLinear<T, N>, h: T) -> Result<(), ConfigError> {
        if !(h.finite() && h != T::zero()) || (sys.noisy && h < T::zero()) {
            return Err(ConfigError::StepSize);
        }
        self.h = h;
        // [`StiffLinear::mode_maps`] written in place (no array of maps returned through the
        // stack).
        for (i, m) in self.maps.iter_mut().enumerate() {
            *m = mode_map(sys.lambda[i], sys.gamma[i], h);
        }
        self.noisy = sys.noisy;
        if sys.noisy {
            noise_factor(sys, h, &mut self.chol);
        } else {
            for quarter in self.chol.iter_mut().flatten() {
                quarter.fill(T::zero());
            }
        }
        Ok(())
    }

    /// Two `N×N` matrices of the factor's storage, the scratch of a construction in place
    /// ([`StiffLinear::fill`]) that [`Self::fill`] overwrites afterwards.
    pub(super) fn scratch(&mut self) -> &mut [SMatrix<T, N, N>; 2] {
        &mut self.chol[0]
    }

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

/// Whether `m` equals the identity (`==` entry by entry, without forming the identity).
fn is_identity<T: Real, const N: usize>(m: &SMatrix<T, N, N>) -> bool {
    (0..N).all(|j| (0..N).all(|i| m[(i, j)] == if i == j { T::one() } else { T::zero() }))
}

/// Writes `out` with `f` out of line: the temporaries of a product expression stay in this
/// frame, not in the caller's (the stack of a construction in place, [`StiffLinear::fill`]).
#[inline(never)]
fn product<T: Real, const N: usize>(
    out: &mut SMatrix<T, N, N>,
    f: impl FnOnce(&mut SMatrix<T, N, N>),
) {
    f(out);
}

/// The Cholesky factor of `Σ(h)` into its quarters (see [`FastFlow`]; out of line: its two
/// `2N × 2N` block arrays stay off the stack of a noise-free construction).
#[inline(never)]
fn noise_factor<T: Real, const N: usize>(
    sys: &StiffLinear<T, N>,
    h: T,
    out: &mut [[SMatrix<T, N, N>; 2]; 2],
) {
    let l = semidefinite_cholesky(&covariance(sys, h));
    for (a, halves) in out.iter_mut().enumerate() {
        for (b, quarter) in halves.iter_mut().enumerate() {
            for (i, row) in l.iter().enumerate() {
                for (j, block) in row.iter().enumerate() {
                    if let (Some(e), Some(x)) = (quarter.get_mut((i, j)), block.get((a, b))) {
                        *e = *x;
                    }
                }
            }
        }
    }
}

/// `Σ(h)` pairwise between modes, by Taylor start and doubling (see [`FastFlow`]).
fn covariance<T: Real, const N: usize>(sys: &StiffLinear<T, N>, h: T) -> [[Matrix2<T>; N]; N] {
    let mut rho = T::zero();
    for i in 0..N {
        rho = rho.max(sys.lambda[i].sqrt() + sys.gamma[i]);
    }
    let mut k = 0usize;
    let mut x = rho * h;
    let target = T::lit(1e-3);
    while x > target && k < 128 {
        x *= T::lit(0.5);
        k += 1;
    }
    let mut tau = h;
    for _ in 0..k {
        tau *= T::lit(0.5);
    }
    // Taylor start: Σᵢⱼ(τ) = gᵢⱼ Σₙₘ Aᵢⁿe₂ (Aⱼᵐe₂)ᵀ τⁿ⁺ᵐ⁺¹ / (n! m! (n+m+1)).
    const TERMS: usize = 5;
    let powers = |i: usize| -> [nalgebra::Vector2<T>; TERMS] {
        let a = Matrix2::new(T::zero(), T::one(), -sys.lambda[i], -sys.gamma[i]);
        let mut out = [nalgebra::Vector2::zeros(); TERMS];
        let mut v = nalgebra::Vector2::new(T::zero(), T::one());
        let mut fact = T::one();
        let mut tpow = T::one();
        for (n, o) in out.iter_mut().enumerate() {
            if n > 0 {
                fact *= T::lit(n as f64);
                tpow *= tau;
            }
            *o = v * (tpow / fact);
            v = a * v;
        }
        out
    };
    let mut sig = [[Matrix2::zeros(); N]; N];
    for (i, row) in sig.iter_mut().enumerate() {
        let pi = powers(i);
        for (j, block) in row.iter_mut().enumerate() {
            let gij = sys.noise_cov[(i, j)];
            if gij == T::zero() {
                continue;
            }
            let pj = powers(j);
            let mut s = Matrix2::zeros();
            for (n, u) in pi.iter().enumerate() {
                for (m, w) in pj.iter().enumerate() {
                    s += u * w.transpose() * (tau / T::lit((n + m + 1) as f64));
                }
            }
            *block = s * gij;
        }
    }
    for _ in 0..k {
        let maps = sys.mode_maps(tau);
        let prev = sig;
        for i in 0..N {
            for j in 0..N {
                sig[i][j] = prev[i][j] + maps[i] * prev[i][j] * maps[j].transpose();
            }
        }
        tau += tau;
    }
    sig
}

/// Cholesky factor of the `2N × 2N` block matrix `s` (interleaved ordering), treating pivots
/// below `2N·16·ε·max diag` as zero (semi-definite input).
fn semidefinite_cholesky<T: Real, const N: usize>(
    s: &[[Matrix2<T>; N]; N],
) -> [[Matrix2<T>; N]; N] {
    let get = |m: &[[Matrix2<T>; N]; N], r: usize, c: usize| m[r / 2][c / 2][(r % 2, c % 2)];
    let mut l = [[Matrix2::zeros(); N]; N];
    let mut scale = T::zero();
    for r in 0..2 * N {
        scale = scale.max(get(s, r, r).abs());
    }
    let tol = scale * T::default_epsilon() * T::lit((32 * N) as f64);
    for c in 0..2 * N {
        let mut d = get(s, c, c);
        for k in 0..c {
            let x = get(&l, c, k);
            d -= x * x;
        }
        if d <= tol {
            continue; // zero column
        }
        let piv = d.sqrt();
        l[c / 2][c / 2][(c % 2, c % 2)] = piv;
        for r in (c + 1)..2 * N {
            let mut x = get(s, r, c);
            for k in 0..c {
                x -= get(&l, r, k) * get(&l, c, k);
            }
            l[r / 2][c / 2][(r % 2, c % 2)] = x / piv;
        }
    }
    l
}

mod modal;
