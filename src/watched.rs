//! The [`Integrator`](crate::Integrator) guard accessors that every integrator keeping its guard
//! memory in a field `watch` writes the same way.

/// Expands, inside an `impl Integrator<T, N> for …` block, to `watch` and `watch_mut` (return
/// `self.watch`). A trait's overridden methods cannot come from a helper function, hence a macro;
/// the impl keeps its properties (`ORDER`, `SYMPLECTIC`, `SYMMETRIC`) and its `step_by` in view.
/// The step size is not here: it belongs to the separate [`Stepper`](crate::Stepper) impl.
macro_rules! watch_accessors {
    () => {
        fn watch(&self) -> Option<&$crate::guard::Watch<T, N>> {
            Some(&self.watch)
        }

        fn watch_mut(&mut self) -> Option<&mut $crate::guard::Watch<T, N>> {
            Some(&mut self.watch)
        }
    };
}
pub(crate) use watch_accessors;
