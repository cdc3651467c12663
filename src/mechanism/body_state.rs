//! Rigid-body readouts of a built mechanism: poses, twists, momenta and energy (see the
//! [body docs](super::body) for the formulation).

use super::body::{link_point, to3, BodyRec};
use super::forces::write_checked;
use super::joint::{Joint, Link};
use super::row::BodyPoint;
use super::Mechanism;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

impl<
        T: Real,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, S, B, J>
{
    pub(super) fn body_rec(&self, l: usize) -> Option<&BodyRec<T, DIM>> {
        if l < self.n_bodies {
            self.bodies.get(l)
        } else {
            None
        }
    }

    /// The number of bodies.
    pub fn bodies(&self) -> usize {
        self.n_bodies
    }

    /// Body `l`'s pose at `q`: its COM and the affine map `A` with `xᵢ − com = A (xᵢ⁰ − com⁰)`
    /// for its nodes (a rotation while its rods hold; `I` at the build pose). `None` for a
    /// missing body.
    pub fn body_pose(
        &self,
        l: usize,
        q: &SVector<T, N>,
    ) -> Option<(SVector<T, DIM>, SMatrix<T, DIM, DIM>)> {
        let b = self.body_rec(l)?;
        let x = b.nodes(q, &SVector::zeros());
        let e = SMatrix::<T, DIM, DIM>::from_fn(|r, c| x[c + 1][r] - x[0][r]);
        Some((b.com(q), e * b.inv))
    }

    /// Body `l`'s twist at `(q, v)`: its COM velocity and its angular velocity `ω = J⁻¹ L`
    /// (about the COM, world frame; `(0, 0, ω_z)` in the plane). `None` for a missing body.
    pub fn body_twist(
        &self,
        l: usize,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Option<(SVector<T, DIM>, SVector<T, 3>)> {
        let b = self.body_rec(l)?;
        Some((b.com(v), b.omega(q, v)))
    }

    /// Body `l`'s angular momentum about its COM, `Σ mᵢ ρᵢ × ρ̇ᵢ` (`(0, 0, L_z)` in the plane).
    pub fn body_angular_momentum(
        &self,
        l: usize,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> Option<SVector<T, 3>> {
        Some(self.body_rec(l)?.spin(q, v))
    }

    /// Writes into `v` body `l`'s node velocities for the twist `(v_com, ω)` at `q`:
    /// `ṗᵢ = v_com + ω × (pᵢ − com)` (in the plane only `ω_z = omega[2]` is used); the rest of
    /// `v` is unchanged. A rigid motion, so the body's rods stay tangent. An `Ok` velocity is
    /// finite.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"body"`; [`ConfigError::NonFinite`] `"twist"`;
    /// [`ConfigError::Overflow`] `"twist"` when a finite twist's node velocities overflow (a
    /// twist near the scalar's `MAX`); `v` is then unchanged.
    pub fn set_body_twist(
        &self,
        l: usize,
        q: &SVector<T, N>,
        v_com: [T; DIM],
        omega: [T; 3],
        v: &mut SVector<T, N>,
    ) -> Result<(), ConfigError> {
        let b = self.body_rec(l).ok_or(ConfigError::OutOfRange {
            name: "body",
            bound: "< bodies",
        })?;
        let span = b.offset..b.offset + (DIM + 1) * DIM;
        let args = v_com.into_iter().chain(omega);
        write_checked(v, "twist", args, span, |v| {
            let w = SVector::from(omega);
            let rho = b.nodes(q, &b.com(q));
            for (j, r) in rho.iter().enumerate().take(DIM + 1) {
                let spin = w.cross(&to3(r));
                for c in 0..DIM {
                    if let Some(x) = v.as_mut_slice().get_mut(b.offset + j * DIM + c) {
                        *x = v_com[c] + spin[c];
                    }
                }
            }
        })
    }

    /// The kinetic energy `½ vᵀ M v` of everything (bodies and point masses).
    pub fn kinetic_energy(&self, v: &SVector<T, N>) -> T {
        self.mass.kinetic(v)
    }

    /// The total linear momentum `Σ mᵢ ṗᵢ` over every node.
    pub fn momentum(&self, v: &SVector<T, N>) -> SVector<T, DIM> {
        let mut p = SVector::<T, DIM>::zeros();
        for (place, &m) in self
            .places
            .iter()
            .zip(self.node_mass.iter())
            .take(self.nodes)
        {
            p += SVector::from(place.displacement(v)) * m;
        }
        p
    }

    /// The total angular momentum about the origin `Σ mᵢ pᵢ × ṗᵢ` (`(0, 0, L_z)` in the plane).
    pub fn angular_momentum(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SVector<T, 3> {
        let mut l = SVector::<T, 3>::zeros();
        for (place, &m) in self
            .places
            .iter()
            .zip(self.node_mass.iter())
            .take(self.nodes)
        {
            let x = to3(&place.position(q));
            let xd = to3(&SVector::from(place.displacement(v)));
            l += x.cross(&xd) * m;
        }
        l
    }

    /// The body-fixed point of `link` at world position `p` (build pose).
    pub(super) fn link_point(&self, link: Link, p: &SVector<T, DIM>) -> BodyPoint<T, DIM> {
        link_point(&self.bodies, link, p)
    }

    pub(super) fn joint_rec(&self, j: usize) -> Option<&Joint<T, DIM>> {
        if j < self.n_joints {
            self.joints.get(j)
        } else {
            None
        }
    }
}
