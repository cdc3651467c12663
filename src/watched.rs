//! The [`Integrator`](crate::Integrator) guard accessors that every integrator keeping its guard
//! memory in a field `watch` writes the same way.

/// Expands, inside an `impl Integrator<T, N> for …` block, to `watch` and `watch_mut` (return
/// `self.watch`). A trait's overridden methods cannot come from a helper function, hence a macro.
/// Integrators write it through [`claims_and_watch`], which puts their claims beside it. The step
/// size is not here: it belongs to the separate [`Stepper`](crate::Stepper) impl.
macro_rules! watch_accessors {
    () => {

    };
}
pub(crate) use watch_accessors;

/// The head of an `impl Integrator` for a type with a `watch: Watch<T, N>` field: the three
/// claims (`order` a constant expression, e.g. `K::ORDER` of a tableau) every host test measures (`ORDER` by a log–log slope, `SYMPLECTIC` by the
/// symplecticity defect, `SYMMETRIC` by reversibility) and the watch accessors.
macro_rules! claims_and_watch {
    (order: $order:expr, symplectic: $symplectic:literal, symmetric: $symmetric:literal) => {
        const ORDER: u32 = $order;
        const SYMPLECTIC: bool = $symplectic;
        const SYMMETRIC: bool = $symmetric;

        $crate::watched::watch_accessors!();
    };
}
pub(crate) use claims_and_watch;

/// Expands, inside an `impl Integrator<T, N> for …` block of a wrapper (a damping split, a
/// driving force), to `watch` and `watch_mut` handing out the guard memory of the integrator it
/// wraps in the field `$inner`: the wrapper's steps commit through that integrator's guards.
macro_rules! watch_of_inner {
    ($inner:ident) => {

    };
}
pub(crate) use watch_of_inner;
