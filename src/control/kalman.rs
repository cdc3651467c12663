//! An extended Kalman filter whose prediction is the integrator's step and its exact
//! linearisation.

use super::validate::{finite, psd_pivots, solve, symmetric};
use super::ControlError;
use crate::linearise::{Linearise, StepJacobian};
use crate::{Integrator, Real, State};
use nalgebra::{SMatrix, SVector};

/// An extended Kalman filter on the state `x = (q, v)` (`S = 2N`, checked at compile time) with a
/// linear measurement `y = H x + r`, `r ~ N(0, R)`, and process noise `w ~ N(0, Q)` added to each
/// step:
///
/// ```text
/// predict:  x ← Φ(x),  P ← A P Aᵀ + Q                       (A = ∂Φ/∂x, exact)
/// update:   ν = y − H x,  Sᵥ = H P Hᵀ + R,  K = P Hᵀ Sᵥ⁻¹,  x ← x + K ν,
///           P ← (I − KH) P (I − KH)ᵀ + K R Kᵀ               (Joseph form)
/// ```
///
/// The Joseph form keeps `P` symmetric and positive semidefinite to the round-off of the
/// posterior's own scale where the short form `(I − KH) P` does not, in `f32`. No form does when
/// the update cancels a prior variance many orders of magnitude above the posterior's: the
/// cancellation leaves round-off of the prior's scale, and [`Ekf::update`] then refuses the
/// update (`NotPsd`) rather than return an indefinite covariance. `Φ` is one step of the model integrator handed to
/// [`Ekf::predict`], with the held force it carries (set it with
/// [`Actuate::set_force`](crate::forcing::Actuate::set_force) before predicting). The model
/// usually runs with [`Guards::off`](crate::guard::Guards::off): updates move the estimate off
/// the energy of the run the guards watch.
///
/// With a diagonal `R` (independent measurement noises) the update processes the measurements
/// one at a time (sequential processing, equal to the joint update in exact arithmetic), each in
/// the scalar Joseph form: no `Y × Y` solve, `O(Y S²)` work.
///
/// Cost: predict one linearisation, one step and two `S × S` products (the second, symmetric,
/// as its upper triangle); update with a diagonal `R` `Y` rank-one Joseph updates (≈ `4 S²`
/// multiply-adds each), otherwise one `Y × Y` LU solve with `S` right-hand sides and
/// `O(S²Y + S³)` products, the symmetric ones as upper triangles. The covariance is exactly
/// symmetric after every predict and update. No allocation.
///
/// ```
/// use macrostep::control::Ekf;
/// use macrostep::linearise::Linearise;
/// use macrostep::nalgebra::{matrix, vector, Matrix1, Matrix2};
/// use macrostep::{baselines::VelocityVerlet, systems::HarmonicOscillator, Guards, Stepper, State};
/// let osc = HarmonicOscillator::<f64, 1>::isotropic(1.0)?;
/// let mut model = VelocityVerlet::new(osc.system(), 0.01)?;
/// model.set_guards(Guards::off())?;
/// // Measure the position only; start far from the truth with a wide covariance.
/// let h = matrix![1.0, 0.0];
/// let mut ekf = Ekf::<f64, 1, 2, 1>::new(
///     State::at_rest(vector![0.0]), Matrix2::identity(), Matrix2::identity() * 1e-8,
///     Matrix1::new(1e-4), h,
/// )?;
/// let truth = |t: f64| t.cos(); // q(0) = 1, at rest
/// for k in 1..=500 {
///     ekf.predict(&mut model)?;
///     ekf.update(&vector![truth(k as f64 * 0.01)])?;
/// }
/// assert!((ekf.state().q[0] - 5f64.cos()).abs() < 1e-3);
/// assert!((ekf.state().v[0] + 5f64.sin()).abs() < 1e-2);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ekf<T: Real, const N: usize, const S: usize, const Y: usize> {
    x: State<T, N>,
    p: SMatrix<T, S, S>,
    q: SMatrix<T, S, S>,
    r: SMatrix<T, Y, Y>,
    h: SMatrix<T, Y, S>,
    /// `R` is diagonal: [`Ekf::update`] processes the measurements one at a time.
    sequential: bool,
}

