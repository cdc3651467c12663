//! Rigid bodies as affine bodies of `DIM + 1` point masses (000 §4.5).
//!
//! ## API
//! ```text
//! use macrostep::mechanism::{MechanismBuilder, Body, Link, JointKind, body_coordinates, body_constraints};
//! N = bodies·body_coordinates(DIM) (+ point nodes' coordinates)
//! D = bodies·body_constraints(DIM) + Σ JointKind::rows(kind, DIM) (+ rods)
//! b.body(Body { mass, com, inertia }) -> body id
//! b.revolute / b.prismatic (parent, child, anchor, axis) -> joint id
//! b.spherical / b.fixed (parent, child, anchor) -> joint id
//! b.joint_motor(joint) -> actuator index;  b.joint_damping(joint, c)
//! mech.joint_angle(j, &q), mech.joint_rate(j, &q, &v), mech.body_pose(l, &q),
//! mech.body_twist(l, &q, &v), mech.momentum(&v), mech.angular_momentum(&q, &v),
//! mech.body_angular_momentum(l, &q, &v), mech.kinetic_energy(&v)
//! ```
//!
//! ## Formulation (decision)
//! A body is **`DIM + 1` free point masses kept rigid by the `DIM (DIM + 1) / 2` rods between
//! them** — 000 §4.5's relaxed body, which is an affine body, which is four point masses. Each
//! node carries `m / (DIM + 1)`; in space the nodes sit at `com + √(3/m) L vᵢ` with `vᵢ` the
//! unit regular-tetrahedron vertices (`Σ vᵢ vᵢᵀ = 4/3 I`) and `L` the Cholesky factor of the
//! second moment `Σ = ½ tr(J) I − J` about the COM, so mass, COM and the full inertia tensor
//! `J` (off-diagonal terms included) are matched exactly. In the plane the nodes form an
//! equilateral triangle of radius `√(I_zz / m)`, with `I_zz` the trace of the given `2 × 2`
//! inertia (pass `[[izz, 0], [0, 0]]`, or a lamina's in-plane block): planar motion sees only
//! `I_zz`.
//!
//! Reasons: every existing method then handles bodies unchanged — the rods are ordinary rods
//! (exact for RATTLE/SHAKE, penalised for Z&S and SyLiPN), the mass matrix stays diagonal and
//! constant, and a body-fixed point is a *fixed affine combination of the nodes*, so a ball
//! joint is a linear row and a hinge's axis condition a bilinear one (see
//! [`Bilinear`](super::Bilinear)). The cost is `DIM (DIM + 1)` coordinates per body instead of
//! `2 DIM` (rotation) — 12 instead of 6 in space — and rows that a rotation parametrisation
//! would not need. Generalised (joint) coordinates would give the smallest system but a
//! configuration-dependent mass matrix, which none of the crate's methods takes.
//!
//! `Σ` must be positive definite: the principal moments must satisfy the strict triangle
//! inequality. A thin rod (`J₁ ≈ 0`) or a flat plate (`J₃ = J₁ + J₂`) has a degenerate `Σ`; it
//! is refused with [`ConfigError::NotPositiveDefinite`] `"second moment"` (give the rod a radius
//! or the plate a thickness). Slender bodies are accepted but put their nodes close together,
//! so a joint anchor far from the COM has large barycentric weights.

use super::body_nodes::node_offsets;
use super::in_place::Unit;
use super::joint::Link;
use super::row::BodyPoint;
use super::MechanismBuilder;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// The coordinates one body owns: `DIM (DIM + 1)` (6 in the plane, 12 in space).
pub const fn body_coordinates(dim: usize) -> usize {
    dim * (dim + 1)
}

/// The rods that keep one body rigid: `DIM (DIM + 1) / 2` (3 in the plane, 6 in space).
pub const fn body_constraints(dim: usize) -> usize {
    dim * (dim + 1) / 2
}

/// A rigid body at the build pose: mass, centre of mass (world frame) and inertia tensor about
/// the COM in world axes. In the plane only the trace of `inertia` (`I_zz`) is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body<T: Real, const DIM: usize> {
    /// The mass, `> 0`.
    pub mass: T,
    /// The centre of mass.
    pub com: [T; DIM],
    /// The inertia tensor about the COM (symmetric, positive definite).
    pub inertia: [[T; DIM]; DIM],
}

