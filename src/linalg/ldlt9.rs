//! The `LDLᵀ` solve of [`solve_symmetric`](super::solve_symmetric) for `N = 9`, written out
//! (every loop unrolled by a macro over literal indices): the same operations in the same order,
//! so the same bits, without the loop counters and address arithmetic that dominate the generic
//! code on a Cortex-M4F at opt-level "s" (the SO(3) step's 9×9 solve, `crate::lie`).

use super::{all_finite, pivot_floor};
use crate::{Real, StepError};
use nalgebra::{SMatrix, SVector};

/// Row `j` of `A = L D Lᵀ`: for each `k < j` (with its `p < k`),
/// `v[k] = A[j,k] − Σₚ v[p] L[k,p]`, `L[j,k] = v[k] / D[k]`, `D[j] = A[j,j] − Σₖ v[k] L[j,k]`.
macro_rules! ldlt_row {
    ($m:ident, $v:ident, $j:literal; $($k:literal: [$($p:literal)*]),*) => {{
        #[allow(unused_mut)]
        let mut dj = $m[$j][$j];
        $(
            #[allow(unused_mut)]
            let mut s = $m[$k][$j];
            $( s -= $v[$p] * $m[$p][$k]; )*
            $v[$k] = s;
            let l = s / $m[$k][$k];
            $m[$k][$j] = l;
            dj -= s * l;
        )*
        if dj <= T::zero() || !dj.finite() {
            return false;
        }
        $m[$j][$j] = dj;
    }};
}

/// `x[i] −= Σₖ L[i,k] x[k]` over the listed `k < i`.
macro_rules! forward {
    ($m:ident, $x:ident, $i:literal; $($k:literal)*) => {{
        #[allow(unused_mut)]
        let mut s = $x[$i];
        $( s -= $m[$k][$i] * $x[$k]; )*
        $x[$i] = s;
    }};
}

/// `x[i] −= Σₖ L[k,i] x[k]` over the listed `k > i`.
macro_rules! backward {
    ($m:ident, $x:ident, $i:literal; $($k:literal)*) => {{
        #[allow(unused_mut)]
        let mut s = $x[$i];
        $( s -= $m[$i][$k] * $x[$k]; )*
        $x[$i] = s;
    }};
}

/// `A = L D Lᵀ` in place for a 9×9 `A` (lower triangle read, `L` stored below the diagonal and
/// `D` on it, the strict upper triangle untouched), as the generic factorisation. `false` when a
/// pivot is not positive and finite: `A` is then partly overwritten and the caller solves afresh
/// with [`solve_symmetric_in_place`](super::solve_symmetric_in_place) on the rebuilt matrix
/// (which fails at the same pivot and falls back to LU).
#[inline]
#[allow(unused_assignments)] // the last row's last `v[k]` is not read again
pub(crate) fn ldlt9_in_place<T: Real>(a: &mut SMatrix<T, 9, 9>) -> bool {
    let m = &mut a.data.0;
    let mut v = [T::zero(); 9];
    ldlt_row!(m, v, 0;);
    ldlt_row!(m, v, 1; 0: []);
    ldlt_row!(m, v, 2; 0: [], 1: [0]);
    ldlt_row!(m, v, 3; 0: [], 1: [0], 2: [0 1]);
    ldlt_row!(m, v, 4; 0: [], 1: [0], 2: [0 1], 3: [0 1 2]);
    ldlt_row!(m, v, 5; 0: [], 1: [0], 2: [0 1], 3: [0 1 2], 4: [0 1 2 3]);
    ldlt_row!(m, v, 6; 0: [], 1: [0], 2: [0 1], 3: [0 1 2], 4: [0 1 2 3], 5: [0 1 2 3 4]);
    ldlt_row!(m, v, 7; 0: [], 1: [0], 2: [0 1], 3: [0 1 2], 4: [0 1 2 3], 5: [0 1 2 3 4],
        6: [0 1 2 3 4 5]);
    ldlt_row!(m, v, 8; 0: [], 1: [0], 2: [0 1], 3: [0 1 2], 4: [0 1 2 3], 5: [0 1 2 3 4],
        6: [0 1 2 3 4 5], 7: [0 1 2 3 4 5 6]);
    true
}