impl<T: Real, const N: usize, const S: usize, const Y: usize> Ekf<T, N, S, Y> {
    /// A filter at the estimate `x0` with covariance `p0`, process noise `q`, measurement noise
    /// `r` and measurement matrix `h`.
    ///
    /// # Errors
    /// [`ControlError::NonFinite`] for `"x"` and `"H"`; [`ControlError::NotSymmetric`] /
    /// [`ControlError::NotPsd`] for `"P"` and `"Q"`; [`ControlError::NotSymmetric`] /
    /// [`ControlError::NotPositiveDefinite`] for `"R"`.
    pub fn new(
        x0: State<T, N>,
        p0: SMatrix<T, S, S>,
        q: SMatrix<T, S, S>,
        r: SMatrix<T, Y, Y>,
        h: SMatrix<T, Y, S>,
    ) -> Result<Self, ControlError> {
        const { assert!(S == 2 * N, "Ekf: S must be 2N") };
        if !x0.is_finite() {
            return Err(ControlError::NonFinite { name: "x" });
        }
        symmetric(&p0, "P", false)?;
        symmetric(&q, "Q", false)?;
        symmetric(&r, "R", true)?;
        finite(&h, "H")?;
        let sequential = (0..Y).all(|j| (0..Y).all(|i| i == j || r[(i, j)] == T::zero()));
        Ok(Self {
            x: x0,
            p: p0,
            q,
            r,
            h,
            sequential,
        })
    }

    /// The estimate `(q, v)` (and the model's clock).
    pub fn state(&self) -> &State<T, N> {
        &self.x
    }

    /// The estimate's covariance `P`.
    pub fn covariance(&self) -> &SMatrix<T, S, S> {
        &self.p
    }

    /// The estimate as one vector `x = (q, v)`.
    pub fn vector(&self) -> SVector<T, S> {
        SVector::from_fn(|i, _| if i < N { self.x.q[i] } else { self.x.v[i - N] })
    }

    /// Propagates the estimate by one step of `model` and the covariance by its linearisation.
    ///
    /// # Errors
    /// [`ControlError::Step`] with the linearisation's or the step's error;
    /// [`ControlError::NonFinite`] for `"P"` when the covariance overflows. The filter is then
    /// unchanged (the model's step may have been committed).
    ///
    /// Not inlined (nor is [`Ekf::update`]): a loop that calls both keeps only one's matrices on
    /// the stack at a time (a device's stack budget).
    #[inline(never)]
    pub fn predict<I: Linearise<T, N>>(&mut self, model: &mut I) -> Result<(), ControlError> {
        let mut j = StepJacobian::zeros();
        model.linearise_state_into(&self.x, &mut j)?;
        let a: SMatrix<T, S, S> = j.a();
        // A P Aᵀ + Q: the upper triangle of the symmetric result, mirrored.
        let p = sym_abt(&mul(&a, &self.p), &a, &self.q);
        finite(&p, "P")?;
        let mut x = self.x;
        advance(model, &mut x)?;
        (self.x, self.p) = (x, p);
        Ok(())
    }

    /// Corrects the estimate with the measurement `y`; returns the innovation `y − H x`.
    ///
    /// # Errors
    /// [`ControlError::NonFinite`] for `"y"`; [`ControlError::Singular`] when `H P Hᵀ + R` is;
    /// [`ControlError::NonFinite`] for `"P"` on overflow; [`ControlError::NotPsd`] for `"P"` when
    /// the updated covariance has a negative pivot beyond `S·ε·max Pᵢᵢ` (a prior covariance so
    /// ill-conditioned that the update's cancellation leaves round-off of the prior's scale in
    /// the posterior). The filter is then unchanged.
    #[inline(never)]
    pub fn update(&mut self, y: &SVector<T, Y>) -> Result<SVector<T, Y>, ControlError> {
        finite(y, "y")?;
        let xs = self.vector();
        let nu = y - mul(&self.h, &xs);
        let (x, p) = if self.sequential {
            self.sequential_update(y, xs)?
        } else {
            self.joint_update(&nu, xs)?
        };
        finite(&p, "P")?;
        if !psd_pivots(&p) {
            return Err(ControlError::NotPsd { name: "P" });
        }
        if !x.iter().all(|v| v.finite()) {
            return Err(ControlError::NonFinite { name: "x" });
        }
        for i in 0..N {
            self.x.q[i] = x[i];
            self.x.v[i] = x[i + N];
        }
        self.p = p;
        Ok(nu)
    }

    /// The update with all `Y` measurements at once (a correlated `R`): `x + K ν` and the Joseph
    /// form, its symmetric products formed as upper triangles and mirrored.
    fn joint_update(
        &self,
        nu: &SVector<T, Y>,
        xs: SVector<T, S>,
    ) -> Result<(SVector<T, S>, SMatrix<T, S, S>), ControlError> {
        let hp = mul(&self.h, &self.p);
        let sv = sym_abt(&hp, &self.h, &self.r);
        // K = P Hᵀ Sᵥ⁻¹ = (Sᵥ⁻¹ H P)ᵀ, Sᵥ and P symmetric.
        let k = solve(&sv, &hp)?.transpose();
        let x = xs + mul(&k, nu);
        let mut ikh = SMatrix::<T, S, S>::identity();
        ikh -= mul(&k, &self.h);
        let krk = sym_abt(&mul(&k, &self.r), &k, &SMatrix::zeros());
        Ok((x, sym_abt(&mul(&ikh, &self.p), &ikh, &krk)))
    }

