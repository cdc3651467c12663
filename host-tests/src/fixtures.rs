//! Small models that tests and experiments share and that a user of the core would not want
//! from `macrostep::models`: the thesis's example systems (004 eqs 2.93, 2.100, 2.101, 2.108,
//! 2.120) and the potentials behind them.

use macrostep::flavor::StiffOde;
use macrostep::model::{Mass, Potential, Quadratic, Split, System};
use macrostep::models::{QuarticBond, SpringTrimer};
use macrostep::nalgebra::{matrix, SMatrix, SVector};
use macrostep::Real;

/// The split model of a system `½|v|² + V + α U`.
pub type SplitSystem<T, V, U, const N: usize> = System<T, Split<T, V, U>, N>;

/// System 2.93: `H = ½|p|² + ½x² + ½ω²(y − x)²`, `q = (x, y)`, unit masses; `α = ω²`.
pub fn system_293<T: Real>(omega: f64) -> SplitSystem<T, Quadratic<T, 2>, Quadratic<T, 2>, 2> {
    let one = T::one();
    let soft = Quadratic::new(SMatrix::<T, 2, 2>::new(
        one,
        T::zero(),
        T::zero(),
        T::zero(),
    ));
    let stiff = Quadratic::new(SMatrix::<T, 2, 2>::new(one, -one, -one, one));
    System::new(
        Mass::identity(),
        Split::new(soft, stiff, T::lit(omega * omega)),
    )
}

/// The stiff-coordinate matrix `G` of system 2.93 (`y − x`).
pub fn coords_293<T: Real>() -> SMatrix<T, 1, 2> {
    SMatrix::<T, 1, 2>::new(-T::one(), T::one())
}

/// System 2.100 (the models' [`SpringTrimer`]): `H = ½|p|² + x⁴ + ε⁻¹[ω₁/2 (y − x)² +
/// ω₂/2 (z − y)²]`, `q = (x, y, z)`; `α = 1/ε`.
pub fn system_2100<T: Real>(
    eps: f64,
    w1: f64,
    w2: f64,
) -> SplitSystem<T, QuarticBond<T, 3>, Quadratic<T, 3>, 3> {
    SpringTrimer::new(T::lit(eps), [T::lit(w1), T::lit(w2)])
        .expect("valid trimer")
        .system()
}

/// The stiff-coordinate matrix of system 2.100 (`y − x`, `z − y`).
pub fn coords_2100<T: Real>() -> SMatrix<T, 2, 3> {
    matrix![-1.0, 1.0, 0.0; 0.0, -1.0, 1.0].map(T::lit)
}

/// The hidden Van der Pol oscillator in polar coordinates (004 eq 2.101), `u = (r, θ)`, split as
/// in eq 2.104: soft `−ε(r cos θ sin θ, cos² θ)`, stiff (times `α = 1/ε`)
/// `((r cos θ + r sin θ − r³cos³θ/3) cos θ, −(cos θ + sin θ − r² cos³θ/3) sin θ)`.
/// In `x = r sin θ`, `y = r cos θ` it is `ẋ = −εy`, `ẏ = (x + y − y³/3)/ε` (eq 2.102).
#[derive(Clone, Copy, Debug)]
pub struct HiddenVdp {
    /// `ε`.
    pub eps: f64,
}

impl StiffOde<f64, 2> for HiddenVdp {
    fn soft(&self, _t: f64, u: &SVector<f64, 2>) -> SVector<f64, 2> {
        let (r, th) = (u[0], u[1]);
        let (s, c) = th.sin_cos();
        SVector::from([-self.eps * r * c * s, -self.eps * c * c])
    }
    fn stiff(&self, _clock: f64, u: &SVector<f64, 2>) -> SVector<f64, 2> {
        let (r, th) = (u[0], u[1]);
        let (s, c) = th.sin_cos();
        let c3 = c * c * c;
        SVector::from([
            (r * c + r * s - r * r * r * c3 / 3.0) * c,
            -(c + s - r * r * c3 / 3.0) * s,
        ])
    }
}

/// `V = e^{q₀}(q₁ − q₀)²` (the soft potential of eq 2.120, `q = (y, x)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpCoupling;

impl Potential<f64, 2> for ExpCoupling {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        q[0].exp() * (q[1] - q[0]).powi(2)
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        let (y, x) = (q[0], q[1]);
        let e = y.exp();
        SVector::from([e * (x - y).powi(2) - 2.0 * e * (x - y), 2.0 * e * (x - y)])
    }
}

/// `V = (s² − 1)²` with `s = (q₀ + q₁)/2`: a double well in the centre of mass.
#[derive(Clone, Copy, Debug, Default)]
pub struct MeanDoubleWell;

impl Potential<f64, 2> for MeanDoubleWell {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        let s = 0.5 * (q[0] + q[1]);
        (s * s - 1.0).powi(2)
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        let s = 0.5 * (q[0] + q[1]);
        let d = 4.0 * s * (s * s - 1.0) * 0.5;
        SVector::from([d, d])
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct AngleWell;

impl Potential<f64, 2> for AngleWell {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        q[0] * q[0] / q.norm_squared()
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        let (x, y) = (q[0], q[1]);
        let r4 = q.norm_squared().powi(2);
        SVector::from([2.0 * x * y * y / r4, -2.0 * x * x * y / r4])
    }
}

/// The stiff bond of eq 2.108 without `ω²`: `½(r − r₀)²`.
#[derive(Clone, Copy, Debug)]
pub struct Bond {
    /// Rest length `r₀`.
    pub r0: f64,
}

impl Potential<f64, 2> for Bond {
    fn energy(&self, q: &SVector<f64, 2>) -> f64 {
        0.5 * (q.norm() - self.r0).powi(2)
    }
    fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
        let r = q.norm();
        q * ((r - self.r0) / r)
    }
}
