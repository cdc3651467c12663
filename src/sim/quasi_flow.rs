//! The stiff flow φ³ of a quasi-quadratic potential (004 §4.3.3–4.3.4): the exact flow for a
//! diagonal `K` (eqs 4.24/4.25) and the symplectic scaling-and-squaring exponential of
//! Integrator 4.3.2 (eqs 4.45–4.47) for any symmetric `K`.
//!
//! Both act on `(q_fast, p_fast, p_slow)` with `q_slow` frozen, and return the new fast pair and
//! the drift `Δp_slow`. Matrices of size `2F × 2F` are kept as 2×2 blocks of `F × F` matrices
//! ([`Blocks`]): stable Rust cannot write `SMatrix<T, {2 * F}, {2 * F}>`.

use crate::{PreconditionKind, Real, StepError};
use nalgebra::{SMatrix, SVector};

/// `K(q_slow)` of a quasi-quadratic stiff potential `U = ½ q_fastᵀ K(q_slow) q_fast` (004 §4.3.2),
/// *without* the factor `ε⁻¹` (the model's [`super::QuasiSystem::inv_eps`]).
pub trait QuasiStiffness<T: Real, const S: usize, const F: usize> {
    /// `K(q_slow)`, symmetric.
    fn stiffness(&self, q_slow: &SVector<T, S>) -> SMatrix<T, F, F>;
    /// `∂K/∂q_slow,i` for `i < S`, symmetric.
    fn stiffness_derivative(&self, q_slow: &SVector<T, S>, i: usize) -> SMatrix<T, F, F>;
}

/// A `2F × 2F` matrix as blocks `[[a, b], [c, d]]` acting on `(q_fast, p_fast)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Blocks<T: Real, const F: usize> {
    pub a: SMatrix<T, F, F>,
    pub b: SMatrix<T, F, F>,
    pub c: SMatrix<T, F, F>,
    pub d: SMatrix<T, F, F>,
}

impl<T: Real, const F: usize> Blocks<T, F> {
    /// The block product `self · o`.
    #[inline]
    pub fn mul(&self, o: &Self) -> Self {
        Self {
            a: self.a * o.a + self.b * o.c,
            b: self.a * o.b + self.b * o.d,
            c: self.c * o.a + self.d * o.c,
            d: self.c * o.b + self.d * o.d,
        }
    }

    /// The sum `self + o`.
    #[inline]
    pub fn add(&self, o: &Self) -> Self {
        Self {
            a: self.a + o.a,
            b: self.b + o.b,
            c: self.c + o.c,
            d: self.d + o.d,
        }
    }

    /// `self · (x, y)`.
    #[inline]
    pub fn apply(&self, x: &SVector<T, F>, y: &SVector<T, F>) -> (SVector<T, F>, SVector<T, F>) {
        (self.a * x + self.b * y, self.c * x + self.d * y)
    }
}

/// The micro-step blocks of Integrator 4.3.2 at micro step `h` for `Kε = ε⁻¹K`:
/// `C` (eq 4.46, one position-Verlet step of the fast oscillator) and `A = C⁻ᵀ` (eq 4.45).
pub(crate) fn verlet_blocks<T: Real, const F: usize>(
    k_eps: &SMatrix<T, F, F>,
    h: T,
) -> (Blocks<T, F>, Blocks<T, F>) {
    let i = SMatrix::<T, F, F>::identity();
    let half = T::lit(0.5);
    let quarter = T::lit(0.25);
    let diag = i - k_eps * (h * h * half);
    let off = (i - k_eps * (h * h * quarter)) * h;
    let c = Blocks {
        a: diag,
        b: off,
        c: -(k_eps * h),
        d: diag,
    };
    let a = Blocks {
        a: diag,
        b: k_eps * h,
        c: -off,
        d: diag,
    };
    (a, c)
}

/// `B_i` of eq 4.47 for `∂Kε = ε⁻¹ ∂_i K`: `−J ∂_i C`, so that the micro step's `p_slow` drift
/// `½ zᵀ Cᵀ B_i z` equals position Verlet's `(h/2) x_{½}ᵀ ∂_i Kε x_{½}`.
pub(crate) fn verlet_derivative<T: Real, const F: usize>(
    dk_eps: &SMatrix<T, F, F>,
    h: T,
) -> Blocks<T, F> {
    let half = T::lit(0.5);
    let quarter = T::lit(0.25);
    Blocks {
        a: dk_eps * h,
        b: dk_eps * (h * h * half),
        c: -(dk_eps * (h * h * half)),
        d: -(dk_eps * (h * h * h * quarter)),
    }
}

/// Integrator 4.3.2 at `q_slow` over the (signed) step `big_h` with `2ⁿ` micro steps, applied to
/// `(x, y) = (q_fast, p_fast)`: returns `(F₃ z, Δp_slow)` with
/// `Δp_slow,i = −½ zᵀ F₃ᵀ G₂,ᵢ z` (eq 4.35).
pub(crate) fn symplectic_flow<
    T: Real,
    K: QuasiStiffness<T, S, F>,
    const S: usize,
    const F: usize,
