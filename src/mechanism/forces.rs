//! What acts on a mechanism's nodes: springs, gravity, dashpots and actuators (the builder's
//! calls that add them, and [`Mechanism::actuation`]).

use super::builder::unit;
use super::linkage::Place;
use super::spring::Spring;
use super::{Mechanism, MechanismBuilder};
use crate::validate::check_nonnegative;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// One actuator (see [`MechanismBuilder::force_actuator`], [`MechanismBuilder::torque_actuator`]).
///
/// Nodes are stored by index (validated by the builder), not by [`Place`]: an actuator is then
/// a few words, which keeps a [`Mechanism`] small enough to live on a microcontroller's stack
/// next to its integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Actuator<T: Real, const DIM: usize> {
    /// An unused slot.
    None,
    /// A force along the unit `axis` on a node.
    Force {
        /// The node.
        node: usize,
        /// The unit axis.
        axis: SVector<T, DIM>,
    },
    /// A torque between the rods `joint–a` and `joint–b` (planar).
    Torque {
        /// The common node.
        joint: usize,
        /// The far end of the rod turned by `+τ`.
        a: usize,
        /// The far end of the rod turned by `−τ`.
        b: usize,
    },
    /// A joint motor (see [`MechanismBuilder::joint_motor`]).
    Joint {
        /// The joint.
        joint: usize,
    },
}

/// A point a dashpot acts on: linear in the coordinates, `p = B q (+ const)`.
pub(super) trait Attachment<T: Real, const DIM: usize> {
    /// `B δ`: the point's displacement for a coordinate change `δ`.
    fn shift<const N: usize>(&self, delta: &SVector<T, N>) -> [T; DIM];
    /// `out += Bᵀ f`: a force `f` on the point as generalised forces.
    fn gather<const N: usize>(&self, out: &mut SVector<T, N>, f: &[T; DIM]);
}

impl<T: Real, const DIM: usize> Attachment<T, DIM> for Place<T, DIM> {
    fn shift<const N: usize>(&self, delta: &SVector<T, N>) -> [T; DIM] {
        self.displacement(delta)
    }
    fn gather<const N: usize>(&self, out: &mut SVector<T, N>, f: &[T; DIM]) {
        self.scatter(out, f);
    }
}

/// Column `j` of `c BᵀB` for a dashpot between two attachments (`B = ∂(p_a − p_b)/∂q`): node
/// places ([`MechanismBuilder::dashpot`]) or body points ([`MechanismBuilder::joint_damping`]).
fn dashpot_column<T: Real, const DIM: usize, const N: usize, P: Attachment<T, DIM>>(
    a: &P,
    b: &P,
    c: T,
    j: usize,
) -> SVector<T, N> {
    // Column j of BᵀB·c is Bᵀ(c B e_j): scatter the unit coordinate's displacement back.
    let mut e = SVector::<T, N>::zeros();
    if let Some(x) = e.get_mut(j) {
        *x = T::one();
    }
    let (da, db) = (a.shift(&e), b.shift(&e));
    let v: [T; DIM] = core::array::from_fn(|k| (da[k] - db[k]) * c);
    let mut col = SVector::<T, N>::zeros();
    a.gather(&mut col, &v);
    b.gather(&mut col, &v.map(|x| -x));
    col
}

/// `C += Σₖ cₖ BₖᵀBₖ` for the dashpots `(aₖ, bₖ, cₖ)`, added in their order, unless an entry of
/// the sum is not finite: [`ConfigError::Overflow`] `"damping"`, `out` unchanged. A first pass
/// sums and checks each column, a second writes them, so no copy of `C` (`N²` scalars) is
/// made.
///
/// Only the lower triangle of the sums is kept, each entry written to both `C[i][j]` and
/// `C[j][i]`, so a symmetric `C` stays exactly symmetric: the two triangles of `c BᵀB` round
/// differently (absolutely so for subnormal entries), and the damping splits refuse a matrix
/// that is not symmetric to `8ε‖C‖`.
pub(super) fn add_dashpots<T: Real, const DIM: usize, const N: usize, P: Attachment<T, DIM>>(
    out: &mut SMatrix<T, N, N>,
    dashpots: &[(P, P, T)],
) -> Result<(), ConfigError> {
    for write in [false, true] {
        for j in 0..N {
            let mut col = out.column(j).into_owned();
            for (a, b, c) in dashpots {
                col += dashpot_column(a, b, *c, j);
            }
            if write {
                // Rows above `j` of this column were written by the earlier columns' mirror.
                for i in j..N {
                    out[(i, j)] = col[i];
                    out[(j, i)] = col[i];
                }
            } else if !col.iter().all(|x| x.finite()) {
                return Err(ConfigError::Overflow { name: "damping" });
            }
        }
    }
    Ok(())
}

