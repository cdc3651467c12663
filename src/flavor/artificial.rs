//! The artificial FLAVOR for linear stiff coordinates, 004 eqs 2.51–2.53.

use super::Params;
use crate::driver::{Guarded, Method};
use crate::guard::{NoProbe, Watch};
use crate::model::{Mass, Potential, Split, System};
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{Cholesky, SMatrix};

/// Artificial FLAVOR (004 eqs 2.51–2.53) for `M q̈ = −∇V(q) − α∇U(q)` whose stiff potential `U`
/// depends on `q` through linear *stiff coordinates* `y = G q` (springs between point masses:
/// each row of `G` is `e_j − e_i`):
///
/// ```text
/// Θ_δ = θ^tr_{δ−τ} ∘ θ^ε_τ ∘ θ^V_δ
/// θ^V_δ:      v ← v − δ M⁻¹∇V(q)                                   (2.52, soft kick)
/// θ^ε_τ:      q ← q + τ v,  v ← v − τ α M⁻¹∇U(q)                   (2.53, stiff drift–kick)
/// θ^tr_{δ−τ}: q ← q + (δ−τ) P v,  P = I − M⁻¹Gᵀ(G M⁻¹ Gᵀ)⁻¹G       (frozen free flight)
/// ```
///
/// `θ^tr` is the exact free flight with the stiff coordinates frozen (`ẏ = 0`): the velocity is
/// split into its part `P v` tangent to `G q = const` (in the `M` metric) and the normal part,
/// which is stored, set to zero during the flight, and restored after it. `P M⁻¹` is symmetric,
/// so this shear is symplectic and so is the whole map. The projector is computed once.
///
/// Properties: symplectic, first order for the slow variables, accurate for
/// `τ ≪ √ε ≪ δ ≪ τ/√ε` without the nonintrusive FLAVOR's `τ²/ε ≪ δ` (§2.2.6); linearly stable on
/// system 2.93 iff `δ < 2√2` (Theorem 2.5.1) and `τω < 2`; not symmetric. One soft and one stiff
/// gradient per step. Not a black box: it needs `G` ("artificial").
///
/// `step_by(h)` uses the micro-step `τ·h/δ`. The step guards have no energy to measure
/// ([`NoProbe`]): like every FLAVOR it averages the fast oscillation away and does not conserve
/// the stiff system's energy, so only finiteness, the clock and the velocity jump (when on) are
/// checked (see the [module docs](super), "Stepping and the guards").
///
/// # Errors
/// Construction: [`ConfigError::NonFinite`] `{ name: "coords" }`,
/// [`ConfigError::NotPositiveDefinite`] `{ name: "coords" }` when the rows of `G` are dependent
/// (or zero), and [`Params`]' errors through the `params` argument. Step: as
/// [`Integrator::step_by`](crate::Integrator::step_by); the state is unchanged on error.
///
/// ```
/// use macrostep::{flavor::{Artificial, Params}, model::{Mass, Quadratic, Split, System},
///                 Integrator, State};
/// use nalgebra::{matrix, vector};
/// // System 2.93 with ω = 100: the stiff coordinate is y − x.
/// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
/// let mut flavor = Artificial::new(System::new(Mass::identity(), split), matrix![-1.0, 1.0],
///                                  Params::new(0.05, 1e-3).unwrap()).unwrap();
/// let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
/// flavor.integrate(&mut s, 20).unwrap();
/// assert!(((s.q[0] + s.q[1]) / 2.0 - 0.8055 * 0.5_f64.sqrt().cos()).abs() < 0.03);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Artificial<T: Real, V, U, const N: usize> {
    mass: Mass<T, N>,
    soft: V,
    stiff: U,
    alpha: T,
    proj: SMatrix<T, N, N>,
    params: Params<T>,
    watch: Watch<T, N>,
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> Artificial<T, V, U, N> {
    /// The artificial FLAVOR of `system` (its split's current `alpha` is the stiffness) with
    /// stiff coordinates `coords = G` (`D × N`, independent rows).
    ///
    /// # Errors
    /// See the type's `# Errors`.
    pub fn new<const D: usize>(
        system: System<T, Split<T, V, U>, N>,
        coords: SMatrix<T, D, N>,
        params: Params<T>,
    ) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        if !coords.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "coords" });
        }
        crate::validate::check_finite(system.potential.alpha, "alpha")?;
        // M⁻¹Gᵀ, column by column.
        let mut minv_gt = SMatrix::<T, N, D>::zeros();
        for k in 0..D {
            let row = coords.row(k).transpose();
            minv_gt.set_column(k, &system.mass.solve(&row));
        }
        let s = coords * minv_gt;
        let singular = ConfigError::NotPositiveDefinite { name: "coords" };
        let chol = Cholesky::new(s).ok_or(singular)?;
        // Reject numerically dependent rows: a pivot below √ε·max diag(S) means rank loss.
        let l = chol.l();
        let scale = s.diagonal().amax() * T::default_epsilon().sqrt();
        if (0..D).any(|k| l[(k, k)] * l[(k, k)] <= scale) {
            return Err(singular);
        }
        let proj = SMatrix::<T, N, N>::identity() - minv_gt * chol.solve(&coords);
        let Split { soft, stiff, alpha } = system.potential;
        Ok(Self {
            watch: Watch::default(),
            mass: system.mass,
            soft,
            stiff,
            alpha,
            proj,
            params,
        })
    }

    /// The step sizes.
    pub fn params(&self) -> &Params<T> {
        &self.params
    }

    /// The velocity projector `P` onto the frozen-stiff-coordinate directions.
    pub fn projector(&self) -> &SMatrix<T, N, N> {
        &self.proj
    }
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> Guarded<T, N>
    for Artificial<T, V, U, N>
{
    type Probe<'a>
        = NoProbe
    where
        Self: 'a;

    /// The meso-step `δ`.
    fn step_size(&self) -> T {
        self.params.delta
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, NoProbe) {
        (&mut self.watch, NoProbe)
    }
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> Method<T, N>
    for Artificial<T, V, U, N>
{
    const ORDER: u32 = 1;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let tau = self.params.tau_for(h);
        let v = state.v - self.mass.solve(&self.soft.gradient(&state.q)) * h;
        let q = state.q + v * tau;
        next.v = v - self.mass.solve(&self.stiff.gradient(&q)) * (tau * self.alpha);
        next.q = q + self.proj * next.v * (h - tau);
        Ok(T::zero())
    }
}