/// What the builder keeps of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct BodyRec<T: Real, const DIM: usize> {
    /// Its first coordinate (node `j` at `offset + j·DIM`).
    pub offset: usize,
    /// Its mass.
    pub mass: T,
    /// Node 0's position at the build pose.
    pub x0: SVector<T, DIM>,
    /// `E₀⁻¹`, `E₀ = [x₁ − x₀, …, x_DIM − x₀]` at the build pose.
    pub inv: SMatrix<T, DIM, DIM>,
    /// The RMS distance of the nodes from the COM.
    pub radius: T,
    /// The joint of which it is the child.
    pub parent: Option<usize>,
}

impl<T: Real, const DIM: usize> BodyRec<T, DIM> {
    /// An unused body slot, the builder's blank one.
    pub(super) fn unused() -> Self {
        Unit::of().body()
    }

    /// The body-fixed point at `p` (world position at the build pose).
    pub(super) fn point(&self, p: &SVector<T, DIM>) -> BodyPoint<T, DIM> {
        let mu = self.inv * (p - self.x0);
        let mut weights = [T::zero(); 4];
        weights[0] = T::one() - mu.sum();
        for k in 0..DIM {
            weights[k + 1] = mu[k];
        }
        BodyPoint {
            offset: self.offset,
            nodes: DIM + 1,
            weights,
            constant: [T::zero(); DIM],
        }
    }

    /// The nodes' positions (or velocities, for `q = v`), `DIM + 1` of them, relative to
    /// `about` (subtracted from each).
    pub(super) fn nodes<const N: usize>(
        &self,
        q: &SVector<T, N>,
        about: &SVector<T, DIM>,
    ) -> [SVector<T, DIM>; 4] {
        let qs = q.as_slice();
        core::array::from_fn(|j| {
            SVector::from_fn(|c, _| {
                let x = if j <= DIM {
                    qs.get(self.offset + j * DIM + c)
                        .copied()
                        .unwrap_or_else(T::zero)
                } else {
                    T::zero()
                };
                x - about[c]
            })
        })
    }

    /// The COM at `q` (or its velocity for `q = v`): the nodes' mean.
    pub(super) fn com<const N: usize>(&self, q: &SVector<T, N>) -> SVector<T, DIM> {
        let x = self.nodes(q, &SVector::zeros());
        let mut s = SVector::<T, DIM>::zeros();
        for xj in x.iter().take(DIM + 1) {
            s += xj;
        }
        s / T::lit((DIM + 1) as f64)
    }

