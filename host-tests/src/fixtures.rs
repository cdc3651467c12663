//! Small models that tests and experiments share and that a user of the core would not want
//! from `macrostep::systems`:
//!
//! - hand-written nonlinear potentials for verification, each with the matching right-hand side
//!   for [`crate::reference::solve`] (computed in `f64`, independently of the core):
//!   [`PendulumPotential`] `V(q) = −k cos q` (1 dof), [`Morse`] `V(q) = D (1 − e^{−a(q − r)})²`
//!   (1 dof), [`HenonHeiles`] `V(x, y) = ½(x² + y²) + x²y − y³/3` (2 dof; its Hessian is not
//!   diagonalised by a constant matrix, so Z&Ss is not symplectic on it, 000 Rem 2.14). They
//!   implement [`Potential`] generically over [`Real`], so the same model runs in `f32` and
//!   `f64`; the pendulum and Hénon–Heiles also give the Hessian and third derivative Z&S needs;
//! - the thesis's FLAVOR example systems (004 eqs 2.93, 2.100, 2.101, 2.108, 2.120) and the
//!   potentials behind them, and the FLAVOR stacks over symplectic Euler built on them
//!   ([`nonintrusive_se`], [`nonintrusive_fused`]);
//! - the Hénon–Heiles systems of the Zhang–Skeel experiments and tests ([`hh`], [`hh_split`]).
//! - the one-dimensional Lennard-Jones double well of 004 §6.5 and its exact Boltzmann–Gibbs law
//!   ([`lj_well`]).
//! - the built-in double pendulum and chain written with the mechanism builder, and their
//!   bit-identity check ([`builder_models`]).
//! - the forced double pendulum of 000 §4.1 with a held force ([`forced_dp`]).
//! - the TIP3P water cluster of 000 §4.3 ([`water`]).
//! - two variants of the penalised double pendulum, distance form and Gauss–Newton matrix
//!   ([`penalised_dp`]).
//! - the quasi-quadratic models of 004 eqs 4.84/4.85 with their integrators and reference
//!   ([`quasi_quadratic`]).

pub mod builder_models;
pub mod forced_dp;
pub mod lj_well;
pub mod penalised_dp;
pub mod quasi_quadratic;
pub mod water;

use macrostep::flavor::{FusedEulerFlavor, Nonintrusive, StiffOde, SymplecticEulerFlavor};
use macrostep::model::{Hessian, Mass, Potential, Quadratic, Split, System, ThirdDerivative};
use macrostep::nalgebra::{matrix, vector, SMatrix, SVector};
use macrostep::systems::{QuarticBond, SpringTrimer};
use macrostep::{Real, State};

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

