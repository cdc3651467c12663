//! Variational integrators for (noisy) LC circuits, 004 §7.1.
//!
//! # The model (004 §7.1.1–7.1.2)
//! A circuit of `B` branches is a mechanical system in the branch charges `q ∈ ℝᴮ` with the
//! Lagrangian `𝓛(q, v) = ½ vᵀ L v − ½ qᵀ C q` (eq 7.1), `L = diag(L₁ … L_B)` the inductances and
//! `C = diag(1/C₁ … 1/C_B)` the inverse capacitances (zero on a branch without an inductor,
//! resp. capacitor), and the Lagrangian force `f_L = −diag(R) v + u_s` of the resistors and the
//! voltage sources (eq 7.3). The Kirchhoff current law is `Kᵀ v = 0` (eq 7.7d) for the
//! `B × m` Kirchhoff constraint matrix `K`; its solutions are spanned by the `B × M`
//! fundamental loop matrix `K₂` (`ker K₂ᵀ = im K`, `M = B − m` meshes): `q = K₂ q̃`, `v = K₂ ṽ`
//! with mesh charges `q̃` and mesh currents `ṽ`. The reduced Lagrangian (eq 7.8) and force
//! (eq 7.9) give the reduced Euler–Lagrange equations (7.13)
//!
//! ```text
//! dp̃/dt = −S q̃ − D ṽ + f,   dq̃/dt = ṽ,   p̃ = 𝕃 ṽ,
//! 𝕃 = K₂ᵀ L K₂,  S = K₂ᵀ C K₂,  D = K₂ᵀ diag(R) K₂,  f = K₂ᵀ u_s,
//! ```
//!
//! in which both Kirchhoff laws hold by construction (KCL through `v = K₂ṽ`, KVL because the
//! forces are projected by `K₂ᵀ`). [`Circuit`] holds these reduced matrices, built once from a
//! validated [`CircuitParams`]; [`kirchhoff_consistent`] checks a pair `(K, K₂)`.
//!
//! # The integrators (004 §7.1.3, §7.1.5)
//! - [`CircuitVi`]: the discrete Lagrange–d'Alembert–Pontryagin update (7.15) with (7.16),
//!   a symplectic-Euler-type map, first order, symplectic for `R = 0`.
//! - [`NoisyCircuitVi`]: the stochastic variational integrator of §7.1.5 (principle 7.21, the
//!   left-point discretisation of the Stratonovich noise `K₂ᵀ Σ ∘ dW` of eq 7.19), which adds
//!   `√h K₂ᵀ Σ ξ_k` to the momentum update, `ξ_k ~ N(0, I_B)`.
//!
//! # Decisions where the seed is silent
//! - **Which variables are stored.** The state is the crate's [`State`] over the meshes:
//!   `q` = mesh charges `q̃`, `v` = mesh currents `ṽ`. The mesh flux `p̃ = 𝕃 ṽ` (eq 7.16) is
//!   derived ([`Circuit::flux`]), never stored, so (7.16) holds at every step and a degenerate
//!   circuit (`𝕃` singular, §7.1.2) still has a well-defined state.
//! - **Solving (7.15).** With `q̃_k = q̃_{k−1} + h ṽ_{k−1}` explicit, the remaining equations are
//!   linear in `ṽ_k`: `(𝕃 + hD) ṽ_k = 𝕃 ṽ_{k−1} + h(−S q̃_k + f)` (+ `√h K₂ᵀΣξ_k`). The seed says
//!   this has a unique solution when `K₂ᵀ(L + h diag R)K₂` is regular; since it is symmetric
//!   positive semi-definite we require it positive definite and factorise it once (its inverse
//!   is kept, so a step has a fixed cost).
//! - **Voltage sources.** `u_s` is a held vector (one voltage per branch, `diag(𝓔)u` of eq 7.3
//!   folded into it), set between steps with [`CircuitVi::set_source`]: the zero-order hold a
//!   control loop provides. A time function is the caller's loop around `set_source`.
//! - **Step guards.** A lossless circuit (`R = 0`) conserves `H − fᵀq̃`, and [`CircuitVi`]'s
//!   guards measure it ([`Circuit`] is its [`Probe`]): a step size past the stability limit is
//!   refused with [`StepError::Diverged`](crate::StepError::Diverged) while the energy is still
//!   finite. A new source voltage moves the run's reference energy by the change of `−fᵀq̃`
//!   ([`crate::guard::Watch::account`]); a new capacitance starts a new run. A dissipative
//!   circuit and the noisy integrator have no energy the guards check (finiteness, the velocity
//!   guard and the clock apply).
//! - **Noise.** `Σ` is diagonal (the seed: "usually constant and diagonal"), one amplitude per
//!   branch. The §7.1.6 example has no resistor, so its variances grow for ever and it has no
//!   stationary distribution; it is reproduced as printed (variances vs eq 7.24b). For a
//!   stationary (Gibbs) check we add resistors with Johnson–Nyquist noise `Σ_jj² = 2 k_B T R_j`
//!   (fluctuation–dissipation): then `K₂ᵀΣΣᵀK₂ = 2 k_B T D` and the reduced SDE has the
//!   invariant density `∝ exp(−H/k_BT)`, `H = ½ ṽᵀ𝕃ṽ + ½ q̃ᵀSq̃` ([`johnson_nyquist`]).
//! - **Multiscale circuits (§7.1.7).** FLAVOR needs a stiffness switch; here it is
//!   [`CircuitVi::set_inverse_capacitance`] on the stiff capacitor (`1/C₂ = 1/ε` on, 0 off),
//!   used through [`crate::flavor::Switched::new`] and [`crate::flavor::Nonintrusive`] (the
//!   `lc-circuit` reproduction does this; `𝕃 + hD` does not depend on `S`, so switching costs
//!   one `M × M` product).
//! - **Sizes.** `B` (branches) and `M` (meshes) are const generics; `K` is only used by the
//!   optional check [`kirchhoff_consistent`] (its column count `m = B − M` is a third one).