    /// `(ρᵢ, ρ̇ᵢ)`: the nodes relative to the COM and their velocities relative to the COM's.
    fn relative<const N: usize>(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> ([SVector<T, DIM>; 4], [SVector<T, DIM>; 4]) {
        (self.nodes(q, &self.com(q)), self.nodes(v, &self.com(v)))
    }

    /// The world inertia tensor `J = Σ mᵢ (|ρᵢ|² I − ρᵢρᵢᵀ)` of the nodes at `q` (3-D; in the
    /// plane the `(2, 2)` entry is `I_zz = Σ mᵢ |ρᵢ|²`).
    pub(super) fn inertia<const N: usize>(&self, q: &SVector<T, N>) -> SMatrix<T, 3, 3> {
        self.inertia_of(&self.nodes(q, &self.com(q)))
    }

    /// [`BodyRec::inertia`] of the nodes at `rho` (relative to the COM).
    fn inertia_of(&self, rho: &[SVector<T, DIM>; 4]) -> SMatrix<T, 3, 3> {
        let mi = self.mass / T::lit((DIM + 1) as f64);
        let mut j = SMatrix::<T, 3, 3>::zeros();
        for r in rho.iter().take(DIM + 1) {
            let r3 = to3(r);
            j += (SMatrix::<T, 3, 3>::identity() * r3.norm_squared() - r3 * r3.transpose()) * mi;
        }
        j
    }

    /// `I_zz = Σ mᵢ |ρᵢ|²` at `rho`: [`BodyRec::inertia_of`]'s `(2, 2)` entry in the plane,
    /// bit for bit (same order; its `1·` and `− 0·0` are exact), without the other eight.
    fn planar_izz(&self, rho: &[SVector<T, DIM>; 4]) -> T {
        let mi = self.mass / T::lit((DIM + 1) as f64);
        rho.iter()
            .take(DIM + 1)
            .fold(T::zero(), |j, r| j + to3(r).norm_squared() * mi)
    }

    /// The angular momentum about the COM, `Σ mᵢ ρᵢ × ρ̇ᵢ`.
    pub(super) fn spin<const N: usize>(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> SVector<T, 3> {
        let (rho, rdot) = self.relative(q, v);
        let mi = self.mass / T::lit((DIM + 1) as f64);
        let mut l = SVector::<T, 3>::zeros();
        for (r, rd) in rho.iter().zip(rdot.iter()).take(DIM + 1) {
            l += to3(r).cross(&to3(rd)) * mi;
        }
        l
    }

    /// The angular velocity `ω = J⁻¹ L` (zero when `J` is singular, which a valid body is not).
    pub(super) fn omega<const N: usize>(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> SVector<T, 3> {
        let l = self.spin(q, v);
        let j = self.inertia(q);
        if DIM == 2 {
            let izz = j[(2, 2)];
            return if izz > T::zero() {
                SVector::from([T::zero(), T::zero(), l[2] / izz])
            } else {
                SVector::zeros()
            };
        }
        j.cholesky().map_or_else(SVector::zeros, |c| c.solve(&l))
    }

    /// `out += ` the node forces `fᵢ = mᵢ α × ρᵢ`, `α = J⁻¹ τ`: a pure torque `τ` on the body
    /// (zero net force, net torque `J α = τ` about the COM).
    pub(super) fn add_torque<const N: usize>(
        &self,
        out: &mut SVector<T, N>,
        q: &SVector<T, N>,
        tau: &SVector<T, 3>,
    ) {
        let rho = self.nodes(q, &self.com(q));
        let alpha = if DIM == 2 {
            let izz = self.planar_izz(&rho);
            if izz <= T::zero() {
                return;
            }
            SVector::from([T::zero(), T::zero(), tau[2] / izz])
        } else {
            match self.inertia_of(&rho).cholesky() {
                Some(c) => c.solve(tau),
                None => return,
            }
        };
        let mi = self.mass / T::lit((DIM + 1) as f64);
        for (jn, r) in rho.iter().enumerate().take(DIM + 1) {
            let f = alpha.cross(&to3(r)) * mi;
            for c in 0..DIM {
                if let Some(o) = out.as_mut_slice().get_mut(self.offset + jn * DIM + c) {
                    *o += f[c];
                }
            }
        }
    }
}

/// A `DIM`-vector embedded in 3-D (`z = 0` in the plane).
pub(super) fn to3<T: Real, const DIM: usize>(v: &SVector<T, DIM>) -> SVector<T, 3> {
    SVector::from_fn(|c, _| if c < DIM { v[c] } else { T::zero() })
}

impl<
        T: Real,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > MechanismBuilder<T, DIM, N, D, S, B, J>
{
    /// A rigid body ([`Body`]: mass, COM and inertia about the COM, world frame at the build
    /// pose), at rest: `DIM + 1` nodes of mass `m / (DIM + 1)` and the `DIM (DIM + 1) / 2` rods
    /// between them (see the [module docs](crate::mechanism) for where the nodes go). Returns the body's id.
    ///
    /// ```
    /// use macrostep::mechanism::{body_constraints, body_coordinates, Body, MechanismBuilder};
    /// const N: usize = body_coordinates(3);
    /// const D: usize = body_constraints(3);
    /// // No springs, room for one body, no joints.
    /// let mut b = MechanismBuilder::<f64, 3, N, D, 0, 1, 0>::new()?;
    /// let inertia = [[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.15]];
    /// let l = b.body(Body { mass: 2.0, com: [1.0, -0.5, 0.3], inertia })?;
    /// let mech = b.build()?;
    /// let (com, rot) = mech.body_pose(l, &mech.initial_state().q).unwrap();
    /// assert!((com[0] - 1.0).abs() < 1e-12 && (rot[(1, 1)] - 1.0).abs() < 1e-12);
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// `"mass"` as [`MechanismBuilder::node`]; [`ConfigError::NonFinite`] `"com"` /
    /// `"inertia"`; [`ConfigError::NotSymmetric`] `"inertia"`;
    /// [`ConfigError::NotPositiveDefinite`] `"inertia"` (in the plane: `I_zz ≤ 0`) or
    /// `"second moment"` (a thin rod or a flat plate: the principal moments violate the strict
    /// triangle inequality); [`ConfigError::Overflow`] `"1 / mass"` (a node's inverse mass),
    /// `"total mass"` (the mechanism's, see [`MechanismBuilder`]), `"1 / I_zz"` or `"inertia^-1"` (the inverse inertia overflows);
    /// [`ConfigError::OutOfRange`] `"sqrt(inertia / mass)"` when the body's size `r` (the RMS
    /// node distance from the COM) is outside `[2 / MAX^(1/4), MAX^(1/4) / 2]` of the scalar
    /// (for `f64` about `[1.7e-77, 5.8e76]`, for `f32` about `[4.7e-10, 2.1e9]`): the joint
    /// readouts multiply four such distances; [`ConfigError::Inconsistent`] `"bodies <= B"` when `B` bodies exist
    /// already, `"coordinates = N"`, `"rods = D"` when its nodes or rods do not fit.
    /// The builder is unchanged on error.
    pub fn body(&mut self, body: Body<T, DIM>) -> Result<usize, ConfigError> {
        crate::validate::check_positive(body.mass, "mass")?;
        if !(T::lit((DIM + 1) as f64) / body.mass).finite() {
            return Err(ConfigError::Overflow { name: "1 / mass" });
        }
        self.check_total_mass(body.mass)?;
        if !body.com.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "com" });
        }
        let rho = node_offsets(&body)?;
        if self.n_bodies >= B {
            return Err(ConfigError::Inconsistent {
                name: "bodies <= B",
            });
        }
        let mi = body.mass / T::lit((DIM + 1) as f64);
        let com = SVector::<T, DIM>::from(body.com);
        let x: [[T; DIM]; 4] = rho.map(|r| (com + r).into());
        let first = self.nodes;
        self.check_body_nodes(mi, &x)?;
        self.check_body_rods(first, &x)?;
        let e = SMatrix::<T, DIM, DIM>::from_fn(|r, c| rho[c + 1][r] - rho[0][r]);
        let inv = e.try_inverse().ok_or(ConfigError::NotPositiveDefinite {
            name: "second moment",
        })?;
        // Everything is checked: only now is the builder written, slot by slot.
        let offset = self.coords;
        for xj in x.iter().take(DIM + 1) {
            self.write_node(mi, xj);
        }
        for a in 0..=DIM {
            for c in a + 1..=DIM {
                self.write_rod(body_rod(first, &x, a, c));
            }
        }
        let trace = rho
            .iter()
            .take(DIM + 1)
            .fold(T::zero(), |s, r| s + r.norm_squared());
        let radius = (trace / T::lit((DIM + 1) as f64)).sqrt();
        let id = self.n_bodies;
        if let Some(rec) = self.bodies.get_mut(id) {
            *rec = BodyRec {
                offset,
                mass: body.mass,
                x0: SVector::from(x[0]),
                inv,
                radius,
                parent: None,
            };
        }
        self.n_bodies += 1;
        Ok(id)
    }

