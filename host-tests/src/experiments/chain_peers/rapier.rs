//! The rapier peer ([`crate::experiments::peers::rapier`]) on the chain of unit point masses:
//! one multibody of revolute joints, one per rod, the root fixed at the pivot.
//!
//! Each mass is a dynamic body at its node with mass 1 and no rotational inertia of its own;
//! gravity `(0, −1)`. The search varies the step `dt`, at each substep count of
//! [`rapier::SUBSTEPS`].

use crate::experiments::peers::rapier::{self, Body};
use crate::experiments::work_precision::search::Outcome;
use rapier2d_f64::prelude::*;

/// Node positions `(x₁, y₁, …)` of the chain of `n` masses after `n_out` output intervals of
/// `dt_out` from the horizontal start at rest, with step `h` (dividing `dt_out`) and `substeps`
/// solver iterations: what one rapier run returns, flattened; a non-finite position fails.
pub fn run(n: usize, h: f64, substeps: usize, dt_out: f64, n_out: usize) -> Outcome {
    // The joint sits at the parent's origin (the pivot, or the parent mass).
    let bodies = (1..=n).map(|i| Body {
        x: i as f64,
        mass: MassProperties::new(Vector::ZERO, 1.0, 0.0),
        anchor_parent: 0.0,
        anchor_body: -1.0,
    });
    let positions =
        |world: &PhysicsWorld, handles: &[RigidBodyHandle], k: usize, out: &mut Vec<f64>| {
            for &b in handles {
                let p = world.bodies[b].translation();
                if !(p.x.is_finite() && p.y.is_finite()) {
                    return Err(format!("non-finite position at output {}", k + 1));
                }
                out.push(p.x);
                out.push(p.y);
            }
            Ok(())
        };
    rapier::run(bodies, 1.0, (h, substeps), (dt_out, n_out), positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::chain_peers::methods::max_diff;
    use crate::reference::chain::reference;

    #[test]
    fn rapier_chain_converges_at_first_order() {
        // rapier's symplectic Euler on the chain of 3: the error against the rigid reference
        // falls about in proportion to the step.
        let refq = reference(3, 1.0, 2);
        let err = |h: f64| max_diff(&run(3, h, 1, 0.5, 2).unwrap(), &refq);
        let (e1, e2) = (err(1e-3), err(2.5e-4));
        // With rapier's default joint damping (0.1) the limit is another model: ~3e-2 away.
        assert!(e2 < e1, "{e1} → {e2}");
        let order = (e1 / e2).log(4.0);
        assert!((0.7..1.5).contains(&order), "order {order}: {e1} → {e2}");
        assert!(e2 < 1e-2, "{e2}");
    }
}
