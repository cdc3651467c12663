//! Making a builder and its mechanism, by value and in place, through one path.
//!
//! [`MechanismBuilder::new`] and [`MechanismBuilder::new_in`] start from the one empty builder
//! (`MechanismBuilder::blank`); [`MechanismBuilder::build`] and [`MechanismBuilder::build_in`]
//! run the one sequence of checks and complete a mechanism where it is kept (its records from
//! the builder, then `Mechanism::derive` and `check_start`). The in-place forms write into
//! caller-owned slots (a device's `static`s) instead of returning by value, so that neither
//! builder nor mechanism (kilobytes each for a few rigid bodies) passes through the stack.
//!
//! A value moved into a slot is first assembled on the stack unless it is a copy of memory that
//! exists already: a constant, zeros, or another value read through a reference (measured on
//! the Cortex-M4F build of `arm3_pd`: a blank made of `[x; N]` arrays or an aggregate of
//! several computed parts is assembled in a stack temporary, a constant is copied straight into
//! the slot). So the blanks are `const fn`s of the scalar's zero and one (`Unit`): evaluated
//! on [`ConstReal`]'s constants they are constants the in-place path copies into its slot, on
//! `T::zero()` and `T::one()` they are the by-value path's values. Every field computed from
//! the builder is then written in place, one at a time, on both paths.

use super::builder::{check_start, MechanismBuilder};
use super::joint::{Joint, JointKind, Link};
use super::linkage::{self, Linkage, Place};
use super::spring::{Spring, Springs};
use super::LinkagePenalty;
use super::{body::BodyRec, Actuator, Mechanism};
use crate::forcing::Actuated;
use crate::model::{Mass, Penalty, System};
use crate::systems::{Endpoint, LinearPotential, Link as Bar};
use crate::{ConfigError, ConstReal, Real};
use nalgebra::{ArrayStorage, SMatrix, SVector};

/// An empty slot after its value was written (cannot happen).
const IN_SLOT: ConfigError = ConfigError::Inconsistent {
    name: "mechanism built in its slot",
};

/// The scalar's `0` and `1`, the only numbers in a blank: [`Unit::CONST`] on the in-place path
/// (every blank is then a constant), [`Unit::of`] on the by-value path.
#[derive(Clone, Copy)]
pub(super) struct Unit<T> {
    zero: T,
    one: T,
}

impl<T: ConstReal> Unit<T> {
    /// [`ConstReal`]'s zero and one.
    const CONST: Self = Self {
        zero: T::ZERO,
        one: T::ONE,
    };
}

impl<T: Real> Unit<T> {
    /// `T::zero()` and `T::one()`.
    pub(super) fn of() -> Self {
        Self {
            zero: T::zero(),
            one: T::one(),
        }
    }

    /// The zero matrix.
    const fn zeros<const R: usize, const C: usize>(self) -> SMatrix<T, R, C> {
        SMatrix::from_array_storage(ArrayStorage([[self.zero; R]; C]))
    }

    /// The identity matrix.
    const fn identity<const R: usize>(self) -> SMatrix<T, R, R> {
        let mut a = [[self.zero; R]; R];
        let mut i = 0;
        while i < R {
            a[i][i] = self.one;
            i += 1;
        }
        SMatrix::from_array_storage(ArrayStorage(a))
    }

    /// The origin, a ground place.
    const fn ground<const DIM: usize>(self) -> Place<T, DIM> {
        Place::Ground(self.zeros())
    }

    /// An unused rod slot: `Link::anchored(0, 0, 1)`.
    const fn link<const DIM: usize>(self) -> Bar<T, DIM> {
        Bar {
            node: 0,
            to: Endpoint::Anchor(self.zeros()),
            length: self.one,
        }
    }

    /// An unused body slot (a unit mass at the origin, its frame the identity).
    pub(super) const fn body<const DIM: usize>(self) -> BodyRec<T, DIM> {
        BodyRec {
            offset: 0,
            mass: self.one,
            x0: self.zeros(),
            inv: self.identity(),
            radius: self.one,
            parent: None,
        }
    }

    /// An unused joint slot (fixed to the ground, a unit size).
    const fn joint<const DIM: usize>(self) -> Joint<T, DIM> {
        Joint {
            kind: JointKind::Fixed,
            parent: Link::Ground,
            child: 0,
            anchor: self.zeros(),
            frame: [self.zeros(); 3],
            r: self.one,
            first_row: 0,
        }
    }

