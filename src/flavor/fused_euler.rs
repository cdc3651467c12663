//! Symplectic Euler with a stiffness-dependent ordering: the nonintrusive FLAVOR at the cost of
//! one legacy step (004 eqs 2.45, 2.49, 2.50).

use super::euler_map::{EulerKick, EulerMap};
use super::Stiffness;
use crate::model::{Potential, Split, System};
use crate::sealed::Sealed;
use crate::{validate::check_finite, ConfigError, Real, State};
use nalgebra::SVector;

/// Symplectic Euler over a [`Split`] `V + αU` whose stiff-on step is drift–kick (004 eq 2.50)
/// and whose stiff-off step is kick–drift (eq 2.49):
///
/// ```text
/// Φ^α_h (on):   q' = q + h M⁻¹p,           p' = p − h[∇V(q') + α∇U(q')]      (eq 2.50)
/// Φ⁰_h  (off):  p' = p − h∇V(q),           q' = q + h M⁻¹p'                  (eq 2.49)
/// ```
///
/// Each is a first-order symplectic legacy map satisfying the thesis's consistency condition
/// (eq 2.43) for its `α` (nothing in Theorems 2.1.3/2.2.2 asks for the same ordering at `α = 0`
/// and `α = 1/ε`). The point is the nonintrusive FLAVOR step `Θ_δ = Φ⁰_{δ−τ} ∘ Φ^α_τ` (eq 2.45):
/// the off step's kick is evaluated where the on step's kick was, so the two kicks fuse and one
/// FLAVOR step costs one soft and one stiff gradient — one legacy step:
///
/// ```text
/// q₁ = q + τ M⁻¹p,   p₂ = p − δ∇V(q₁) − τα∇U(q₁),   q₂ = q₁ + (δ − τ) M⁻¹p₂
/// ```
///
/// The map's FLAVOR step computes exactly this (equal to the two separate sub-steps up to
/// rounding); [`Nonintrusive`](super::Nonintrusive) uses it.
/// Over the steps, the drifts `τ` and `δ − τ` of consecutive FLAVOR steps merge: the FLAVOR is
/// conjugate (by a drift of `τ`) to drift–kick symplectic Euler with step `δ` on
/// `V + (τ/δ)αU` — the stiff force slowed by `τ/δ`, which is the flow-averaging mechanism made
/// explicit, with the linear stability bound `δτω² < 4` of the [module docs](super).
///
/// With [`Switched::symplectic_euler`](super::Switched::symplectic_euler) (one ordering for both
/// stiffnesses) the off step's soft gradient is taken at a different point, so that FLAVOR costs
/// two soft gradients and one stiff gradient per step.
///
/// Properties: symplectic (each sub-step is), first order, not symmetric. The adjoint (on:
/// kick–drift, off: drift–kick) is available, so the [`Symmetric`](super::Symmetric) FLAVOR can
/// use this map. Autonomous: the fast clock is ignored.
///
/// # Errors
/// Construction: [`ConfigError::NonFinite`] `{ name: "alpha" }` when the split's `alpha` is not
/// finite. A step never fails (it checks nothing: the FLAVOR over it does).
///
/// ```
/// use macrostep::{flavor::{FusedEuler, Nonintrusive, Params}, systems::SpringTrimer, Integrator};
/// // System 2.100 (ε = 1e-6): one FLAVOR step of δ = 0.01 costs one symplectic Euler step.
/// let model = SpringTrimer::<f64>::paper();
/// let mut flavor = Nonintrusive::new(FusedEuler::new(model.system()).unwrap(),
///                                    Params::new(0.01, 2e-5).unwrap()).unwrap();
/// let mut s = model.initial_state();
/// flavor.integrate(&mut s, 100).unwrap(); // T = 1
/// let slow = (s.q[0] + s.q[1] + s.q[2]) / 3.0;
/// assert!(s.is_finite() && slow.abs() < 1.0);
/// ```
pub type FusedEuler<T, V, U, const N: usize> = EulerMap<FusedKick<T, V, U, N>, N>;

