//! `urdf2mech`: reads the URDF of a fixed-base tree and emits the Rust source of the
//! const-sized `macrostep` mechanism it describes, for a `build.rs` or the command line.
//!
//! ```
//! let urdf = r#"<robot name="pendulum">
//!   <link name="base"/>
//!   <link name="bob">
//!     <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
//!       <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
//!   </link>
//!   <joint name="hinge" type="continuous">
//!     <parent link="base"/><child link="bob"/><axis xyz="0 1 0"/>
//!   </joint>
//! </robot>"#;
//! let source = urdf2mech::emit(urdf)?;
//! assert!(source.contains("pub mod pendulum {"));
//! assert!(source.contains("pub const DIM: usize = 2;")); // one hinge: planar
//! # Ok::<(), urdf2mech::Error>(())
//! ```
//!
//! ## What it reads
//! `revolute`, `continuous`, `prismatic` and `fixed` joints (and `spherical`, which `urdf-rs`
//! accepts), `<origin xyz rpy>` of joints and of `<inertial>`, `<mass>`, the full `<inertia>`
//! tensor, `<axis>`, `<limit>` (listed in the output, not enforced) and `<dynamics damping>`.
//! Visual and collision geometry is ignored.
//!
//! ## What it computes
//! Every link's world pose at the zero configuration by composing joint origins
//! (`T_child = T_parent · (R(rpy), xyz)`, `R(rpy) = Rz(yaw) Ry(pitch) Rx(roll)`, the URDF's
//! fixed-axis convention), then each rigid body's mass, centre of mass and inertia tensor about
//! it in world axes (`J_w = R J Rᵀ`), and each joint's world anchor (the child link's origin) and
//! unit axis. Links welded by a `fixed` joint are **fused** into one body (masses added, centre of
//! mass averaged, inertias moved by the parallel-axis theorem), as MuJoCo's URDF import does: a
//! weld would only add stiff constraint rows, and the massless frames URDFs use for tools and
//! sensors (`tool0`, `ee_link`) could not be bodies of their own. The root link and every link
//! welded to it are the ground.
//!
//! ## What it emits
//! A `pub mod <robot>` holding `DIM`, `N`, `D` (from `macrostep::mechanism`'s `body_coordinates`,
//! `body_constraints` and `JointKind::rows`), the link and joint names, `JOINT_LIMITS`,
//! `JOINT_DAMPING`, `AXIS_SIGN`, an `Ids` struct and `build::<T>(g)`, which calls
//! `MechanismBuilder::body` per body, `revolute`/`prismatic`/`spherical` per joint, a
//! `joint_motor` per hinge and slider, `joint_damping` where the URDF gives one, and `gravity`;
//! and `build_in::<T>(g, builder, slot)`, the same mechanism bit for bit built in place
//! (`MechanismBuilder::new_in`, `build_in`) in caller-owned slots, for a device that keeps the
//! builder and the mechanism in `static`s rather than on a 2 KiB stack.
//! `DIM = 2` when the model is planar ([`planar`]: every hinge axis parallel, every slider in
//! the plane, every anchor and centre of mass in one plane), `DIM = 3` otherwise; the module's
//! docs say which and why.
//!
//! ## What it refuses
//! Each with an [`Error`] naming the joint or link: a floating or planar joint (floating base),
//! a `<mimic>` joint, a closed loop (a link with two parents, or links unreachable from the
//! root), an unknown joint type, a moved body without mass (no `<inertial>`), a negative mass or
//! a non-positive-definite inertia tensor, a body the affine-body formulation cannot hold (thin
//! rod or flat plate), a zero joint axis.
//!
//! From a `build.rs`:
//! ```no_run
//! let urdf = std::fs::read_to_string("arm.urdf").unwrap();
//! let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("arm.rs");
//! std::fs::write(out, urdf2mech::emit(&urdf).unwrap()).unwrap();
//! // and in the crate: include!(concat!(env!("OUT_DIR"), "/arm.rs"));
//! ```

mod emit;
mod error;
pub mod math;
pub mod model;
pub mod planar;
mod scan;

pub use emit::{module_name, num, Options};
pub use error::Error;

/// The Rust source of the mechanism the URDF text `urdf` describes, in a module named after the
/// robot.
///
/// # Errors
/// Every [`Error`]: see the crate docs.
pub fn emit(urdf: &str) -> Result<String, Error> {
    emit_with(urdf, &Options::default())
}

/// [`emit`] with [`Options`] (the module's name, the source named in the header).
///
/// # Errors
/// As [`emit`].
pub fn emit_with(urdf: &str, options: &Options) -> Result<String, Error> {
    let model = model::read(urdf)?;
    emit::source(&model, options)
}
