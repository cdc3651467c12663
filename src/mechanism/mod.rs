//! A mechanism builder: point masses, rods, ground pins, rails, gravity, springs, dashpots and
//! actuators, turned into the objects every integrator family already consumes.
//!
//! ```
//! use macrostep::mechanism::MechanismBuilder;
//! use macrostep::zs::{ZhangSkeel, ZsParams};
//! use macrostep::forcing::{Actuate, Actuated};
//! use macrostep::model::System;
//! use macrostep::nalgebra::SVector;
//! use macrostep::Integrator;
//!
//! // A cart (1 kg) on a horizontal rail through the origin, a 0.1 kg tip 0.5 m above it on a
//! // rod, gravity 9.81, a horizontal force actuator on the cart: q = (s, x_tip, y_tip).
//! let mut b = MechanismBuilder::<f64, 2, 3, 1>::new()?;
//! let cart = b.rail_node(1.0, [0.0, 0.0], [1.0, 0.0], 0.0)?;
//! let tip = b.node(0.1, [0.0, 0.5])?;
//! b.rod(tip, cart)?;
//! b.gravity(9.81)?;
//! let push = b.force_actuator(cart, [1.0, 0.0])?;
//! let mech = b.build()?;
//!
//! // Penalty form for Z&S, the actuator's force held over each step.
//! let pen = mech.penalised(1000.0)?;
//! let sys = System::new(pen.mass, Actuated::new(pen.potential));
//! let mut zs = ZhangSkeel::new(sys, 1e-3, ZsParams::default())?;
//! let mut s = mech.initial_state();
//! let mut u = SVector::zeros();
//! let mut commands = [0.0];
//! commands[push] = 2.0; // newtons
//! mech.actuation(&commands, &s.q, &mut u)?;
//! zs.set_force(&u).unwrap();
//! zs.step(&mut s).unwrap();
//! assert!(s.v[0] > 0.0); // the cart moves along +x
//! # Ok::<(), macrostep::ConfigError>(())
//! ```
//!
//! ## Rigid bodies and joints
//! [`MechanismBuilder::body`] adds a rigid body (mass, COM, full inertia tensor) as `DIM + 1`
//! free nodes held by rods — an affine body (000 §4.5) — so every method handles it unchanged;
//! [`MechanismBuilder::revolute`], [`MechanismBuilder::prismatic`],
//! [`MechanismBuilder::spherical`] and [`MechanismBuilder::fixed`] join bodies (or a body and
//! the ground) with rows between body-fixed points; [`MechanismBuilder::joint_motor`] and
//! [`MechanismBuilder::joint_damping`] drive and damp a joint; [`Mechanism::joint_angle`],
//! [`Mechanism::body_pose`] and friends read the state out. Sizes:
//! `N = bodies · body_coordinates(DIM)` (+ point nodes), `D = bodies · body_constraints(DIM)
//! + Σ JointKind::rows(kind, DIM)` (+ rods); `B ≥ bodies` and `J ≥ joints` are the builder's
//! body and joint capacities (`MechanismBuilder<T, DIM, N, D, S, B, J>`, both 0 by default,
//! so point-mass mechanisms store no body or joint records). The formulation, its reasons
//! and the joints' rows, motors and dampers are documented in `body.rs` and `joint.rs`
//! ([`Body`], [`JointKind`]).
//!
//! ```
//! use macrostep::mechanism::{body_constraints, body_coordinates, Body, JointKind, Link, MechanismBuilder};
//! // A compound pendulum in the plane: a 1 kg link (I = 0.02 kg·m² about its COM), hinged to
//! // the ground 0.25 m above its COM.
//! const N: usize = body_coordinates(2);
//! const D: usize = body_constraints(2) + JointKind::Revolute.rows(2);
//! // No springs, room for one body (`B = 1`) and one joint (`J = 1`).
//! let mut b = MechanismBuilder::<f64, 2, N, D, 0, 1, 1>::new()?;
//! let link = b.body(Body { mass: 1.0, com: [0.3, 0.95], inertia: [[0.02, 0.0], [0.0, 0.0]] })?;
//! let hinge = b.revolute(Link::Ground, Link::Body(link), [0.3, 1.2], [0.0, 0.0])?;
//! let motor = b.joint_motor(hinge)?;
//! b.gravity(9.81)?;
//! let mech = b.build()?;
//! let s = mech.initial_state();
//! assert!(mech.joint_angle(hinge, &s.q).is_some_and(|a| a.abs() < 1e-12));
//! assert_eq!(motor, 0);
//! # Ok::<(), macrostep::ConfigError>(())
//! ```
//!
//! ## Coordinates
//! Nodes are numbered in the order added. A **free node** ([`MechanismBuilder::node`]) owns
//! `DIM` consecutive coordinates, its position. A **rail node** ([`MechanismBuilder::rail_node`],
//! a prismatic joint) owns **one** coordinate, its arc length `s` along the rail's unit
//! direction `e` from the rail's origin `o`: `p = o + s e`. Decision: a rail is a *coordinate
//! choice*, not a constraint — the cart of a cart-pole has one degree of freedom and no stiff
//! penalty across the rail, which keeps the Z&S system small (`N = 3`, one rod, for the planar
//! cart-pole) and the rail exact for every method. `N` must equal the sum of the nodes'
//! coordinates and `D` the number of rods ([`MechanismBuilder::build`] checks both).
//!
//! ## What it produces
//! | item | what |
//! |---|---|
//! | [`Mechanism::mass`] | `Mass`: each node's `m` on its coordinates (`m |e|² = m` for a rail); `Mass::identity()` when every mass is 1 |
//! | [`Mechanism::gravity`] | [`LinearPotential`] `V = Σ mᵢ g hᵢ` (`g mᵢ` on each free node's height, `g mᵢ e_h` on a rail coordinate; the rail origin's constant is dropped) |
//! | [`Mechanism::constraint`] | [`Linkage`]: the rods in squared-distance form, rails allowed (exact form for SHAKE/RATTLE) |
//! | [`Mechanism::distances`] | the crate's [`Distances`], for a mechanism without rails — bit-identical to [`DoublePendulum`](crate::systems::DoublePendulum) and [`Chain`](crate::systems::Chain) |
//! | [`Mechanism::penalised`] / [`Mechanism::penalised_distances`] | `V + ½ Σ ωₖ² gₖ²` (000 eq 1.7) for Z&S and SyLiPN |
//! | [`Mechanism::springs`] / [`Mechanism::loads`] | [`Springs`] `Σ ½ k (r − L₀)²` with exact gradient, Hessian and `a·V‴·a`; [`Loads`] = gravity + springs |
//! | [`Mechanism::system_with_springs`] / [`Mechanism::penalised_with_springs`] | the two forms above with [`Loads`] as the base potential (`S > 0`) |
//! | [`Mechanism::damping`] | the damping matrix `C` for [`Damped`](crate::forcing::Damped) |
//! | [`Mechanism::actuation`] | actuator commands → the generalised force `u` for [`Actuate::set_force`](crate::forcing::Actuate::set_force) |
//!
//! **Springs** are a const-generic count `S` (default 0): `MechanismBuilder<T, DIM, N, D, S>`.
//! Without springs (`S = 0`) the builder produces exactly the types and values it produced
//! before springs existed ([`Mechanism::system`], [`Mechanism::penalised`],
//! [`Mechanism::penalised_distances`], gravity alone as the base potential; those three exist
//! only for `S = 0`, so a mechanism with springs cannot lose them by calling the wrong one). A
//! zero rest length is allowed (`½ k |p_a − p_b|²`, a smooth quadratic); a spring with `L₀ > 0`
//! whose ends start at one point is refused (its force direction is undefined there).
//!
//! **Dashpots** are **isotropic** (`C += c BᵀB`, `B = ∂(p_a − p_b)/∂q`: `c (eₐ − e_b)(eₐ − e_b)ᵀ ⊗ I`
//! between free nodes, `c eₐeₐᵀ ⊗ I` to ground): constant, so [`Damped`](crate::forcing::Damped)
//! computes its exact flow `exp(−M⁻¹C τ)` once, at construction, and composes it with any
//! method at no per-step eigen-work. A dashpot along the moving line of centres
//! (`C(q) = c Bᵀ n nᵀ B`, `n = d/|d|`, damping only the stretching rate, as a shock absorber)
//! is **not offered**: its `C` depends on `q`, so it is not the constant matrix `Damped` takes —
//! it would need `C(q)` re-formed and its flow (a generalised eigen-decomposition, `O(N³)`)
//! recomputed every step, or a different split (e.g. a linearly implicit velocity update
//! `(M + h/2 C(q)) v' = (M − h/2 C(q)) v`, still dissipative since `C(q) ≥ 0`), with its own
//! order and bounded-cost analysis. It is a sound later `forcing` type; along a rigid rod, whose
//! length is fixed, it would do nothing. Between nodes that do not rotate much relative
//! to each other the isotropic form is the usual stand-in.
//!
//! ## Errors
//! Every builder call validates its input and leaves the builder unchanged on error:
//! `OutOfRange "node"` (index out of range), `OutOfRange "mass"` (`m ≤ 0`), `OutOfRange "rod
//! length"` (`L ≤ 0`), `Inconsistent "rod ends distinct"` (a rod from a node to itself),
//! `Inconsistent "rod ends coincide"` (a measured rod whose ends start at one point),
//! `OutOfRange "rail direction"` (zero direction), `OutOfRange "stiffness"` / `"rest length"` /
//! `"damping"` (negative), `Inconsistent "spring ends distinct"` / `"spring ends coincide"`
//! (a spring from a node to itself; `L₀ > 0` with both ends starting at one point), `Inconsistent "topology"` (`DIM ∉ {2, 3}`, a
//! torque actuator in 3-D, [`Mechanism::distances`] with rails), `Inconsistent "coordinates =
//! N"` / `"rods = D"` / `"springs = S"` (counts not matching the const sizes), `NonFinite` for NaN or infinite
//! input. Bodies and joints add theirs (see [`MechanismBuilder::body`],
//! [`MechanismBuilder::spherical`]), among them `Inconsistent "bodies <= B"` / `"joints <= J"`
//! (one more than the builder's capacity). All are [`ConfigError`]s.

