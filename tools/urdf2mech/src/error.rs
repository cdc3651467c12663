//! What the tool refuses, each case naming the link or joint at fault.

use std::fmt;

/// Why a URDF cannot be turned into a mechanism.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The text is not a URDF `urdf-rs` can read (malformed XML, a missing required attribute).
    Parse(String),
    /// A joint of a type the URDF format does not define (`type="…"`).
    UnknownJointType {
        /// The joint.
        joint: String,
        /// Its `type` attribute.
        kind: String,
    },
    /// A `floating` or `planar` joint: a floating (or planar-floating) base, which a fixed-base
    /// tree cannot express.
    FloatingBase {
        /// The joint.
        joint: String,
        /// `floating` or `planar`.
        kind: &'static str,
    },
    /// A joint with `<mimic>`: its coordinate would be tied to another joint's, a coupling the
    /// mechanism builder does not offer.
    Mimic {
        /// The mimicking joint.
        joint: String,
        /// The joint it mimics.
        mimics: String,
    },
    /// A joint names a link the URDF does not define.
    UnknownLink {
        /// The joint.
        joint: String,
        /// The missing link.
        link: String,
    },
    /// A link is the child of two joints (a closed kinematic loop or a duplicated joint).
    MultipleParents {
        /// The link.
        link: String,
        /// The first joint naming it as child.
        first: String,
        /// The second joint naming it as child.
        second: String,
    },
    /// Links not reachable from the root: a closed loop of joints with no root.
    Loop {
        /// One link on the loop.
        link: String,
    },
    /// No link or more than one link without a parent joint.
    Roots {
        /// The parentless links (empty when every link has a parent, i.e. a loop).
        roots: Vec<String>,
    },
    /// A link moved by a joint whose rigid group (the link and every link welded to it by
    /// `fixed` joints) has no mass: no `<inertial>` block, or a zero mass.
    MissingInertial {
        /// The link.
        link: String,
        /// The joint that moves it.
        joint: String,
    },
    /// A negative mass (a zero inertia tensor is allowed: a point mass, e.g. a welded tool).
    NonPositiveMass {
        /// The link.
        link: String,
    },
    /// An `<inertia>` tensor that is not positive definite (a negative or zero principal moment).
    NonPositiveDefiniteInertia {
        /// The link.
        link: String,
    },
    /// A rigid body whose principal moments fail the strict triangle inequality (`Σ = ½tr(J)I −
    /// J` not positive definite: a thin rod or a flat plate), which the affine-body formulation
    /// cannot represent; in the plane, a zero moment about the plane's normal.
    DegenerateBody {
        /// The link (the head of the rigid group).
        link: String,
    },
    /// A joint axis of zero (or non-finite) length.
    ZeroAxis {
        /// The joint.
        joint: String,
    },
    /// A number that is NaN or infinite where a finite value is needed.
    NonFinite {
        /// The link or joint.
        name: String,
    },
    /// Nothing moves: no joint other than `fixed` below the root.
    NoBodies,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(e) => write!(f, "not a readable URDF: {e}"),
            Error::UnknownJointType { joint, kind } => write!(
                f,
                "joint '{joint}' has unknown type '{kind}' (supported: revolute, continuous, prismatic, fixed, spherical)"
            ),
            Error::FloatingBase { joint, kind } => write!(
                f,
                "joint '{joint}' is '{kind}': a floating base is not supported (the tool reads fixed-base trees)"
            ),
            Error::Mimic { joint, mimics } => write!(
                f,
                "joint '{joint}' mimics joint '{mimics}': mimic joints are not supported"
            ),
            Error::UnknownLink { joint, link } => {
                write!(f, "joint '{joint}' names link '{link}', which is not defined")
            }
            Error::MultipleParents { link, first, second } => write!(
                f,
                "link '{link}' is the child of joints '{first}' and '{second}': closed loops are not supported"
            ),
            Error::Loop { link } => write!(
                f,
                "link '{link}' is on a closed loop of joints not connected to the root: loops are not supported"
            ),
            Error::Roots { roots } if roots.is_empty() => {
                write!(f, "every link has a parent joint: the joints form a loop")
            }
            Error::Roots { roots } => write!(
                f,
                "links {roots:?} have no parent joint: a fixed-base tree has exactly one root"
            ),
            Error::MissingInertial { link, joint } => write!(
                f,
                "link '{link}', moved by joint '{joint}', has no <inertial> mass (nor has any link fixed to it)"
            ),
            Error::NonPositiveMass { link } => {
                write!(f, "link '{link}' has a negative mass")
            }
            Error::NonPositiveDefiniteInertia { link } => {
                write!(f, "link '{link}' has an inertia tensor that is not positive definite")
            }
            Error::DegenerateBody { link } => write!(
                f,
                "body '{link}' is a thin rod or flat plate (principal moments fail the strict triangle inequality, or no moment about the plane's normal): an affine body cannot represent it"
            ),
            Error::ZeroAxis { joint } => write!(f, "joint '{joint}' has an axis of zero length"),
            Error::NonFinite { name } => write!(f, "'{name}' has a NaN or infinite value"),
            Error::NoBodies => write!(f, "no joint moves any link: nothing to simulate"),
        }
    }
}

impl std::error::Error for Error {}
