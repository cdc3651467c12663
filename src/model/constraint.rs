//! Holonomic constraints `g: ℝᴺ → ℝᴰ` and the penalty potential that replaces them (000 eq 1.7).

use super::BandMut;
use super::{Hessian, Measured, Potential, ThirdDerivative};
use crate::{ConfigError, ConstReal, Real};
use nalgebra::{ArrayStorage, SMatrix, SVector};

/// Holonomic constraints `g(q) = 0`, `g: ℝᴺ → ℝᴰ`, with the derivatives the integrators need.
///
/// SHAKE/RATTLE need `g` and its Jacobian; the penalty potential additionally needs the
/// curvature terms so that Z&S gets an exact Hessian and third-derivative contraction.
pub trait Constraint<T: Real, const N: usize, const D: usize> {
    /// `g(q)`.
    fn value(&self, q: &SVector<T, N>) -> SVector<T, D>;
    /// The Jacobian `∂g/∂q` (row `i` is `∇gᵢᵀ`).
    fn jacobian(&self, q: &SVector<T, N>) -> SMatrix<T, D, N>;
    /// `Σᵢ wᵢ Hess gᵢ(q)`.
    fn weighted_hessian(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SMatrix<T, N, N>;
    /// The matrix whose row `i` is `(Hess gᵢ(q) a)ᵀ`.
    fn hessian_times(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, D, N>;
    /// `Σᵢ wᵢ (a·gᵢ‴(q)·a)`; zero for quadratic constraints (distances squared).
    fn weighted_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N>;

    /// A dimensionless measure of the violation at `q`, what the step guards bound
    /// ([`crate::guard::Guards::residual`]). The default is `max |gᵢ(q)|` (absolute, in the
    /// constraint's own units); distance constraints override it with the relative
    /// `max |‖d‖² − L²| / L²`. NaN when `g` is not finite.
    fn residual(&self, q: &SVector<T, N>) -> T {
        let g = self.value(q);
        let mut r = T::zero();
        for &x in g.iter() {
            let a = x.abs();
            if a > r || !a.finite() {
                r = a;
            }
        }
        r
    }

    /// `J(q)ᵀ w`. The default forms the `D × N` Jacobian; local constraints override it so a
    /// penalty gradient costs `O(D)` instead of `O(N D)`.
    fn jacobian_transpose_times(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        self.jacobian(q).tr_mul(w)
    }

    /// `Jᵀ W g`, the constraint part of the penalty gradient with weights `W = diag(w)`. The
    /// default evaluates `g` and calls [`Constraint::jacobian_transpose_times`]; local
    /// constraints override it to visit each constraint once.
    fn penalty_gradient(&self, q: &SVector<T, N>, w: &SVector<T, D>) -> SVector<T, N> {
        let g = self.value(q);
        self.jacobian_transpose_times(q, &w.component_mul(&g))
    }

    /// The constraint part of the penalty's third-derivative contraction with weights
    /// `W = diag(w)`: `2 Aᵀ W (J a) + Jᵀ W (A a) + Σ (W g)ᵢ a·gᵢ‴·a` (see [`Penalty`]). The
    /// default assembles it from the dense matrices; local constraints override it.
    fn penalty_third_contraction(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        a: &SVector<T, N>,
    ) -> SVector<T, N> {
        let g = self.value(q);
        let j = self.jacobian(q);
        let big_a = self.hessian_times(q, a);
        let ja = w.component_mul(&(j * a));
        let aa = w.component_mul(&(big_a * a));
        let wg = w.component_mul(&g);
        big_a.tr_mul(&ja) * T::lit(2.0) + j.tr_mul(&aa) + self.weighted_third_contraction(q, &wg, a)
    }

    /// Adds `scale · (Jᵀ W J + Σ (W g)ᵢ Hess gᵢ)` — the constraint part of the penalty Hessian
    /// with weights `W = diag(w)` — into the dense `out`. The default assembles it from the
    /// dense Jacobian and [`Constraint::weighted_hessian`]; local constraints override it to add
    /// their few non-zero blocks.
    fn add_penalty_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        out: &mut SMatrix<T, N, N>,
    ) {
        let g = self.value(q);
        let j = self.jacobian(q);
        let wj = SMatrix::<T, D, N>::from_fn(|i, k| j[(i, k)] * w[i]);
        *out += (j.tr_mul(&wj) + self.weighted_hessian(q, &w.component_mul(&g))) * scale;
    }

    /// [`Constraint::penalty_gradient`] into `grad`, [`Constraint::add_penalty_hessian`] into
    /// `out` and [`Constraint::value`] into `values` together. The default calls the three;
    /// local constraints override it to visit each constraint once for all, with the same results
    /// bit for bit.
    #[inline]
    fn penalty_gradient_add_hessian(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
        values: &mut SVector<T, D>,
    ) {
        *grad = self.penalty_gradient(q, w);
        self.add_penalty_hessian(q, w, scale, out);
        *values = self.value(q);
    }

    /// [`Constraint::residual`] at a position where the constraints take the `values` `g`, when
    /// it follows from them alone, bit for bit; `None` (the default) when it does not.
    #[inline]
    fn residual_of_values(&self, values: &SVector<T, D>) -> Option<T> {
        let _ = values;
        None
    }

    /// Adds `scale · (Jᵀ W J + Σ (W g)ᵢ Hess gᵢ)` — the constraint part of the penalty Hessian
    /// with weights `W = diag(w)` — into `band` (see
    /// [`Hessian::hessian_band`](super::Hessian::hessian_band)) and returns `true`; returns
    /// `false` when the structure is unknown (the default) or does not fit in the band.
    fn penalty_hessian_band(
        &self,
        q: &SVector<T, N>,
        w: &SVector<T, D>,
        scale: T,
        band: &mut BandMut<'_, T>,
    ) -> bool {
        let _ = (q, w, scale, band);
        false
    }
}

/// The penalty potential `V(q) + ½ Σᵢ ωᵢ² gᵢ(q)²` (000 eq 1.7), one `ω` per constraint allowed.
///
/// Distinct `ωᵢ` avoid the Takens chaos of a resonant penalty limit (004 §5.3). Gradient, Hessian
/// and third-derivative contraction are assembled exactly from those of `V` and `g`:
///
/// - `∇ = ∇V + Jᵀ W g`,
/// - `Hess = Hess V + Jᵀ W J + Σ (Wg)ᵢ Hess gᵢ`,
/// - `a·P‴·a = a·V‴·a + 2 Aᵀ W (J a) + Jᵀ W (A a) + Σ (Wg)ᵢ a·gᵢ‴·a`, with `A` the matrix of rows
///   `(Hess gᵢ a)ᵀ` and `W = diag(ωᵢ²)`.
#[derive(Clone, Copy, Debug)]
pub struct Penalty<T: Real, V, G, const D: usize> {
    /// The unconstrained potential `V`.
    pub base: V,
    /// The constraints `g`.
    pub constraint: G,
    omega2: SVector<T, D>,
}

impl<T: Real, V, G, const D: usize> Penalty<T, V, G, D> {
    /// One penalty frequency `ω` for every constraint.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] or [`ConfigError::OutOfRange`] (`ω ≤ 0`) for `"omega"`;
    /// [`ConfigError::Overflow`] for `"omega^2"` when `ω²` overflows or underflows the scalar type.
    pub fn new(base: V, constraint: G, omega: T) -> Result<Self, ConfigError> {
        Self::per_constraint(base, constraint, SVector::repeat(omega))
    }

