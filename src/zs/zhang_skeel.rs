//! Zhang and Skeel's symplectic method (Z&S), 000 Integrator 1.1, eq 1.3.

use super::family::{linear_force, LinearlyImplicit, Member, ZsFamily};
use super::ZsParams;
use crate::driver::Method;
use crate::linalg::{Dense, ShiftedSolve};
use crate::model::{System, ThirdDerivative};
use crate::sealed;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::SVector;

/// Z&S (000 Integrator 1.1, eq 1.3; Zhang & Skeel 1997 §3):
///
/// ```text
/// (M + βh² Hess V(x_k)) a_k = −∇V(x_k)                  one symmetric linear solve
/// f_k     = a_k − ½ β² h⁴ M⁻¹ (a_k · V‴(x_k) · a_k)      third-derivative correction
/// x_{k+1} = x_k + h v_k + ½ h² f_k
/// v_{k+1} = v_k + ½ h (f_k + f_{k+1})
/// ```
///
/// It is the Euler–Lagrange map of the discrete Lagrangian 000 eq 1.2, hence **variational and
/// symplectic** (Thm 2.12) and momentum-map preserving; **symmetric** (Cor 2.10); **second
/// order** (Cor 2.8); **unconditionally linearly stable iff `β ≥ ¼`** (Thm 2.5). Linearly
/// implicit: no Newton iteration, a fixed cost per step — one gradient, one Hessian, one
/// factorisation and solve (strategy `S`, [`Dense`] by default), one contraction `a·V‴·a`; `f` at
/// the end of a step is reused at the start of the next (cache keyed on position and `h²`).
///
/// # Errors
/// `step` returns [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
/// [`StepError::Singular`] when `M + βh² Hess V` is singular (an indefinite matrix falls back
/// from `LDLᵀ` to LU), [`StepError::NonFiniteResult`] when the result overflows. The state is
/// then unchanged.
///
/// The methods every member of the family shares (`system`, `system_mut`, `beta`, the held
/// force of [`Actuate`](crate::forcing::Actuate)) are on [`ZsFamily`].
///
/// ```
/// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, Integrator};
/// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0).unwrap();
/// let mut zs = ZhangSkeel::new(osc.system(), 0.01, ZsParams::default()).unwrap();
/// let mut s = osc.initial_state();
/// zs.integrate(&mut s, 100).unwrap();
/// // q(1) = cos(1) to second order
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4);
/// ```
#[doc(alias = "Z&S")]
pub type ZhangSkeel<T, P, const N: usize, S = Dense> = ZsFamily<T, P, N, S, ZhangSkeelMember<T>>;

/// The member of [`ZhangSkeel`]: `½β²`, the factor of its third-derivative correction.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ZhangSkeelMember<T> {
    half_beta2: T,
}

impl<T: Real> ZhangSkeelMember<T> {
    fn for_beta(beta: T) -> Self {
        Self {
            half_beta2: beta * beta * T::lit(0.5),
        }
    }
}

impl<T> sealed::Sealed for ZhangSkeelMember<T> {}

