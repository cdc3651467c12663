//! The seals of the crate's closed traits: public traits with a supertrait from this private
//! module cannot be implemented outside the crate.
//!
//! - [`Sealed`]: the strategy markers of the generic method cores (a Z&S member, a SIM scheme, a
//!   FLAVOR form, …): the set of strategies is the crate's, so their hooks may change freely.
//! - [`Stepped`]: implemented by the step driver for every method
//!   ([`crate::driver`]); [`Integrator`](crate::Integrator) and
//!   [`StochasticIntegrator`](crate::StochasticIntegrator) require it, so every step goes
//!   through the driver's checks, guards, clock and commit.

/// The seal of the strategy markers.
pub trait Sealed {}

/// The seal of the stepping traits, implemented by the driver only.
pub trait Stepped<T: crate::Real, const N: usize> {
    /// Sets the time of `state`, the state the driver committed last, to `t` (a run landing on
    /// its end time, [`crate::output`]): the guard run continues from it.
    fn settle_clock(&mut self, state: &mut crate::State<T, N>, t: T);
}
