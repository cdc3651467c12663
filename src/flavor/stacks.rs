//! The common FLAVOR stacks in one call: type aliases and builders from `(system, δ, τ)`.
//!
//! Building a FLAVOR by hand takes a legacy integrator (with its own step size), a legacy map
//! around it, validated [`Params`] and the FLAVOR, with `τ` given twice. The builders here take
//! the split system, the meso-step `δ` and the micro-step `τ` once; the aliases name the
//! resulting types.
//!
//! | alias | builder | legacy map |
//! |---|---|---|
//! | [`SymplecticEulerFlavor`] | [`Nonintrusive::symplectic_euler`] | kick–drift symplectic Euler (eq 2.49) |
//! | [`FusedEulerFlavor`] | [`Nonintrusive::fused_euler`] | [`FusedEuler`]: one legacy step per FLAVOR step |
//! | [`VerletFlavor`] | [`Nonintrusive::verlet`] | velocity Verlet |
//! | [`SymmetricEulerFlavor`] | [`Symmetric::symplectic_euler`] | symplectic Euler and its adjoint (eqs 2.49, 2.50) |

use super::{FusedEuler, Nonintrusive, Params, Switched, Symmetric};
use crate::baselines::{EulerOrdering, SymplecticEuler, VelocityVerlet};
use crate::model::{Potential, Split, System};
use crate::{ConfigError, Real};

/// Kick–drift symplectic Euler over a [`Split`] potential as a switched legacy map
/// ([`Switched::symplectic_euler`], 004 eq 2.49, adjoint eq 2.50): the legacy map of
/// [`SymplecticEulerFlavor`] and [`SymmetricEulerFlavor`], and the type to name when building
/// another FLAVOR (a [`LangevinSoft`](super::LangevinSoft), a [`Metropolis`](super::Metropolis))
/// over it.
pub type SymplecticEulerMap<T, V, U, const N: usize> =
    Switched<T, SymplecticEuler<T, Split<T, V, U>, N>, N>;

/// Velocity Verlet over a [`Split`] potential as a switched legacy map ([`Switched::verlet`]):
/// the legacy map of [`VerletFlavor`].
pub type VerletMap<T, V, U, const N: usize> = Switched<T, VelocityVerlet<T, Split<T, V, U>, N>, N>;

/// The nonintrusive FLAVOR (004 eq 2.45) over symplectic Euler; built by
/// [`Nonintrusive::symplectic_euler`].
///
/// The parameters of the stack aliases: the scalar `T`, the soft and stiff potentials `V`, `U`
/// of the [`Split`], the degrees of freedom `N` — what a user writes to keep one in a struct:
///
/// ```
/// use macrostep::flavor::{Nonintrusive, SymplecticEulerFlavor};
/// use macrostep::model::{Mass, Quadratic, Split, System};
/// use macrostep::{Integrator, State};
/// use nalgebra::{matrix, vector};
/// type Q = Quadratic<f64, 2>;
/// struct Controller {
///     flavor: SymplecticEulerFlavor<f64, Q, Q, 2>,
/// }
/// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4);
/// let system = System::new(Mass::identity(), split);
/// let mut c = Controller { flavor: Nonintrusive::symplectic_euler(system, 0.01, 1e-4)? };
/// let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
/// c.flavor.integrate(&mut s, 10)?;
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub type SymplecticEulerFlavor<T, V, U, const N: usize> =
    Nonintrusive<T, SymplecticEulerMap<T, V, U, N>, N>;

/// The nonintrusive FLAVOR (004 eq 2.45) over [`FusedEuler`]; built by
/// [`Nonintrusive::fused_euler`].
pub type FusedEulerFlavor<T, V, U, const N: usize> = Nonintrusive<T, FusedEuler<T, V, U, N>, N>;

/// The nonintrusive FLAVOR (004 eq 2.45) over velocity Verlet; built by
/// [`Nonintrusive::verlet`].
pub type VerletFlavor<T, V, U, const N: usize> = Nonintrusive<T, VerletMap<T, V, U, N>, N>;

/// The symmetric FLAVOR (004 eq 2.47) over symplectic Euler and its adjoint; built by
/// [`Symmetric::symplectic_euler`].
pub type SymmetricEulerFlavor<T, V, U, const N: usize> =
    Symmetric<T, SymplecticEulerMap<T, V, U, N>, N>;

/// Kick–drift symplectic Euler at step `τ` as a switched map (`τ` is its nominal step only: a
/// FLAVOR calls it with explicit steps).
fn euler_map<T: Real, V, U, const N: usize>(
    system: System<T, Split<T, V, U>, N>,
    tau: T,
) -> Result<SymplecticEulerMap<T, V, U, N>, ConfigError>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    Switched::symplectic_euler(SymplecticEuler::new(system, tau, EulerOrdering::KickDrift)?)
}