mod body;
mod body_nodes;
mod body_state;
mod builder;
mod forces;
mod in_place;
mod joint;
mod joint_build;
mod joint_drive;
mod joint_state;
mod linkage;
mod row;
mod spring;

pub use body::{body_constraints, body_coordinates, Body};
pub use builder::MechanismBuilder;
pub use forces::Actuator;
pub use joint::{JointKind, Link};
pub use linkage::{Linkage, Place, Rod, Row};
pub use row::{Bilinear, BodyPoint};
pub use spring::{Loads, Spring, Springs};

use crate::model::{Mass, Penalty, System};
use crate::systems::{Distances, LinearPotential, Link as Bar};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// The penalised potential of a mechanism: gravity plus `½ Σ ω² gₖ²` over its [`Linkage`].
pub type LinkagePenalty<T, const DIM: usize, const N: usize, const D: usize> =
    Penalty<T, LinearPotential<T, N>, Linkage<T, DIM, N, D>, D>;

/// The penalised potential of a mechanism without rails over the crate's [`Distances`] (the
/// built-in models' [`GravityPenalty`](crate::systems::GravityPenalty) for `DIM = 2`).
pub type DistancesPenalty<T, const DIM: usize, const N: usize, const D: usize> =
    Penalty<T, LinearPotential<T, N>, Distances<T, DIM, N, D>, D>;

