//! The symplectic layer of 003 §2 (stage S0 of §3, unconstrained) over any standard layer.

use super::{lu_solve, lu_solve_cols, Segment, StandardLayer};
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::System;
use crate::validate::{check_count, check_finite, check_positive};
use crate::{ConfigError, Integrator, Real, State, StepError, Stepper};
use nalgebra::{SMatrix, SVector};

/// Parameters of the conversion: the bias and the bounded solve.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ConvertParams<T> {
    /// The bias `α⁻ ∈ [−1, 0]` (003 §2); `α⁺ = 1 + α⁻`. `0` (the default) puts the state
    /// at the start of each segment and costs one layer evaluation per iteration; `−½` centres
    /// the segment (two evaluations).
    pub alpha_minus: T,
    /// Relative tolerance of the fixed-point iteration on the shooting residuals.
    pub tol: T,
    /// Iteration cap of the solve (≥ 1).
    pub max_iter: u32,
}

impl<T: Real> Default for ConvertParams<T> {
    fn default() -> Self {
        Self {
            alpha_minus: T::zero(),
            tol: T::default_epsilon() * T::lit(64.0),
            max_iter: 50,
        }
    }
}

impl<T: Real> ConvertParams<T> {
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"alpha_minus"` (outside
    /// `[−1, 0]`), `"tol"` (`tol ≤ 0`) and `"max_iter"` (zero).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        let a = check_finite(self.alpha_minus, "alpha_minus")?;
        if !(a >= -T::one() && a <= T::zero()) {
            return Err(ConfigError::OutOfRange {
                name: "alpha_minus",
                bound: "in [-1, 0]",
            });
        }
        check_positive(self.tol, "tol")?;
        check_count(self.max_iter, "max_iter")?;
        Ok(*self)
    }
}

/// The variational integrator converted from a standard layer `L` (Patrick, Cuell, Spiteri &
/// Zhang, 003 §2; stage S0 of §3 with `d = 0`).
///
/// With `α⁺ = 1 + α⁻`, `∂±(w) = R^q_{hα±}(w)`, `L_h(w) = R^S_{hα⁺}(w) − R^S_{hα⁻}(w)` and
/// `[λ μ]·[D∂⁻; D∂⁺] = DL_h` at `w`, one step from `(q_k, v_k)` solves
///
/// ```text
/// ∂⁻(w) = q_k,   −λ(w) = M v_k          (for w = (q, v) ∈ TQ: the shooting problem)
/// q_{k+1} = ∂⁺(w),   M v_{k+1} = μ(w)    (S0.1–S0.3 in discrete-Legendre coordinates)
/// ```
///
/// Order `L::ORDER` (the source's), symplectic for the canonical form in `(q, M v)` whatever
/// the source; symmetry is not claimed. Cost: per fixed-point iteration one or two layer
/// evaluations (with tangents) and three `N × N` LU solves; the iteration count is bounded.
///
/// # Errors
/// Those of [`Integrator::step_by`]; [`StepError::NotConverged`] when the fixed-point iteration
/// reaches [`ConvertParams::max_iter`]; [`StepError::Singular`] when the segment map
/// `w ↦ (∂⁻, ∂⁺)` is singular (step far too large); [`StepError::NonFiniteResult`] when a layer
/// evaluation is not finite. The state is unchanged on error.
///
/// ```
/// use macrostep::convert::{ConvertParams, Converted, ExplicitRk, Rk4};
/// use macrostep::{systems::HarmonicOscillator, Integrator};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0).unwrap();
/// let rk4 = ExplicitRk::<_, _, Rk4, 1>::new(osc.system(), 0.1).unwrap();
/// let mut vi = Converted::new(rk4.clone(), ConvertParams::default()).unwrap();
/// let (mut s, mut r) = (osc.initial_state(), osc.initial_state());
/// let e0 = osc.system().energy(&s);
/// vi.integrate(&mut s, 10_000).unwrap(); // 160 periods
/// let mut rk4 = rk4;
/// rk4.integrate(&mut r, 10_000).unwrap();
/// // RK4 loses energy steadily (|R(ih)|² = 1 − h⁶/72 per step); the converted map does not.
/// assert!((osc.system().energy(&r) - e0).abs() > 1e-4 * e0);
/// assert!((osc.system().energy(&s) - e0).abs() < 2e-5 * e0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Converted<T: Real, L, const N: usize> {
    layer: L,
    params: ConvertParams<T>,
    alpha_plus: T,
    iterations: u32,
    /// The iteration count of the last proposal (kept when the driver commits it).
    proposed_iterations: u32,
    watch: Watch<T, N>,
}

/// The segment ends, the action's derivative and the multipliers at one `w`.
struct Ends<T: Real, const N: usize> {
    minus: Segment<T, N>,
    plus: Segment<T, N>,
    lambda: SVector<T, N>,
    mu: SVector<T, N>,
}

