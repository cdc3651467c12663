//! Construction: [`StiffLinear`]'s validation and modal decomposition (plain and in place) and
//! [`FastFlow`]'s maps and increment covariance `Σ(h)` with its semi-definite Cholesky factor.

use super::modal::{
    check_stiffness, friction_frame, joint_modes, modal_friction, modal_noise_covariance,
    modal_stiffness,
};
use super::{mode_map, FastFlow, StiffLinear};
use crate::model::Mass;
use crate::sim::{FastParams, Friction, Noise};
use crate::{ConfigError, Real};
use nalgebra::{Matrix2, SMatrix, SVector};

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
    pub(in crate::sim) fn blank(mass: Mass<T, N>) -> Self {
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
    /// `static` on a microcontroller needs little of it ([`Sim1::new_in`](crate::sim::Sim1::new_in)).
    ///
    /// # Errors
    /// As [`Self::new`]; `self` is then unusable.
    #[inline(never)]
    pub(in crate::sim) fn fill(
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
    pub(in crate::sim) fn blank() -> Self {
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
    pub(in crate::sim) fn fill(
        &mut self,
        sys: &StiffLinear<T, N>,
        h: T,
    ) -> Result<(), ConfigError> {
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
    pub(in crate::sim) fn scratch(&mut self) -> &mut [SMatrix<T, N, N>; 2] {
        &mut self.chol[0]
    }
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
