//! The test problems of the linearisations: a bob on a spring under gravity with an anisotropic
//! mass (every derivative of the potential non-zero), and its soft/stiff split, each with a held
//! force away from zero; generic over the scalar.

use macrostep::autodiff::{AdScalar, AutoDiff, Energy};
use macrostep::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use macrostep::forcing::{Actuated, Damped};
use macrostep::model::{Mass, Split, System};
use macrostep::nalgebra::{matrix, vector, SVector};
use macrostep::zs::{
    DampedZs, Newmark, NewmarkOneIteration, NewmarkParams, PushForwardNewmark, StiffSylipn, Sylipn,
    ZhangSkeel, ZsParams,
};
use macrostep::{ConfigError, Real, State};

/// `½ k (|q| − 1)² + g q_y`: a bob on a spring of rest length 1.
#[derive(Clone, Copy, Debug)]
pub struct Spring<T> {
    /// Stiffness.
    pub k: T,
    /// Gravity.
    pub g: T,
}

impl<T: Real> Energy<T, 2> for Spring<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
        let r = (q[0] * q[0] + q[1] * q[1]).sqrt() - T::one();
        r * r * (self.k * T::lit(0.5)) + q[1] * self.g
    }
}

/// The soft part of the split: gravity and a quartic well in `x`, `g q_y + ¼ q_x⁴ + q_x q_y²`.
#[derive(Clone, Copy, Debug)]
pub struct Soft<T>(pub T);

impl<T: Real> Energy<T, 2> for Soft<T> {
    fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
        let x2 = q[0] * q[0];
        q[1] * self.0 + x2 * x2 * T::lit(0.25) + q[0] * q[1] * q[1]
    }
}

/// The held force of every case.
pub fn force<T: Real>() -> SVector<T, 2> {
    vector![T::lit(0.3), T::lit(-0.2)]
}

/// The mass `diag(1, 2)`.
pub fn mass<T: Real>() -> Mass<T, 2> {
    Mass::diagonal(vector![T::one(), T::lit(2.0)]).expect("positive")
}

/// The spring with stiffness `k`, gravity 9.81, mass [`mass`] and held force [`force`].
pub type SpringSystem<T> = System<T, SpringP<T>, 2>;

/// The spring system.
pub fn spring<T: Real>(k: f64) -> SpringSystem<T> {
    let p = Spring {
        k: T::lit(k),
        g: T::lit(9.81),
    };
    System::new(
        mass(),
        Actuated::with_force(AutoDiff(p), force()).expect("finite"),
    )
}

/// The split system: [`Soft`] (held force on it) plus `α = 1` times a spring of stiffness `k`.
pub type SplitSystem<T> =
    System<T, Split<T, Actuated<T, AutoDiff<Soft<T>>, 2>, AutoDiff<Spring<T>>>, 2>;

/// The split system.
pub fn split<T: Real>(k: f64) -> SplitSystem<T> {
    let soft = Actuated::with_force(AutoDiff(Soft(T::lit(9.81))), force()).expect("finite");
    let stiff = AutoDiff(Spring {
        k: T::lit(k),
        g: T::zero(),
    });
    System::new(mass(), Split::new(soft, stiff, T::one()))
}

/// A state off the rest length, moving.
pub fn start<T: Real>() -> State<T, 2> {
    State::new(
        T::zero(),
        vector![T::lit(0.8), T::lit(-0.7)],
        vector![T::lit(0.4), T::lit(0.3)],
    )
}

/// The spring's potential with its held force.
pub type SpringP<T> = Actuated<T, AutoDiff<Spring<T>>, 2>;
/// The split's soft part with its held force.
pub type SoftP<T> = Actuated<T, AutoDiff<Soft<T>>, 2>;
/// Stiff Z&Ss on the split.
pub type Stiff<T> = StiffSylipn<T, SoftP<T>, AutoDiff<Spring<T>>, 2>;

