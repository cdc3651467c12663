//! Building a mechanism in place: the builder and the mechanism written into caller-owned
//! slots (a device's `static`s) instead of returned by value, so that neither (kilobytes each
//! for a few rigid bodies) passes through the stack.
//!
//! A value moved into a slot is first assembled on the stack unless it is a copy of memory that
//! exists already: a constant, zeros, or another value read through a reference (measured on
//! the Cortex-M4F build of `arm3_pd`: a blank made of `[x; N]` arrays or an aggregate of
//! several computed parts is assembled in a stack temporary, a constant is copied straight into
//! the slot). So each `*_in` function writes a constant blank (made from [`ConstReal`]'s zero
//! and one) into its slot and then writes the fields in place, one at a time. The operations on
//! the numbers are those of the by-value path, so the result is the same object bit for bit
//! (the host tests compare them in `f32` and `f64`).

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

/// The zero vector as a constant.
const fn zeros<T: ConstReal, const R: usize>() -> SVector<T, R> {
    SVector::from_array_storage(ArrayStorage([[T::ZERO; R]; 1]))
}

/// The identity matrix as a constant.
const fn identity<T: ConstReal, const R: usize>() -> SMatrix<T, R, R> {
    let mut a = [[T::ZERO; R]; R];
    let mut i = 0;
    while i < R {
        a[i][i] = T::ONE;
        i += 1;
    }
    SMatrix::from_array_storage(ArrayStorage(a))
}

/// The constant blanks the in-place values start from: the values the by-value builder's
/// blanks hold (`MechanismBuilder::new`, `BodyRec::unused`, `Joint::unused`,
/// `Spring::unused`, `Link::anchored(0, 0, 1)`).
struct Blank<T, const DIM: usize, const N: usize, const D: usize>(T);

impl<T: ConstReal, const DIM: usize, const N: usize, const D: usize> Blank<T, DIM, N, D> {
    const GROUND: Place<T, DIM> = Place::Ground(zeros());
    const PLACES: [Place<T, DIM>; N] = [Self::GROUND; N];
    const LINK: Bar<T, DIM> = Bar {
        node: 0,
        to: Endpoint::Anchor(zeros()),
        length: T::ONE,
    };
    const ACTUATORS: [Actuator<T, DIM>; N] = [Actuator::None; N];
    const LINKAGE: Linkage<T, DIM, N, D> = Linkage::from_valid(
        [linkage::Row::Rod(linkage::Rod {
            a: Self::GROUND,
            b: Self::GROUND,
            length2: T::ONE,
        }); D],
    );
    /// The penalised system's blank: no mass written yet (identity), no gravity, rows of zero
    /// length between node 0 and itself, no penalty, no force.
    const PENALISED: System<T, Actuated<T, LinkagePenalty<T, DIM, N, D>, N>, N> = System {
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
    };
    const SPRING: Spring<T, DIM> = Spring::blank(Self::GROUND, T::ZERO);
    const BODY: BodyRec<T, DIM> = BodyRec {
        offset: 0,
        mass: T::ONE,
        x0: zeros(),
        inv: identity(),
        radius: T::ONE,
        parent: None,
    };
    const JOINT: Joint<T, DIM> = Joint {
        kind: JointKind::Fixed,
        parent: Link::Ground,
        child: 0,
        anchor: zeros(),
        frame: [zeros(); 3],
        r: T::ONE,
        first_row: 0,
    };
}

impl<
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > MechanismBuilder<T, DIM, N, D, S, B, J>
{
    /// The empty builder ([`MechanismBuilder::new`]'s) as a constant.
    const BLANK: Self = Self {
        places: Blank::<T, DIM, N, D>::PLACES,
        node_mass: [T::ZERO; N],
        nodes: 0,
        coords: 0,
        start: zeros(),
        links: [Blank::<T, DIM, N, D>::LINK; D],
        rods: 0,
        g: T::ZERO,
        damping: SMatrix::from_array_storage(ArrayStorage([[T::ZERO; N]; N])),
        actuators: Blank::<T, DIM, N, D>::ACTUATORS,
        n_act: 0,
        springs: [Blank::<T, DIM, N, D>::SPRING; S],
        n_springs: 0,
        bodies: [Blank::<T, DIM, N, D>::BODY; B],
        n_bodies: 0,
        joints: [Blank::<T, DIM, N, D>::JOINT; J],
        n_joints: 0,
    };
}

