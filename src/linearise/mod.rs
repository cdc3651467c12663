//! Exact linearisations of the discrete step: `A = ∂(q⁺, v⁺)/∂(q, v)` and `B = ∂(q⁺, v⁺)/∂u`
//! for a generalized force `u` held over the step, what LQR, MPC and a Kalman filter need
//! ([`crate::control`]).
//!
//! [`Linearise::linearise`] differentiates the step itself, not the continuous model and not by
//! finite differences: the linearly implicit solve by the implicit function theorem
//! (`K a = −∇V` gives `K ∂a = −(Hess V + s·V‴[a]) ∂x`, one factorisation of `K` reused for all
//! `2N` columns), the derivative of the Hessian in the matrix (`V‴[a]`, the matrix
//! `Σₖ ∂³V/∂qᵢ∂qⱼ∂qₖ aₖ`) by polarisation of the potential's exact `a·V‴·a`
//! ([`ThirdDerivative`](crate::model::ThirdDerivative)), and Z&S's correction term by the fourth
//! derivative ([`FourthDerivative`], from the crate's AD). No iteration; the cost is fixed.
//!
//! The held force `u` enters every method as the [`Actuated`](crate::forcing::Actuated)
//! potential does, `−∇V + u` (a zero-order hold of a generalized force), so `B` is the
//! sensitivity to the actuator force of a [`set_force`](crate::forcing::Actuate::set_force)
//! loop; with a force acting through a matrix `E` (`u = E w`) the input matrix is `B E`.
//!
//! The linearisation applies the step's input checks ([`StepError::StepSize`],
//! [`StepError::NonFiniteState`]) and reports the step's failures ([`StepError::Singular`],
//! [`StepError::NonFiniteResult`]); it takes `&self`, so the state, the clock, the guard memory and
//! the method's caches are untouched. It does not apply the step guards: it linearises the map
//! the step proposes.
//!
//! | method | file | cost of a linearisation |
//! |---|---|---|
//! | [`ZhangSkeel`](crate::zs::ZhangSkeel) (needs [`FourthDerivative`]) | `zs.rs` | at `q` and `q⁺`: a Hessian, a factorisation, `2N` `a·V‴·a`, `N` fourth-derivative contractions |
//! | [`Sylipn`](crate::zs::Sylipn), [`StiffSylipn`](crate::zs::StiffSylipn) | `zs.rs` | at `q` and `q⁺`: a Hessian, a factorisation, `2N` `a·V‴·a` |
//! | [`VelocityVerlet`](crate::baselines::VelocityVerlet), [`SymplecticEuler`](crate::baselines::SymplecticEuler) | `baselines.rs` | two Hessians (one) |
//! | [`Damped`](crate::forcing::Damped) over any of these | `forcing.rs` | the inner one, one flow `exp(−½h M⁻¹C)` |
//! | [`DampedZs`](crate::zs::DampedZs) over Z&S, Z&Ss, stiff Z&Ss | `damped_zs.rs` | as the undamped member (Z&Ss needs [`FourthDerivative`] here) |
//! | [`Newmark`](crate::zs::Newmark), [`PushForwardNewmark`](crate::zs::PushForwardNewmark) | `newmark.rs` | the step's Newton solve (push-forward: two), then one more Hessian and factorisation per solve |
//! | [`NewmarkOneIteration`](crate::zs::NewmarkOneIteration) (needs [`ThirdDerivative`](crate::model::ThirdDerivative)) | `newmark.rs` | two Hessians, a factorisation, `2N` `a·V‴·a` (its one Newton update differentiated) |
//! | [`Rattle`](crate::constrained::Rattle), in tangent coordinates: [`Rattle::linearise_tangent`](crate::constrained::Rattle::linearise_tangent) → [`TangentJacobian`] | `rattle.rs` | the step, two Hessians of `V`, the constraint's weighted Hessians, three `D × D` factorisations |
//!
//! Measured on a two-degree-of-freedom spring (`reproduce linearise`, thread CPU time): a
//! linearisation costs about 6 (symplectic Euler) to 10 (Verlet, Z&Ss) steps of the same
//! method; the ratio grows with `N` (a Hessian and `2N` contractions against one gradient).
//! Not linearised yet: the other families.
//!
//! RATTLE's state lives on the solution manifold `{g(q) = 0, g'(q)v = 0}` of dimension
//! `2(N − D)`; its linearisation is returned in tangent coordinates of that manifold, a
//! [`TangentJacobian`] of `(N − D) × (N − D)` blocks (the reduced size `R = N − D` is a const
//! parameter checked against `N − D` at compile time). The coordinates are Darboux coordinates
//! of the restricted symplectic form, so the reduced `A` is symplectic in the canonical `J`
//! (see [`rattle`]'s docs for the construction).
//!
//! `reproduce linearise` prints the measured cost ratios (`linearise.<method>.cost_ratio`).
//!
//! ```
//! use macrostep::linearise::Linearise;
//! use macrostep::{systems::HarmonicOscillator, zs::{ZhangSkeel, ZsParams}, State};
//! use macrostep::nalgebra::{vector, SMatrix};
//! let osc = HarmonicOscillator::<f64, 1>::isotropic(2.0).unwrap();
//! let zs = ZhangSkeel::new(osc.system(), 0.1, ZsParams::default()).unwrap();
//! let j = zs.linearise(&State::new(0.0, vector![0.3], vector![-0.2])).unwrap();
//! let a: SMatrix<f64, 2, 2> = j.a();
//! // A linear system: the step is linear, and symplectic (det A = 1 in one dimension).
//! assert!((a.determinant() - 1.0).abs() < 1e-14);
//! ```