    /// Refuses the body's nodes (mass `mi` each, at `x`) where [`MechanismBuilder::node`] would
    /// refuse one of them, in the order it would.
    fn check_body_nodes(&self, mi: T, x: &[[T; DIM]; 4]) -> Result<(), ConfigError> {
        for (j, xj) in x.iter().enumerate().take(DIM + 1) {
            crate::validate::check_positive(mi, "mass")?;
            if !xj.iter().all(|v| v.finite()) {
                return Err(ConfigError::NonFinite { name: "position" });
            }
            self.reserve_after(j, j * DIM, DIM)?;
        }
        Ok(())
    }

    /// Refuses the body's rods (between its nodes, the first of index `first`, at `x`) where
    /// [`MechanismBuilder::rod`] would refuse one of them, in the order it would.
    fn check_body_rods(&self, first: usize, x: &[[T; DIM]; 4]) -> Result<(), ConfigError> {
        let mut k = 0;
        for a in 0..=DIM {
            for c in a + 1..=DIM {
                self.check_rod(&body_rod(first, x, a, c), true, k)?;
                k += 1;
            }
        }
        Ok(())
    }
}

/// The rod between the body's nodes `a` and `c` (`first` the index of its node 0, `x` the
/// nodes' positions), its length their distance, as [`MechanismBuilder::rod`] measures it.
fn body_rod<T: Real, const DIM: usize>(
    first: usize,
    x: &[[T; DIM]; 4],
    a: usize,
    c: usize,
) -> crate::systems::Link<T, DIM> {
    let d = SVector::<T, DIM>::from(x[a]) - SVector::<T, DIM>::from(x[c]);
    crate::systems::Link::between(first + a, first + c, d.norm_squared().sqrt())
}

/// The point of `link` at world position `p` (build pose): a body point or a ground point.
pub(super) fn link_point<T: Real, const DIM: usize>(
    bodies: &[BodyRec<T, DIM>],
    link: Link,
    p: &SVector<T, DIM>,
) -> BodyPoint<T, DIM> {
    match link {
        Link::Body(l) => match bodies.get(l) {
            Some(b) => b.point(p),
            None => BodyPoint::ground((*p).into()),
        },
        Link::Ground => BodyPoint::ground((*p).into()),
    }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
