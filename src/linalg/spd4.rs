//! The dense strategy's solve dispatch ([`solve_dense_in_place`]) and its symmetric positive
//! definite solve for `N = 4` in f64, by `2×2` blocks.
//!
//! `A = [[P, Qᵀ], [Q, R]]`: `P⁻¹` and the Schur complement `S = R − Q P⁻¹ Qᵀ` are inverted
//! through their determinants, the complement formed scaled by `det P`, so the solve waits on one
//! division where `LDLᵀ` waits on four (ten in all) — on a workstation the step of a linearly
//! implicit integrator on a 4-coordinate model (the double pendulum) is bound by that chain.
//! Block elimination is `LDLᵀ` with `2×2` pivots: for a positive definite `A` both pivots `P` and
//! `S` are positive definite, and the result agrees with
//! [`solve_symmetric`](super::solve_symmetric) to rounding (relative `≈ κ(A)·ε`).

use super::{all_finite, pivot_floor, solve_symmetric_in_place, zero_if_finite};
use crate::{Real, StepError};
use nalgebra::{SMatrix, SVector};

/// The dense strategy's solve of `A x = b` for a symmetric `A` (lower triangle read), in place:
/// by `2×2` blocks ([`spd4_solve_in_place`]) when `N = 4` in f64 and `A` is clearly positive
/// definite, otherwise by [`solve_symmetric_in_place`] (`LDLᵀ`, LU when indefinite), which
/// overwrites `a` with its factors. `x` holds `b` on entry and the solution on success.
///
/// Where the block solve applies it is inlined into the caller and the generic solve is called
/// out of line (a cold path there): the step's force solve stays one small straight-line body
/// in every binary, whatever else the binary solves.
///
/// # Errors
/// As [`solve_symmetric`](super::solve_symmetric).
#[inline(always)]
pub(crate) fn solve_dense_in_place<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    if !blocks_apply::<T, N>() {
        return solve_symmetric_in_place(a, x);
    }
    if spd4_solve_in_place(a, x) {
        return Ok(());
    }
    solve_symmetric_cold(a, x)
}

/// Whether the block solve applies: `N = 4` in f64 (see [`spd4_solve_in_place`]).
#[inline(always)]
fn blocks_apply<T: Real, const N: usize>() -> bool {
    N == 4 && T::default_epsilon() < T::lit(1e-10)
}