/// Every linearised method on these cases, by name: Z&S, Z&Ss, stiff Z&Ss (`β = 0.4`),
/// velocity Verlet, symplectic Euler in both orderings.
pub struct Methods<T: Real> {
    /// Z&S.
    pub zs: ZhangSkeel<T, SpringP<T>, 2>,
    /// Z&Ss.
    pub sylipn: Sylipn<T, SpringP<T>, 2>,
    /// Stiff Z&Ss on [`split`].
    pub stiff_sylipn: Stiff<T>,
    /// Velocity Verlet.
    pub verlet: VelocityVerlet<T, SpringP<T>, 2>,
    /// Symplectic Euler, kick–drift.
    pub euler_kd: SymplecticEuler<T, SpringP<T>, 2>,
    /// Symplectic Euler, drift–kick.
    pub euler_dk: SymplecticEuler<T, SpringP<T>, 2>,
    /// Z&S inside the split damping with [`damping`].
    pub damped_zs: Damped<T, ZhangSkeel<T, SpringP<T>, 2>, 2>,
    /// Z&S with [`damping`] inside its solve.
    pub zs_in_solve: DampedZs<T, ZhangSkeel<T, SpringP<T>, 2>, 2>,
    /// Z&Ss with [`damping`] inside its solve.
    pub sylipn_in_solve: DampedZs<T, Sylipn<T, SpringP<T>, 2>, 2>,
    /// Stiff Z&Ss with [`damping`] inside its solve.
    pub stiff_in_solve: DampedZs<T, Stiff<T>, 2>,
    /// Newmark (γ = ½), solved by Newton to its default tolerance.
    pub newmark: Newmark<T, SpringP<T>, 2>,
    /// Push-forward Newmark, solved by Newton to its default tolerance.
    pub push_forward: PushForwardNewmark<T, SpringP<T>, 2>,
    /// One-iteration Newmark.
    pub newmark_one: NewmarkOneIteration<T, SpringP<T>, 2>,
}

/// A damping matrix with coupling, `C = [[0.5, 0.1], [0.1, 0.3]]`.
pub fn damping<T: Real>() -> macrostep::nalgebra::SMatrix<T, 2, 2> {
    matrix![T::lit(0.5), T::lit(0.1); T::lit(0.1), T::lit(0.3)]
}

/// `β = 0.4` and the default Newton controls.
fn newmark_params<T: Real>() -> NewmarkParams<T> {
    NewmarkParams::with_beta(T::lit(0.4))
}

impl<T: Real> Methods<T> {
    /// Every method at step `h` on the spring (stiffness `k`).
    ///
    /// # Errors
    /// A constructor's.
    pub fn new(h: f64, k: f64) -> Result<Self, ConfigError> {
        let (h, p) = (T::lit(h), ZsParams::with_beta(T::lit(0.4)));
        Ok(Self {
            zs: ZhangSkeel::new(spring(k), h, p)?,
            sylipn: Sylipn::new(spring(k), h, p)?,
            stiff_sylipn: StiffSylipn::new(split(k), h, p)?,
            verlet: VelocityVerlet::new(spring(k), h)?,
            euler_kd: SymplecticEuler::new(spring(k), h, EulerOrdering::KickDrift)?,
            euler_dk: SymplecticEuler::new(spring(k), h, EulerOrdering::DriftKick)?,
            damped_zs: Damped::new(ZhangSkeel::new(spring(k), h, p)?, mass(), damping())?,
            zs_in_solve: DampedZs::new(ZhangSkeel::new(spring(k), h, p)?, damping())?,
            sylipn_in_solve: DampedZs::new(Sylipn::new(spring(k), h, p)?, damping())?,
            stiff_in_solve: DampedZs::new(StiffSylipn::new(split(k), h, p)?, damping())?,
            newmark: Newmark::new(spring(k), h, newmark_params())?,
            push_forward: PushForwardNewmark::new(spring(k), h, newmark_params())?,
            newmark_one: NewmarkOneIteration::new(spring(k), h, p)?,
        })
    }
}
