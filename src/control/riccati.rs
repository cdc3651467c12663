//! Discrete-time LQR by the structure-preserving doubling iteration on the Riccati equation.

use super::validate::{finite, solve, solve_in_place, symmetric};
use super::ControlError;
use crate::{ConfigError, Real};
use nalgebra::SMatrix;

/// The controls of the Riccati iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RiccatiParams<T> {
    /// The iteration cap, `≥ 1`. Default 64: the `k`-th iterate solves the `2ᵏ`-step horizon, so
    /// 64 iterations reach any horizon a discretised plant can need.
    pub max_iter: u32,
    /// Relative change `‖Pₖ₊₁ − Pₖ‖max ≤ tol·‖Pₖ₊₁‖max` at which the iteration stops, `> 0`.
    /// Default `√ε`: the convergence is quadratic, so the iterate is then accurate to about `ε`.
    pub tol: T,
}

impl<T: Real> Default for RiccatiParams<T> {
    fn default() -> Self {
        Self {
            max_iter: 64,
            tol: T::default_epsilon().sqrt(),
        }
    }
}

impl<T: Real> RiccatiParams<T> {
    /// Checks the controls and returns them.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] for `"max_iter"` (`0`); [`ConfigError::NonFinite`] /
    /// [`ConfigError::OutOfRange`] for `"tol"` (`≤ 0`).
    pub fn validate(&self) -> Result<Self, ConfigError> {
        crate::validate::check_count(self.max_iter, "max_iter")?;
        crate::validate::check_positive(self.tol, "tol")?;
        Ok(*self)
    }
}

/// An LQR solution: the gain and the cost-to-go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lqr<T: Real, const S: usize, const U: usize> {
    /// The gain `K` of `u = −K x`.
    pub k: SMatrix<T, U, S>,
    /// The stabilising solution `P` of the Riccati equation (`xᵀPx` is the optimal cost).
    pub p: SMatrix<T, S, S>,
    /// The doubling iterations used.
    pub iterations: u32,
}

/// The infinite-horizon discrete LQR gain for `x⁺ = A x + B u`, cost `Σ xᵀQx + uᵀRu`:
/// `K = (R + BᵀPB)⁻¹ BᵀPA` with `P` the stabilising solution of
/// `P = Q + AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA`.
///
/// `P` comes from the structure-preserving doubling algorithm (Chu, Fan, Lin, Wang 2004):
/// `A₀ = A`, `G₀ = B R⁻¹ Bᵀ`, `H₀ = Q`, and with `W = I + Gₖ Hₖ`,
///
/// ```text
/// Aₖ₊₁ = Aₖ W⁻¹ Aₖ,   Gₖ₊₁ = Gₖ + Aₖ W⁻¹ Gₖ Aₖᵀ,   Hₖ₊₁ = Hₖ + Aₖᵀ Hₖ W⁻¹ Aₖ,
/// ```
///
/// `Hₖ` being the Riccati iterate of horizon `2ᵏ` (quadratic convergence). Cost per iteration
/// one `S × S` LU factorisation solved for `2S` columns and six `S × S` products, in three
/// `S × S` work matrices; at most [`RiccatiParams::max_iter`]
/// iterations. The closed loop `A − BK` is then checked stable (its powers `(A − BK)^(2ᵏ)`
/// vanish).
///
/// # Errors
/// [`ControlError::Config`] for bad `params`; [`ControlError::NonFinite`] for `A`, `B`;
/// [`ControlError::NotSymmetric`] / [`ControlError::NotPsd`] for `Q`,
/// [`ControlError::NotSymmetric`] / [`ControlError::NotPositiveDefinite`] for `R`;
/// [`ControlError::Unstabilizable`] when the iterates overflow or the loop is not stable;
/// [`ControlError::NotConverged`] at the cap; [`ControlError::Singular`].
pub fn lqr<T: Real, const S: usize, const U: usize>(
    a: &SMatrix<T, S, S>,
    b: &SMatrix<T, S, U>,
    q: &SMatrix<T, S, S>,
    r: &SMatrix<T, U, U>,
    params: &RiccatiParams<T>,
) -> Result<Lqr<T, S, U>, ControlError> {
    let params = params.validate().map_err(ControlError::Config)?;
    finite(a, "A")?;
    finite(b, "B")?;
    symmetric(q, "Q", false)?;
    symmetric(r, "R", true)?;
    let mut p = *q;
    let iterations = doubling(b, r, a, &mut p, &params)?;
    finish(a, b, r, p, iterations)
}