    /// The update one measurement at a time (a diagonal `R`, independent noises; equal to the
    /// joint update in exact arithmetic): for each row `h` of `H` with noise `r`, `p = P hᵀ`,
    /// `s = h p + r`, `k = p / s`, `x ← x + k (yᵢ − h x)` and the scalar Joseph form
    /// `P ← L P Lᵀ + r k kᵀ`, `L = I − k h`, as the products `L P = P − k pᵀ` and
    /// `(L P) Lᵀ = L P − (L P hᵀ) kᵀ` (upper triangle, mirrored). No `Y × Y` solve.
    #[allow(clippy::needless_range_loop)] // entries of several arrays by the same indices
    fn sequential_update(
        &self,
        y: &SVector<T, Y>,
        mut x: SVector<T, S>,
    ) -> Result<(SVector<T, S>, SMatrix<T, S, S>), ControlError> {
        let mut pm = self.p;
        let zero = T::zero();
        for m in 0..Y {
            let h: [T; S] = core::array::from_fn(|j| self.h.data.0[j][m]);
            let r = self.r.data.0[m][m];
            let pa = &mut pm.data.0;
            let mut p = [zero; S];
            for j in 0..S {
                if h[j] != zero {
                    for i in 0..S {
                        p[i] += pa[j][i] * h[j];
                    }
                }
            }
            let (mut s, mut hx) = (r, zero);
            for j in 0..S {
                s += h[j] * p[j];
                hx += h[j] * x[j];
            }
            if !(s > zero && s.finite()) {
                return Err(ControlError::Singular);
            }
            let k: [T; S] = core::array::from_fn(|i| p[i] / s);
            let nu = y[m] - hx;
            for i in 0..S {
                x[i] += k[i] * nu;
            }
            // L P = P − k (h P) = P − k pᵀ (P symmetric).
            for j in 0..S {
                for i in 0..S {
                    pa[j][i] -= k[i] * p[j];
                }
            }
            let mut g = [zero; S];
            for j in 0..S {
                if h[j] != zero {
                    for i in 0..S {
                        g[i] += pa[j][i] * h[j];
                    }
                }
            }
            // (L P) Lᵀ + r k kᵀ: the upper triangle reads only upper entries of L P; the mirror
            // overwrites lower ones, no longer needed.
            for j in 0..S {
                for i in 0..=j {
                    let v = pa[j][i] - g[i] * k[j] + r * k[i] * k[j];
                    pa[j][i] = v;
                    pa[i][j] = v;
                }
            }
        }
        Ok((x, pm))
    }
}

/// `a b` through the column arrays (`a[k][i]` is `a(i, k)`) and loop-counter indices (no
/// bounds-check branch), skipping the zero entries of `a` (they add nothing to a finite `b`).
#[allow(clippy::needless_range_loop)] // entries of three arrays by the same indices
fn mul<T: Real, const R: usize, const K: usize, const C: usize>(
    a: &SMatrix<T, R, K>,
    b: &SMatrix<T, K, C>,
) -> SMatrix<T, R, C> {
    let (x, y) = (&a.data.0, &b.data.0);
    let mut out = SMatrix::<T, R, C>::zeros();
    let o = &mut out.data.0;
    for k in 0..K {
        for i in 0..R {
            let xik = x[k][i];
            if xik == T::zero() {
                continue;
            }
            for j in 0..C {
                o[j][i] += xik * y[j][k];
            }
        }
    }
    out
}

/// `a bᵀ + c` for a product known to be symmetric (`A P Aᵀ`, `H P Hᵀ`, the Joseph form's terms)
/// and a symmetric `c`: the upper triangle computed (zero entries of `b` skipped), the lower one
/// its mirror, so the result is exactly symmetric.
#[allow(clippy::needless_range_loop)] // pairs (i, j) and (j, i) of one array
fn sym_abt<T: Real, const R: usize, const K: usize>(
    a: &SMatrix<T, R, K>,
    b: &SMatrix<T, R, K>,
    c: &SMatrix<T, R, R>,
) -> SMatrix<T, R, R> {
    let (x, y) = (&a.data.0, &b.data.0);
    let mut out = *c;
    let o = &mut out.data.0;
    for j in 0..R {
        for i in 0..=j {
            let mut v = T::zero();
            for k in 0..K {
                let yjk = y[k][j];
                if yjk != T::zero() {
                    v += x[k][i] * yjk;
                }
            }
            o[j][i] += v;
            o[i][j] = o[j][i];
        }
    }
    out
}

/// One step of `model` from `x`. Not inlined: the step's temporaries are not in
/// [`Ekf::predict`]'s frame while the linearisation runs.
#[inline(never)]
fn advance<T: Real, I: Integrator<T, N>, const N: usize>(
    model: &mut I,
    x: &mut State<T, N>,
) -> Result<(), ControlError> {
    model.step(x)?;
    Ok(())
}
