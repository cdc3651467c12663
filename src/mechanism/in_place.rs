//! Building a mechanism in place: the builder, the mechanism and its penalised system written
//! into caller-owned slots (a device's `static`s) instead of returned by value, so that none of
//! them (kilobytes each for a few rigid bodies) passes through the stack.
//!
//! A value moved into a slot is first assembled on the stack unless each of its parts is a
//! copy of memory that exists already: a constant, zeros, or a field of another value. So each
//! `*_in` function writes a value made only of such parts — the builder's arrays, constant
//! blanks built from [`ConstReal`]'s zero and one — and then computes the rest in place. The
//! operations on the numbers are those of the by-value path, so the result is the same object
//! bit for bit (the host tests compare them in `f32` and `f64`).

use super::builder::{check_start, MechanismBuilder};
use super::joint::Joint;
use super::linkage::{self, Linkage, Place};
use super::spring::{Spring, Springs};
use super::{body::BodyRec, Actuator, LinkagePenalty, Mechanism};
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

/// The constant blanks the in-place values start from (the same values as the by-value
/// builder's blanks).
struct Blank<T, const DIM: usize, const N: usize, const D: usize>(T);

impl<T: ConstReal, const DIM: usize, const N: usize, const D: usize> Blank<T, DIM, N, D> {
    const GROUND: Place<T, DIM> = Place::Ground(zeros());
    const PLACES: [Place<T, DIM>; N] = [Self::GROUND; N];
    /// `Link::anchored(0, 0, 1)`.
    const LINKS: [Bar<T, DIM>; D] = [Bar {
        node: 0,
        to: Endpoint::Anchor(zeros()),
        length: T::ONE,
    }; D];
    const ACTUATORS: [Actuator<T, DIM>; N] = [Actuator::None; N];
    const LINKAGE: Linkage<T, DIM, N, D> = Linkage::from_valid(
        [linkage::Row::Rod(linkage::Rod {
            a: Self::GROUND,
            b: Self::GROUND,
            length2: T::ONE,
        }); D],
    );
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
        *slot = Some(Self {
            places: Blank::<T, DIM, N, D>::PLACES,
            node_mass: [T::ZERO; N],
            nodes: 0,
            coords: 0,
            start: SVector::zeros(),
            links: Blank::<T, DIM, N, D>::LINKS,
            rods: 0,
            g: T::ZERO,
            damping: SMatrix::zeros(),
            actuators: Blank::<T, DIM, N, D>::ACTUATORS,
            n_act: 0,
            springs: [Spring::unused(); S],
            n_springs: 0,
            bodies: [BodyRec::unused(); B],
            n_bodies: 0,
            joints: [Joint::unused(); J],
            n_joints: 0,
        });
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
        Mechanism::blank_in(slot, self);
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
    /// Writes into `slot` the mechanism with `b`'s records and blank mass, gravity and rows
    /// (completed by [`Mechanism::fill`]). Out of line: its frame is gone before `fill` runs.
    #[inline(never)]
    fn blank_in(slot: &mut Option<Self>, b: &MechanismBuilder<T, DIM, N, D, S, B, J>) {
        *slot = Some(Self {
            places: b.places,
            nodes: b.nodes,
            mass: Mass::identity(),
            gravity: LinearPotential::from_valid(SVector::zeros()),
            links: b.links,
            linkage: Blank::<T, DIM, N, D>::LINKAGE,
            rails: b.has_rails(),
            damping: b.damping,
            actuators: b.actuators,
            n_act: b.n_act,
            start: b.start,
            springs: Springs::from_valid(b.springs),
            node_mass: b.node_mass,
            joint_rows: b.n_joints > 0,
            bodies: b.bodies,
            n_bodies: b.n_bodies,
            joints: b.joints,
            n_joints: b.n_joints,
        });
    }

    /// Computes in place what `Mechanism::from_builder` computes from `b` (the mass, gravity
    /// and rows), with the same operations.
    #[inline(never)]
    fn fill(&mut self, b: &MechanismBuilder<T, DIM, N, D, S, B, J>) -> Result<(), ConfigError> {
        let (mut m, mut w) = (SVector::<T, N>::zeros(), SVector::<T, N>::zeros());
        Self::node_weights(b, &mut m, &mut w);
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

/// Writes `joint`'s rows into `rows` (from its first row on). Out of line: the rows the joint
/// makes are in this frame only, not under the rest of [`Mechanism::fill`].
#[inline(never)]
fn joint_rows<T: Real, const DIM: usize, const D: usize>(
    rows: &mut [linkage::Row<T, DIM>; D],
    joint: &Joint<T, DIM>,
    bodies: &[BodyRec<T, DIM>],
) {
    let made = joint.rows(bodies);
    let used = made.iter().take(joint.kind.rows(DIM));
    for (row, j) in rows.iter_mut().skip(joint.first_row).zip(used) {
        *row = linkage::Row::Joint(*j);
    }
}

/// The forms of a mechanism without springs, in place.
impl<
        T: ConstReal,
        const DIM: usize,
        const N: usize,
        const D: usize,
        const B: usize,
        const J: usize,
    > Mechanism<T, DIM, N, D, 0, B, J>
{
    /// [`Mechanism::penalised`] in place in `slot`: the system `V + ½ ω² Σ gₖ²` is written
    /// into the slot from the mechanism's fields. The same system, bit for bit.
    ///
    /// ```
    /// use macrostep::mechanism::MechanismBuilder;
    /// let mut b = MechanismBuilder::<f64, 2, 2, 1>::new()?;
    /// let bob = b.node(2.0, [0.0, -1.0])?;
    /// b.pin(bob, [0.0, 0.0])?;
    /// b.gravity(9.81)?;
    /// let mech = b.build()?;
    /// let mut slot = None;
    /// let sys = mech.penalised_in(100.0, &mut slot)?;
    /// assert_eq!(sys.potential.omega2()[0], 1.0e4);
    /// assert_eq!(sys.mass.diagonal_entry(0), Some(2.0));
    /// assert!(mech.penalised_in(-1.0, &mut slot).is_err() && slot.is_none());
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Mechanism::penalised`]; `slot` is then `None`.
    #[inline(never)]
    pub fn penalised_in<'s>(
        &self,
        omega: T,
        slot: &'s mut Option<System<T, LinkagePenalty<T, DIM, N, D>, N>>,
    ) -> Result<&'s mut System<T, LinkagePenalty<T, DIM, N, D>, N>, ConfigError> {
        *slot = None;
        let sys = slot.insert(System {
            mass: self.mass,
            potential: Penalty::new(self.gravity, self.linkage, omega)?,
        });
        Ok(sys)
    }
}
