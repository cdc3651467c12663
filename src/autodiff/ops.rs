//! The arithmetic operator impls of the number types, written once.
//!
//! [`Dual`](super::Dual), [`VDual`](super::VDual) and [`Jet2`](super::Jet2) differ only in how
//! they multiply and divide (the product rule, the Taylor product), which each type states
//! where it is defined. The rest acts on their components alike: `+`, `−` and negation
//! component by component, `+ c` and `− c` with a plain constant on the value alone, `× c` and
//! `÷ c` on every component, and the compound assignments `a ∘= b` as `a = a ∘ b`. A trait impl
//! for a foreign operator trait cannot be blanket over every type, hence a macro.

/// Expands to the arithmetic of a number type: `Add`, `Sub`, `Neg`, `Mul`, `Div` between two
/// numbers, `Add<T>`, `Sub<T>`, `Mul<T>`, `Div<T>` with a plain `T` on the right, and the four
/// compound assignments.
///
/// - `impl[G] Ty, each C;` the generics and type of the number and the type `C` of its
///   components: each operator between two numbers is bounded by that operator on `C` (the
///   product also by `+`, the quotient by `−` and `×`);
/// - `mixed[G'] T;` the generics of the operations with a plain scalar, and that scalar;
/// - `{ value, parts.. }` the value field, then the derivative fields;
/// - `fn mul(a, b) { .. }` and `fn div(a, b) { .. }` the product and the quotient.
macro_rules! number_ops {
    (
        impl[$($g:tt)*] $ty:ty, each $c:ty;
        mixed[$($mg:tt)*] $t:ident;
        { $value:ident $(, $part:ident)* }
        fn mul($ma:ident, $mb:ident) $mul:block
        fn div($da:ident, $db:ident) $div:block
    ) => {
        $crate::autodiff::number_ops!(@each [$($g)*] $ty, $c, Add add + { $value $(, $part)* });
        $crate::autodiff::number_ops!(@each [$($g)*] $ty, $c, Sub sub - { $value $(, $part)* });
        impl<$($g)*> core::ops::Neg for $ty
        where
            $c: core::ops::Neg<Output = $c>,
        {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self {
                Self {
                    $value: -self.$value,
                    $($part: -self.$part,)*
                }
            }
        }
        impl<$($g)*> core::ops::Mul for $ty
        where
            $c: Copy + core::ops::Add<Output = $c> + core::ops::Mul<Output = $c>,
        {
            type Output = Self;
            #[inline]
            fn mul(self, o: Self) -> Self {
                let ($ma, $mb) = (self, o);
                $mul
            }
        }
        impl<$($g)*> core::ops::Div for $ty
        where
            $c: Copy
                + core::ops::Sub<Output = $c>
                + core::ops::Mul<Output = $c>
                + core::ops::Div<Output = $c>,
        {
            type Output = Self;
            #[inline]
            fn div(self, o: Self) -> Self {
                let ($da, $db) = (self, o);
                $div
            }
        }

        $crate::autodiff::number_ops!(@value [$($mg)*] $ty, $t, Add add + $value);
        $crate::autodiff::number_ops!(@value [$($mg)*] $ty, $t, Sub sub - $value);
        $crate::autodiff::number_ops!(@scale [$($mg)*] $ty, $t, Mul mul * { $value $(, $part)* });
        $crate::autodiff::number_ops!(@scale [$($mg)*] $ty, $t, Div div / { $value $(, $part)* });

        $crate::autodiff::number_ops!(@assign [$($g)*] $ty, Add, AddAssign add_assign +);
        $crate::autodiff::number_ops!(@assign [$($g)*] $ty, Sub, SubAssign sub_assign -);
        $crate::autodiff::number_ops!(@assign [$($g)*] $ty, Mul, MulAssign mul_assign *);
        $crate::autodiff::number_ops!(@assign [$($g)*] $ty, Div, DivAssign div_assign /);
    };

    // `a ∘ b` component by component.
    (@each [$($g:tt)*] $ty:ty, $c:ty, $tr:ident $f:ident $op:tt { $($field:ident),* }) => {
        impl<$($g)*> core::ops::$tr for $ty
        where
            $c: core::ops::$tr<Output = $c>,
        {
            type Output = Self;
            #[inline]
            fn $f(self, o: Self) -> Self {
                Self {
                    $($field: self.$field $op o.$field,)*
                }
            }
        }
    };

    // `a ∘ c` on the value alone (a constant has no derivative parts).
    (@value [$($mg:tt)*] $ty:ty, $t:ident, $tr:ident $f:ident $op:tt $value:ident) => {
        impl<$($mg)*> core::ops::$tr<$t> for $ty {
            type Output = Self;
            #[inline]
            fn $f(self, c: $t) -> Self {
                Self {
                    $value: self.$value $op c,
                    ..self
                }
            }
        }
    };

    // `a ∘ c` on every component.
    (@scale [$($mg:tt)*] $ty:ty, $t:ident, $tr:ident $f:ident $op:tt { $($field:ident),* }) => {
        impl<$($mg)*> core::ops::$tr<$t> for $ty {
            type Output = Self;
            #[inline]
            fn $f(self, c: $t) -> Self {
                Self {
                    $($field: self.$field $op c,)*
                }
            }
        }
    };

    // `a ∘= b` as `a = a ∘ b`, with the bounds of the binary operator.
    (@assign [$($g:tt)*] $ty:ty, $bin:ident, $tr:ident $f:ident $op:tt) => {
        impl<$($g)*> core::ops::$tr for $ty
        where
            $ty: Copy + core::ops::$bin<Output = $ty>,
        {
            #[inline]
            fn $f(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    };
}

pub(crate) use number_ops;