/// The doubling iteration of [`lqr`] on validated input: `p` enters as `Q` and leaves as the
/// converged `P`; returns the iterations. Not inlined, and neither is its step [`double`]: their
/// matrices are not on the stack while the input checks or [`finish`] run, which keeps a
/// device's start-up within its stack budget.
#[inline(never)]
fn doubling<T: Real, const S: usize, const U: usize>(
    b: &SMatrix<T, S, U>,
    r: &SMatrix<T, U, U>,
    a: &SMatrix<T, S, S>,
    p: &mut SMatrix<T, S, S>,
    params: &RiccatiParams<T>,
) -> Result<u32, ControlError> {
    let mut gk = b * solve(r, &b.transpose())?;
    sym(&mut gk);
    sym(p);
    let mut ak = *a;
    for it in 1..=params.max_iter {
        if double(&mut ak, &mut gk, p, params.tol)? {
            return Ok(it);
        }
    }
    Err(ControlError::NotConverged)
}

/// One doubling step in place, `W = I + G H`: `A ← A W⁻¹ A`, `G ← G + A W⁻¹ G Aᵀ`,
/// `H ← H + Aᵀ H W⁻¹ A` (`G`, `H` symmetrised); whether `‖H⁺ − H‖max ≤ tol·‖H⁺‖max`.
///
/// Three `S × S` work matrices: `W` is factored in place and solved for `W⁻¹A` and `W⁻¹G`
/// together, then its storage holds each product in turn; `G` and `A` are updated in place,
/// `H⁺` is formed beside `H` (the convergence test needs both). Products accumulate in place
/// (`gemm`), in the operations and order of the textbook step, so the iterates are its bits.
///
/// # Errors
/// [`ControlError::Unstabilizable`] when `W` is singular or an iterate overflows; the iterates
/// are then partly updated (the iteration stops).
#[inline(never)]
fn double<T: Real, const S: usize>(
    ak: &mut SMatrix<T, S, S>,
    gk: &mut SMatrix<T, S, S>,
    hk: &mut SMatrix<T, S, S>,
    tol: T,
) -> Result<bool, ControlError> {
    let (one, zero) = (T::one(), T::zero());
    let mut w = SMatrix::<T, S, S>::identity();
    w.gemm(one, gk, hk, one);
    let (mut wa, mut wg) = (*ak, *gk);
    if solve_in_place(&mut w, &mut wa, &mut wg).is_err() {
        return Err(ControlError::Unstabilizable);
    }
    // `w` now holds the factors, no longer needed: it is the product's storage from here on
    // (`gemm` with `β = 0` does not read it).
    let t = &mut w;
    // A W⁻¹G, then G ← G + (A W⁻¹G) Aᵀ (`wg` reused for Aᵀ).
    t.gemm(one, ak, &wg, zero);
    ak.transpose_to(&mut wg);
    gk.gemm(one, &*t, &wg, one);
    sym(gk);
    // Aᵀ H, then H⁺ = H + (Aᵀ H) W⁻¹A (in `wg`).
    t.gemm_tr(one, ak, hk, zero);
    wg.copy_from(hk);
    wg.gemm(one, &*t, &wa, one);
    sym(&mut wg);
    // A W⁻¹A.
    t.gemm(one, ak, &wa, zero);
    if finite(&wg, "P").is_err() || finite(t, "A").is_err() || finite(gk, "G").is_err() {
        return Err(ControlError::Unstabilizable);
    }
    let (mut change, mut size) = (zero, zero);
    for (x, y) in wg.iter().zip(hk.iter()) {
        change = change.max((*x - *y).abs());
        size = size.max(x.abs());
    }
    *ak = *t;
    *hk = wg;
    Ok(change <= tol * size)
}