>(
    model: &K,
    inv_eps: T,
    q_slow: &SVector<T, S>,
    x: &SVector<T, F>,
    y: &SVector<T, F>,
    big_h: T,
    squarings: u32,
) -> FlowOut<T, S, F> {
    let h = big_h / T::lit(libm::ldexp(1.0, squarings as i32));
    let k_eps = model.stiffness(q_slow) * inv_eps;
    let (mut a, mut c) = verlet_blocks(&k_eps, h);
    let mut g: [Blocks<T, F>; S] = core::array::from_fn(|i| {
        verlet_derivative(&(model.stiffness_derivative(q_slow, i) * inv_eps), h)
    });
    // [[A, G], [0, C]]² = [[A², A G + G C], [0, C²]]: n squarings give the 2ⁿ-th power (step 2).
    for _ in 0..squarings {
        for gi in g.iter_mut() {
            *gi = a.mul(gi).add(&gi.mul(&c));
        }
        a = a.mul(&a);
        c = c.mul(&c);
    }
    let (x1, y1) = c.apply(x, y);
    let half = T::lit(0.5);
    let dp = SVector::<T, S>::from_fn(|i, _| {
        let (gx, gy) = g[i].apply(x, y);
        -(x1.dot(&gx) + y1.dot(&gy)) * half
    });
    (x1, y1, dp)
}

/// `(2θ − sin 2θ)/(4ω)·…`: returns `H/2 − sin(2ωH)/(4ω)` without cancellation for small `ωH`
/// (series below `|2ωH| < 0.1`; its first omitted term is below `1e-13` relative).
fn half_minus<T: Real>(omega: T, big_h: T) -> T {
    let x = T::lit(2.0) * omega * big_h;
    let four_omega = T::lit(4.0) * omega;
    if x.abs() < T::lit(0.1) {
        let x2 = x * x;
        let x3 = x2 * x;
        x3 * (T::lit(1.0 / 6.0) - x2 * (T::lit(1.0 / 120.0) - x2 * T::lit(1.0 / 5040.0)))
            / four_omega
    } else {
        (x - x.sin()) / four_omega
    }
}

/// The result of a stiff flow: new `q_fast`, new `p_fast`, and the `p_slow` drift.
pub(crate) type FlowOut<T, const S: usize, const F: usize> =
    (SVector<T, F>, SVector<T, F>, SVector<T, S>);

/// The exact flow of eqs 4.24/4.25 for a diagonal `K` with positive entries, mode by mode
/// (`ω_j = √(ε⁻¹ K_jj)`), over the signed step `big_h`.
///
/// # Errors
/// [`StepError::Precondition`] when `K` or some `∂_i K` is not diagonal, or a `K_jj ≤ 0`;
/// [`StepError::NonFiniteResult`] when a `K_jj` is not finite.
pub(crate) fn diagonal_flow<T: Real, K: QuasiStiffness<T, S, F>, const S: usize, const F: usize>(
    model: &K,
    inv_eps: T,
    q_slow: &SVector<T, S>,
    x: &SVector<T, F>,
    y: &SVector<T, F>,
    big_h: T,
) -> Result<FlowOut<T, S, F>, StepError> {
    let k = model.stiffness(q_slow);
    if !is_diagonal(&k) {
        return Err(StepError::precondition(
            PreconditionKind::StiffnessNotDiagonal,
        ));
    }
    let mut x1 = *x;
    let mut y1 = *y;
    // ∫₀ᴴ q_j(s)² ds for each mode (the quadratic of trigonometric functions of §4.3.3).
    let mut int = SVector::<T, F>::zeros();
    for j in 0..F {
        // An overflowed K (the step ran away) is a non-finite result, a non-positive one a
        // violated precondition of the exact oscillator flow.
        if !k[(j, j)].finite() {
            return Err(StepError::NonFiniteResult);
        }
        if k[(j, j)] <= T::zero() {
            return Err(StepError::precondition(
                PreconditionKind::StiffnessNotPositive,
            ));
        }
        let w = (inv_eps * k[(j, j)]).sqrt();
        let (s, co) = (w * big_h).sin_cos();
        let (a, b) = (x[j], y[j]);
        x1[j] = co * a + s / w * b;
        y1[j] = -w * s * a + co * b;
        let plus = big_h - half_minus(w, big_h);
        int[j] = a * a * plus + b * b / (w * w) * half_minus(w, big_h) + a * b * s * s / (w * w);
    }
    let half = T::lit(0.5);
    let mut dp = SVector::<T, S>::zeros();
    for i in 0..S {
        let dk = model.stiffness_derivative(q_slow, i);
        if !is_diagonal(&dk) {
            return Err(StepError::precondition(
                PreconditionKind::StiffnessNotDiagonal,
            ));
        }
        let mut acc = T::zero();
        for j in 0..F {
            acc += dk[(j, j)] * int[j];
        }
        dp[i] = -half * inv_eps * acc;
    }
    Ok((x1, y1, dp))
}