/// The kick of [`FusedEuler`]: the split system and its "on" stiffness; drift–kick with the
/// stiffness on, kick–drift with it off (the adjoint the other way round), and the fused FLAVOR
/// step.
#[derive(Clone, Copy, Debug)]
pub struct FusedKick<T: Real, V, U, const N: usize> {
    system: System<T, Split<T, V, U>, N>,
    on: T,
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> FusedEuler<T, V, U, N> {
    /// The map over `system`; the "on" stiffness is the split's `alpha`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] `{ name: "alpha" }`.
    pub fn new(system: System<T, Split<T, V, U>, N>) -> Result<Self, ConfigError> {
        let on = check_finite(system.potential.alpha, "alpha")?;
        Ok(Self {
            kick: FusedKick { system, on },
        })
    }

    /// The system (its split's `alpha` is the "on" stiffness).
    pub fn system(&self) -> &System<T, Split<T, V, U>, N> {
        &self.kick.system
    }

    /// The "on" stiffness `α`.
    pub fn stiffness_on(&self) -> T {
        self.kick.on
    }
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> FusedKick<T, V, U, N> {
    /// The fused step of the working state `x`, in place: one soft and one stiff gradient (see
    /// the type docs).
    ///
    /// Written as component loops: the operations and their order are those of the vector
    /// expressions `q₁ = q + τv`, `g = h∇V(q₁) + τα∇U(q₁)`, `v −= M⁻¹g`, `q = q₁ + (h − τ)v`
    /// (bit-identical), without the temporaries the vector operators copy at `opt-level = "s"`.
    #[inline]
    fn fused(&self, x: &mut State<T, N>, h: T, tau: T) {
        let mut q1 = x.q;
        for i in 0..N {
            q1[i] += x.v[i] * tau;
        }
        let split = &self.system.potential;
        let mut g = split.soft.gradient(&q1);
        let stiff = split.stiff.gradient(&q1);
        let c = tau * self.on;
        for i in 0..N {
            g[i] = g[i] * h + stiff[i] * c;
        }
        let dv = self.system.mass.solve(&g);
        let drift = h - tau;
        for i in 0..N {
            x.v[i] -= dv[i];
            x.q[i] = q1[i] + x.v[i] * drift;
        }
        x.t += h;
    }
}

impl<T: Real, V, U, const N: usize> Sealed for FusedKick<T, V, U, N> {}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> EulerKick<T, N>
    for FusedKick<T, V, U, N>
{
    /// Drift–kick (eq 2.50) with the stiffness on, kick–drift (eq 2.49) with it off.
    fn drift_first(stiffness: Stiffness<T>) -> bool {
        matches!(stiffness, Stiffness::On { .. })
    }

    /// `−M⁻¹ ∇(V + αU)(q)` with `α` as switched; autonomous.
    #[inline]
    fn acceleration(&self, _t: T, q: &SVector<T, N>, stiffness: Stiffness<T>) -> SVector<T, N> {
        let split = &self.system.potential;
        let mut g = split.soft.gradient(q);
        if let Stiffness::On { .. } = stiffness {
            g += split.stiff.gradient(q) * self.on;
        }
        -self.system.mass.solve(&g)
    }

    #[inline]
    fn fused_step(&self, x: &mut State<T, N>, h: T, tau: T) -> bool {
        self.fused(x, h, tau);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flavor::{Nonintrusive, Params};
    use crate::model::{Mass, Quadratic};
    use crate::{Guards, Integrator, StepError, Stepper};
    use nalgebra::{matrix, vector};

    fn map() -> FusedEuler<f64, Quadratic<f64, 2>, Quadratic<f64, 2>, 2> {
        let split = Split::new(
            Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
            Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]),
            1e4,
        );
        FusedEuler::new(System::new(Mass::identity(), split)).unwrap()
    }

    /// The fused step is the vector expression of the type docs, bit for bit (a full mass
    /// matrix, a step with `h ≠ δ`, in f64 and f32).
    #[test]
    fn fused_step_is_the_vector_expression_bit_for_bit() {
        fn check<T: Real>(h: f64) {
            let c = |x: f64| T::lit(x);
            let split = Split::new(
                Quadratic::new(matrix![c(1.3), c(0.2); c(0.2), c(0.0)]),
                Quadratic::new(matrix![c(1.0), c(-1.0); c(-1.0), c(1.0)]),
                c(2.5e3),
            );
            let mass = Mass::full(matrix![c(2.0), c(0.3); c(0.3), c(0.7)]).unwrap();
            let system = System::new(mass, split);
            let (delta, tau) = (c(0.01), c(3e-4));
            let mut f = Nonintrusive::new(
                FusedEuler::new(system).unwrap(),
                Params::new(delta, tau).unwrap(),
            )
            .unwrap()
            .with_guards(Guards::off())
            .unwrap();
            let s0 = State::new(c(0.7), vector![c(0.41), c(-1.3)], vector![c(0.9), c(0.25)]);
            let (h, tau) = (c(h), tau * (c(h) / delta));
            let q1 = s0.q + s0.v * tau;
            let split = &system.potential;
            let g = split.soft.gradient(&q1) * h + split.stiff.gradient(&q1) * (tau * split.alpha);
            let v = s0.v - system.mass.solve(&g);
            let q = q1 + v * (h - tau);
            let mut s = s0;
            f.step_by(&mut s, h).unwrap();
            assert_eq!((s.q, s.v), (q, v));
        }
        check::<f64>(0.007);
        check::<f32>(0.007);
    }

    /// The FLAVOR over the map checks the input and the result; the state is left bit-identical
    /// on error.
    #[test]
    fn rejects_bad_input_and_keeps_state() {
        let m = map();
        let mut sys = *m.system();
        sys.potential.alpha = f64::NAN;
        assert_eq!(
            FusedEuler::new(sys).unwrap_err(),
            ConfigError::NonFinite { name: "alpha" }
        );
        let mut f = Nonintrusive::new(m, Params::new(0.01, 1e-4).unwrap())
            .unwrap()
            .with_guards(Guards::off())
            .unwrap();
        let nan = State::new(0.0, vector![f64::NAN, 0.0], vector![0.0, 0.0]);
        let mut s = nan;
        assert_eq!(f.step(&mut s), Err(StepError::NonFiniteState));
        let s0 = State::new(0.0, vector![0.1, 0.2], vector![0.0, 0.0]);
        let mut s = s0;
        for h in [0.0, f64::INFINITY] {
            assert_eq!(f.step_by(&mut s, h), Err(StepError::StepSize));
            assert_eq!(s, s0);
        }
        // Overflow: the state is left bit-identical.
        let big = State::new(0.0, vector![1e308, -1e308], vector![0.0, 0.0]);
        let mut s = big;
        assert_eq!(f.step(&mut s), Err(StepError::NonFiniteResult));
        assert_eq!(s, big);
    }
}