/// The penalised potential of a mechanism with springs: gravity and springs ([`Loads`]) plus
/// `½ Σ ω² gₖ²` over its [`Linkage`].
pub type SpringPenalty<T, const DIM: usize, const N: usize, const D: usize, const S: usize> =
    Penalty<T, Loads<T, DIM, N, S>, Linkage<T, DIM, N, D>, D>;

/// A validated mechanism: what [`MechanismBuilder::build`] returns. Its const parameters are
/// the builder's ([`MechanismBuilder`]): `N` coordinates, `D` constraint rows, `S` springs,
/// room for `B` rigid bodies and `J` joints (`S`, `B` and `J` are 0 by default, so a
/// point-mass mechanism stores no spring, body or joint records).
#[derive(Clone, Copy, Debug)]
pub struct Mechanism<
    T: Real,
    const DIM: usize,
    const N: usize,
    const D: usize,
    const S: usize = 0,
    const B: usize = 0,
    const J: usize = 0,
> {
    places: [Place<T, DIM>; N],
    nodes: usize,
    mass: Mass<T, N>,
    gravity: LinearPotential<T, N>,
    links: [Bar<T, DIM>; D],
    linkage: Linkage<T, DIM, N, D>,
    rails: bool,
    damping: SMatrix<T, N, N>,
    actuators: [Actuator<T, DIM>; N],
    n_act: usize,
    start: SVector<T, N>,
    springs: Springs<T, DIM, N, S>,
    node_mass: [T; N],
    joint_rows: bool,
    bodies: [body::BodyRec<T, DIM>; B],
    n_bodies: usize,
    joints: [joint::Joint<T, DIM>; J],
    n_joints: usize,
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
    /// The mass matrix.
    pub fn mass(&self) -> Mass<T, N> {
        self.mass
    }
    /// Gravity as a linear potential.
    pub fn gravity(&self) -> LinearPotential<T, N> {
        self.gravity
    }
    /// The rods as exact constraints (rails allowed).
    pub fn constraint(&self) -> Linkage<T, DIM, N, D> {
        self.linkage
    }

    /// The rods as the crate's [`Distances`] (the built-in models' constraint type).
    ///
    /// # Errors
    /// [`ConfigError::Inconsistent`] `"topology"` when a node sits on a rail or a joint adds
    /// rows that are not rods.
    pub fn distances(&self) -> Result<Distances<T, DIM, N, D>, ConfigError> {
        if self.rails || self.joint_rows {
            return Err(ConfigError::Inconsistent { name: "topology" });
        }
        Ok(Distances::from_valid(self.links))
    }

    /// The springs (gravity not included; see [`Mechanism::loads`]).
    pub fn springs(&self) -> Springs<T, DIM, N, S> {
        self.springs
    }

    /// Gravity plus the springs: the conservative loads.
    pub fn loads(&self) -> Loads<T, DIM, N, S> {
        Loads {
            gravity: self.gravity,
            springs: self.springs,
        }
    }

    /// The unconstrained system `M`, gravity and springs (pair it with
    /// [`Mechanism::constraint`] for SHAKE/RATTLE).
    pub fn system_with_springs(&self) -> System<T, Loads<T, DIM, N, S>, N> {
        System::new(self.mass, self.loads())
    }

    /// The penalised system `V + ½ ω² Σ gₖ²` on [`Mechanism::constraint`], `V` gravity and
    /// springs (for Z&S and SyLiPN).
    ///
    /// # Errors
    /// `"omega"` as [`Penalty::new`].
    pub fn penalised_with_springs(
        &self,
        omega: T,
    ) -> Result<System<T, SpringPenalty<T, DIM, N, D, S>, N>, ConfigError> {
        Ok(System::new(
            self.mass,
            Penalty::new(self.loads(), self.linkage, omega)?,
        ))
    }

    /// The damping matrix `C` (symmetric, `≥ 0`) of the dashpots, for
    /// [`Damped`](crate::forcing::Damped).
    pub fn damping(&self) -> SMatrix<T, N, N> {
        self.damping
    }

    /// The start positions, at rest.
    pub fn initial_state(&self) -> State<T, N> {
        State::at_rest(self.start)
    }

    /// The position of node `i` at `q` (`None` for `i` out of range).
    pub fn position(&self, i: usize, q: &SVector<T, N>) -> Option<SVector<T, DIM>> {
        if i < self.nodes {
            self.places.get(i).map(|p| p.position(q))
        } else {
            None
        }
    }
}