fn is_diagonal<T: Real, const F: usize>(m: &SMatrix<T, F, F>) -> bool {
    (0..F).all(|r| (0..F).all(|c| r == c || m[(r, c)] == T::zero()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector, Matrix2};

    struct Coupled;
    impl QuasiStiffness<f64, 1, 2> for Coupled {
        fn stiffness(&self, q: &SVector<f64, 1>) -> Matrix2<f64> {
            let x2 = q[0] * q[0];
            matrix![1.0 + x2, x2 - 1.0; x2 - 1.0, 3.0 * x2]
        }
        fn stiffness_derivative(&self, q: &SVector<f64, 1>, _: usize) -> Matrix2<f64> {
            let d = 2.0 * q[0];
            matrix![d, d; d, 3.0 * d]
        }
    }

    #[test]
    fn micro_blocks_satisfy_lemmas_4_3_2_to_4_3_5() {
        let k = Coupled.stiffness(&vector![1.1]) * 1.0e4;
        let dk = Coupled.stiffness_derivative(&vector![1.1], 0) * 1.0e4;
        let h = 1.0e-3;
        let (a, c) = verlet_blocks(&k, h);
        let b = verlet_derivative(&dk, h);
        let at = Blocks {
            a: a.a.transpose(),
            b: a.c.transpose(),
            c: a.b.transpose(),
            d: a.d.transpose(),
        };
        let ct = Blocks {
            a: c.a.transpose(),
            b: c.c.transpose(),
            c: c.b.transpose(),
            d: c.d.transpose(),
        };
        let bt = Blocks {
            a: b.a.transpose(),
            b: b.c.transpose(),
            c: b.b.transpose(),
            d: b.d.transpose(),
        };
        let id = at.mul(&c); // Lemma 4.3.3: Aᵀ C = I
        assert!((id.a - Matrix2::identity()).amax() < 1e-12 && id.b.amax() < 1e-12);
        assert!(id.c.amax() < 1e-12 && (id.d - Matrix2::identity()).amax() < 1e-12);
        let (l, r) = (ct.mul(&b), bt.mul(&c)); // Lemma 4.3.5: Cᵀ B symmetric
        assert!((l.a - r.a).amax() < 1e-12 && (l.b - r.b).amax() < 1e-12);
        assert!((l.c - r.c).amax() < 1e-12 && (l.d - r.d).amax() < 1e-12);
    }

    #[test]
    fn diagonal_drift_matches_thesis_formula_4_25() {
        struct One;
        impl QuasiStiffness<f64, 1, 1> for One {
            fn stiffness(&self, q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
                matrix![1.0 + q[0] * q[0]]
            }
            fn stiffness_derivative(&self, q: &SVector<f64, 1>, _: usize) -> SMatrix<f64, 1, 1> {
                matrix![2.0 * q[0]]
            }
        }
        let (inv_eps, h, qs) = (1.0e4, 0.1, vector![1.1]);
        let (a, b) = (0.007, 0.3);
        let (_, _, dp) = diagonal_flow(&One, inv_eps, &qs, &vector![a], &vector![b], h).unwrap();
        let w = (inv_eps * (1.0 + 1.21_f64)).sqrt();
        let bracket = 2.0 * w * (h * b * b + b * a + w * w * h * a * a)
            - 2.0 * w * b * a * (2.0 * w * h).cos()
            + (-b * b + w * w * a * a) * (2.0 * w * h).sin();
        let expect = -inv_eps * 0.5 * 2.2 * bracket / (4.0 * w * w * w);
        assert!(
            (dp[0] - expect).abs() < 1e-12 * expect.abs().max(1.0),
            "{} {expect}",
            dp[0]
        );
    }

    #[test]
    fn symplectic_flow_converges_to_diagonal_flow() {
        struct Diag;
        impl QuasiStiffness<f64, 1, 2> for Diag {
            fn stiffness(&self, q: &SVector<f64, 1>) -> Matrix2<f64> {
                matrix![1.0 + q[0] * q[0], 0.0; 0.0, 2.0]
            }
            fn stiffness_derivative(&self, q: &SVector<f64, 1>, _: usize) -> Matrix2<f64> {
                matrix![2.0 * q[0], 0.0; 0.0, 0.0]
            }
        }
        let (x, y, qs) = (vector![0.007, -0.003], vector![0.2, 0.1], vector![1.1]);
        let exact = diagonal_flow(&Diag, 1.0e4, &qs, &x, &y, 0.1).unwrap();
        // Verlet's phase error over ωH ≈ 15 at h = H/2ⁿ is ~ ωH (ωh)²/24: 1e-6 at n = 12.
        let approx = symplectic_flow(&Diag, 1.0e4, &qs, &x, &y, 0.1, 12);
        assert!((exact.0 - approx.0).amax() < 1e-7);
        assert!((exact.1 - approx.1).amax() < 1e-5);
        assert!((exact.2 - approx.2).amax() < 1e-5 * exact.2.amax());
    }
}