/// [`solve_symmetric_in_place`] out of line, for what the block solve leaves open.
#[cold]
#[inline(never)]
fn solve_symmetric_cold<T: Real, const N: usize>(
    a: &mut SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> Result<(), StepError> {
    solve_symmetric_in_place(a, x)
}

/// Whether `x` is positive and finite (a NaN fails `x > 0`, an infinity `x − x = 0`).
#[inline(always)]
fn positive<T: Real>(x: T) -> bool {
    x > T::zero() && zero_if_finite(x) == T::zero()
}

/// Solves `A x = b` for a symmetric positive definite `4×4` `A` (lower triangle read; `A` is not
/// written), `x` holding `b` on entry: `true` with the solution in `x`, or `false` with `x`
/// unchanged, and the caller solves with
/// [`solve_symmetric_in_place`](super::solve_symmetric_in_place), which decides what this path
/// leaves open. It leaves open: `N ≠ 4`; a matrix that is not positive definite (a pivot of the
/// block factorisation not positive and finite); one near `LDLᵀ`'s singularity test (the pivots
/// of `A = L D Lᵀ` are `D = (a₀₀, det P / a₀₀, s₀₀, det S / s₀₀)`, and `LDLᵀ` refuses
/// `Dⱼ ≤ 4ε·max D`; this path leaves `Dⱼ ≤ 8ε·max D` to it, a margin for the two evaluations'
/// rounding, and compares the pivots scaled by `a₀₀ · det P · s'₀₀`, so a matrix whose scaled
/// pivots over- or underflow is left too: for entries of one size, beyond about 10⁴⁴ or below
/// 10⁻⁴⁴); and a result that is not finite (an intermediate over- or underflowing).
///
/// The Schur complement is formed scaled, `S' = det P · S = det P · R − Q adj(P) Qᵀ`, with the
/// right-hand side `det P · (b₂₃ − Q P⁻¹ b₀₁) = det P · b₂₃ − Q adj(P) b₀₁`: the solve waits on
/// one division (`1 / det S'`), the other (`1 / det P`, for `x₀₁ = P⁻¹ b₀₁ − (Q P⁻¹)ᵀ x₂₃`) runs
/// beside it, and all but one product and one difference of each unknown are formed before it
/// ends (`x = t / det S'`, `x₀₁ = z − (Wᵀ t) / det S'`).
#[inline(always)]
pub(crate) fn spd4_solve_in_place<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    x: &mut SVector<T, N>,
) -> bool {
    // f64 only: in f32, the precision of the microcontrollers (in-order cores, a division one
    // instruction), `LDLᵀ` costs fewer instructions than the block solve (1,541 against 1,708
    // per Z&S double-pendulum step on a Cortex-M4F), and f32 results stay those of `LDLᵀ` on
    // every target.
    if !blocks_apply::<T, N>() {
        return false;
    }
    // Column-major, m[j][i] = A[i, j]; the lower triangle (i ≥ j).
    let m = &a.data.0;
    let (a00, a10, a11) = (m[0][0], m[0][1], m[1][1]);
    let (a20, a21, a30, a31) = (m[0][2], m[1][2], m[0][3], m[1][3]);
    let (a22, a32, a33) = (m[2][2], m[2][3], m[3][3]);
    let det_p = a00 * a11 - a10 * a10;
    if !(positive(a00) && positive(det_p)) {
        return false;
    }
    // U = Q adj(P) (rows 2, 3), then S' = det P · R − U Qᵀ (its lower triangle).
    let u00 = a20 * a11 - a21 * a10;
    let u01 = a21 * a00 - a20 * a10;
    let u10 = a30 * a11 - a31 * a10;
    let u11 = a31 * a00 - a30 * a10;
    let s00 = det_p * a22 - (u00 * a20 + u01 * a21);
    let s10 = det_p * a32 - (u10 * a20 + u11 * a21);
    let s11 = det_p * a33 - (u10 * a30 + u11 * a31);
    let det_s = s00 * s11 - s10 * s10;
    if !(positive(s00) && positive(det_s)) {
        return false;
    }
    // LDLᵀ's pivots, S' = det P · S: (a₀₀, det P / a₀₀, s'₀₀ / det P, det S' / (det P · s'₀₀)),
    // compared scaled by the positive a₀₀ · det P · s'₀₀: no division waits beside `1 / det S'`
    // (a scaled pivot that over- or underflows leaves the matrix to `LDLᵀ`).
    let e = [
        (a00 * a00) * (det_p * s00),
        (det_p * det_p) * s00,
        (a00 * s00) * s00,
        a00 * det_s,
    ];
    let mut max = T::zero();
    for &ej in &e {
        if ej > max {
            max = ej;
        }
    }
    let floor = pivot_floor(4, max) * T::lit(2.0);
    let mut near = false;
    for &ej in &e {
        near |= ej <= floor || !ej.finite();
    }
    if near {
        return false;
    }
    let y = &mut x.data.0[0];
    let (b0, b1, b2, b3) = (y[0], y[1], y[2], y[3]);
    // x₂₃ = S'⁻¹ (det P · b₂₃ − U b₀₁) = adj(S') r / det S' = t / det S'.
    let r2 = det_p * b2 - (u00 * b0 + u01 * b1);
    let r3 = det_p * b3 - (u10 * b0 + u11 * b1);
    let t2 = s11 * r2 - s10 * r3;
    let t3 = s00 * r3 - s10 * r2;
    // x₀₁ = P⁻¹ b₀₁ − Wᵀ x₂₃ with W = Q P⁻¹ = U / det P, as z − (Wᵀ t) / det S': everything but
    // the last product and difference is formed while `1 / det S'` is under way.
    let inv_p = T::one() / det_p;
    let (w00, w01, w10, w11) = (u00 * inv_p, u01 * inv_p, u10 * inv_p, u11 * inv_p);
    let z0 = (a11 * b0 - a10 * b1) * inv_p;
    let z1 = (a00 * b1 - a10 * b0) * inv_p;
    let p0 = w00 * t2 + w10 * t3;
    let p1 = w01 * t2 + w11 * t3;
    let inv_s = T::one() / det_s;
    let x2 = t2 * inv_s;
    let x3 = t3 * inv_s;
    let x0 = z0 - p0 * inv_s;
    let x1 = z1 - p1 * inv_s;
    if !all_finite(&[x0, x1, x2, x3]) {
        return false;
    }
    y[0] = x0;
    y[1] = x1;
    y[2] = x2;
    y[3] = x3;
    true
}

