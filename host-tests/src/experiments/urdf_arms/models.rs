//! The mechanisms `urdf2mech` emits for the shipped URDFs (`host-tests/build.rs` writes them to
//! `OUT_DIR`): `planar_arm3` (`DIM = 2`) and `arm6` (a UR5-like arm, `DIM = 3`), each a module
//! with its sizes, names, limits, `Ids` and `build::<T>(g)`.

include!(concat!(env!("OUT_DIR"), "/planar_arm3.rs"));
include!(concat!(env!("OUT_DIR"), "/arm6.rs"));