impl<T: Real, V, U, const N: usize> SymplecticEulerFlavor<T, V, U, N>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    /// The nonintrusive FLAVOR (004 eq 2.45) over kick–drift symplectic Euler (eq 2.49) of a
    /// split system, meso-step `delta`, micro-step `tau`; the "on" stiffness is the split's
    /// `alpha`.
    ///
    /// ```
    /// use macrostep::{flavor::Nonintrusive, model::{Mass, Quadratic, Split, System}};
    /// use macrostep::{Integrator, State};
    /// use nalgebra::{matrix, vector};
    /// // System 2.93 with ω = 100: slow (x+y)/2 follows s̈ = −s/2.
    /// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
    ///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
    /// let mut flavor = Nonintrusive::symplectic_euler(System::new(Mass::identity(), split), 0.01, 1e-4)?;
    /// let mut s = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
    /// flavor.integrate(&mut s, 100)?;
    /// assert!(((s.q[0] + s.q[1]) / 2.0 - 0.8055 * 0.5_f64.sqrt().cos()).abs() < 0.02);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Params::new`] (`0 < τ < δ`, both finite); [`ConfigError::NonFinite`]
    /// `{ name: "alpha" }` for a non-finite stiffness.
    pub fn symplectic_euler(
        system: System<T, Split<T, V, U>, N>,
        delta: T,
        tau: T,
    ) -> Result<SymplecticEulerFlavor<T, V, U, N>, ConfigError> {
        let params = Params::new(delta, tau)?;
        Self::new(euler_map(system, tau)?, params)
    }
}

