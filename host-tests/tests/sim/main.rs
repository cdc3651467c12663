//! SIM (004 §4.2): exactness of the fast flow, structure, order, bad input.

use host_tests::measure::{
    from_phase, integrator_defect, jacobian_determinant, loglog_slope, reversibility_error,
    to_phase,
};
// Sim1/Sim2 implement both stepping traits: the deterministic `Integrator` is in scope, the
// stochastic steps are named (`macrostep::StochasticIntegrator::step_noisy`).
use macrostep::model::{Mass, Potential, Zero};
use macrostep::sim::{FastParams, Friction, Noise, Sim1, Sim1Order, Sim2, Sim4, SimSystem};
use macrostep::{ConfigError, Integrator, PreconditionKind, Real, State, StepError};
use nalgebra::{matrix, vector, DMatrix, DVector, Matrix3, SMatrix, SVector, Vector3};
use rand::SeedableRng;
use rand_pcg::Pcg32;

mod bad_input;
mod exactness;
mod structure;

/// A smooth anharmonic soft potential `V = Σ qᵢ⁴/4 + ½(q₁ − q₂)² + cos(q₃)` for N = 3.
#[derive(Clone, Copy, Debug)]
struct Soft;
impl<T: Real> Potential<T, 3> for Soft {
    fn energy(&self, q: &SVector<T, 3>) -> T {
        let quarter = T::lit(0.25);
        let d = q[0] - q[1];
        q.iter()
            .map(|&x| x * x * x * x * quarter)
            .fold(T::zero(), |a, b| a + b)
            + d * d * T::lit(0.5)
            + q[2].cos()
    }
    fn gradient(&self, q: &SVector<T, 3>) -> SVector<T, 3> {
        let d = q[0] - q[1];
        SVector::<T, 3>::new(
            q[0] * q[0] * q[0] + d,
            q[1] * q[1] * q[1] - d,
            q[2] * q[2] * q[2] - q[2].sin(),
        )
    }
}

/// A non-diagonal stiff K (SPD, frequencies ≈ 30–60) and a full SPD mass: exercises Jacobi.
fn stiff_k() -> Matrix3<f64> {
    matrix![2000.0, -500.0, 100.0; -500.0, 1500.0, -300.0; 100.0, -300.0, 1000.0]
}
fn full_mass() -> Mass<f64, 3> {
    Mass::full(matrix![2.0, 0.3, 0.0; 0.3, 1.0, 0.2; 0.0, 0.2, 1.5]).unwrap()
}

/// Independent reference: `exp(h [[0, M⁻¹], [−K, −c]])` on `(q, p)` with nalgebra's (std) expm.
fn generator(m: &Mass<f64, 3>, k: &Matrix3<f64>, c: f64) -> DMatrix<f64> {
    let minv = m.matrix().try_inverse().unwrap();
    let mut a = DMatrix::zeros(6, 6);
    for i in 0..3 {
        for j in 0..3 {
            a[(i, 3 + j)] = minv[(i, j)];
            a[(3 + i, j)] = -k[(i, j)];
        }
        a[(3 + i, 3 + i)] = -c;
    }
    a
}

fn exact_linear(m: &Mass<f64, 3>, k: &Matrix3<f64>, c: f64, h: f64) -> DMatrix<f64> {
    (generator(m, k, c) * h).exp()
}

/// Van Loan's method: the covariance of `∫₀ʰ e^{A(h−s)} G dW` with `G = [0; σ]`.
fn van_loan(
    m: &Mass<f64, 3>,
    k: &Matrix3<f64>,
    c: f64,
    sigma: &Matrix3<f64>,
    h: f64,
) -> DMatrix<f64> {
    let a = generator(m, k, c);
    let mut q = DMatrix::zeros(6, 6);
    let ss = sigma * sigma.transpose();
    for i in 0..3 {
        for j in 0..3 {
            q[(3 + i, 3 + j)] = ss[(i, j)];
        }
    }
    let mut big = DMatrix::zeros(12, 12);
    big.view_mut((0, 0), (6, 6)).copy_from(&(-&a));
    big.view_mut((0, 6), (6, 6)).copy_from(&q);
    big.view_mut((6, 6), (6, 6)).copy_from(&a.transpose());
    let e = (big * h).exp();
    let phi = e.view((6, 6), (6, 6)).transpose();
    let e12 = e.view((0, 6), (6, 6)).clone_owned();
    phi * e12
}

fn soft_system_states() -> State<f64, 3> {
    State::new(0.0, vector![0.3, -0.4, 0.5], vector![0.2, 0.1, -0.6])
}