mod noisy;
mod variational;

pub use noisy::NoisyCircuitVi;
pub use variational::CircuitVi;

use crate::guard::Probe;
use crate::linalg::symmetric_eigen;
use crate::validate::{check_all_finite, check_derived, check_nonnegative};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// The parameters of a circuit (004 eqs 7.1, 7.3, 7.17, 7.22): topology and one value per
/// branch. Plain data; [`CircuitParams::validate`] checks them and [`Circuit::new`] validates
/// them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CircuitParams<T: Real, const B: usize, const M: usize> {
    /// The fundamental loop matrix `K₂` (`B × M`, eq 7.22): branch `i` carries
    /// `Σ_j K₂[i, j] ṽ_j`.
    pub loops: SMatrix<T, B, M>,
    /// Inductance `L_i ≥ 0` of each branch (0: no inductor).
    pub inductance: SVector<T, B>,
    /// Inverse capacitance `1/C_i ≥ 0` of each branch (0: no capacitor), the diagonal of `C`
    /// in eq 7.1.
    pub inverse_capacitance: SVector<T, B>,
    /// Resistance `R_i ≥ 0` of each branch (0: no resistor).
    pub resistance: SVector<T, B>,
    /// Noise amplitude `Σ_jj ≥ 0` of each branch (eq 7.17; 0: noiseless branch).
    pub noise: SVector<T, B>,
    /// Initial source voltage `u_s` of each branch (eq 7.3; any finite value).
    pub source: SVector<T, B>,
}

impl<T: Real> CircuitParams<T, 4, 2> {
    /// The high-order LC circuit of 004 §7.1.6 (Fig 7.1, eq 7.22): branches 1–2 inductors
    /// `L₁ = L₂ = 1`, branches 3–4 capacitors `C₁ = 1`, `C₂ = c2` (the seed: `C₂ = 10`; §7.1.7
    /// makes it small), no resistor, no source, `Σ_jj = noise` on every branch (the seed: 0.01).
    pub fn lc_paper(c2: T, noise: T) -> Self {
        let (o, z) = (T::one(), T::zero());
        Self {
            loops: SMatrix::<T, 4, 2>::new(o, z, z, o, o, -o, o, z),
            inductance: SVector::<T, 4>::new(o, o, z, z),
            inverse_capacitance: SVector::<T, 4>::new(z, z, o, o / c2),
            resistance: SVector::zeros(),
            noise: SVector::repeat(noise),
            source: SVector::zeros(),
        }
    }

    /// The Kirchhoff constraint matrix `K` of eq 7.22 (third node grounded).
    pub fn lc_paper_kcl() -> SMatrix<T, 4, 2> {
        let (o, z) = (T::one(), T::zero());
        SMatrix::<T, 4, 2>::new(o, z, z, -o, z, -o, -o, o)
    }
}