/// Solves `L D Lᵀ x = b` with the factors of [`ldlt9_in_place`], `x` holding `b` on entry.
///
/// # Errors
/// [`StepError::Singular`] when a pivot `Dⱼ ≤ 9·ε·max D`, [`StepError::NonFiniteResult`] when
/// the solution is not finite: as the generic solve.
#[inline]
pub(crate) fn ldlt9_solve<T: Real>(
    a: &SMatrix<T, 9, 9>,
    x: &mut SVector<T, 9>,
) -> Result<(), StepError> {
    let m = &a.data.0;
    let mut max = T::zero();
    for (j, col) in m.iter().enumerate() {
        if col[j] > max {
            max = col[j];
        }
    }
    let floor = pivot_floor(9, max);
    for (j, col) in m.iter().enumerate() {
        if col[j] <= floor {
            return Err(StepError::Singular);
        }
    }
    let y = &mut x.data.0[0];
    forward!(m, y, 1; 0);
    forward!(m, y, 2; 0 1);
    forward!(m, y, 3; 0 1 2);
    forward!(m, y, 4; 0 1 2 3);
    forward!(m, y, 5; 0 1 2 3 4);
    forward!(m, y, 6; 0 1 2 3 4 5);
    forward!(m, y, 7; 0 1 2 3 4 5 6);
    forward!(m, y, 8; 0 1 2 3 4 5 6 7);
    for (i, yi) in y.iter_mut().enumerate() {
        *yi /= m[i][i];
    }
    backward!(m, y, 7; 8);
    backward!(m, y, 6; 7 8);
    backward!(m, y, 5; 6 7 8);
    backward!(m, y, 4; 5 6 7 8);
    backward!(m, y, 3; 4 5 6 7 8);
    backward!(m, y, 2; 3 4 5 6 7 8);
    backward!(m, y, 1; 2 3 4 5 6 7 8);
    backward!(m, y, 0; 1 2 3 4 5 6 7 8);
    if all_finite(x.as_slice()) {
        Ok(())
    } else {
        Err(StepError::NonFiniteResult)
    }
}

#[cfg(test)]
mod tests {
    use super::super::solve_symmetric;
    use super::*;

    /// A symmetric 9×9 matrix from a seed: `B Bᵀ + shift·I` with awkward entries.
    fn matrix(seed: u32, shift: f64) -> SMatrix<f64, 9, 9> {
        let mut s = seed;
        let b = SMatrix::<f64, 9, 9>::from_fn(|_, _| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f64::from(s >> 8) / f64::from(1u32 << 24) - 0.5
        });
        b * b.transpose() + SMatrix::identity() * shift
    }

    fn unrolled<T: Real>(
        mut a: SMatrix<T, 9, 9>,
        b: &SVector<T, 9>,
    ) -> Option<Result<SVector<T, 9>, StepError>> {
        let mut x = *b;
        ldlt9_in_place(&mut a).then(|| ldlt9_solve(&a, &mut x).map(|()| x))
    }

    /// Positive definite matrices: the generic solve's bits, in f32 and f64; an indefinite one is
    /// refused (the caller falls back); a numerically singular one is `Singular` on both paths.
    #[test]
    fn matches_the_generic_solve_bit_for_bit() {
        let b = SVector::<f64, 9>::from_fn(|i, _| 0.3 * i as f64 - 1.1);
        for seed in 0..20 {
            let a = matrix(seed, 0.05 * f64::from(seed));
            let x = unrolled(a, &b).expect("positive definite");
            assert_eq!(x, solve_symmetric(a, &b));
            let (a32, b32) = (a.cast::<f32>(), b.cast::<f32>());
            let bits = |x: SVector<f32, 9>| x.map(f32::to_bits);
            let x32 = unrolled(a32, &b32).expect("positive definite").map(bits);
            assert_eq!(x32, solve_symmetric(a32, &b32).map(bits));
        }
        let indefinite = matrix(3, -0.5);
        assert!(unrolled(indefinite, &b).is_none());
        assert!(solve_symmetric(indefinite, &b).is_ok());
        let mut singular = matrix(4, 1.0);
        for i in 0..9 {
            singular[(8, i)] = singular[(7, i)];
            singular[(i, 8)] = singular[(i, 7)];
        }
        singular[(8, 8)] = singular[(7, 7)] * (1.0 + 2.0 * f64::EPSILON);
        assert_eq!(solve_symmetric(singular, &b), Err(StepError::Singular));
        assert_eq!(unrolled(singular, &b), Some(Err(StepError::Singular)));
    }
}
