//! What every linearisation shares: the factorised step matrix reused for every column, the
//! matrix `V‴[a]` by polarisation, the inverse mass, and the chain rule of the two-stage form.

use super::StepJacobian;
use crate::linalg::pivot_floor;
use crate::model::{Mass, ThirdDerivative};
use crate::validate::check_step_input;
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// The step's input checks (as the driver's).
pub(super) fn check_input<T: Real, const N: usize>(
    state: &State<T, N>,
    h: T,
) -> Result<(), StepError> {
    check_step_input(state, h)
}

/// `K = M + s·H` factorised once (LU with partial pivoting, `PK = LU`); the solves reuse the
/// factors.
pub(super) struct Factored<T: Real, const N: usize> {
    lu: SMatrix<T, N, N>,
    perm: [usize; N],
}

impl<T: Real, const N: usize> Factored<T, N> {
    /// Factorises `M + s·H`.
    ///
    /// # Errors
    /// [`StepError::Singular`] when a pivot is below `N·ε·max|pivot|` or not finite.
    pub(super) fn new(mass: &Mass<T, N>, s: T, h: &SMatrix<T, N, N>) -> Result<Self, StepError> {
        Self::matrix(mass.matrix() + h * s)
    }

    /// Factorises `k`.
    ///
    /// # Errors
    /// As [`Factored::new`].
    #[allow(clippy::needless_range_loop)]
    pub(super) fn matrix(mut lu_m: SMatrix<T, N, N>) -> Result<Self, StepError> {
        if !lu_m.iter().all(|x| x.finite()) {
            return Err(StepError::Singular);
        }
        // Entries through the column arrays (`a[j][i]` is `lu[(i, j)]`) indexed by loop counters,
        // the pivot row only through `swap_entries`: no bounds-check panic branch on the device.
        let lu = &mut lu_m.data.0;
        let mut perm: [usize; N] = core::array::from_fn(|i| i);
        let mut max = T::zero();
        for k in 0..N {
            let (mut p, mut best) = (k, lu[k][k].abs());
            for i in (k + 1)..N {
                let v = lu[k][i].abs();
                if v > best {
                    (p, best) = (i, v);
                }
            }
            if p != k {
                for column in lu.iter_mut() {
                    swap_entries(column, p, k);
                }
                swap_entries(&mut perm, p, k);
            }
            let d = lu[k][k];
            if !(d != T::zero() && d.finite()) {
                return Err(StepError::Singular);
            }
            max = max.max(d.abs());
            for i in (k + 1)..N {
                let l = lu[k][i] / d;
                lu[k][i] = l;
                for j in (k + 1)..N {
                    let u = lu[j][k];
                    lu[j][i] -= l * u;
                }
            }
        }
        let floor = pivot_floor(N, max);
        if (0..N).any(|k| lu[k][k].abs() <= floor) {
            return Err(StepError::Singular);
        }
        let lu = lu_m;
        Ok(Self { lu, perm })
    }

    /// `K⁻¹ b` for every column of `b`, in place.
    #[allow(clippy::needless_range_loop)]
    pub(super) fn solve<const C: usize>(&self, b: &mut SMatrix<T, N, C>) {
        for c in 0..C {
            // The permuted row through `get` (a permutation entry is always in range): no
            // bounds-check panic branch on the device.
            let mut x: [T; N] =
                core::array::from_fn(|i| b.get((self.perm[i], c)).copied().unwrap_or(T::zero()));
            let lu = &self.lu.data.0;
            for i in 0..N {
                for j in 0..i {
                    x[i] -= lu[j][i] * x[j];
                }
            }
            for i in (0..N).rev() {
                for j in (i + 1)..N {
                    x[i] -= lu[j][i] * x[j];
                }
                x[i] /= lu[i][i];
            }
            for i in 0..N {
                b[(i, c)] = x[i];
            }
        }
    }
}

/// Swaps entries `i` and `j`; nothing if either is out of range (a pivot row never is).
#[inline]
fn swap_entries<T>(v: &mut [T], i: usize, j: usize) {
    if i < v.len() && j < v.len() {
        v.swap(i, j);
    }
}

/// `M⁻¹` as a matrix (columns `M⁻¹ eⱼ`).
pub(super) fn mass_inverse<T: Real, const N: usize>(mass: &Mass<T, N>) -> SMatrix<T, N, N> {
    let mut out = SMatrix::<T, N, N>::identity();
    for j in 0..N {
        let c = mass.solve(&out.column(j).into_owned());
        out.set_column(j, &c);
    }
    out
}