mod baselines;
mod damped_zs;
mod forcing;
mod fourth;
mod kernel;
mod newmark;
pub mod rattle;
mod zs;

pub use fourth::FourthDerivative;
pub use rattle::TangentJacobian;

use crate::model::Mass;
use crate::{Integrator, Real, State, StepError};
use nalgebra::SMatrix;

/// The linearisation of one step, in `N × N` blocks (stable Rust cannot name `2N` in a type):
///
/// ```text
/// δq⁺ = qq δq + qv δv + bq δu
/// δv⁺ = vq δq + vv δv + bv δu
/// ```
///
/// [`StepJacobian::a`] and [`StepJacobian::b`] assemble the `2N × 2N` and `2N × N` matrices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepJacobian<T: Real, const N: usize> {
    /// `∂q⁺/∂q`.
    pub qq: SMatrix<T, N, N>,
    /// `∂q⁺/∂v`.
    pub qv: SMatrix<T, N, N>,
    /// `∂v⁺/∂q`.
    pub vq: SMatrix<T, N, N>,
    /// `∂v⁺/∂v`.
    pub vv: SMatrix<T, N, N>,
    /// `∂q⁺/∂u`.
    pub bq: SMatrix<T, N, N>,
    /// `∂v⁺/∂u`.
    pub bv: SMatrix<T, N, N>,
}

impl<T: Real, const N: usize> StepJacobian<T, N> {
    /// All blocks zero (a place for [`Linearise::linearise_into`] to write into).
    pub fn zeros() -> Self {
        let z = SMatrix::zeros();
        Self {
            qq: z,
            qv: z,
            vq: z,
            vv: z,
            bq: z,
            bv: z,
        }
    }

    /// `A = [[qq, qv], [vq, vv]]` as an `S × S` matrix; `S = 2N` is checked at compile time.
    pub fn a<const S: usize>(&self) -> SMatrix<T, S, S> {
        const { assert!(S == 2 * N, "StepJacobian::a: S must be 2N") };
        let mut a = SMatrix::<T, S, S>::zeros();
        for i in 0..N {
            for j in 0..N {
                a[(i, j)] = self.qq[(i, j)];
                a[(i, j + N)] = self.qv[(i, j)];
                a[(i + N, j)] = self.vq[(i, j)];
                a[(i + N, j + N)] = self.vv[(i, j)];
            }
        }
        a
    }

