//! The URDF tree at the build configuration (`q = 0`), in the world frame: each link's pose,
//! rigid bodies (links welded by `fixed` joints fused into one), and the moving joints.
//!
//! A link's frame is its parent joint's frame: `T_child = T_parent · T(origin)` with
//! `T(origin) = (R(rpy), xyz)` and `R(rpy) = Rz(yaw) Ry(pitch) Rx(roll)`. The root link is the
//! world frame and the ground. A joint's axis is given in the child link's frame; its anchor is
//! the child link's origin.

use crate::error::Error;
use crate::math::{self, M3, V3};
use urdf_rs::{JointType, Robot};

/// A link's pose in the world frame at `q = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkPose {
    /// The link.
    pub name: String,
    /// Its origin.
    pub position: V3,
    /// Its orientation (columns: the link's axes in the world frame).
    pub rotation: M3,
}

/// One rigid body: a moved link and every link welded to it by `fixed` joints.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// The link moved by the body's joint (the group's head).
    pub link: String,
    /// Every link of the group, the head first.
    pub links: Vec<String>,
    /// Total mass.
    pub mass: f64,
    /// Centre of mass, world frame.
    pub com: V3,
    /// Inertia tensor about the centre of mass, world axes.
    pub inertia: M3,
}

/// What a moving joint allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A hinge with position limits.
    Revolute,
    /// A hinge without position limits.
    Continuous,
    /// A slider.
    Prismatic,
    /// A ball joint (`spherical`, accepted by `urdf-rs`).
    Spherical,
}

/// A joint's parent: the ground or a body (index into [`Model::bodies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    /// The root link and everything welded to it.
    Ground,
    /// A body.
    Body(usize),
}

/// The `<limit>` of a joint, read but not enforced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    /// Lower position limit (rad or m; `−∞` for a continuous joint).
    pub lower: f64,
    /// Upper position limit (`+∞` for a continuous joint).
    pub upper: f64,
    /// Effort limit (N·m or N).
    pub effort: f64,
    /// Velocity limit (rad/s or m/s).
    pub velocity: f64,
}

/// A moving joint in the world frame at `q = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// The joint's name.
    pub name: String,
    /// What it allows.
    pub kind: Kind,
    /// The body (or ground) it hangs from.
    pub parent: Parent,
    /// The body it moves (index into [`Model::bodies`]).
    pub child: usize,
    /// The joint's origin (the child link's origin), world frame.
    pub anchor: V3,
    /// The unit axis, world frame (unused for a spherical joint).
    pub axis: V3,
    /// The `<limit>` read from the URDF.
    pub limit: Limit,
    /// `<dynamics damping>` (0 when absent).
    pub damping: f64,
}

/// A fixed-base URDF tree at `q = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The robot's name.
    pub robot: String,
    /// The root link (the ground).
    pub root: String,
    /// Every link's world pose, parents before children.
    pub poses: Vec<LinkPose>,
    /// The rigid bodies, parents before children.
    pub bodies: Vec<Body>,
    /// The moving joints, in the bodies' order (joint `k` moves body `k`).
    pub joints: Vec<Joint>,
    /// Links fused into the ground (the root and links welded to it).
    pub ground_links: Vec<String>,
}

/// Mass, COM and inertia (world) of one link's `<inertial>`.
struct LinkMass {
    mass: f64,
    com: V3,
    inertia: M3,
}

/// Parses `urdf` and builds the [`Model`].
///
/// # Errors
/// Every [`Error`] but [`Error::DegenerateBody`] (which depends on the dimension: see
/// [`crate::emit`]).
pub fn read(urdf: &str) -> Result<Model, Error> {
    let robot = match urdf_rs::read_from_string(urdf) {
        Ok(r) => r,
        Err(e) => {
            return Err(crate::scan::unknown_joint_type(urdf).unwrap_or(Error::Parse(e.to_string())))
        }
    };
    check_joints(&robot)?;
    let root = find_root(&robot)?;
    let order = tree_order(&robot, &root)?;
    build(&robot, root, &order)
}

