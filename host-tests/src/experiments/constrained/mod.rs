//! Constrained dynamics: Reich's pendulum tables (002 §5), VS vs VR on the spring chain (001 §7),
//! the multiplier recovered from a penalty run (000 Fig 2b / Fig 5), the chain of 20 pendula
//! (004 §5.4.3).

pub mod chain;
pub mod multiplier;
pub mod reich;
pub mod vs_vr;
