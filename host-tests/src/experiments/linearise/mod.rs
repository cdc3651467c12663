//! `reproduce linearise`: the exact step linearisations of [`macrostep::linearise`] against
//! central differences, their symplecticity, their cost, and the LQR gains and the EKF built on
//! them ([`macrostep::control`]).

pub mod cases;
pub mod fd;