    /// One penalty frequency `ωᵢ` per constraint.
    ///
    /// # Errors
    /// As [`Penalty::new`].
    pub fn per_constraint(
        base: V,
        constraint: G,
        omega: SVector<T, D>,
    ) -> Result<Self, ConfigError> {
        // Written out rather than through `validate::check_all_positive`: the call moves the
        // firmware stack high-water of the penalised models (control_loop +24 bytes).
        for &w in omega.iter() {
            if !w.finite() {
                return Err(ConfigError::NonFinite { name: "omega" });
            }
            if w <= T::zero() {
                return Err(ConfigError::OutOfRange {
                    name: "omega",
                    bound: "> 0",
                });
            }
        }
        let omega2 = omega.component_mul(&omega);
        for &w2 in omega2.iter() {
            // `ω > 0` whose square underflows to 0 would switch the penalty off silently.
            if crate::validate::check_derived(w2, "omega^2")? == T::zero() {
                return Err(ConfigError::Overflow { name: "omega^2" });
            }
        }
        Ok(Self {
            base,
            constraint,
            omega2,
        })
    }

    /// The penalty weights `ωᵢ²`.
    pub fn omega2(&self) -> &SVector<T, D> {
        &self.omega2
    }

    /// Sets one penalty frequency `ω` for every constraint, in place: the weights
    /// [`Penalty::new`] gives for `ω`, bit for bit, written into `self` (with
    /// [`Penalty::blank`], a penalty built where it is kept, never on the stack).
    ///
    /// ```
    /// use macrostep::model::{Penalty, Zero};
    /// use macrostep::systems::Distances;
    /// use nalgebra::vector;
    /// let (v, g) = (Zero, Distances::<f64, 2, 2, 1>::chain(vector![0.0, 0.0], vector![1.0])?);
    /// let mut p = Penalty::<f64, _, _, 1>::blank(v, g);
    /// p.set_omega(30.0)?;
    /// assert_eq!(p.omega2(), Penalty::<f64, _, _, 1>::new(v, g, 30.0)?.omega2());
    /// assert!(p.set_omega(-1.0).is_err() && p.omega2()[0] == 900.0); // unchanged on error
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Penalty::new`]; `self` is then unchanged.
    pub fn set_omega(&mut self, omega: T) -> Result<(), ConfigError> {
        if !omega.finite() {
            return Err(ConfigError::NonFinite { name: "omega" });
        }
        if omega <= T::zero() {
            return Err(ConfigError::OutOfRange {
                name: "omega",
                bound: "> 0",
            });
        }
        let w2 = omega * omega;
        if crate::validate::check_derived(w2, "omega^2")? == T::zero() {
            return Err(ConfigError::Overflow { name: "omega^2" });
        }
        for x in self.omega2.iter_mut() {
            *x = w2;
        }
        Ok(())
    }
}

impl<T: ConstReal, V, G, const D: usize> Penalty<T, V, G, D> {
    /// The penalty of `base` and `constraint` switched off (every `ω = 0`), as a constant
    /// expression: the blank a penalty built in place starts from ([`Penalty::set_omega`] then
    /// sets `ω`).
    #[inline(always)]
    pub const fn blank(base: V, constraint: G) -> Self {
        Self {
            base,
            constraint,
            omega2: SVector::from_array_storage(ArrayStorage([[T::ZERO; D]; 1])),
        }
    }
}

impl<T: Real, V, G, const D: usize> Penalty<T, V, G, D> {
    /// `V(q) + ½ Σ ωᵢ² gᵢ²` for the constraint values `g` at `q`, as [`Potential::energy`] forms
    /// it.
    fn energy_of_values<const N: usize>(&self, q: &SVector<T, N>, g: &SVector<T, D>) -> T
    where
        V: Potential<T, N>,
    {
        self.base.energy(q) + g.dot(&self.omega2.component_mul(g)) * T::lit(0.5)
    }
}

impl<T, V, G, const N: usize, const D: usize> Potential<T, N> for Penalty<T, V, G, D>
where
    T: Real,
    V: Potential<T, N>,
    G: Constraint<T, N, D>,
{
    fn energy(&self, q: &SVector<T, N>) -> T {
        let g = self.constraint.value(q);
        self.base.energy(q) + g.dot(&self.omega2.component_mul(&g)) * T::lit(0.5)
    }
    #[inline]
    fn constraint_residual(&self, q: &SVector<T, N>) -> Option<T> {
        Some(self.constraint.residual(q))
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        // In place: a by-value vector sum is a `memcpy` call on small targets at opt-level "s".
        let mut g = self.constraint.penalty_gradient(q, &self.omega2);
        let b = self.base.gradient(q);
        for i in 0..N {
            g[i] = b[i] + g[i];
        }
        g
    }
}

impl<T, V, G, const N: usize, const D: usize> Hessian<T, N> for Penalty<T, V, G, D>
where
    T: Real,
    V: Hessian<T, N>,
    G: Constraint<T, N, D>,
{
    fn hessian(&self, q: &SVector<T, N>) -> SMatrix<T, N, N> {
        let g = self.constraint.value(q);
        let j = self.constraint.jacobian(q);
        let wj = SMatrix::<T, D, N>::from_fn(|i, k| j[(i, k)] * self.omega2[i]);
        self.base.hessian(q)
            + j.tr_mul(&wj)
            + self
                .constraint
                .weighted_hessian(q, &self.omega2.component_mul(&g))
    }

    #[inline]
    fn add_hessian(&self, q: &SVector<T, N>, scale: T, out: &mut SMatrix<T, N, N>) {
        self.base.add_hessian(q, scale, out);
        self.constraint
            .add_penalty_hessian(q, &self.omega2, scale, out);
    }

    /// One pass over the constraints for all (see [`Constraint::penalty_gradient_add_hessian`]):
    /// the same sums in the same order as [`Potential::gradient`], [`Hessian::add_hessian`],
    /// [`Potential::energy`] and [`Potential::constraint_residual`]; the last two are handed
    /// over when the constraint gives its residual from its values
    /// ([`Constraint::residual_of_values`]). Always inlined on a workstation, where it is the
    /// first half of the step's force solve; a bare-metal build does not use it in a step.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline)]
    fn gradient_add_hessian(
        &self,
        q: &SVector<T, N>,
        scale: T,
        grad: &mut SVector<T, N>,
        out: &mut SMatrix<T, N, N>,
    ) -> Option<Measured<T>> {
        self.base.add_hessian(q, scale, out);
        let mut g = SVector::<T, D>::zeros();
        self.constraint
            .penalty_gradient_add_hessian(q, &self.omega2, scale, grad, out, &mut g);
        let b = self.base.gradient(q);
        for i in 0..N {
            grad[i] = b[i] + grad[i];
        }
        // A bare-metal build measures on the system (see `zs::Handed`): nothing to hand over.
        if cfg!(target_os = "none") {
            return None;
        }
        let residual = self.constraint.residual_of_values(&g)?;
        Some(Measured {
            energy: self.energy_of_values(q, &g),
            residual: Some(residual),
        })
    }

    fn hessian_band(&self, q: &SVector<T, N>, scale: T, band: &mut BandMut<'_, T>) -> bool {
        self.base.hessian_band(q, scale, band)
            && self
                .constraint
                .penalty_hessian_band(q, &self.omega2, scale, band)
    }
}

impl<T, V, G, const N: usize, const D: usize> ThirdDerivative<T, N> for Penalty<T, V, G, D>
where
    T: Real,
    V: ThirdDerivative<T, N>,
    G: Constraint<T, N, D>,
{
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn third_contraction(&self, q: &SVector<T, N>, a: &SVector<T, N>) -> SVector<T, N> {
        let mut c = self
            .constraint
            .penalty_third_contraction(q, &self.omega2, a);
        // A linear base (gravity) adds nothing: no zero vector to form and add on a tick's path.
        if !V::VANISHES {
            let b = self.base.third_contraction(q, a);
            for i in 0..N {
                c[i] = b[i] + c[i];
            }
        }
        c
    }
}