/// `m ← ½ m + ½ mᵀ` in place (entries through the column arrays, loop-counter indices).
#[allow(clippy::needless_range_loop)] // pairs (i, j) and (j, i) of one array
fn sym<T: Real, const S: usize>(m: &mut SMatrix<T, S, S>) {
    let half = T::lit(0.5);
    let a = &mut m.data.0;
    for j in 0..S {
        for i in (j + 1)..S {
            let v = a[j][i] * half + a[i][j] * half;
            a[j][i] = v;
            a[i][j] = v;
        }
    }
}

/// The gain from the converged `P`, and the stability check of the closed loop.
fn finish<T: Real, const S: usize, const U: usize>(
    a: &SMatrix<T, S, S>,
    b: &SMatrix<T, S, U>,
    r: &SMatrix<T, U, U>,
    p: SMatrix<T, S, S>,
    iterations: u32,
) -> Result<Lqr<T, S, U>, ControlError> {
    let btp = b.transpose() * p;
    let k = solve(&(r + btp * b), &(btp * a))?;
    finite(&k, "K")?;
    // ρ(A − BK) < 1 iff (A − BK)^(2ᵐ) → 0: 64 squarings reach 2⁶⁴ steps.
    let mut m = a - b * k;
    for _ in 0..64 {
        if m.amax() < T::lit(1e-3) {
            return Ok(Lqr { k, p, iterations });
        }
        m = m * m;
        if !m.iter().all(|x| x.finite()) {
            break;
        }
    }
    Err(ControlError::Unstabilizable)
}

#[cfg(test)]
mod tests {
    use super::{double, lqr, RiccatiParams};
    use crate::control::validate::{finite, solve, solve_in_place};
    use crate::control::ControlError;
    use crate::Real;
    use nalgebra::SMatrix;

    /// The doubling step with a temporary per product and one solve per right-hand side, in the
    /// order of its formulas: what [`double`] computes in three work matrices.
    #[allow(clippy::type_complexity)]
    fn textbook<T: Real, const S: usize>(
        a: &SMatrix<T, S, S>,
        g: &SMatrix<T, S, S>,
        h: &SMatrix<T, S, S>,
        tol: T,
    ) -> Result<(SMatrix<T, S, S>, SMatrix<T, S, S>, SMatrix<T, S, S>, bool), ControlError> {
        let (one, zero) = (T::one(), T::zero());
        let mut w = SMatrix::<T, S, S>::identity();
        w.gemm(one, g, h, one);
        let (wa, wg) = match (solve(&w, a), solve(&w, g)) {
            (Ok(wa), Ok(wg)) => (wa, wg),
            _ => return Err(ControlError::Unstabilizable),
        };
        let mut t = SMatrix::<T, S, S>::zeros();
        t.gemm_tr(one, a, h, zero);
        let mut h1 = *h;
        h1.gemm(one, &t, &wa, one);
        t.gemm(one, a, &wg, zero);
        let at = a.transpose();
        let mut g1 = *g;
        g1.gemm(one, &t, &at, one);
        let mut a1 = SMatrix::<T, S, S>::zeros();
        a1.gemm(one, a, &wa, zero);
        let sym = |m: &mut SMatrix<T, S, S>| {
            for j in 0..S {
                for i in (j + 1)..S {
                    let v = m[(i, j)] * T::lit(0.5) + m[(j, i)] * T::lit(0.5);
                    m[(i, j)] = v;
                    m[(j, i)] = v;
                }
            }
        };
        sym(&mut h1);
        sym(&mut g1);
        if finite(&h1, "P").is_err() || finite(&a1, "A").is_err() || finite(&g1, "G").is_err() {
            return Err(ControlError::Unstabilizable);
        }
        let (mut change, mut size) = (zero, zero);
        for (x, y) in h1.iter().zip(h.iter()) {
            change = change.max((*x - *y).abs());
            size = size.max(x.abs());
        }
        Ok((a1, g1, h1, change <= tol * size))
    }

