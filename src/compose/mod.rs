//! Compositions of one-step methods.
//!
//! - [`SymmetricComposition`]: higher order from a symmetric method by composing it with
//!   fractional steps `γ₁h, …, γ_sh` (Yoshida 1990; Hairer–Lubich–Wanner II.4; 000 Remark 2.11:
//!   "arbitrary high-order Z&S can be obtained using standard splitting schemes"). The triple
//!   jump and Suzuki's 5-stage scheme raise an even order `p` to `p + 2`.

mod symmetric;

pub use symmetric::{Scheme, SymmetricComposition};