    /// Unit rows from the origin to itself: a mechanism's rows before they are written.
    const fn linkage<const DIM: usize, const N: usize, const D: usize>(
        self,
    ) -> Linkage<T, DIM, N, D> {
        Linkage::from_valid(
            [linkage::Row::Rod(linkage::Rod {
                a: self.ground(),
                b: self.ground(),
                length2: self.one,
            }); D],
        )
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
    > MechanismBuilder<T, DIM, N, D, S, B, J>
{
    /// The empty builder, no gravity, made of `u`'s zero and one.
    const fn blank(u: Unit<T>) -> Self {
        Self {
            places: [u.ground(); N],
            node_mass: [u.zero; N],
            nodes: 0,
            coords: 0,
            start: u.zeros(),
            links: [u.link(); D],
            rods: 0,
            g: u.zero,
            damping: u.zeros(),
            actuators: [Actuator::None; N],
            n_act: 0,
            springs: [Spring::blank(u.ground(), u.zero); S],
            n_springs: 0,
            bodies: [u.body(); B],
            n_bodies: 0,
            joints: [u.joint(); J],
            n_joints: 0,
        }
    }

    /// An empty mechanism, no gravity.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"topology"` unless `DIM` is 2 or 3.
    pub fn new() -> Result<Self, ConfigError> {
        Self::check_dim()?;
        Ok(Self::blank(Unit::of()))
    }

    /// The validated mechanism.
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"coordinates = N"` when the nodes' coordinates do not add
    /// up to `N`, `"rods = D"` when fewer than `D` rods were added; [`ConfigError::Overflow`]
    /// `"g * m"` when a weight is not representable; `"springs = S"` when fewer than `S` springs
    /// were added; [`ConfigError::StartMismatch`] `{ name: "rod", index, .. }` when the start
    /// positions violate rod `index` (a [`MechanismBuilder::rod_length`] or
    /// [`MechanismBuilder::pin_length`] whose length is not the start distance of its ends, to
    /// a relative `|ℓ² − L²| / L² ≤ √ε`; nothing is projected: place the nodes where the rods
    /// put them).
    pub fn build(&self) -> Result<Mechanism<T, DIM, N, D, S, B, J>, ConfigError> {
        self.check_complete()?;
        // One value returned on every path, completed where it is: no second copy of the
        // mechanism in this frame (the stack budget of a device that builds one).
        let gravity = LinearPotential::from_valid(SVector::zeros());
        let mut built = Ok(Mechanism::records(self, Unit::of(), gravity));
        if let Ok(m) = &mut built {
            if let Err(e) = m
                .derive(self)
                .and_then(|()| check_start(&m.linkage, &self.start))
            {
                built = Err(e);
            }
        }
        built
    }

    /// [`MechanismBuilder::new`] in place in `slot`: the empty builder written straight into
    /// it, for a device that keeps the builder in a `static` rather than on its stack. The same
    /// builder as [`MechanismBuilder::new`].
    ///
    /// ```
    /// use macrostep::mechanism::MechanismBuilder;
    /// // A pendulum (1 kg bob 1 m below its pivot), built with neither builder nor mechanism
    /// // on the stack (here the slots are locals; a device passes `static`s).
    /// let (mut builder, mut mech) = (None, None);
    /// let b = MechanismBuilder::<f32, 2, 2, 1>::new_in(&mut builder)?;
    /// let bob = b.node(1.0, [0.0, -1.0])?;
    /// b.pin(bob, [0.0, 0.0])?;
    /// b.gravity(9.81)?;
    /// let m = b.build_in(&mut mech)?;
    /// assert_eq!(m.initial_state().q[1], -1.0);
    /// assert_eq!(m.gravity().coefficients()[1], 9.81);
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`MechanismBuilder::new`]; `slot` is then `None`.
    #[inline(never)]
    pub fn new_in(slot: &mut Option<Self>) -> Result<&mut Self, ConfigError>
    where
        T: ConstReal,
    {
        *slot = None;
        Self::check_dim()?;
        // A constant: copied into the slot, not assembled on the stack.
        *slot = Some(const { Self::blank(Unit::CONST) });
        slot.as_mut().ok_or(IN_SLOT)
    }

    /// [`MechanismBuilder::build`] in place in `slot`: the mechanism is written into the slot
    /// from the builder's fields and computed there, never assembled on the stack. The same
    /// checks and the same mechanism as [`MechanismBuilder::build`], bit for bit.
    ///
    /// # Errors
    /// As [`MechanismBuilder::build`]; `slot` is then `None`.
    pub fn build_in<'m>(
        &self,
        slot: &'m mut Option<Mechanism<T, DIM, N, D, S, B, J>>,
    ) -> Result<&'m mut Mechanism<T, DIM, N, D, S, B, J>, ConfigError>
    where
        T: ConstReal,
    {
        *slot = None;
        self.check_complete()?;
        // A constant, the empty builder's mechanism: copied into the slot, not assembled on
        // the stack.
        *slot = Some(
            const {
                Mechanism::records(
                    &Self::blank(Unit::CONST),
                    Unit::CONST,
                    LinearPotential::ZERO,
                )
            },
        );
        let built = match slot.as_mut() {
            Some(m) => m
                .fill(self)
                .and_then(|()| check_start(&m.linkage, &self.start)),
            None => Err(IN_SLOT),
        };
        if let Err(e) = built {
            *slot = None;
            return Err(e);
        }
        slot.as_mut().ok_or(IN_SLOT)
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
    /// The mechanism holding `b`'s records, the parts computed from them blank (the identity
    /// mass, `gravity`, unit rows from the origin to itself, no rails, no joint rows), for
    /// [`Mechanism::derive`] to complete: the by-value build's start, and on the empty
    /// builder the in-place build's blank.
    const fn records(
        b: &MechanismBuilder<T, DIM, N, D, S, B, J>,
        u: Unit<T>,
        gravity: LinearPotential<T, N>,
    ) -> Self {
        Self {
            places: b.places,
            nodes: b.nodes,
            mass: Mass::IDENTITY,
            gravity,
            links: b.links,
            linkage: u.linkage(),
            rails: false,
            damping: b.damping,
            actuators: b.actuators,
            n_act: b.n_act,
            start: b.start,
            springs: Springs::from_valid(b.springs),
            node_mass: b.node_mass,
            joint_rows: false,
            bodies: b.bodies,
            n_bodies: b.n_bodies,
            joints: b.joints,
            n_joints: b.n_joints,
        }
    }

    /// Makes `self`, a blank in its slot, the mechanism `b` builds: the builder's records
    /// copied field by field, then [`Mechanism::derive`]. Out of line, so that its temporaries
    /// are not under [`MechanismBuilder::build_in`]'s caller's.
    #[inline(never)]
    fn fill(&mut self, b: &MechanismBuilder<T, DIM, N, D, S, B, J>) -> Result<(), ConfigError> {
        self.places = b.places;
        self.nodes = b.nodes;
        self.links = b.links;
        self.damping = b.damping;
        self.actuators = b.actuators;
        self.n_act = b.n_act;
        self.start = b.start;
        self.springs = Springs::from_valid(b.springs);
        self.node_mass = b.node_mass;
        self.bodies = b.bodies;
        self.n_bodies = b.n_bodies;
        self.joints = b.joints;
        self.n_joints = b.n_joints;
        self.derive(b)
    }

    /// Writes in place the parts of `self` computed from `b`'s records: whether it has rails
    /// and joint rows, the mass, gravity and the rows (the start is checked after, by
    /// [`check_start`]). Inline, in [`MechanismBuilder::build`] and [`Mechanism::fill`].
    ///
    /// # Errors
    /// `"mass"` as [`Mass::set_diagonal`], `"linear"` as [`LinearPotential::new`].
    #[inline(always)]
    fn derive(&mut self, b: &MechanismBuilder<T, DIM, N, D, S, B, J>) -> Result<(), ConfigError> {
        self.rails = b.has_rails();
        self.joint_rows = b.n_joints > 0;
        let (m, w) = node_weights(b);
        if !m.iter().all(|&x| x == T::one()) {
            self.mass.set_diagonal(m)?;
        }
        self.gravity = LinearPotential::new(w)?;
        for (row, l) in self.linkage.rows_mut().iter_mut().zip(b.links.iter()) {
            *row = linkage::Row::Rod(linkage::Rod {
                a: b.end(&Endpoint::Node(l.node)),
                b: b.end(&l.to),
                length2: l.length * l.length,
            });
        }
        for joint in b.joints.iter().take(b.n_joints) {
            joint_rows(self.linkage.rows_mut(), joint, &b.bodies);
        }
        Ok(())
    }

    /// [`Mechanism::penalised`] under a held force ([`Actuated`], no force yet), built in place
    /// in `slot`: a constant blank copied into the slot, then `ω`, the mass, gravity and the
    /// rows written into it one by one, so the system (kilobytes: the rows) never passes
    /// through the stack. The same system as `Actuated::new` on [`Mechanism::penalised`], bit
    /// for bit.
    ///
    /// ```
    /// use macrostep::mechanism::MechanismBuilder;
    /// let mut b = MechanismBuilder::<f64, 2, 2, 1>::new()?;
    /// let n = b.node(1.0, [1.0, 0.0])?;
    /// b.pin(n, [0.0, 0.0])?;
    /// let mech = b.build()?;
    /// let mut slot = None;
    /// let sys = mech.penalised_actuated_in(&mut slot, 50.0)?;
    /// assert_eq!(sys.potential.potential.omega2()[0], 2500.0);
    /// assert!(mech.penalised_actuated_in(&mut slot, 0.0).is_err() && slot.is_none());
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Mechanism::penalised`]; `slot` is then `None`.
    #[inline(never)]
    #[allow(clippy::type_complexity)]
    pub fn penalised_actuated_in<'s>(
        &self,
        slot: &'s mut Option<System<T, Actuated<T, LinkagePenalty<T, DIM, N, D>, N>, N>>,
        omega: T,
    ) -> Result<&'s mut System<T, Actuated<T, LinkagePenalty<T, DIM, N, D>, N>, N>, ConfigError>
    where
        T: ConstReal,
    {
        *slot = None;
        // A constant of zero bytes (no mass written yet, no gravity, rows of zero length
        // between node 0 and itself, no penalty, no force): cleared in the slot, neither
        // assembled on the stack nor kept in flash.
        *slot = Some(
            const {
                System {
                    mass: Mass::IDENTITY,
                    potential: Actuated::new_const(Penalty::blank(
                        LinearPotential::ZERO,
                        Linkage::from_valid(
                            [linkage::Row::Rod(linkage::Rod {
                                a: Place::Free { offset: 0 },
                                b: Place::Free { offset: 0 },
                                length2: T::ZERO,
                            }); D],
                        ),
                    )),
                }
            },
        );
        let Some(sys) = slot.as_mut() else {
            return Err(IN_SLOT);
        };
        if let Err(e) = sys.potential.potential.set_omega(omega) {
            *slot = None;
            return Err(e);
        }
        sys.mass = self.mass;
        sys.potential.potential.base = self.gravity;
        sys.potential.potential.constraint = self.linkage;
        slot.as_mut().ok_or(IN_SLOT)
    }
}

/// Each node's mass on its coordinates and its weight `g mᵢ` on its height (`g mᵢ e_h` on a
/// rail coordinate).
fn node_weights<
    T: Real,
    const DIM: usize,
    const N: usize,
    const D: usize,
    const S: usize,
    const B: usize,
    const J: usize,
>(
    b: &MechanismBuilder<T, DIM, N, D, S, B, J>,
) -> (SVector<T, N>, SVector<T, N>) {
    let up = DIM - 1;
    let mut m = SVector::<T, N>::zeros();
    let mut w = SVector::<T, N>::zeros();
    for (place, &mi) in b.places.iter().zip(b.node_mass.iter()).take(b.nodes) {
        // Checked writes: the builder validated every offset (`coordinates = N`).
        let (ms, ws) = (m.as_mut_slice(), w.as_mut_slice());
        match place {
            Place::Free { offset } => {
                for c in 0..DIM {
                    if let Some(x) = ms.get_mut(offset + c) {
                        *x = mi;
                    }
                }
                // The same product as the built-in models' `g * mᵢ`.
                if let Some(x) = ws.get_mut(offset + up) {
                    *x = b.g * mi;
                }
            }
            Place::Rail { offset, dir, .. } => {
                if let (Some(x), Some(y)) = (ms.get_mut(*offset), ws.get_mut(*offset)) {
                    *x = mi;
                    *y = b.g * mi * dir[up];
                }
            }
            Place::Ground(_) => {}
        }
    }
    (m, w)
}

/// Writes `joint`'s rows into `rows` (from its first row on), one row at a time. Out of line:
/// the row being made is in this frame only, not under the rest of [`Mechanism::derive`].
#[inline(never)]
fn joint_rows<T: Real, const DIM: usize, const D: usize>(
    rows: &mut [linkage::Row<T, DIM>; D],
    joint: &Joint<T, DIM>,
    bodies: &[BodyRec<T, DIM>],
) {
    if let Some(out) = rows.get_mut(joint.first_row..) {
        joint.rows(bodies, out);
    }
}
