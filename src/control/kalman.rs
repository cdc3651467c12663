//! An extended Kalman filter whose prediction is the integrator's step and its exact
//! linearisation.

use super::validate::{finite, solve, symmetric};
use super::ControlError;
use crate::linearise::Linearise;
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
/// The Joseph form keeps `P` symmetric positive semidefinite whatever the roundoff (the short
/// form `(I − KH) P` does not, in `f32`). `Φ` is one step of the model integrator handed to
/// [`Ekf::predict`], with the held force it carries (set it with
/// [`Actuate::set_force`](crate::forcing::Actuate::set_force) before predicting). The model
/// usually runs with [`Guards::off`](crate::guard::Guards::off): updates move the estimate off
/// the energy of the run the guards watch.
///
/// Cost: predict one linearisation, one step and two `S × S` products; update one `Y × Y` LU
/// solve with `S` right-hand sides and `O(S²Y + S³)` products. No allocation.
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
        Ok(Self {
            x: x0,
            p: p0,
            q,
            r,
            h,
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
        let a: SMatrix<T, S, S> = model.linearise(&self.x)?.a();
        // A P Aᵀ + Q accumulated in place (`gemm`): three S × S matrices on the stack.
        let (one, zero) = (T::one(), T::zero());
        let mut t = SMatrix::<T, S, S>::zeros();
        t.gemm(one, &a, &self.p, zero);
        let mut p = self.q;
        p.gemm(one, &t, &a.transpose(), one);
        symmetrise(&mut p);
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
    /// [`ControlError::NonFinite`] for `"P"` on overflow. The filter is then unchanged.
    #[inline(never)]
    pub fn update(&mut self, y: &SVector<T, Y>) -> Result<SVector<T, Y>, ControlError> {
        finite(y, "y")?;
        let xs = self.vector();
        let nu = y - self.h * xs;
        let sv = self.h * self.p * self.h.transpose() + self.r;
        // K = P Hᵀ Sᵥ⁻¹ = (Sᵥ⁻¹ H P)ᵀ, Sᵥ and P symmetric.
        let k = solve(&sv, &(self.h * self.p))?.transpose();
        let x = xs + k * nu;
        // (I − KH) P (I − KH)ᵀ + K R Kᵀ, accumulated in place (`gemm`): four S × S matrices on
        // the stack instead of a temporary per operation.
        let (one, zero) = (T::one(), T::zero());
        let mut ikh = SMatrix::<T, S, S>::identity();
        ikh.gemm(-one, &k, &self.h, one);
        let mut t = SMatrix::<T, S, S>::zeros();
        t.gemm(one, &ikh, &self.p, zero);
        let mut u = SMatrix::<T, S, S>::zeros();
        ikh.transpose_to(&mut u);
        let mut p = SMatrix::<T, S, S>::zeros();
        p.gemm(one, &t, &u, zero);
        let kr = k * self.r;
        p.gemm(one, &kr, &k.transpose(), one);
        symmetrise(&mut p);
        finite(&p, "P")?;
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
}

/// `m ← ½ m + ½ mᵀ` in place (entries through the column arrays, loop-counter indices).
#[allow(clippy::needless_range_loop)] // pairs (i, j) and (j, i) of one array
fn symmetrise<T: Real, const S: usize>(m: &mut SMatrix<T, S, S>) {
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