impl<T: Real, L: StandardLayer<T, N>, const N: usize> Converted<T, L, N> {
    /// The converted integrator of `layer` (its step size is the layer's).
    ///
    /// # Errors
    /// As [`ConvertParams::validate`].
    pub fn new(layer: L, params: ConvertParams<T>) -> Result<Self, ConfigError> {
        let params = params.validate()?;
        Ok(Self {
            layer,
            alpha_plus: T::one() + params.alpha_minus,
            params,
            iterations: 0,
            proposed_iterations: 0,
            watch: Watch::default(),
        })
    }

    /// The standard layer.
    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// The parameters.
    pub fn params(&self) -> &ConvertParams<T> {
        &self.params
    }

    /// Fixed-point iterations taken by the last successful step.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// `R_t` at `w`, the identity for `t = 0`.
    fn segment(
        &self,
        x: &SVector<T, N>,
        u: &SVector<T, N>,
        t: T,
    ) -> Result<Segment<T, N>, StepError> {
        let s = if t == T::zero() {
            Segment::identity(x)
        } else {
            self.layer.segment(x, u, t)
        };
        if s.is_finite() {
            Ok(s)
        } else {
            Err(StepError::NonFiniteResult)
        }
    }

    /// Ends and multipliers at `w = (x, u)`: `A⁻ᵀλ + A⁺ᵀμ = ∂_q L_h`, `C⁻ᵀλ + C⁺ᵀμ = ∂_v L_h`
    /// with `A± = ∂_q ∂±`, `C± = ∂_v ∂±`, by elimination of `λ` (a Schur complement `≈ h I`).
    fn ends(&self, x: &SVector<T, N>, u: &SVector<T, N>, h: T) -> Result<Ends<T, N>, StepError> {
        let minus = self.segment(x, u, h * self.params.alpha_minus)?;
        let plus = self.segment(x, u, h * self.alpha_plus)?;
        let a = plus.s_q - minus.s_q;
        let c = plus.s_v - minus.s_v;
        let am_t = minus.q_q.transpose();
        let x_a: SMatrix<T, N, N> = lu_solve_cols(&am_t, &plus.q_q.transpose())?;
        let x_b = lu_solve(&am_t, &a)?;
        let cm_t = minus.q_v.transpose();
        let schur = plus.q_v.transpose() - cm_t * x_a;
        let mu = lu_solve(&schur, &(c - cm_t * x_b))?;
        let lambda = x_b - x_a * mu;
        if !(lambda.iter().all(|z| z.finite()) && mu.iter().all(|z| z.finite())) {
            return Err(StepError::Singular);
        }
        Ok(Ends {
            minus,
            plus,
            lambda,
            mu,
        })
    }

    /// The bounded fixed-point solve of `∂⁻(w) = q`, `−λ(w) = p` (003 §4.2 on the approximates
    /// (4.9)); returns the next `(q, v)` and the iteration count.
    fn solve(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        h: T,
    ) -> Result<(SVector<T, N>, SVector<T, N>, u32), StepError> {
        let mass = &self.layer.system().mass;
        let p = mass.mul(v);
        let (mut x, mut u) = (q - v * (h * self.params.alpha_minus), *v);
        let scale_q = T::one() + q.amax();
        let scale_v = T::one() + v.amax();
        let mut met = false;
        for it in 0..=self.params.max_iter {
            let e = self.ends(&x, &u, h)?;
            if met {
                return Ok((e.plus.q, mass.solve(&e.mu), it));
            }
            let r1 = e.minus.q - q;
            let du = -mass.solve(&(-e.lambda - p));
            met = r1.amax() <= self.params.tol * scale_q && du.amax() <= self.params.tol * scale_v;
            let dx = lu_solve(&e.minus.q_q, &(-r1 - e.minus.q_v * du))?;
            x += dx;
            u += du;
        }
        Err(StepError::NotConverged)
    }
}

impl<T: Real, L: StandardLayer<T, N>, const N: usize> Guarded<T, N> for Converted<T, L, N> {
    type Probe<'a>
        = &'a System<T, L::Potential, N>
    where
        Self: 'a;

    #[inline]
    fn step_size(&self) -> T {
        Stepper::step_size(&self.layer)
    }

    fn watch(&self) -> &Watch<T, N> {
        &self.watch
    }

    #[inline]
    fn watch_and_probe(&mut self) -> (&mut Watch<T, N>, Self::Probe<'_>) {
        (&mut self.watch, self.layer.system())
    }

    #[inline]
    fn accept(&mut self, _: &State<T, N>) {
        self.iterations = self.proposed_iterations;
    }
}

impl<T: Real, L: StandardLayer<T, N>, const N: usize> Method<T, N> for Converted<T, L, N> {
    const ORDER: u32 = <L as Integrator<T, N>>::ORDER;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = false;

    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        let (q, v, it) = self.solve(&state.q, &state.v, h)?;
        next.q = q;
        next.v = v;
        self.proposed_iterations = it;
        Ok(T::zero())
    }
}