impl HiddenVdp {
    /// The relaxation period of an accurate reference (DOP853, tolerance 1e-10) on the Cartesian
    /// form (2.102) from `(x, y) = (1, 1)` over `[0, t_end]`, its `y` sampled at `samples`
    /// points: twice the mean spacing of the zero crossings of `y`.
    pub fn reference_period(&self, t_end: f64, samples: usize) -> f64 {
        let eps = self.eps;
        let times = crate::reference::linspace(0.0, t_end, samples);
        let y = crate::reference::solve(
            |_t, u, du| {
                du[0] = -eps * u[1];
                du[1] = (u[0] + u[1] - u[1] * u[1] * u[1] / 3.0) / eps;
            },
            0.0,
            &[1.0, 1.0],
            t_end,
            1e-10,
            1e-10,
            &times,
        );
        let ys: Vec<(f64, f64)> = times.iter().zip(&y).map(|(&t, u)| (t, u[1])).collect();
        crate::measure::mean_period(&crate::measure::crossings(&ys))
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

/// The pendulum potential `V(q) = −k cos q`.
#[derive(Clone, Copy, Debug)]
pub struct PendulumPotential<T: Real> {
    k: T,
    k64: f64,
}

impl<T: Real> PendulumPotential<T> {
    /// `V = −k cos q`.
    pub fn new(k: f64) -> Self {
        Self {
            k: T::lit(k),
            k64: k,
        }
    }

    /// `ẏ = (v, −(k/m) sin q)` for `y = (q, v)` and mass `m`.
    pub fn rhs(&self, m: f64) -> impl Fn(f64, &[f64], &mut [f64]) {
        let w2 = self.k64 / m;
        move |_t, y, dy| {
            dy[0] = y[1];
            dy[1] = -w2 * y[0].sin();
        }
    }
}

impl<T: Real> Potential<T, 1> for PendulumPotential<T> {
    fn energy(&self, q: &SVector<T, 1>) -> T {
        -self.k * q[0].cos()
    }
    fn gradient(&self, q: &SVector<T, 1>) -> SVector<T, 1> {
        vector![self.k * q[0].sin()]
    }
}

impl<T: Real> Hessian<T, 1> for PendulumPotential<T> {
    fn hessian(&self, q: &SVector<T, 1>) -> SMatrix<T, 1, 1> {
        SMatrix::<T, 1, 1>::new(self.k * q[0].cos())
    }
}

impl<T: Real> ThirdDerivative<T, 1> for PendulumPotential<T> {
    fn third_contraction(&self, q: &SVector<T, 1>, a: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::<T, 1>::new(-self.k * q[0].sin() * a[0] * a[0])
    }
}

/// The Morse potential `V(q) = D (1 − e^{−a(q − r)})²`.
#[derive(Clone, Copy, Debug)]
pub struct Morse<T: Real> {
    d: T,
    a: T,
    r: T,
    f: [f64; 3],
}

impl<T: Real> Morse<T> {
    /// Well depth `d`, width `a`, equilibrium `r`.
    pub fn new(d: f64, a: f64, r: f64) -> Self {
        Self {
            d: T::lit(d),
            a: T::lit(a),
            r: T::lit(r),
            f: [d, a, r],
        }
    }

    /// `ẏ = (v, −V′(q)/m)` for `y = (q, v)` and mass `m`.
    pub fn rhs(&self, m: f64) -> impl Fn(f64, &[f64], &mut [f64]) {
        let [d, a, r] = self.f;
        move |_t, y, dy| {
            let e = (-a * (y[0] - r)).exp();
            dy[0] = y[1];
            dy[1] = -2.0 * d * a * e * (1.0 - e) / m;
        }
    }
}

impl<T: Real> Potential<T, 1> for Morse<T> {
    fn energy(&self, q: &SVector<T, 1>) -> T {
        let e = (-self.a * (q[0] - self.r)).exp();
        let u = T::one() - e;
        self.d * u * u
    }
    fn gradient(&self, q: &SVector<T, 1>) -> SVector<T, 1> {
        let e = (-self.a * (q[0] - self.r)).exp();
        let two = T::one() + T::one();
        vector![two * self.d * self.a * e * (T::one() - e)]
    }
}

/// The Hénon–Heiles potential `V(x, y) = ½(x² + y²) + x²y − y³/3`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HenonHeiles;

impl HenonHeiles {
    /// `ẏ = (v, −M⁻¹∇V(q))` for `y = (x, y, vx, vy)` and diagonal masses `m`.
    pub fn rhs(m: [f64; 2]) -> impl Fn(f64, &[f64], &mut [f64]) {
        move |_t, y, dy| {
            let (x, yy) = (y[0], y[1]);
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = -(x + 2.0 * x * yy) / m[0];
            dy[3] = -(yy + x * x - yy * yy) / m[1];
        }
    }
}

impl<T: Real> Potential<T, 2> for HenonHeiles {
    fn energy(&self, q: &SVector<T, 2>) -> T {
        let (x, y) = (q[0], q[1]);
        let half = T::lit(0.5);
        let third = T::lit(1.0 / 3.0);
        half * (x * x + y * y) + x * x * y - y * y * y * third
    }
    fn gradient(&self, q: &SVector<T, 2>) -> SVector<T, 2> {
        let (x, y) = (q[0], q[1]);
        let two = T::one() + T::one();
        vector![x + two * x * y, y + x * x - y * y]
    }
}

impl<T: Real> Hessian<T, 2> for HenonHeiles {
    fn hessian(&self, q: &SVector<T, 2>) -> SMatrix<T, 2, 2> {
        let (x, y) = (q[0], q[1]);
        let two = T::lit(2.0);
        SMatrix::<T, 2, 2>::new(T::one() + two * y, two * x, two * x, T::one() - two * y)
    }
}

impl<T: Real> ThirdDerivative<T, 2> for HenonHeiles {
    fn third_contraction(&self, _: &SVector<T, 2>, a: &SVector<T, 2>) -> SVector<T, 2> {
        let two = T::lit(2.0);
        SVector::<T, 2>::new(two * two * a[0] * a[1], two * (a[0] * a[0] - a[1] * a[1]))
    }
}

/// The diagonal mass `diag(2, 0.5)` used with [`HenonHeiles`] to exercise a non-identity mass.
pub fn hh_mass<T: Real>() -> Mass<T, 2> {
    // Both entries positive and finite: the constructor cannot fail.
    Mass::diagonal(vector![T::lit(2.0), T::lit(0.5)]).expect("valid mass")
}

/// Symplectic Euler over a split system, as a FLAVOR legacy map.
pub type SeMap<T, V, U, const N: usize> = macrostep::flavor::SymplecticEulerMap<T, V, U, N>;

/// The nonintrusive FLAVOR (2.45) over kick–drift symplectic Euler (2.49) of a split system.
pub fn nonintrusive_se<T: Real, V, U, const N: usize>(
    system: SplitSystem<T, V, U, N>,
    delta: T,
    tau: T,
) -> SymplecticEulerFlavor<T, V, U, N>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    Nonintrusive::symplectic_euler(system, delta, tau).expect("finite alpha, 0 < tau < delta")
}

/// The nonintrusive FLAVOR (2.45) over [`FusedEuler`](macrostep::flavor::FusedEuler) (on step
/// drift–kick 2.50, off step kick–drift 2.49, the two kicks fused): one legacy step's cost per
/// FLAVOR step.
pub fn nonintrusive_fused<T: Real, V, U, const N: usize>(
    system: SplitSystem<T, V, U, N>,
    delta: T,
    tau: T,
) -> FusedEulerFlavor<T, V, U, N>
where
    V: Potential<T, N>,
    U: Potential<T, N>,
{
    Nonintrusive::fused_euler(system, delta, tau).expect("finite alpha, 0 < tau < delta")
}

/// Hénon–Heiles with unit masses.
pub fn hh() -> System<f64, HenonHeiles, 2> {
    System::new(Mass::identity(), HenonHeiles)
}

/// The start of every Hénon–Heiles run (energy ≈ 0.08, regular motion).
pub fn hh_start() -> State<f64, 2> {
    State::new(0.0, vector![0.3, -0.2], vector![0.1, 0.25])
}

/// Hénon–Heiles plus the stiff spring `½·100·(x² + 4y²)`, split for the stiff Z&Ss.
pub type HhSplit = Split<f64, HenonHeiles, Quadratic<f64, 2>>;

/// [`HhSplit`] with unit masses.
pub fn hh_split() -> System<f64, HhSplit, 2> {
    System::new(
        Mass::identity(),
        Split::new(
            HenonHeiles,
            Quadratic::new(matrix![1.0, 0.0; 0.0, 4.0]),
            100.0,
        ),
    )
}