    /// Entries in `[-1, 1)` from a fixed-seed linear congruential generator.
    fn entries<T: Real, const R: usize, const C: usize>(seed: &mut u64) -> SMatrix<T, R, C> {
        SMatrix::from_fn(|_, _| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            T::lit((*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
    }

    /// Every iterate of the in-place step, to convergence, against the textbook step: the same
    /// bits and the same verdict, for random plants (stable and unstable `A`) in f32 and f64.
    fn in_place_step_is_the_textbook_step<T: Real>() {
        let mut seed = 7u64;
        for case in 0..20 {
            let a: SMatrix<T, 4, 4> =
                entries::<T, 4, 4>(&mut seed) * T::lit(0.4 + 0.05 * case as f64);
            let b: SMatrix<T, 4, 2> = entries(&mut seed);
            let c: SMatrix<T, 4, 4> = entries(&mut seed);
            let (mut ak, mut gk, mut hk) = (a, b * b.transpose(), c * c.transpose());
            let tol = RiccatiParams::<T>::default().tol;
            for it in 0..64 {
                let reference = textbook(&ak, &gk, &hk, tol);
                let done = double(&mut ak, &mut gk, &mut hk, tol);
                match (reference, done) {
                    (Ok((a1, g1, h1, r)), Ok(d)) => {
                        assert_eq!((a1, g1, h1, r), (ak, gk, hk, d), "case {case} it {it}");
                        if d {
                            break;
                        }
                    }
                    (Err(e), Err(f)) => {
                        assert_eq!(e, f);
                        break;
                    }
                    (r, d) => panic!("case {case} it {it}: {r:?} against {d:?}"),
                }
            }
        }
    }

    #[test]
    fn in_place_step_is_the_textbook_step_f64() {
        in_place_step_is_the_textbook_step::<f64>();
    }

    #[test]
    fn in_place_step_is_the_textbook_step_f32() {
        in_place_step_is_the_textbook_step::<f32>();
    }

    /// One factorisation for two right-hand blocks gives each block the bits of its own solve;
    /// a singular matrix is refused.
    #[test]
    fn one_factorisation_solves_both_blocks_as_two_solves() {
        let mut seed = 3u64;
        for _ in 0..50 {
            let m: SMatrix<f32, 4, 4> = entries(&mut seed);
            let x: SMatrix<f32, 4, 4> = entries(&mut seed);
            let y: SMatrix<f32, 4, 2> = entries(&mut seed);
            let (mut lu, mut x1, mut y1) = (m, x, y);
            let both = solve_in_place(&mut lu, &mut x1, &mut y1);
            match (solve(&m, &x), solve(&m, &y)) {
                (Ok(sx), Ok(sy)) => {
                    assert_eq!(both, Ok(()));
                    assert_eq!((x1, y1), (sx, sy));
                }
                _ => assert!(both.is_err()),
            }
        }
        let singular = nalgebra::matrix![1.0, 2.0; 2.0, 4.0];
        let (mut lu, mut x) = (singular, SMatrix::<f64, 2, 1>::new(1.0, 1.0));
        let r = solve_in_place(&mut lu, &mut x, &mut SMatrix::<f64, 2, 0>::zeros());
        assert_eq!(r, Err(ControlError::Singular));
    }

    /// A double integrator's gain from a start other than the docs' (`h = 0.05`, heavier
    /// velocity weight) stabilises the loop in f32 and f64, and the two gains agree.
    #[test]
    fn gain_stabilises_in_f32_and_f64() {
        let h = 0.05_f64;
        let a = nalgebra::matrix![1.0_f64, h; 0.0, 1.0];
        let b = nalgebra::matrix![0.5 * h * h; h];
        let q = nalgebra::matrix![1.0, 0.0; 0.0, 10.0];
        let r = nalgebra::Matrix1::new(0.5);
        let k64 = lqr(&a, &b, &q, &r, &RiccatiParams::default()).unwrap().k;
        let k32 = lqr(
            &a.cast::<f32>(),
            &b.cast(),
            &q.cast(),
            &r.cast(),
            &RiccatiParams::default(),
        )
        .unwrap()
        .k;
        // The closed loop's spectral radius, from its characteristic polynomial.
        let cl = a - b * k64;
        let (tr, det) = (cl.trace(), cl.determinant());
        let disc = tr * tr / 4.0 - det;
        let rho = if disc < 0.0 {
            det.sqrt()
        } else {
            tr.abs() / 2.0 + disc.sqrt()
        };
        assert!(rho < 1.0, "spectral radius {rho}");
        assert!((k32.cast::<f64>() - k64).amax() < 1e-3 * k64.amax());
    }
}