/// The forms of a mechanism without springs: today's types, gravity alone as the base
/// potential (a mechanism with springs uses [`Mechanism::system_with_springs`] and
/// [`Mechanism::penalised_with_springs`], so its springs cannot be dropped by accident).
impl<T: Real, const DIM: usize, const N: usize, const D: usize, const B: usize, const J: usize>
    Mechanism<T, DIM, N, D, 0, B, J>
{
    /// The unconstrained system `M`, gravity (pair it with [`Mechanism::constraint`]).
    pub fn system(&self) -> System<T, LinearPotential<T, N>, N> {
        System::new(self.mass, self.gravity)
    }

    /// The penalised system `V + ½ ω² Σ gₖ²` on [`Mechanism::constraint`].
    ///
    /// # Errors
    /// `"omega"` as [`Penalty::new`].
    pub fn penalised(
        &self,
        omega: T,
    ) -> Result<System<T, LinkagePenalty<T, DIM, N, D>, N>, ConfigError> {
        Ok(System::new(
            self.mass,
            Penalty::new(self.gravity, self.linkage, omega)?,
        ))
    }

    /// The penalised system on [`Mechanism::distances`] (the built-in models' type).
    ///
    /// # Errors
    /// As [`Mechanism::distances`] and [`Mechanism::penalised`].
    pub fn penalised_distances(
        &self,
        omega: T,
    ) -> Result<System<T, DistancesPenalty<T, DIM, N, D>, N>, ConfigError> {
        Ok(System::new(
            self.mass,
            Penalty::new(self.gravity, self.distances()?, omega)?,
        ))
    }
}