/// Refuses floating bases and mimic joints, checks link names and finiteness.
fn check_joints(robot: &Robot) -> Result<(), Error> {
    for j in &robot.joints {
        match j.joint_type {
            JointType::Floating => {
                return Err(Error::FloatingBase {
                    joint: j.name.clone(),
                    kind: "floating",
                })
            }
            JointType::Planar => {
                return Err(Error::FloatingBase {
                    joint: j.name.clone(),
                    kind: "planar",
                })
            }
            _ => {}
        }
        if let Some(m) = &j.mimic {
            return Err(Error::Mimic {
                joint: j.name.clone(),
                mimics: m.joint.clone(),
            });
        }
        for link in [&j.parent.link, &j.child.link] {
            if !robot.links.iter().any(|l| &l.name == link) {
                return Err(Error::UnknownLink {
                    joint: j.name.clone(),
                    link: link.clone(),
                });
            }
        }
        let o = &j.origin;
        if !o
            .xyz
            .iter()
            .chain(o.rpy.iter())
            .chain(j.axis.xyz.iter())
            .all(|x| x.is_finite())
        {
            return Err(Error::NonFinite {
                name: j.name.clone(),
            });
        }
    }
    Ok(())
}

/// The one link without a parent joint; a link with two parents is a loop.
fn find_root(robot: &Robot) -> Result<String, Error> {
    for (k, j) in robot.joints.iter().enumerate() {
        if let Some(other) = robot.joints[..k]
            .iter()
            .find(|o| o.child.link == j.child.link)
        {
            return Err(Error::MultipleParents {
                link: j.child.link.clone(),
                first: other.name.clone(),
                second: j.name.clone(),
            });
        }
    }
    let roots: Vec<String> = robot
        .links
        .iter()
        .filter(|l| !robot.joints.iter().any(|j| j.child.link == l.name))
        .map(|l| l.name.clone())
        .collect();
    match roots.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(Error::Roots { roots }),
    }
}

/// Joint indices in depth-first order from the root (the file's order among siblings); a link
/// not reached is on a loop (every link has at most one parent, so what is reached is a tree).
fn tree_order(robot: &Robot, root: &str) -> Result<Vec<usize>, Error> {
    let mut order = Vec::new();
    dfs_walk(robot, root, &mut order);
    let reached =
        |name: &str| name == root || order.iter().any(|&k| robot.joints[k].child.link == name);
    match robot.links.iter().find(|l| !reached(&l.name)) {
        Some(l) => Err(Error::Loop {
            link: l.name.clone(),
        }),
        None => Ok(order),
    }
}

/// Appends the joints below `link` depth first.
fn dfs_walk(robot: &Robot, link: &str, out: &mut Vec<usize>) {
    for (k, j) in robot.joints.iter().enumerate() {
        if j.parent.link == link {
            out.push(k);
            dfs_walk(robot, &j.child.link, out);
        }
    }
}

/// Poses, groups, bodies and joints along `order`.
fn build(robot: &Robot, root: String, order: &[usize]) -> Result<Model, Error> {
    let mut poses = vec![LinkPose {
        name: root.clone(),
        position: [0.0; 3],
        rotation: math::IDENTITY,
    }];
    let mut group = vec![Parent::Ground];
    let mut joints = Vec::new();
    let mut heads: Vec<String> = Vec::new();
    for &k in order {
        let j = &robot.joints[k];
        let p = poses
            .iter()
            .position(|l| l.name == j.parent.link)
            .expect("parents come first");
        let (pp, pr) = (poses[p].position, poses[p].rotation);
        let position = math::add(pp, math::mul_v(&pr, j.origin.xyz.0));
        let rotation = math::mul(&pr, &math::rpy(j.origin.rpy.0));
        poses.push(LinkPose {
            name: j.child.link.clone(),
            position,
            rotation,
        });
        let kind = match j.joint_type {
            JointType::Fixed => {
                group.push(group[p]);
                continue;
            }
            JointType::Revolute => Kind::Revolute,
            JointType::Continuous => Kind::Continuous,
            JointType::Prismatic => Kind::Prismatic,
            JointType::Spherical => Kind::Spherical,
            JointType::Floating | JointType::Planar => unreachable!("refused by check_joints"),
        };
        let axis = math::mul_v(&rotation, j.axis.xyz.0);
        let n = math::norm(axis);
        if kind != Kind::Spherical && (n <= 1e-12 || !n.is_finite()) {
            return Err(Error::ZeroAxis {
                joint: j.name.clone(),
            });
        }
        let axis = if kind == Kind::Spherical {
            [0.0; 3]
        } else {
            math::scale(1.0 / n, axis)
        };
        let limit = match kind {
            Kind::Continuous => Limit {
                lower: f64::NEG_INFINITY,
                upper: f64::INFINITY,
                ..limit(j)
            },
            _ => limit(j),
        };
        group.push(Parent::Body(joints.len()));
        heads.push(j.child.link.clone());
        joints.push(Joint {
            name: j.name.clone(),
            kind,
            parent: group[p],
            child: joints.len(),
            anchor: position,
            axis,
            limit,
            damping: j.dynamics.as_ref().map_or(0.0, |d| d.damping),
        });
    }
    if joints.is_empty() {
        return Err(Error::NoBodies);
    }
    let bodies = bodies(robot, &poses, &group, &heads, &joints)?;
    let ground_links = poses
        .iter()
        .zip(&group)
        .filter(|(_, g)| **g == Parent::Ground)
        .map(|(l, _)| l.name.clone())
        .collect();
    Ok(Model {
        robot: robot.name.clone(),
        root,
        poses,
        bodies,
        joints,
        ground_links,
    })
}