    /// `B = [[bq], [bv]]` as an `S × N` matrix; `S = 2N` is checked at compile time.
    pub fn b<const S: usize>(&self) -> SMatrix<T, S, N> {
        const { assert!(S == 2 * N, "StepJacobian::b: S must be 2N") };
        let mut b = SMatrix::<T, S, N>::zeros();
        for i in 0..N {
            for j in 0..N {
                b[(i, j)] = self.bq[(i, j)];
                b[(i + N, j)] = self.bv[(i, j)];
            }
        }
        b
    }

    /// The defect `max |AₚᵀJAₚ − J|` of the canonical symplectic form, with `Aₚ` the map in
    /// `(q, p = M v)`: zero (to roundoff) for a symplectic method.
    pub fn symplectic_defect(&self, mass: &Mass<T, N>) -> T {
        let m = mass.matrix();
        let mut minv = SMatrix::<T, N, N>::identity();
        for j in 0..N {
            let c = mass.solve(&minv.column(j).into_owned());
            minv.set_column(j, &c);
        }
        let (a, b, c, d) = (self.qq, self.qv * minv, m * self.vq, m * self.vv * minv);
        let i = SMatrix::<T, N, N>::identity();
        let b1 = a.transpose() * c - c.transpose() * a;
        let b2 = a.transpose() * d - c.transpose() * b - i;
        let b3 = b.transpose() * d - d.transpose() * b;
        b1.amax().max(b2.amax()).max(b3.amax())
    }

    /// Whether every entry is finite.
    pub fn is_finite(&self) -> bool {
        [self.qq, self.qv, self.vq, self.vv, self.bq, self.bv]
            .iter()
            .all(|m| m.iter().all(|x| x.finite()))
    }
}

/// A method whose step has an exact linearisation (see the [module docs](self)).
pub trait Linearise<T: Real, const N: usize>: Integrator<T, N> {
    /// The linearisation of one step of the configured size from `state`.
    ///
    /// # Errors
    /// As [`Linearise::linearise_by`].
    fn linearise(&self, state: &State<T, N>) -> Result<StepJacobian<T, N>, StepError> {
        self.linearise_by(state, self.step_size())
    }

    /// The linearisation of one step of signed size `h` from `state`, with the held force of the
    /// method's potential (if any) as the operating point of `u`.
    ///
    /// # Errors
    /// [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input (the step's
    /// checks), [`StepError::Singular`] when a matrix the step solves with is singular,
    /// [`StepError::NonFiniteResult`] when the step or its derivative overflows.
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError>;

    /// [`Linearise::linearise`] written into `out`, which is unchanged on `Err`: the same values,
    /// without moving the blocks through a `Result` (on a Cortex-M that move is a byte-wise
    /// copy, twice; Z&S writes in place, the other methods through `linearise`).
    ///
    /// # Errors
    /// As [`Linearise::linearise_by`].
    fn linearise_into(
        &self,
        state: &State<T, N>,
        out: &mut StepJacobian<T, N>,
    ) -> Result<(), StepError> {
        *out = self.linearise(state)?;
        Ok(())
    }

    /// The state blocks `qq`, `qv`, `vq`, `vv` of [`Linearise::linearise`] (the `A` a filter's
    /// prediction needs) written into `out`, with `bq` and `bv` zero; `out` is unchanged on
    /// `Err`. Z&S skips the input sensitivities (at each of its two points an `N`-column solve
    /// and two products); the other methods compute everything.
    ///
    /// # Errors
    /// As [`Linearise::linearise_by`].
    fn linearise_state_into(
        &self,
        state: &State<T, N>,
        out: &mut StepJacobian<T, N>,
    ) -> Result<(), StepError> {
        self.linearise_into(state, out)?;
        out.bq = SMatrix::zeros();
        out.bv = SMatrix::zeros();
        Ok(())
    }
}