impl<T: Real, V, U, const N: usize> SymmetricEulerFlavor<T, V, U, N>
where
    V: Potential<T, N> + Clone,
    U: Potential<T, N> + Clone,
{
    /// The symmetric FLAVOR (004 eq 2.47) over symplectic Euler (eq 2.49) and its adjoint
    /// (eq 2.50), meso-step `delta`, micro-step `tau`.
    ///
    /// ```
    /// use macrostep::{flavor::Symmetric, model::{Mass, Quadratic, Split, System}};
    /// use macrostep::{Integrator, State};
    /// use nalgebra::{matrix, vector};
    /// let split = Split::new(Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
    ///                        Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]), 1e4_f64);
    /// let mut flavor = Symmetric::symplectic_euler(System::new(Mass::identity(), split), 0.01, 1e-4)?;
    /// let s0 = State::new(0.0, vector![0.8, 0.811], vector![0.0, 0.0]);
    /// let mut s = s0;
    /// flavor.integrate(&mut s, 10)?;
    /// for _ in 0..10 { flavor.step_by(&mut s, -0.01)?; }
    /// assert!((s.q - s0.q).amax() < 1e-12);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Nonintrusive::symplectic_euler`].
    pub fn symplectic_euler(
        system: System<T, Split<T, V, U>, N>,
        delta: T,
        tau: T,
    ) -> Result<SymmetricEulerFlavor<T, V, U, N>, ConfigError> {
        let params = Params::new(delta, tau)?;
        Self::new(euler_map(system, tau)?, params)
    }
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> FusedEulerFlavor<T, V, U, N> {
    /// The nonintrusive FLAVOR (004 eq 2.45) over [`FusedEuler`] (stiff sub-step drift–kick,
    /// soft sub-step kick–drift, the two kicks fused): one legacy step's cost per FLAVOR step.
    ///
    /// ```
    /// use macrostep::{flavor::Nonintrusive, systems::SpringTrimer, Integrator};
    /// let model = SpringTrimer::<f64>::paper();
    /// let mut flavor = Nonintrusive::fused_euler(model.system(), 0.01, 2e-5)?;
    /// let mut s = model.initial_state();
    /// flavor.integrate(&mut s, 100)?;
    /// assert!((s.t - 1.0).abs() < 1e-12);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Nonintrusive::symplectic_euler`].
    pub fn fused_euler(
        system: System<T, Split<T, V, U>, N>,
        delta: T,
        tau: T,
    ) -> Result<FusedEulerFlavor<T, V, U, N>, ConfigError> {
        let params = Params::new(delta, tau)?;
        Self::new(FusedEuler::new(system)?, params)
    }
}

impl<T: Real, V: Potential<T, N>, U: Potential<T, N>, const N: usize> VerletFlavor<T, V, U, N> {
    /// The nonintrusive FLAVOR (004 eq 2.45) over velocity Verlet (`τ` is the nominal step of
    /// the legacy integrator).
    ///
    /// # Errors
    /// As [`Nonintrusive::symplectic_euler`].
    pub fn verlet(
        system: System<T, Split<T, V, U>, N>,
        delta: T,
        tau: T,
    ) -> Result<VerletFlavor<T, V, U, N>, ConfigError> {
        let params = Params::new(delta, tau)?;
        let map = Switched::verlet(VelocityVerlet::new(system, tau)?)?;
        Self::new(map, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mass, Quadratic};
    use crate::{Integrator, State};
    use nalgebra::{matrix, vector};

    type Q = Quadratic<f64, 2>;

    fn system(alpha: f64) -> System<f64, Split<f64, Q, Q>, 2> {
        let split = Split::new(
            Quadratic::new(matrix![1.0, 0.0; 0.0, 0.0]),
            Quadratic::new(matrix![1.0, -1.0; -1.0, 1.0]),
            alpha,
        );
        System::new(Mass::identity(), split)
    }

    /// The one-call builders give bit-identical steps to the four-constructor stacks.
    #[test]
    fn builders_match_the_hand_built_stacks() {
        let (delta, tau) = (0.01, 1e-4);
        let p = Params::new(delta, tau).unwrap();
        let s0 = State::new(0.0, vector![0.8, 0.811], vector![0.1, -0.2]);
        let se = SymplecticEuler::new(system(1e4), tau, EulerOrdering::KickDrift).unwrap();
        let map = Switched::symplectic_euler(se).unwrap();
        let vv = Switched::verlet(VelocityVerlet::new(system(1e4), tau).unwrap()).unwrap();
        let fused = FusedEuler::new(system(1e4)).unwrap();

        let mut pairs: [(State<f64, 2>, State<f64, 2>); 4] = [(s0, s0); 4];
        let mut a = Nonintrusive::symplectic_euler(system(1e4), delta, tau).unwrap();
        let mut b = Nonintrusive::new(map, p).unwrap();
        a.integrate(&mut pairs[0].0, 20).unwrap();
        b.integrate(&mut pairs[0].1, 20).unwrap();
        let mut a = Symmetric::symplectic_euler(system(1e4), delta, tau).unwrap();
        let mut b = Symmetric::new(map, p).unwrap();
        a.integrate(&mut pairs[1].0, 20).unwrap();
        b.integrate(&mut pairs[1].1, 20).unwrap();
        let mut a = Nonintrusive::fused_euler(system(1e4), delta, tau).unwrap();
        let mut b = Nonintrusive::new(fused, p).unwrap();
        a.integrate(&mut pairs[2].0, 20).unwrap();
        b.integrate(&mut pairs[2].1, 20).unwrap();
        let mut a = Nonintrusive::verlet(system(1e4), delta, tau).unwrap();
        let mut b = Nonintrusive::new(vv, p).unwrap();
        a.integrate(&mut pairs[3].0, 20).unwrap();
        b.integrate(&mut pairs[3].1, 20).unwrap();
        for (x, y) in pairs {
            assert_ne!(x.q, s0.q);
            assert_eq!(x, y);
        }
    }

    #[test]
    fn builders_reject_bad_input() {
        let tau_ge_delta = ConfigError::Inconsistent {
            name: "tau < delta",
        };
        let alpha = ConfigError::NonFinite { name: "alpha" };
        assert_eq!(
            Nonintrusive::symplectic_euler(system(1e4), 0.01, 0.01).unwrap_err(),
            tau_ge_delta
        );
        assert_eq!(
            Nonintrusive::symplectic_euler(system(f64::NAN), 0.01, 1e-4).unwrap_err(),
            alpha
        );
        assert_eq!(
            Symmetric::symplectic_euler(system(1e4), 0.01, 0.0).unwrap_err(),
            ConfigError::OutOfRange {
                name: "tau",
                bound: "> 0"
            }
        );
        assert_eq!(
            Symmetric::symplectic_euler(system(f64::INFINITY), 0.01, 1e-4).unwrap_err(),
            alpha
        );
        assert_eq!(
            Nonintrusive::fused_euler(system(1e4), -0.01, 1e-4).unwrap_err(),
            ConfigError::StepSize
        );
        assert_eq!(
            Nonintrusive::fused_euler(system(f64::NAN), 0.01, 1e-4).unwrap_err(),
            alpha
        );
        assert_eq!(
            Nonintrusive::verlet(system(1e4), f64::NAN, 1e-4).unwrap_err(),
            ConfigError::NonFinite { name: "delta" }
        );
        assert_eq!(
            Nonintrusive::verlet(system(f64::NAN), 0.01, 1e-4).unwrap_err(),
            alpha
        );
    }
}