/// A changed force refreshes the cached `f` at the last position: with a strategy that keeps its
/// factors ([`DenseKept`](crate::linalg::DenseKept)) by `a ← a + A⁻¹ δu` and the
/// third-derivative term at the new `a` (no new assembly or factorisation); otherwise the next
/// step evaluates `f` afresh.
impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> Member<T, P, N> for ZhangSkeelMember<T> {
    type Matrix = P;
    const LINEAR_IN_FORCE: bool = true;

    fn matrix(potential: &P) -> &P {
        potential
    }

    /// `f = a − ½β²h⁴ M⁻¹ (a · V‴(x) · a)`.
    #[inline]
    fn correct(&self, system: &System<T, P, N>, x: &SVector<T, N>, h2: T, f: &mut SVector<T, N>) {
        let c = system.potential.third_contraction(x, f);
        let m = system.mass.solve(&c);
        let k = self.half_beta2 * h2 * h2;
        for i in 0..N {
            f[i] -= m[i] * k;
        }
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> LinearlyImplicit<T, P, N>
    for ZhangSkeelMember<T>
{
    const DAMPED_SYMMETRIC: bool = false;

    /// The gradient with the matrix ([`ShiftedSolve::solve_force_in_place`]): the matrix is the
    /// whole potential's. Not on a bare-metal target, whose frames and flash the one-pass
    /// plumbing makes larger than the separate evaluations (the same values either way).
    #[cfg(not(target_os = "none"))]
    #[inline]
    fn solve_force<S: ShiftedSolve<T, N>>(
        system: &System<T, P, N>,
        solver: &mut S,
        x: &SVector<T, N>,
        beta_h2: T,
        out: &mut SVector<T, N>,
    ) -> Result<Option<crate::model::Measured<T>>, StepError> {
        solver.solve_force_in_place(&system.mass, &system.potential, x, beta_h2, out)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> ZhangSkeel<T, P, N, Dense> {
    /// Z&S with step `h`, parameters `params` and the dense solver.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"beta"` (`β < 0`).
    pub fn new(system: System<T, P, N>, h: T, params: ZsParams<T>) -> Result<Self, ConfigError> {
        Self::with_solver(system, h, params, Dense)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>>
    ZhangSkeel<T, P, N, S>
{
    /// Z&S with a given linear-solve strategy (e.g. [`Banded`](crate::linalg::Banded)).
    ///
    /// # Errors
    /// As [`ZhangSkeel::new`], plus [`ConfigError::Inconsistent`] when the strategy cannot work
    /// with this system.
    pub fn with_solver(
        system: System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<Self, ConfigError> {
        Self::build(system, h, params, solver, |beta, _| {
            Ok(ZhangSkeelMember::for_beta(beta))
        })
    }

    /// Z&S (000 Integrator 1.1, eq 1.3) as [`ZhangSkeel::with_solver`] builds it, built in
    /// place in `slot`, for a device that keeps its integrator in a `static` (static RAM rather
    /// than stack): the system is copied from where the caller keeps it straight into the slot,
    /// so neither the system nor the method passes through the stack. The same method as
    /// [`ZhangSkeel::with_solver`] on `*system`, bit for bit.
    ///
    /// ```
    /// use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, linalg::Dense};
    /// use macrostep::Integrator;
    /// let osc = HarmonicOscillator::<f64, 2>::isotropic(1.0)?;
    /// let mut slot = None;
    /// let zs = ZhangSkeel::new_in(&mut slot, &osc.system(), 0.01, ZsParams::default(), Dense)?;
    /// let mut s = osc.initial_state();
    /// zs.integrate(&mut s, 100)?;
    /// assert!((s.q[0] - 1f64.cos()).abs() < 1e-4); // q(1) = cos(1) to second order
    /// let bad = ZhangSkeel::new_in(&mut slot, &osc.system(), -0.01, ZsParams::default(), Dense);
    /// assert!(bad.is_err() && slot.is_none()); // a failed construction leaves no method behind
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`ZhangSkeel::with_solver`]; `slot` is then `None`.
    pub fn new_in<'s>(
        slot: &'s mut Option<Self>,
        system: &System<T, P, N>,
        h: T,
        params: ZsParams<T>,
        solver: S,
    ) -> Result<&'s mut Self, ConfigError>
    where
        P: Copy,
    {
        Self::build_in(slot, system, h, params, solver, |beta| {
            ZhangSkeelMember::for_beta(beta)
        })
    }

    /// The method's force `f(x)` of eq 1.3 (the solve and the third-derivative correction) for
    /// step size squared `h2`, without the cache.
    ///
    /// # Errors
    /// As the step's linear solve.
    pub fn method_force(&mut self, x: &SVector<T, N>, h2: T) -> Result<SVector<T, N>, StepError> {
        // The solve replaces what the strategy keeps for the cached `f`.
        self.cache.clear();
        let mut f = SVector::zeros();
        let (member, beta) = (&self.member, self.beta);
        linear_force(member, &self.system, &mut self.solver, beta, x, h2, &mut f)?;
        Ok(f)
    }
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize, S: ShiftedSolve<T, N>> Method<T, N>
    for ZhangSkeel<T, P, N, S>
{
    const ORDER: u32 = 2;
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = true;

    #[inline]
    fn propose(
        &mut self,
        state: &State<T, N>,
        h: T,
        next: &mut State<T, N>,
    ) -> Result<T, StepError> {
        self.two_stage(state, h, next, linear_force)?;
        Ok(T::zero())
    }
}

#[cfg(test)]
mod tests {
    use super::ZhangSkeel;
    use crate::driver::Guarded;
    use crate::guard::Probe;
    use crate::linalg::DenseKept;
    use crate::systems::DoublePendulum;
    use crate::zs::ZsParams;
    use crate::{Guards, Integrator, Real, State, Stepper};
    use nalgebra::SVector;

    /// Positions and velocities of the double pendulum away from the paper's start: angles over
    /// the whole circle, the rods stretched or compressed by a few per cent.
    fn states<T: Real>(dp: &DoublePendulum<T>) -> [State<T, 4>; 6] {
        let at = |theta: f64, phi: f64, stretch: f64, v: [f64; 4]| {
            let q = dp.from_angles(T::lit(theta), T::lit(phi)) * T::lit(stretch);
            State::new(T::zero(), q, SVector::from(v.map(T::lit)))
        };
        [
            at(0.3, -1.2, 1.0, [0.0; 4]),
            at(2.0, 0.5, 1.02, [0.4, -0.1, 1.5, 0.3]),
            at(-2.8, 3.0, 0.97, [-2.0, 0.7, 0.2, -1.1]),
            at(1.57, -1.57, 1.0, [0.0, 3.0, -3.0, 0.0]),
            at(-0.7, 2.4, 1.01, [1.0, 1.0, -1.0, 2.5]),
            at(3.1, 0.0, 0.99, [0.05, 0.0, 0.0, -0.05]),
        ]
    }

    /// One step of Z&S with the dense strategy (the 2×2-block solve for `N = 4`) and with
    /// `DenseKept` (the generic `LDLᵀ`) from `s`, and the force of each at `s.q`.
    #[allow(clippy::type_complexity)]
    fn both<T: Real>(omega: f64, h: f64, s: State<T, 4>) -> ([State<T, 4>; 2], [SVector<T, 4>; 2]) {
        let sys = DoublePendulum::<T>::paper()
            .penalised(T::lit(omega))
            .expect("valid");
        let p = ZsParams::with_beta(T::lit(0.4));
        let mut fast = ZhangSkeel::new(sys, T::lit(h), p).expect("valid");
        let mut ldlt = ZhangSkeel::with_solver(sys, T::lit(h), p, DenseKept::new()).expect("valid");
        // The comparison is of the solves: the stretched starts would trip the energy guard.
        fast.set_guards(Guards::off()).expect("valid");
        ldlt.set_guards(Guards::off()).expect("valid");
        let h2 = T::lit(h * h);
        let f = [
            fast.method_force(&s.q, h2).expect("solvable"),
            ldlt.method_force(&s.q, h2).expect("solvable"),
        ];
        let (mut x, mut y) = (s, s);
        fast.step(&mut x).expect("finite");
        ldlt.step(&mut y).expect("finite");
        ([x, y], f)
    }

    const CASES: [(f64, f64); 4] = [(5.0, 0.05), (20.0, 0.1), (100.0, 0.01), (300.0, 0.02)];

    /// In f64 the block solve's force and step equal `LDLᵀ`'s to rounding, at states other
    /// than the paper's, for several ω and steps (a step up to the stiff amplification of a
    /// difference `δ` in the first force: it moves `q₁` by `h²δ/2`, the second force by
    /// `ω²h²δ/2`, so the velocity by about `(1 + (ωh)²) δ h`).
    #[test]
    fn block_solve_matches_ldlt_f64() {
        let dp = DoublePendulum::<f64>::paper();
        for (omega, h) in CASES {
            for s in states(&dp) {
                let ([x, y], [a, b]) = both(omega, h, s);
                let size = b.amax().max(1.0);
                let diff = (a - b).amax();
                assert!(diff <= 1e-12 * size, "ω {omega}: force differs by {diff:e}");
                let d = (x.q - y.q).amax().max((x.v - y.v).amax());
                let amplified = (1.0 + (omega * h) * (omega * h)) * 1e-12 * size;
                assert!(d <= amplified, "ω {omega}: a step differs by {d:e}");
            }
        }
    }

    /// In f32 the dense strategy's force and step are `LDLᵀ`'s bit for bit (the block solve is
    /// f64 only, so f32 runs, the firmware's among them, keep their values).
    #[test]
    fn f32_keeps_ldlt_bit_for_bit() {
        let dp = DoublePendulum::<f32>::paper();
        for (omega, h) in CASES {
            for s in states(&dp) {
                let ([x, y], [a, b]) = both(omega, h, s);
                assert_eq!(a, b, "ω {omega}: force");
                assert_eq!((x.q, x.v), (y.q, y.v), "ω {omega}: step");
            }
        }
    }

    /// The probe answers at the proposed position with what the force evaluation measured
    /// there, bit for bit the system's energy and residual, and measures any other position on
    /// the system.
    #[test]
    fn handed_measurements_are_the_systems() {
        let dp = DoublePendulum::<f64>::paper();
        let sys = dp.penalised(20.0).expect("valid");
        let mut zs = ZhangSkeel::new(sys, 0.1, ZsParams::with_beta(0.4)).expect("valid");
        zs.set_guards(Guards::off()).expect("valid");
        for s0 in states(&dp) {
            let mut s = s0;
            zs.integrate(&mut s, 3).expect("stable");
            let (_, probe) = zs.watch_and_probe();
            assert!(probe.measured.is_some(), "nothing handed over");
            assert_eq!(probe.energy(&s), Probe::energy(&sys, &s));
            assert_eq!(probe.residual(&s.q), Probe::residual(&sys, &s.q));
            let other = State::new(s.t, s.q * 1.01, s.v);
            assert_eq!(probe.energy(&other), Probe::energy(&sys, &other));
            assert_eq!(probe.residual(&other.q), Probe::residual(&sys, &other.q));
        }
    }
}
