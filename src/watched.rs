//! The [`Integrator`](crate::Integrator) methods that every integrator keeping its configured
//! step in a field `h` and its guard memory in a field `watch` writes the same way.

/// Expands, inside an `impl Integrator<T, N> for …` block, to `step_size` (returns `self.h`, or
/// the field path given, e.g. `core.h`),
/// `watch` and `watch_mut` (return `self.watch`). A trait's required and overridden methods
/// cannot come from a helper function, hence a macro; the impl keeps its properties (`ORDER`,
/// `SYMPLECTIC`, `SYMMETRIC`) and its `step_by` in view.
macro_rules! step_size_and_watch {
    () => {
        $crate::watched::step_size_and_watch!(h);
    };
    ($($h:ident).+) => {
        fn step_size(&self) -> T {
            self.$($h).+
        }

        fn watch(&self) -> Option<&$crate::guard::Watch<T, N>> {
            Some(&self.watch)
        }

        fn watch_mut(&mut self) -> Option<&mut $crate::guard::Watch<T, N>> {
            Some(&mut self.watch)
        }
    };
}
pub(crate) use step_size_and_watch;
