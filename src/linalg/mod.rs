//! Small fixed-size linear algebra with bounded cost, on top of nalgebra.

mod jacobi;

pub use jacobi::{symmetric_eigen, Eigen, MAX_SWEEPS};