impl<T: Real, const B: usize, const M: usize> CircuitParams<T, B, M> {
    /// Checks the branch values of eqs 7.1, 7.3 and 7.17 (finite loops and sources, non-negative
    /// `L_i`, `1/C_i`, `R_i`, `Σ_jj`).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] for a NaN/infinite entry (`name` = the field);
    /// [`ConfigError::OutOfRange`] for a negative inductance, inverse capacitance, resistance or
    /// noise amplitude.
    ///
    /// ```
    /// use macrostep::circuit::CircuitParams;
    /// let mut p = CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.01);
    /// assert_eq!(p.validate(), Ok(p));
    /// p.resistance[0] = -1.0;
    /// assert!(p.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<Self, ConfigError> {
        check_all_finite(self.loops.as_slice(), "loops")?;
        check_all_finite(self.source.as_slice(), "source")?;
        for i in 0..B {
            check_nonnegative(self.inductance[i], "inductance")?;
            check_nonnegative(self.inverse_capacitance[i], "inverse_capacitance")?;
            check_nonnegative(self.resistance[i], "resistance")?;
            check_nonnegative(self.noise[i], "noise")?;
        }
        Ok(*self)
    }
}

/// Johnson–Nyquist noise amplitudes `Σ_jj = √(2 k_B T R_j)` for temperature `k_B T ≥ 0`: with
/// them the noisy circuit's invariant measure is the Gibbs density `∝ exp(−H/k_BT)`.
///
/// # Errors
/// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] (negative) with `name`
/// `"temperature"` or `"resistance"`; [`ConfigError::Overflow`] `{ name: "noise" }`.
pub fn johnson_nyquist<T: Real, const B: usize>(
    resistance: &SVector<T, B>,
    temperature: T,
) -> Result<SVector<T, B>, ConfigError> {
    check_nonnegative(temperature, "temperature")?;
    let mut s = SVector::zeros();
    for i in 0..B {
        let r = check_nonnegative(resistance[i], "resistance")?;
        s[i] = check_derived((T::lit(2.0) * temperature * r).sqrt(), "noise")?;
    }
    Ok(s)
}

/// Checks that `K₂` spans the Kirchhoff-current-law solutions of `K`: `Kᵀ K₂ = 0` to
/// `√ε·‖K‖·‖K₂‖` (the seed's `ker K₂ᵀ = im K`, rank aside).
///
/// # Errors
/// [`ConfigError::NonFinite`] `{ name: "kcl" }` or `{ name: "loops" }`,
/// [`ConfigError::Inconsistent`] `{ name: "K^T K2 = 0" }`.
pub fn kirchhoff_consistent<T: Real, const B: usize, const C: usize, const M: usize>(
    kcl: &SMatrix<T, B, C>,
    loops: &SMatrix<T, B, M>,
) -> Result<(), ConfigError> {
    check_all_finite(kcl.as_slice(), "kcl")?;
    check_all_finite(loops.as_slice(), "loops")?;
    let tol = T::default_epsilon().sqrt() * kcl.norm() * loops.norm();
    if (kcl.transpose() * loops).norm() <= tol {
        Ok(())
    } else {
        Err(ConfigError::Inconsistent { name: "K^T K2 = 0" })
    }
}

/// A circuit reduced to its meshes (004 eqs 7.8–7.9, 7.13, 7.19): the matrices
/// `𝕃 = K₂ᵀLK₂`, `S = K₂ᵀCK₂`, `D = K₂ᵀ diag(R) K₂`, `G = K₂ᵀΣ` and the force `f = K₂ᵀu_s`.
///
/// ```
/// use macrostep::circuit::{Circuit, CircuitParams};
/// let c = Circuit::new(CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.01)).unwrap();
/// assert_eq!(c.inductance_matrix(), &nalgebra::Matrix2::identity()); // non-degenerate (§7.1.6)
/// assert!((c.elastance()[(0, 0)] - 1.1).abs() < 1e-15); // 1/C₁ + 1/C₂
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circuit<T: Real, const B: usize, const M: usize> {
    params: CircuitParams<T, B, M>,
    l: SMatrix<T, M, M>,
    s: SMatrix<T, M, M>,
    d: SMatrix<T, M, M>,
    g: SMatrix<T, M, B>,
    f: SVector<T, M>,
    /// `D = 0`: no mesh carries a resistance.
    lossless: bool,
}