impl<
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, S, B, J>
{
    /// A mechanism as a constant, completed in place by [`Mechanism::fill`].
    const BLANK: Self = Self {
        places: Blank::<T, DIM, N, D>::PLACES,
        nodes: 0,
        mass: Mass::IDENTITY,
        gravity: LinearPotential::ZERO,
        links: [Blank::<T, DIM, N, D>::LINK; D],
        linkage: Blank::<T, DIM, N, D>::LINKAGE,
        rails: false,
        damping: SMatrix::from_array_storage(ArrayStorage([[T::ZERO; N]; N])),
        actuators: Blank::<T, DIM, N, D>::ACTUATORS,
        n_act: 0,
        start: zeros(),
        springs: Springs::from_valid([Blank::<T, DIM, N, D>::SPRING; S]),
        node_mass: [T::ZERO; N],
        joint_rows: false,
        bodies: [Blank::<T, DIM, N, D>::BODY; B],
        n_bodies: 0,
        joints: [Blank::<T, DIM, N, D>::JOINT; J],
        n_joints: 0,
    };
}

impl<
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > MechanismBuilder<T, DIM, N, D, S, B, J>
{
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
    pub fn new_in(slot: &mut Option<Self>) -> Result<&mut Self, ConfigError> {
        *slot = None;
        Self::check_dim()?;
        // A constant: copied into the slot, not assembled on the stack.
        *slot = Some(Self::BLANK);
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
    ) -> Result<&'m mut Mechanism<T, DIM, N, D, S, B, J>, ConfigError> {
        *slot = None;
        self.check_complete()?;
        // A constant: copied into the slot, not assembled on the stack.
        *slot = Some(Mechanism::BLANK);
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
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, S, B, J>
{
    /// Writes in place what `Mechanism::from_builder` makes of `b`, with the same operations:
    /// the builder's records copied field by field, the mass, gravity and rows computed.
    #[inline(never)]
    fn fill(&mut self, b: &MechanismBuilder<T, DIM, N, D, S, B, J>) -> Result<(), ConfigError> {
        self.places = b.places;
        self.nodes = b.nodes;
        self.links = b.links;
        self.rails = b.has_rails();
        self.damping = b.damping;
        self.actuators = b.actuators;
        self.n_act = b.n_act;
        self.start = b.start;
        self.springs = Springs::from_valid(b.springs);
        self.node_mass = b.node_mass;
        self.joint_rows = b.n_joints > 0;
        self.bodies = b.bodies;
        self.n_bodies = b.n_bodies;
        self.joints = b.joints;
        self.n_joints = b.n_joints;
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
}

impl<
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const S: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, S, B, J>
{
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
    {
        *slot = None;
        // A constant of zero bytes: cleared in the slot, neither assembled on the stack nor
        // kept in flash.
        *slot = Some(Blank::<T, DIM, N, D>::PENALISED);
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

/// Each node's mass on its coordinates and its weight `g mᵢ` on its height: the loop of
/// `Mechanism::from_builder` (kept there as it is, so that the by-value build and the firmware
/// sizes of the models built by value do not move).
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
        let (ms, ws) = (m.as_mut_slice(), w.as_mut_slice());
        match place {
            Place::Free { offset } => {
                for c in 0..DIM {
                    if let Some(x) = ms.get_mut(offset + c) {
                        *x = mi;
                    }
                }
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
/// the row being made is in this frame only, not under the rest of [`Mechanism::fill`].
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
