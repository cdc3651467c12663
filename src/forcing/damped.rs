//! Linear damping `M v̇ = −C v` by its exact flow, Strang-composed with any method.

use super::Actuate;
use crate::driver::{Guarded, Method, Wrapper};
use crate::linalg::symmetric_eigen;
use crate::model::Mass;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// Linear damping `−C v` added to a method `Φ` by the symmetric splitting
/// `D(h/2) ∘ Φₕ ∘ D(h/2)`, with `D(τ): v ↦ exp(−M⁻¹C τ) v` the exact flow of `M v̇ = −C v`
/// (see [`crate::forcing`] for the decision and the guards).
///
/// `C` is symmetric positive semi-definite (per-link dashpots add `c (eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ` per
/// coordinate, a dashpot to ground `c eᵢeᵢᵀ`). The flow is computed once from the generalised
/// eigenproblem `C x = λ M x` (`M = LLᵀ`, `L⁻¹CL⁻ᵀ = QΛQᵀ`, `exp(−M⁻¹Cτ) = L⁻ᵀQ e^{−Λτ} QᵀLᵀ`);
/// the kick for half the configured step is stored, other step sizes (composition stages)
/// form theirs per step (`O(N³)`).
///
/// **With an exact velocity constraint.** When the inner method keeps `g'(q)v = 0` (RATTLE,
/// Reich's composition: [`Guarded::velocity_projector`] is `Some(P)`), the kick is the exact
/// flow of the *constrained* damping `M v̇ = −C v + g'(q)ᵀλ`, `g'(q)v = 0` at the kick's `q`:
/// `v ↦ L⁻ᵀ exp(−Π C̃ Π τ) Π Lᵀ v` with `M = LLᵀ`, `C̃ = L⁻¹CL⁻ᵀ` and `Π = LᵀPL⁻ᵀ` the
/// orthogonal projector of `P` in the `M`-metric, followed by `P` (round-off). The kicked
/// velocity is tangent to the method's tolerance for any valid `C` and `M`, the kick is
/// symmetric and lowers `½vᵀMv` monotonically; it costs one `N × N` projector and one
/// symmetric eigendecomposition per kick (`O(N³)`).
///
/// Properties: `ORDER = min(I::ORDER, 2)` (Strang splitting); `SYMMETRIC = I::SYMMETRIC`
/// (`D(−τ) = D(τ)⁻¹`); not symplectic (dissipative). Each kick lowers `½vᵀMv` (monotonically in
/// `τ ≥ 0`); with `C = 0` the kicks are the identity.
///
/// # Errors
/// [`Damped::new`]: [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`],
/// [`ConfigError::NotPositiveDefinite`] (an eigenvalue of `C` below `−√ε‖C‖`), all
/// `{ name: "damping" }`. `step`: the base method's errors (those of its
/// [`Guarded::velocity_projector`] included) and [`StepError::NonFiniteResult`]; the state is
/// unchanged on error.
///
/// ```
/// use macrostep::forcing::Damped;
/// use macrostep::systems::HarmonicOscillator;
/// use macrostep::zs::{ZhangSkeel, ZsParams};
/// use macrostep::{Integrator, nalgebra::Matrix1};
///
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let zs = ZhangSkeel::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut damped = Damped::new(zs, osc.system().mass, Matrix1::new(0.2)).unwrap();
/// let mut s = osc.initial_state();
/// let e0 = osc.system().energy(&s);
/// damped.integrate(&mut s, 1000).unwrap(); // t = 10: E ≈ e^{−c t} E₀ for light damping
/// let e = osc.system().energy(&s);
/// assert!((e / e0 - (-2.0f64).exp()).abs() < 0.05);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Damped<T: Real, I, const N: usize> {
    inner: I,
    mass: Mass<T, N>,
    /// `L⁻ᵀ Q` and `Qᵀ Lᵀ`: `exp(−M⁻¹Cτ) = a · diag(e^{−λτ}) · b`.
    a: SMatrix<T, N, N>,
    b: SMatrix<T, N, N>,
    rates: SVector<T, N>,
    /// `L` (`M = LLᵀ`), `L⁻¹` and `C̃ = L⁻¹CL⁻ᵀ`, for the kick of a constrained method.
    l: SMatrix<T, N, N>,
    l_inv: SMatrix<T, N, N>,
    ct: SMatrix<T, N, N>,
    /// `C ≠ 0`.
    damps: bool,
    /// The kick for `τ = h/2` of the configured step.
    tau: T,
    kick: SMatrix<T, N, N>,
}

