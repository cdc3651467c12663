//! The models of 004 eqs 4.84/4.85 (the ring potential, the diagonal and non-diagonal frequency
//! matrices), their integrators and the reference solution.

use crate::reference::solve_system;
use macrostep::model::{Mass, Potential, System};
use macrostep::nalgebra::{matrix, SMatrix, SVector};
use macrostep::sim::{Quasi1, Quasi2, QuasiExp, QuasiParams, QuasiStiffness};
use macrostep::{ConfigError, Integrator, Real, State};

/// The soft potential of eqs 4.84/4.85: `V = (|q|² − 1)²`.
#[derive(Clone, Copy, Debug)]
pub struct Ring;

impl<T: Real, const N: usize> Potential<T, N> for Ring {
    fn energy(&self, q: &SVector<T, N>) -> T {
        let r = q.dot(q) - T::one();
        r * r
    }
    fn gradient(&self, q: &SVector<T, N>) -> SVector<T, N> {
        q * (T::lit(4.0) * (q.dot(q) - T::one()))
    }
}

/// `K(x) = 1 + x²` of eq 4.84 (diagonal, `d_s = d_f = 1`).
#[derive(Clone, Copy, Debug)]
pub struct K84;

impl<T: Real> QuasiStiffness<T, 1, 1> for K84 {
    fn stiffness(&self, x: &SVector<T, 1>) -> SMatrix<T, 1, 1> {
        SMatrix::from_element(T::one() + x[0] * x[0])
    }
    fn stiffness_derivative(&self, x: &SVector<T, 1>, _: usize) -> SMatrix<T, 1, 1> {
        SMatrix::from_element(T::lit(2.0) * x[0])
    }
}

/// `K(x) = [[1 + x², x² − 1], [x² − 1, 3x²]]` of eq 4.85 (non-diagonal, `d_f = 2`).
#[derive(Clone, Copy, Debug)]
pub struct K85;

impl<T: Real> QuasiStiffness<T, 1, 2> for K85 {
    fn stiffness(&self, x: &SVector<T, 1>) -> SMatrix<T, 2, 2> {
        let (one, x2) = (T::one(), x[0] * x[0]);
        matrix![one + x2, x2 - one; x2 - one, T::lit(3.0) * x2]
    }
    fn stiffness_derivative(&self, x: &SVector<T, 1>, _: usize) -> SMatrix<T, 2, 2> {
        let d = T::lit(2.0) * x[0];
        matrix![d, d; d, T::lit(3.0) * d]
    }
}

/// The whole potential `V + ½ω² q_fastᵀK q_fast`, for Verlet and the DOP853 reference.
#[derive(Clone, Copy, Debug)]
pub struct Full<K, const S: usize, const F: usize> {
    /// The stiffness.
    pub k: K,
    /// `ε⁻¹ = ω²`.
    pub inv_eps: f64,
}

impl<K: QuasiStiffness<f64, S, F>, const N: usize, const S: usize, const F: usize> Potential<f64, N>
    for Full<K, S, F>
{
    fn energy(&self, q: &SVector<f64, N>) -> f64 {
        let (qs, x) = split::<N, S, F>(q);
        Ring.energy(q) + 0.5 * self.inv_eps * (self.k.stiffness(&qs) * x).dot(&x)
    }
    fn gradient(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        let (qs, x) = split::<N, S, F>(q);
        let mut g = Ring.gradient(q);
        let kx = self.k.stiffness(&qs) * x;
        for i in 0..S {
            g[i] += 0.5 * self.inv_eps * (self.k.stiffness_derivative(&qs, i) * x).dot(&x);
        }
        for j in 0..F {
            g[S + j] += self.inv_eps * kx[j];
        }
        g
    }
}

fn split<const N: usize, const S: usize, const F: usize>(
    q: &SVector<f64, N>,
) -> (SVector<f64, S>, SVector<f64, F>) {
    (
        SVector::from_fn(|i, _| q[i]),
        SVector::from_fn(|j, _| q[S + j]),
    )
}

/// Initial state of Fig 4.4: `x = 1.1`, `y = 0.7/ω`, at rest.
pub fn initial84(omega: f64) -> State<f64, 2> {
    State::at_rest(SVector::from([1.1, 0.7 / omega]))
}

/// Initial state of Fig 4.6: `x = 1.1`, `y = 0.2/ω`, `z = 0.1/ω`, at rest.
pub fn initial85(omega: f64) -> State<f64, 3> {
    State::at_rest(SVector::from([1.1, 0.2 / omega, 0.1 / omega]))
}

/// Quasi1 on eq 4.84 (`exp` chooses the stiff flow).
pub fn quasi84(
    omega: f64,
    h: f64,
    exp: QuasiExp,
) -> Result<Quasi1<f64, Ring, K84, 2, 1, 1>, ConfigError> {
    Quasi1::new(
        Ring,
        K84,
        QuasiParams {
            inv_eps: omega * omega,
            h,
            exp,
        },
    )
}

/// Quasi2 on eq 4.84.
pub fn strang84(omega: f64, h: f64) -> Result<Quasi2<f64, Ring, K84, 2, 1, 1>, ConfigError> {
    Quasi2::new(
        Ring,
        K84,
        QuasiParams {
            inv_eps: omega * omega,
            h,
            exp: QuasiExp::Diagonal,
        },
    )
}

/// Quasi1 on eq 4.85 with Integrator 4.3.2 (`n` squarings).
pub fn quasi85(omega: f64, h: f64, n: u32) -> Result<Quasi1<f64, Ring, K85, 3, 1, 2>, ConfigError> {
    let exp = QuasiExp::Symplectic { squarings: n };
    Quasi1::new(
        Ring,
        K85,
        QuasiParams {
            inv_eps: omega * omega,
            h,
            exp,
        },
    )
}

/// DOP853 reference of the full system at `t` (tolerance 1e-12).
pub fn reference<K: QuasiStiffness<f64, S, F>, const N: usize, const S: usize, const F: usize>(
    k: K,
    omega: f64,
    s0: &State<f64, N>,
    t: f64,
) -> State<f64, N> {
    let sys = System::new(
        Mass::identity(),
        Full::<K, S, F> {
            k,
            inv_eps: omega * omega,
        },
    );
    solve_system(&sys, s0, &[t], 1e-12, 1e-12)[0]
}

/// `|x(T) − x_ref(T)|` of `integ` from `s0` over `T` (`None` when a step fails).
pub fn slow_error<I: Integrator<f64, N>, const N: usize>(
    mut integ: I,
    s0: &State<f64, N>,
    t: f64,
    x_ref: f64,
) -> Option<f64> {
    let n = (t / integ.step_size()).round() as usize;
    let mut s = *s0;
    integ.integrate(&mut s, n).ok()?;
    Some((s.q[0] - x_ref).abs())
}