/// The `<limit>` as read.
fn limit(j: &urdf_rs::Joint) -> Limit {
    Limit {
        lower: j.limit.lower,
        upper: j.limit.upper,
        effort: j.limit.effort,
        velocity: j.limit.velocity,
    }
}

/// A link's `<inertial>` in the world frame, checked.
fn link_mass(robot: &Robot, pose: &LinkPose) -> Result<LinkMass, Error> {
    let link = robot
        .links
        .iter()
        .find(|l| l.name == pose.name)
        .expect("poses name links");
    let i = &link.inertial;
    let t = &i.inertia;
    let local = [
        [t.ixx, t.ixy, t.ixz],
        [t.ixy, t.iyy, t.iyz],
        [t.ixz, t.iyz, t.izz],
    ];
    let numbers = [i.mass.value, t.ixx, t.ixy, t.ixz, t.iyy, t.iyz, t.izz];
    if !numbers
        .iter()
        .chain(i.origin.xyz.iter())
        .chain(i.origin.rpy.iter())
        .all(|x| x.is_finite())
    {
        return Err(Error::NonFinite {
            name: link.name.clone(),
        });
    }
    if i.mass.value < 0.0 {
        return Err(Error::NonPositiveMass {
            link: link.name.clone(),
        });
    }
    let zero = local.iter().flatten().all(|&x| x == 0.0);
    if !zero && !math::positive_definite(&local) {
        return Err(Error::NonPositiveDefiniteInertia {
            link: link.name.clone(),
        });
    }
    let frame = math::mul(&pose.rotation, &math::rpy(i.origin.rpy.0));
    Ok(LinkMass {
        mass: i.mass.value,
        com: math::add(pose.position, math::mul_v(&pose.rotation, i.origin.xyz.0)),
        inertia: math::rotate_inertia(&frame, &local),
    })
}

/// Fuses each body's links: total mass, centre of mass, inertia about it (parallel axes).
fn bodies(
    robot: &Robot,
    poses: &[LinkPose],
    group: &[Parent],
    heads: &[String],
    joints: &[Joint],
) -> Result<Vec<Body>, Error> {
    let mut out = Vec::new();
    for (b, head) in heads.iter().enumerate() {
        let mut parts = Vec::new();
        let mut links = Vec::new();
        for (pose, g) in poses.iter().zip(group) {
            if *g == Parent::Body(b) {
                parts.push(link_mass(robot, pose)?);
                links.push(pose.name.clone());
            }
        }
        let mass: f64 = parts.iter().map(|p| p.mass).sum();
        if mass <= 0.0 {
            return Err(Error::MissingInertial {
                link: head.clone(),
                joint: joints[b].name.clone(),
            });
        }
        let moment = parts
            .iter()
            .fold([0.0; 3], |s, p| math::add(s, math::scale(p.mass, p.com)));
        let com = math::scale(1.0 / mass, moment);
        let inertia = parts.iter().fold([[0.0; 3]; 3], |s, p| {
            let s = math::add_m(&s, 1.0, &p.inertia);
            math::add_m(&s, p.mass, &math::point_inertia(math::sub(p.com, com)))
        });
        out.push(Body {
            link: head.clone(),
            links,
            mass,
            com,
            inertia,
        });
    }
    Ok(out)
}