/// `V‴(x)[a]`, the matrix `Σₖ ∂³V/∂xᵢ∂xⱼ∂xₖ aₖ`, from the exact contraction `c(b) = b·V‴·b` by
/// polarisation: column `j` is `(c(a + σeⱼ) − c(a − σeⱼ)) / 4σ` (exact for the quadratic
/// `c`; `σ = max(1, |a|∞)` balances the two terms). `2N` contractions.
pub(super) fn third_matrix<T: Real, P: ThirdDerivative<T, N> + ?Sized, const N: usize>(
    p: &P,
    x: &SVector<T, N>,
    a: &SVector<T, N>,
) -> SMatrix<T, N, N> {
    let sigma = a.amax().max(T::one());
    let quarter = T::one() / (sigma * T::lit(4.0));
    let mut out = SMatrix::<T, N, N>::zeros();
    for j in 0..N {
        let (mut plus, mut minus) = (*a, *a);
        plus[j] += sigma;
        minus[j] -= sigma;
        let c = (p.third_contraction(x, &plus) - p.third_contraction(x, &minus)) * quarter;
        out.set_column(j, &c);
    }
    // Symmetric in exact arithmetic: symmetrise the roundoff away.
    (out + out.transpose()) * T::lit(0.5)
}

/// The force `f`, its derivatives `F = ∂f/∂x` and `G = ∂f/∂u` at one position.
pub(super) struct ForceJacobian<T: Real, const N: usize> {
    pub(super) f: SVector<T, N>,
    pub(super) fx: SMatrix<T, N, N>,
    pub(super) fu: SMatrix<T, N, N>,
}

impl<T: Real, const N: usize> ForceJacobian<T, N> {
    /// All zero (a place to write into).
    pub(super) fn zeros() -> Self {
        Self {
            f: SVector::zeros(),
            fx: SMatrix::zeros(),
            fu: SMatrix::zeros(),
        }
    }
}

/// The chain rule of the two-stage form (000 eq 2.10) `q⁺ = q + h v + ½h² f(q)`,
/// `v⁺ = v + ½h (f(q) + f(q⁺))` from the force derivatives at `q` (`j0`) and at `q⁺` (`j1`).
pub(super) fn two_stage<T: Real, const N: usize>(
    h: T,
    j0: &ForceJacobian<T, N>,
    j1: &ForceJacobian<T, N>,
) -> StepJacobian<T, N> {
    let mut j = two_stage_state(h, j0, j1);
    let (ch, c0) = (h * T::lit(0.5), h * h * T::lit(0.5));
    j.bq = j0.fu * c0;
    j.bv = (j0.fu + j1.fu + j1.fx * j.bq) * ch;
    j
}

/// The state blocks of [`two_stage`] (`fu` unused; `bq`, `bv` zero).
pub(super) fn two_stage_state<T: Real, const N: usize>(
    h: T,
    j0: &ForceJacobian<T, N>,
    j1: &ForceJacobian<T, N>,
) -> StepJacobian<T, N> {
    let i = SMatrix::<T, N, N>::identity();
    let (ch, c0) = (h * T::lit(0.5), h * h * T::lit(0.5));
    let qq = i + j0.fx * c0;
    let z = SMatrix::zeros();
    StepJacobian {
        qq,
        qv: i * h,
        vq: (j0.fx + j1.fx * qq) * ch,
        vv: i + j1.fx * (ch * h),
        bq: z,
        bv: z,
    }
}

/// The result, or [`StepError::NonFiniteResult`] when an entry overflowed.
pub(super) fn finite<T: Real, const N: usize>(
    j: StepJacobian<T, N>,
) -> Result<StepJacobian<T, N>, StepError> {
    if j.is_finite() {
        Ok(j)
    } else {
        Err(StepError::NonFiniteResult)
    }
}

/// The two-stage form's linearisation (000 eq 2.10) from its force: the step's input checks,
/// the force and its derivatives `at` `q`, the drift to `q⁺` ([`drift`]), the force at `q⁺`,
/// and the chain rule ([`two_stage`]), checked finite. Every two-stage member (velocity Verlet,
/// push-forward Newmark, Z&Ss, stiff Z&Ss) differs only in `at`.
pub(super) fn two_stage_by<T: Real, const N: usize>(
    state: &State<T, N>,
    h: T,
    at: impl Fn(&SVector<T, N>) -> Result<ForceJacobian<T, N>, StepError>,
) -> Result<StepJacobian<T, N>, StepError> {
    check_input(state, h)?;
    let j0 = at(&state.q)?;
    let j1 = at(&drift(state, h, &j0.f)?)?;
    finite(two_stage(h, &j0, &j1))
}

/// `q + h v + ½ h² f`, checked finite (the step's intermediate position).
pub(super) fn drift<T: Real, const N: usize>(
    state: &State<T, N>,
    h: T,
    f: &SVector<T, N>,
) -> Result<SVector<T, N>, StepError> {
    let q = state.q + state.v * h + f * (h * h * T::lit(0.5));
    if q.iter().all(|x| x.finite()) {
        Ok(q)
    } else {
        Err(StepError::NonFiniteResult)
    }
}
