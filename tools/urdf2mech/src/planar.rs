//! Whether a model is planar, and its plane's coordinates.
//!
//! A model is **planar** when every hinge (revolute, continuous) axis is parallel to one unit
//! normal `n`, every slider (prismatic) axis is perpendicular to `n`, it has no ball joint, and
//! every joint anchor and body centre of mass lies in one plane perpendicular to `n`. Such a
//! model moves in that plane whatever its joint coordinates, and is emitted with `DIM = 2`.
//!
//! The plane's coordinates `(e₁, e₂)` are chosen so that `e₂` points up (the projection of the
//! world `z` onto the plane) and `e₁` is the projection of world `x` (else `y`) orthogonal to
//! it: the mechanism builder's gravity, along `−e₂`, is then the URDF's gravity along `−z`, with
//! magnitude `g |P z|` (the out-of-plane part is carried by the joints). A horizontal plane
//! (`n ∥ z`) has `e₁ = x`, `e₂ = y` and no gravity in the plane. The planar positive rotation
//! is about `e₁ × e₂`; a hinge whose axis is `−(e₁ × e₂)` has its URDF angle of the opposite
//! sign ([`Plane::axis_sign`]).

use crate::math::{self, V3};
use crate::model::{Kind, Model};

/// Positions within this distance (relative to the model's size, at least 1 m) of the plane,
/// and axes within this angle of the normal, count as in it: far below a URDF's printed digits,
/// far above the rounding of composed rotations.
const TOL: f64 = 1e-9;

/// A planar model's plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// The first planar coordinate's direction (world).
    pub e1: V3,
    /// The second planar coordinate's direction (world): up, within the plane.
    pub e2: V3,
    /// `e₁ × e₂`: the planar positive rotation's axis.
    pub normal: V3,
    /// The part of the URDF's gravity (along `−z`) in the plane: `|P z|`, between 0 and 1.
    pub gravity: f64,
}

impl Plane {
    /// A world point's planar coordinates.
    pub fn project(&self, p: V3) -> [f64; 2] {
        [math::dot(p, self.e1), math::dot(p, self.e2)]
    }

    /// `+1` when the hinge axis is the plane's normal, `−1` when it is opposite.
    pub fn axis_sign(&self, axis: V3) -> f64 {
        if math::dot(axis, self.normal) >= 0.0 {
            1.0
        } else {
            -1.0
        }
    }
}

/// The plane of a planar model, or why the model is spatial.
pub fn classify(model: &Model) -> Result<Plane, String> {
    let hinge = |k: Kind| matches!(k, Kind::Revolute | Kind::Continuous);
    let n = model
        .joints
        .iter()
        .find(|j| hinge(j.kind))
        .map_or([0.0, 0.0, 1.0], |j| j.axis);
    for j in &model.joints {
        match j.kind {
            Kind::Spherical => return Err(format!("joint '{}' is a ball joint", j.name)),
            k if hinge(k) && math::norm(math::cross(j.axis, n)) > TOL => {
                return Err(format!(
                    "joint '{}' has an axis not parallel to the first hinge's",
                    j.name
                ))
            }
            Kind::Prismatic if math::dot(j.axis, n).abs() > TOL => {
                return Err(format!(
                    "prismatic joint '{}' slides out of the hinges' plane",
                    j.name
                ))
            }
            _ => {}
        }
    }
    let points = model
        .joints
        .iter()
        .map(|j| (&j.name, j.anchor, "anchor of joint"));
    let points: Vec<_> = points
        .chain(
            model
                .bodies
                .iter()
                .map(|b| (&b.link, b.com, "centre of mass of body")),
        )
        .collect();
    let size = points
        .iter()
        .map(|(_, p, _)| math::norm(*p))
        .fold(1.0, f64::max);
    let offset = math::dot(points[0].1, n);
    if let Some((name, _, what)) = points
        .iter()
        .find(|(_, p, _)| (math::dot(*p, n) - offset).abs() > TOL * size)
    {
        return Err(format!(
            "the {what} '{name}' is out of the first joint's plane"
        ));
    }
    Ok(basis(n))
}

/// The plane's coordinates for the normal `n` (see the module docs).
fn basis(n: V3) -> Plane {
    let within = |v: V3| math::sub(v, math::scale(math::dot(v, n), n));
    let unit = |v: V3| math::scale(1.0 / math::norm(v), v);
    let up = within([0.0, 0.0, 1.0]);
    let gravity = math::norm(up);
    let e2 = if gravity > TOL {
        unit(up)
    } else {
        unit(within([0.0, 1.0, 0.0]))
    };
    let gravity = if gravity > TOL { gravity } else { 0.0 };
    let e1 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        .iter()
        .map(|&a| {
            let v = within(a);
            math::sub(v, math::scale(math::dot(v, e2), e2))
        })
        .find(|v| math::norm(*v) > 1e-6)
        .map(unit)
        .expect("x or y has a part in any plane orthogonal to e2");
    Plane {
        e1,
        e2,
        normal: math::cross(e1, e2),
        gravity,
    }
}