#[cfg(test)]
mod tests {
    use super::{solve_dense_in_place, spd4_solve_in_place};
    use crate::linalg::{solve_symmetric, symmetric_eigen};
    use nalgebra::{SMatrix, SVector};

    /// A deterministic stream of numbers in `[−1, 1)` (64-bit LCG).
    struct Stream(u64);

    impl Stream {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// `B Bᵀ + μ I` scaled by `scale`: positive definite, condition up to about `1 + 16/μ`.
    fn spd(s: &mut Stream, mu: f64, scale: f64) -> SMatrix<f64, 4, 4> {
        let b = SMatrix::<f64, 4, 4>::from_fn(|_, _| s.next());
        (b * b.transpose() + SMatrix::identity() * mu) * scale
    }

    /// The 2×2-block solve against `LDLᵀ` (`solve_symmetric`) on positive definite matrices of
    /// condition 1 … 10⁶ and scales 10⁻³ … 10³: the same solution within `κ(A)` times a small
    /// multiple of ε (the forward error both solves are bounded by).
    #[test]
    fn agrees_with_ldlt() {
        let mut s = Stream(7);
        let mut differed = false;
        for k in 0..400 {
            let mu = [1.0, 1e-2, 1e-4, 1e-5][k % 4];
            let scale = [1e-3, 1.0, 1e3][k % 3];
            let a = spd(&mut s, mu, scale);
            let b = SVector::<f64, 4>::from_fn(|_, _| s.next());
            let eig = symmetric_eigen(&a).expect("finite");
            let (lo, hi) = eig
                .values
                .iter()
                .fold((f64::MAX, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
            let kappa = hi / lo;
            let mut x = b;
            assert!(spd4_solve_in_place(&a, &mut x), "matrix {k}: left to LDLᵀ");
            let xg = solve_symmetric(a, &b).expect("positive definite");
            let err = (x - xg).amax() / xg.amax();
            differed |= err > 0.0;
            assert!(
                err <= 8.0 * kappa * f64::EPSILON,
                "matrix {k}: κ {kappa:.1e}, relative difference {err:.1e}"
            );
        }
        assert!(
            differed,
            "the two solves never differed: the test measures nothing"
        );
    }

    /// In f32 the block solve leaves every matrix to `LDLᵀ`, so f32 results are `LDLᵀ`'s on
    /// every target (and the firmware's).
    #[test]
    fn leaves_f32_to_ldlt() {
        let mut s = Stream(11);
        let a = spd(&mut s, 1.0, 1.0).map(|x| x as f32);
        let b = SVector::<f32, 4>::new(1.0, 2.0, 3.0, 4.0);
        let mut x = b;
        assert!(!spd4_solve_in_place(&a, &mut x));
        assert_eq!(x, b);
    }

    /// What the block solve leaves to the generic one, `x` untouched: an indefinite matrix, a
    /// singular and a nearly singular one, a non-finite entry, a matrix whose determinants
    /// overflow, and sizes other than 4.
    #[test]
    fn leaves_doubtful_cases_and_other_sizes_to_the_generic_solve() {
        let b = SVector::<f64, 4>::new(1.0, -2.0, 0.5, 3.0);
        let indefinite = SMatrix::from_diagonal(&SVector::from([2.0, 1.0, -1.0, 3.0]));
        let v = SVector::<f64, 4>::new(1.0, 2.0, -1.0, 0.5);
        let w = SVector::<f64, 4>::new(0.0, 1.0, 1.0, -2.0);
        let x = SVector::<f64, 4>::new(3.0, 0.0, 1.0, 1.0);
        // Rank 3, and rank 3 plus a pivot at the singularity threshold.
        let rank3 = v * v.transpose() + w * w.transpose() + x * x.transpose();
        let u = SVector::<f64, 4>::new(1.0, -1.0, 2.0, 0.25);
        let near = rank3 + u * u.transpose() * (4.0 * f64::EPSILON);
        let mut nan = SMatrix::<f64, 4, 4>::identity();
        nan[(2, 1)] = f64::NAN;
        let huge = SMatrix::<f64, 4, 4>::identity() * 1e160;
        // Finite determinants (det S' = 10²⁷⁰) but scaled pivots beyond the range.
        let scaled = SMatrix::<f64, 4, 4>::identity() * 1e45;
        let cases = [indefinite, rank3, near, nan, huge, scaled];
        for (k, a) in cases.iter().enumerate() {
            let mut y = b;
            assert!(!spd4_solve_in_place(a, &mut y), "case {k} solved");
            assert_eq!(y, b, "case {k}: x changed");
        }
        let mut y3 = SVector::<f64, 3>::new(1.0, 2.0, 3.0);
        assert!(!spd4_solve_in_place(
            &SMatrix::<f64, 3, 3>::identity(),
            &mut y3
        ));
        // The generic solve then decides: LU for the indefinite one, `Singular` for rank 3.
        assert!(solve_symmetric(indefinite, &b).is_ok());
        assert!(solve_symmetric(rank3, &b).is_err());
    }

    /// The dispatch: the block solve's result, bit for bit, where it applies (f64, `N = 4`,
    /// clearly positive definite), `solve_symmetric`'s, bit for bit, everywhere else (f32, other
    /// sizes, the cases the block solve leaves open).
    #[test]
    fn dispatch_is_blocks_then_the_generic_solve() {
        let mut s = Stream(5);
        let b = SVector::<f64, 4>::new(1.0, -2.0, 0.5, 3.0);
        for k in 0..20 {
            let a = spd(&mut s, [1.0, 1e-3][k % 2], 2.0);
            let (mut x, mut y) = (b, b);
            assert!(spd4_solve_in_place(&a, &mut x));
            solve_dense_in_place(&mut a.clone(), &mut y).expect("positive definite");
            assert_eq!(x, y, "matrix {k}");
            let a32 = a.map(|v| v as f32);
            let b32 = b.map(|v| v as f32);
            let mut y32 = b32;
            solve_dense_in_place(&mut a32.clone(), &mut y32).expect("positive definite");
            assert_eq!(y32, solve_symmetric(a32, &b32).expect("positive definite"));
        }
        let scaled = SMatrix::<f64, 4, 4>::identity() * 1e45;
        let mut y = b;
        solve_dense_in_place(&mut scaled.clone(), &mut y).expect("positive definite");
        assert_eq!(y, solve_symmetric(scaled, &b).expect("positive definite"));
        assert!((y * 1e45 - b).amax() <= 4.0 * f64::EPSILON * b.amax());
        let indefinite = SMatrix::from_diagonal(&SVector::from([2.0, 1.0, -1.0, 3.0]));
        let mut y = b;
        solve_dense_in_place(&mut indefinite.clone(), &mut y).expect("regular");
        assert_eq!(y, solve_symmetric(indefinite, &b).expect("regular"));
        let a3 = SMatrix::<f64, 3, 3>::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0);
        let b3 = SVector::<f64, 3>::new(1.0, 2.0, 3.0);
        let mut y3 = b3;
        solve_dense_in_place(&mut a3.clone(), &mut y3).expect("positive definite");
        assert_eq!(y3, solve_symmetric(a3, &b3).expect("positive definite"));
    }
}