impl<T: Real, I: Method<T, N>, const N: usize> Damped<T, I, N> {
    /// `inner` with the damping matrix `c` for the mass matrix `mass` (the system's).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new(inner: I, mass: Mass<T, N>, c: SMatrix<T, N, N>) -> Result<Self, ConfigError> {
        let name = "damping";
        if check_finite_symmetric(&c)? == T::zero() {
            // No damping: the kicks are exactly the identity.
            let tau = Guarded::step_size(&inner) * T::lit(0.5);
            let id = SMatrix::identity();
            return Ok(Self {
                inner,
                mass,
                a: id,
                b: id,
                rates: SVector::zeros(),
                l: id,
                l_inv: id,
                ct: SMatrix::zeros(),
                damps: false,
                tau,
                kick: id,
            });
        }
        let l = mass.cholesky_factor();
        let l_inv = l
            .solve_lower_triangular(&SMatrix::identity())
            .ok_or(ConfigError::NotPositiveDefinite { name: "mass" })?;
        let ct = l_inv * c * l_inv.transpose();
        let eig = symmetric_eigen(&ct).ok_or(ConfigError::NonFinite { name })?;
        let tol = ct.amax() * T::default_epsilon().sqrt();
        let mut rates = eig.values;
        for r in rates.iter_mut() {
            if *r < -tol {
                return Err(ConfigError::NotPositiveDefinite { name });
            }
            if *r < T::zero() {
                *r = T::zero();
            }
        }
        let a = l_inv.transpose() * eig.vectors;
        let b = eig.vectors.transpose() * l.transpose();
        let tau = Guarded::step_size(&inner) * T::lit(0.5);
        let mut d = Self {
            inner,
            mass,
            a,
            b,
            rates,
            l,
            l_inv,
            ct,
            damps: true,
            tau,
            kick: SMatrix::identity(),
        };
        d.kick = d.flow(tau);
        Ok(d)
    }

    /// The exact damping flow `exp(−M⁻¹C τ)`.
    pub fn flow(&self, tau: T) -> SMatrix<T, N, N> {
        let mut ad = self.a;
        for j in 0..N {
            let e = (-self.rates[j] * tau).exp();
            for i in 0..N {
                ad[(i, j)] *= e;
            }
        }
        ad * self.b
    }

    /// The kick `D(τ)` applied to `v` at `q`: `kick · v` (`kick = exp(−M⁻¹Cτ)`), or, when the
    /// inner method constrains velocities at `q`, the exact constrained damping flow (see the
    /// type docs).
    fn kick_at(
        &self,
        kick: &SMatrix<T, N, N>,
        tau: T,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Result<SVector<T, N>, StepError> {
        if !self.damps {
            return Ok(*v);
        }
        let Some(p) = self.inner.velocity_projector(q)? else {
            return Ok(kick * v);
        };
        let half = T::lit(0.5);
        let pi = self.l.transpose() * p * self.l_inv.transpose();
        let pi = pi * half + pi.transpose() * half;
        let k = pi * self.ct * pi;
        let eig = symmetric_eigen(&k).ok_or(StepError::NonFiniteResult)?;
        let y = eig.vectors.transpose() * (pi * (self.l.transpose() * v));
        let mut z = y;
        for j in 0..N {
            z[j] *= (-eig.values[j].max(T::zero()) * tau).exp();
        }
        let out = p * (self.l_inv.transpose() * (eig.vectors * z));
        if out.iter().all(|x| x.finite()) {
            Ok(out)
        } else {
            Err(StepError::NonFiniteResult)
        }
    }

    /// The base method.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// Mutable access to the base method.
    pub fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

impl<T: Real, I, const N: usize> Wrapper for Damped<T, I, N> {
    type Inner = I;

    fn inner(&self) -> &I {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }
}

/// The proposal returns the kinetic energy the two kicks took (with what the inner step
/// exchanged), so the run guard bounds `E − E_ref + D`.
impl<T: Real, I: Method<T, N>, const N: usize> Method<T, N> for Damped<T, I, N> {
    const ORDER: u32 = if I::ORDER < 2 { I::ORDER } else { 2 };
    const SYMPLECTIC: bool = false;
    const SYMMETRIC: bool = I::SYMMETRIC;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let tau = h * T::lit(0.5);
        let kick = if tau == self.tau {
            self.kick
        } else {
            self.flow(tau)
        };
        let mut s = *state;
        s.v = self.kick_at(&kick, tau, &state.q, &state.v)?;
        if !s.is_finite() {
            return Err(StepError::NonFiniteResult);
        }
        let opened = self.mass.kinetic(&s.v) - self.mass.kinetic(&state.v);
        *next = s;
        let inner = self.inner.propose(&s, h, next)?;
        let before = self.mass.kinetic(&next.v);
        next.v = self.kick_at(&kick, tau, &next.q, &next.v)?;
        Ok(inner + opened + (self.mass.kinetic(&next.v) - before))
    }
}

impl<T: Real, I: Actuate<T, N>, const N: usize> Actuate<T, N> for Damped<T, I, N> {
    fn force(&self) -> &SVector<T, N> {
        self.inner.force()
    }
    fn set_force(&mut self, u: &SVector<T, N>) -> Result<(), StepError> {
        self.inner.set_force(u)
    }
}

/// Checks a damping matrix: finite, symmetric (to `8ε‖C‖`), positive semi-definite (no
/// eigenvalue below `−√ε‖C‖`). Returns whether `C ≠ 0`.
///
/// # Errors
/// [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`],
/// [`ConfigError::NotPositiveDefinite`], all `{ name: "damping" }`.
pub(crate) fn check_damping<T: Real, const N: usize>(
    c: &SMatrix<T, N, N>,
) -> Result<bool, ConfigError> {
    let name = "damping";
    let scale = check_finite_symmetric(c)?;
    if scale == T::zero() {
        return Ok(false);
    }
    let eig = symmetric_eigen(c).ok_or(ConfigError::NonFinite { name })?;
    let tol = scale * T::default_epsilon().sqrt();
    if eig.values.iter().any(|&l| l < -tol) {
        return Err(ConfigError::NotPositiveDefinite { name });
    }
    Ok(true)
}

/// The first checks of a damping matrix, shared by [`Damped::new`] and [`check_damping`]:
/// finite, then symmetric to `8ε‖C‖`. Returns `‖C‖` (max norm; zero means no damping).
///
/// # Errors
/// [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`], both `{ name: "damping" }`.
fn check_finite_symmetric<T: Real, const N: usize>(c: &SMatrix<T, N, N>) -> Result<T, ConfigError> {
    let name = "damping";
    if !crate::linalg::all_finite(c.as_slice()) {
        return Err(ConfigError::NonFinite { name });
    }
    let scale = c.amax();
    if (c - c.transpose()).amax() > scale * T::default_epsilon() * T::lit(8.0) {
        return Err(ConfigError::NotSymmetric { name });
    }
    Ok(scale)
}