/// The shared argument and result checks of the mechanism's writers
/// ([`Mechanism::actuation`], [`Mechanism::set_body_twist`]), after their own index or length
/// check: [`ConfigError::NonFinite`] `name` when an argument is not finite, then `write` runs on
/// a copy of `out` and [`ConfigError::Overflow`] `name` when an entry of `span` (the entries
/// `write` sets) is then not finite. `out` is changed only on `Ok`.
pub(super) fn write_checked<T: Real, const N: usize>(
    out: &mut SVector<T, N>,
    name: &'static str,
    args: impl IntoIterator<Item = T>,
    span: core::ops::Range<usize>,
    write: impl FnOnce(&mut SVector<T, N>),
) -> Result<(), ConfigError> {
    if !args.into_iter().all(|x| x.finite()) {
        return Err(ConfigError::NonFinite { name });
    }
    let mut w = *out;
    write(&mut w);
    let written = w.as_slice().get(span).unwrap_or(&[]);
    if !crate::linalg::all_finite(written) {
        return Err(ConfigError::Overflow { name });
    }
    *out = w;
    Ok(())
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
    /// A linear spring of stiffness `k ≥ 0` (N/m) and rest length `L₀ ≥ 0` (m) between nodes
    /// `a` and `b`: `V = ½ k (|p_a − p_b| − L₀)²` ([`Springs`](super::Springs)). `L₀ = 0` (a
    /// zero-length spring, `½ k |p_a − p_b|²`) is allowed: it is smooth everywhere. Returns the
    /// spring's index.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] `"node"`; [`ConfigError::Inconsistent`]
    /// `"spring ends distinct"` (`a = b`); `"stiffness"` / `"rest length"`
    /// ([`ConfigError::NonFinite`], [`ConfigError::OutOfRange`] for a negative value);
    /// [`ConfigError::Inconsistent`] `"spring ends coincide"` when `L₀ > 0` and the two ends
    /// start at one point (the force direction is undefined there); `"springs = S"` when `S`
    /// springs exist already.
    pub fn spring(&mut self, a: usize, b: usize, k: T, rest: T) -> Result<usize, ConfigError> {
        let (pa, pb) = (self.place(a)?, self.place(b)?);
        if a == b {
            return Err(ConfigError::Inconsistent {
                name: "spring ends distinct",
            });
        }
        self.push_spring(pa, pb, k, rest)
    }

    /// A linear spring `k ≥ 0`, `L₀ ≥ 0` from node `a` to the ground pin `anchor`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::spring`]; [`ConfigError::NonFinite`] `"anchor"`.
    pub fn spring_to_ground(
        &mut self,
        a: usize,
        anchor: [T; DIM],
        k: T,
        rest: T,
    ) -> Result<usize, ConfigError> {
        let pa = self.place(a)?;
        if !anchor.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "anchor" });
        }
        self.push_spring(pa, Place::Ground(SVector::from(anchor)), k, rest)
    }

    fn push_spring(
        &mut self,
        a: Place<T, DIM>,
        b: Place<T, DIM>,
        k: T,
        rest: T,
    ) -> Result<usize, ConfigError> {
        let k = crate::systems::check_nonnegative(k, "stiffness")?;
        let rest = crate::systems::check_nonnegative(rest, "rest length")?;
        if rest > T::zero() && a.position(&self.start) == b.position(&self.start) {
            return Err(ConfigError::Inconsistent {
                name: "spring ends coincide",
            });
        }
        if self.n_springs >= S {
            return Err(ConfigError::Inconsistent {
                name: "springs = S",
            });
        }
        if let Some(s) = self.springs.get_mut(self.n_springs) {
            *s = Spring::from_valid(a, b, k, rest);
        }
        self.n_springs += 1;
        Ok(self.n_springs - 1)
    }

    /// Gravity `g ≥ 0` along the last axis, downwards (`−y` in the plane, `−z` in space):
    /// `V = Σ mᵢ g hᵢ` with `hᵢ` the node's height.
    ///
    /// # Errors
    /// `"g"`: [`ConfigError::NonFinite`], [`ConfigError::OutOfRange`] for `g < 0`.
    pub fn gravity(&mut self, g: T) -> Result<(), ConfigError> {
        self.g = check_nonnegative(g, "g")?;
        Ok(())
    }

    /// A linear dashpot `c ≥ 0` between nodes `a` and `b`, isotropic: the force on `a` is
    /// `−c (v_a − v_b)` in every direction (not only along the line of centres), i.e.
    /// `C += c Bᵀ B` with `B = ∂(p_a − p_b)/∂q` (`c (eₐ − e_b)(eₐ − e_b)ᵀ ⊗ I` for free nodes).
    ///
    /// # Errors
    /// `"node"`, `"rod ends distinct"` (`a = b`) as for rods; `"damping"`:
    /// [`ConfigError::NonFinite`], [`ConfigError::OutOfRange`] for `c < 0`,
    /// [`ConfigError::Overflow`] when an entry of the damping matrix with this dashpot added
    /// overflows (the builder is then unchanged).
    pub fn dashpot(&mut self, a: usize, b: usize, c: T) -> Result<(), ConfigError> {
        let (pa, pb) = (self.place(a)?, self.place(b)?);
        if a == b {
            return Err(ConfigError::Inconsistent {
                name: "rod ends distinct",
            });
        }
        let c = check_nonnegative(c, "damping")?;
        self.add_damping(&pa, &pb, c)
    }

    /// A linear dashpot `c ≥ 0` from node `a` to the ground: force `−c v_a`, `C += c B_aᵀB_a`.
    ///
    /// # Errors
    /// As [`MechanismBuilder::dashpot`].
    pub fn dashpot_to_ground(&mut self, a: usize, c: T) -> Result<(), ConfigError> {
        let pa = self.place(a)?;
        let c = check_nonnegative(c, "damping")?;
        self.add_damping(&pa, &Place::Ground(SVector::zeros()), c)
    }

    /// Adds a dashpot's `c BᵀB` to the damping matrix unless an entry of the sum overflows
    /// (the builder is then unchanged).
    fn add_damping(
        &mut self,
        a: &Place<T, DIM>,
        b: &Place<T, DIM>,
        c: T,
    ) -> Result<(), ConfigError> {
        add_dashpots(&mut self.damping, &[(*a, *b, c)])
    }

    /// A force actuator on node `a` along `axis` (normalised): command `f` applies the force
    /// `f · axis/|axis|` to the node (for a rail node, its component along the rail). Returns
    /// the actuator's index in the command vector.
    ///
    /// # Errors
    /// `"node"`; `"actuator axis"` ([`ConfigError::OutOfRange`] for a zero axis,
    /// [`ConfigError::NonFinite`]); [`ConfigError::Inconsistent`] `"actuators <= N"`.
    pub fn force_actuator(&mut self, a: usize, axis: [T; DIM]) -> Result<usize, ConfigError> {
        self.place(a)?;
        let axis = unit(axis, "actuator axis")?;
        self.push_actuator(Actuator::Force { node: a, axis })
    }

    /// A torque actuator between the rods `joint–a` and `joint–b` (planar only), as force pairs:
    /// command `τ` turns rod `joint→a` by `+τ` (counter-clockwise) and rod `joint→b` by `−τ`,
    /// applying `τ/|r|² · r⊥` at the far end of each rod `r` and the opposite at the joint
    /// (net force zero, net torque zero).
    ///
    /// # Errors
    /// `"node"`; `"rod ends distinct"` when two of the three nodes are equal;
    /// [`ConfigError::Inconsistent`] `"topology"` in 3-D; `"actuators <= N"`.
    pub fn torque_actuator(
        &mut self,
        joint: usize,
        a: usize,
        b: usize,
    ) -> Result<usize, ConfigError> {
        self.place(joint)?;
        self.place(a)?;
        self.place(b)?;
        if joint == a || joint == b || a == b {
            return Err(ConfigError::Inconsistent {
                name: "rod ends distinct",
            });
        }
        if DIM != 2 {
            return Err(ConfigError::Inconsistent { name: "topology" });
        }
        self.push_actuator(Actuator::Torque { joint, a, b })
    }

    pub(super) fn push_actuator(&mut self, act: Actuator<T, DIM>) -> Result<usize, ConfigError> {
        if self.n_act >= N {
            return Err(ConfigError::Inconsistent {
                name: "actuators <= N",
            });
        }
        if let Some(a) = self.actuators.get_mut(self.n_act) {
            *a = act;
        }
        self.n_act += 1;
        Ok(self.n_act - 1)
    }
}

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
    /// The number of actuators (the length of a command vector).
    pub fn actuators(&self) -> usize {
        self.n_act
    }

    /// Writes into `u` the generalised force of the actuator `commands` at `q` (command `k`
    /// drives actuator `k`; newtons for a force, N·m for a torque), in the sign convention of
    /// [`crate::forcing`]: `M q̈ = −∇V + u`. Force actuators give a constant map; a torque's
    /// force pair depends on the rods' directions at `q`. An `Ok` force is finite.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"commands = actuators"` for a wrong length,
    /// [`ConfigError::NonFinite`] `"command"`, [`ConfigError::Overflow`] `"command"` when a
    /// finite command's force overflows (a command near the scalar's `MAX` on a joint motor
    /// whose node forces are the torque over the body's size, or on a short rod); `u` is then
    /// unchanged.
    pub fn actuation(
        &self,
        commands: &[T],
        q: &SVector<T, N>,
        u: &mut SVector<T, N>,
    ) -> Result<(), ConfigError> {
        if commands.len() != self.n_act {
            return Err(ConfigError::Inconsistent {
                name: "commands = actuators",
            });
        }
        write_checked(u, "command", commands.iter().copied(), 0..N, |u| {
            u.fill(T::zero());
            self.add_actuation(commands, q, u);
        })
    }

    /// `u += ` the actuators' generalised forces for `commands` (checked by the caller).
    fn add_actuation(&self, commands: &[T], q: &SVector<T, N>, u: &mut SVector<T, N>) {
        // Node indices were validated by the builder: `place` never misses.
        let place = |i: usize| match self.places.get(i) {
            Some(p) => *p,
            None => Place::Ground(SVector::zeros()),
        };
        for (act, &f) in self.actuators.iter().zip(commands.iter()) {
            match *act {
                Actuator::Force { node, axis } => {
                    let mut v = [T::zero(); DIM];
                    for c in 0..DIM {
                        v[c] = axis[c] * f;
                    }
                    place(node).scatter(u, &v);
                }
                Actuator::Torque { joint, a, b } => {
                    let j = place(joint);
                    torque_pair(u, q, &j, &place(a), f);
                    torque_pair(u, q, &j, &place(b), -f);
                }
                Actuator::Joint { joint } => self.add_joint_motor(joint, f, q, u),
                Actuator::None => {}
            }
        }
    }
}

/// Torque `tau` on the rod `joint → end` (planar): `tau/|r|² r⊥` on `end`, the opposite on `joint`.
fn torque_pair<T: Real, const DIM: usize, const N: usize>(
    u: &mut SVector<T, N>,
    q: &SVector<T, N>,
    joint: &Place<T, DIM>,
    end: &Place<T, DIM>,
    tau: T,
) {
    let r = end.position(q) - joint.position(q);
    let r2 = r.norm_squared();
    if DIM != 2 || r2 <= T::zero() || !r2.finite() {
        return;
    }
    let s = tau / r2;
    let mut v = [T::zero(); DIM];
    v[0] = -r[1] * s;
    v[1] = r[0] * s;
    end.scatter(u, &v);
    joint.scatter(u, &v.map(|x| -x));
}
