//! What a first program needs, in one import: `use macrostep::prelude::*;`.
//!
//! - the vocabulary: [`State`], [`Stepper`] (step size and guards), [`Integrator`],
//!   [`StochasticIntegrator`], [`System`], [`Mass`],
//!   [`Real`];
//! - the model traits [`Potential`], [`Hessian`], [`ThirdDerivative`], [`Constraint`], and
//!   automatic differentiation ([`AutoDiff`] over an [`Energy`] or a [`ConstraintFn`], written
//!   with [`AdScalar`]) so a model is written once;
//! - the methods of a first comparison: [`ZhangSkeel`] and [`Sylipn`] with [`ZsParams`],
//!   [`Rattle`] for rigid constraints, [`VelocityVerlet`] as the explicit baseline;
//! - the errors [`ConfigError`] and [`StepError`], the step [`Guards`] and the [`Recovering`]
//!   wrapper;
//! - nalgebra's fixed-size types [`SVector`], [`SMatrix`], [`Vector2`], [`Vector3`],
//!   [`Vector4`]. nalgebra's `vector!`/`matrix!` macros are not re-exported: they need nalgebra's
//!   `macros` feature (a proc macro), which this crate does not enable so that embedded builds
//!   stay free of it; enable it in your own `nalgebra` dependency to use them.
//!
//! [`Potential`] and [`Energy`] both have a method named `energy`. A type implements one or the
//! other in a typical program (your struct implements [`Energy`], `AutoDiff(..)` of it implements
//! [`Potential`]); for a type implementing both, call `Potential::energy(&v, &q)`.
//!
//! ```
//! use macrostep::prelude::*;
//!
//! let mut verlet = VelocityVerlet::new(System::new(Mass::identity(), AutoDiff(Spring)), 0.01)?;
//! let mut state = State::at_rest(Vector2::new(1.0, 0.0));
//! verlet.integrate(&mut state, 100)?;
//! assert!((state.q[0] - 1f64.cos()).abs() < 1e-4);
//!
//! /// `V(q) = ½|q|²`.
//! struct Spring;
//! impl<T: Real> Energy<T, 2> for Spring {
//!     fn energy<S: AdScalar<T>>(&self, q: &[S; 2]) -> S {
//!         (q[0] * q[0] + q[1] * q[1]) * T::lit(0.5)
//!     }
//! }
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```

pub use crate::autodiff::{AdScalar, AutoDiff, ConstraintFn, Energy};
pub use crate::baselines::VelocityVerlet;
pub use crate::constrained::Rattle;
pub use crate::error::{ConfigError, PreconditionKind, StepError};
pub use crate::guard::Guards;
pub use crate::integrator::{Integrator, Stepper, StochasticIntegrator};
pub use crate::model::{Constraint, Hessian, Mass, Potential, System, ThirdDerivative};
pub use crate::recover::Recovering;
pub use crate::zs::{Sylipn, ZhangSkeel, ZsParams};
pub use crate::{Real, State};
pub use nalgebra::{SMatrix, SVector, Vector2, Vector3, Vector4};