impl<T: Real, const B: usize, const M: usize> Circuit<T, B, M> {
    /// Validates the parameters and forms the reduced matrices.
    ///
    /// # Errors
    /// As [`CircuitParams::validate`]; [`ConfigError::Overflow`] when a reduced matrix overflows.
    pub fn new(params: CircuitParams<T, B, M>) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        let k2 = params.loops;
        let k2t = k2.transpose();
        let l = k2t * SMatrix::from_diagonal(&params.inductance) * k2;
        let s = k2t * SMatrix::from_diagonal(&params.inverse_capacitance) * k2;
        let d = k2t * SMatrix::from_diagonal(&params.resistance) * k2;
        let g = k2t * SMatrix::from_diagonal(&params.noise);
        let f = k2t * params.source;
        for (m, name) in [(&l, "inductance"), (&s, "elastance"), (&d, "damping")] {
            for x in m.iter() {
                check_derived(*x, name)?;
            }
        }
        for x in g.iter().chain(f.iter()) {
            check_derived(*x, "noise or source")?;
        }
        Ok(Self {
            params,
            l,
            s,
            lossless: d.iter().all(|x| *x == T::zero()),
            d,
            g,
            f,
        })
    }

    /// The validated parameters.
    pub fn params(&self) -> &CircuitParams<T, B, M> {
        &self.params
    }

    /// The mesh inductance matrix `𝕃 = K₂ᵀLK₂` (the mass matrix; may be singular).
    pub fn inductance_matrix(&self) -> &SMatrix<T, M, M> {
        &self.l
    }

    /// The mesh elastance matrix `S = K₂ᵀCK₂` (the stiffness).
    pub fn elastance(&self) -> &SMatrix<T, M, M> {
        &self.s
    }

    /// The mesh damping matrix `D = K₂ᵀ diag(R) K₂`.
    pub fn damping(&self) -> &SMatrix<T, M, M> {
        &self.d
    }

    /// The mesh noise matrix `G = K₂ᵀΣ` (`M × B`).
    pub fn noise_matrix(&self) -> &SMatrix<T, M, B> {
        &self.g
    }

    /// The mesh source force `f = K₂ᵀu_s`.
    pub fn source_force(&self) -> &SVector<T, M> {
        &self.f
    }

    /// Replaces the source voltages `u_s` (one per branch).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "source" }` (also when `K₂ᵀu_s` overflows); the
    /// circuit is unchanged on error.
    pub fn set_source(&mut self, source: SVector<T, B>) -> Result<(), ConfigError> {
        check_all_finite(source.as_slice(), "source")?;
        let f = self.params.loops.transpose() * source;
        check_all_finite(f.as_slice(), "source")?;
        self.params.source = source;
        self.f = f;
        Ok(())
    }

    /// Replaces the inverse capacitance `1/C_i` of one branch (e.g. the FLAVOR stiffness switch
    /// of 004 §7.1.7, where `1/C₂ = 1/ε` is turned off and on); `S` is re-formed.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `{ name: "branch" }` for `branch ≥ B`, and as
    /// [`Circuit::new`] for the value (`"inverse_capacitance"`, `"elastance"`); the circuit is
    /// unchanged on error.
    pub fn set_inverse_capacitance(&mut self, branch: usize, value: T) -> Result<(), ConfigError> {
        if branch >= B {
            return Err(ConfigError::OutOfRange {
                name: "branch",
                bound: "< B (the number of branches)",
            });
        }
        check_nonnegative(value, "inverse_capacitance")?;
        let mut c = self.params.inverse_capacitance;
        c[branch] = value;
        let k2 = self.params.loops;
        let s = k2.transpose() * SMatrix::from_diagonal(&c) * k2;
        for x in s.iter() {
            check_derived(*x, "elastance")?;
        }
        self.params.inverse_capacitance = c;
        self.s = s;
        Ok(())
    }

    /// `(𝕃 + hD)⁻¹`, the matrix of the velocity solve of eq 7.15 for the step `h`, refused unless
    /// `𝕃 + hD` is positive definite and well conditioned: its eigenvalues, computed for the
    /// matrix scaled to a largest entry of 1 (so entries near the top of the scalar's range are
    /// judged like any others), must satisfy `λ_min ≥ √ε · λ_max` (a condition number of at
    /// most `1/√ε`, `6.7e7` in `f64`, `2.9e3` in `f32`: the solve keeps at least half of the
    /// scalar's digits). A singular `𝕃 + hD` (a mesh with neither inductance nor resistance)
    /// is refused however the round-off of its factorisation falls.
    ///
    /// ```
    /// use macrostep::circuit::{Circuit, CircuitParams};
    /// let mut p = CircuitParams::<f64, 4, 2>::lc_paper(10.0, 0.0);
    /// assert!(Circuit::new(p).unwrap().solve_matrix_inverse(0.1).is_ok());
    /// p.inductance = nalgebra::Vector4::zeros(); // only branch 3 resists: D has rank one
    /// p.resistance[2] = 0.78237;
    /// assert!(Circuit::new(p).unwrap().solve_matrix_inverse(0.0726676).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::Overflow`] `{ name: "inductance + h resistance" }` when `𝕃 + hD`
    /// overflows, [`ConfigError::NotPositiveDefinite`] `{ name: "inductance + h resistance" }`
    /// when it is singular, indefinite or ill-conditioned, [`ConfigError::Overflow`]
    /// `{ name: "(inductance + h resistance)^-1" }` when its inverse overflows.
    pub fn solve_matrix_inverse(&self, h: T) -> Result<SMatrix<T, M, M>, ConfigError> {
        let name = "inductance + h resistance";
        let a = self.l + self.d * h;
        check_all_finite(a.as_slice(), name).map_err(|_| ConfigError::Overflow { name })?;
        let scale = a.amax();
        if scale == T::zero() {
            return Err(ConfigError::NotPositiveDefinite { name });
        }
        let unit = a / scale;
        let eig = symmetric_eigen(&unit).ok_or(ConfigError::NotPositiveDefinite { name })?;
        let (mut lo, mut hi) = (eig.values[0], eig.values[0]);
        for &x in eig.values.iter() {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        // `!(… >= …)`: a NaN eigenvalue is refused too.
        if !(lo >= T::default_epsilon().sqrt() * hi && lo > T::zero()) {
            return Err(ConfigError::NotPositiveDefinite { name });
        }
        let unit_inv = unit
            .cholesky()
            .map(|c| c.inverse())
            .ok_or(ConfigError::NotPositiveDefinite { name })?;
        let inv = unit_inv / scale;
        for x in inv.iter() {
            check_derived(*x, "(inductance + h resistance)^-1")?;
        }
        Ok(inv)
    }

    /// The mesh fluxes `p̃ = 𝕃ṽ` (eq 7.13c / 7.16).
    pub fn flux(&self, state: &State<T, M>) -> SVector<T, M> {
        self.l * state.v
    }

    /// The branch charges `q = K₂q̃`.
    pub fn branch_charges(&self, state: &State<T, M>) -> SVector<T, B> {
        self.params.loops * state.q
    }

    /// The branch currents `v = K₂ṽ` (they satisfy the KCL `Kᵀv = 0`).
    pub fn branch_currents(&self, state: &State<T, M>) -> SVector<T, B> {
        self.params.loops * state.v
    }

    /// The magnetic energy `½ ṽᵀ𝕃ṽ` stored in the inductors.
    pub fn magnetic_energy(&self, state: &State<T, M>) -> T {
        T::lit(0.5) * state.v.dot(&(self.l * state.v))
    }

    /// The electric energy `½ q̃ᵀSq̃` stored in the capacitors.
    pub fn electric_energy(&self, state: &State<T, M>) -> T {
        T::lit(0.5) * state.q.dot(&(self.s * state.q))
    }

    /// The total energy `H = ½ ṽᵀ𝕃ṽ + ½ q̃ᵀSq̃`.
    pub fn energy(&self, state: &State<T, M>) -> T {
        self.magnetic_energy(state) + self.electric_energy(state)
    }

    /// Whether the circuit is lossless: `D = 0`, no mesh carries a resistance (then
    /// `H − fᵀq̃` is conserved by the dynamics).
    pub fn is_lossless(&self) -> bool {
        self.lossless
    }
}

/// What the step guards measure on a circuit: for a lossless one ([`Circuit::is_lossless`]) the
/// conserved energy, split as `(½ ṽᵀ𝕃ṽ, ½ q̃ᵀSq̃ − fᵀq̃)` (the stored energy with the held source
/// as the potential `−fᵀq̃` of a constant force); `None` for a dissipative one (its resistors take
/// energy the guards do not measure). A circuit has no constraint residual (both Kirchhoff laws
/// hold by construction).
impl<T: Real, const B: usize, const M: usize> Probe<T, M> for Circuit<T, B, M> {
    #[inline]
    fn energy(&self, s: &State<T, M>) -> Option<(T, T)> {
        if self.lossless {
            Some((
                self.magnetic_energy(s),
                self.electric_energy(s) - self.f.dot(&s.q),
            ))
        } else {
            None
        }
    }

    #[inline]
    fn residual(&self, _: &SVector<T, M>) -> Option<T> {
        None
    }
}

#[cfg(test)]
mod tests;
