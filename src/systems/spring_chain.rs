//! The six-node spring chain with five rigid rods of Leimkuhler & Skeel (001 §7, Figure 1).

use super::{check_positive, Link, PlanarDistances};
use crate::model::{Mass, Quadratic, System};
use crate::{ConfigError, Real, State};
use nalgebra::{SMatrix, SVector};

/// Six unit point masses in the plane, consecutive nodes joined by rods of length 1 (five
/// constraints) and nodes `1–3`, `3–5`, `2–4`, `4–6` joined by zero-rest-length springs of
/// stiffness `κ` (001 §7):
///
/// - `q = (x₁, y₁, …, x₆, y₆) ∈ ℝ¹²`, `M = I₁₂`;
/// - `V(q) = ½ qᵀ K q` with `K = κ [[I,0,−I,0,0,0],[0,I,0,−I,0,0],[−I,0,2I,0,−I,0],
///   [0,−I,0,2I,0,−I],[0,0,−I,0,I,0],[0,0,0,−I,0,I]]` (2×2 blocks). The extracted text of 001
///   prints the prefactor as "5/2", an extraction artefact next to the usual `½`; we use `½`.
/// - `gₖ(q) = |p_{k+1} − p_k|² − 1`, `k = 1…5` ([`PlanarDistances`]). 001 writes
///   `gₖ = ½(|p_{k+1} − p_k|² − 1)`: same manifold, and its multipliers are twice ours.
///
/// The paper states neither `κ` nor the initial data. [`SpringChain::paper`] chooses `κ = 1` and
/// the start of [`SpringChain::initial_state`]: a zigzag `xᵢ = 0.8 (i − 1)`, `yᵢ = ±0.3`
/// (`+` for odd `i`; consecutive distances exactly 1), node 1 at rest and rod `k` turning at the
/// angular velocity `ωₖ = 1.5 (−1)^{k+1}` relative to the plane (`vₖ₊₁ = vₖ + ωₖ e_⊥ₖ`, tangent
/// to every rod constraint, so the start lies on the solution manifold): the zigzag flaps while
/// the springs pull nodes 1–3–5 and 2–4–6 together.
///
/// ```
/// use macrostep::model::Constraint;
/// use macrostep::systems::SpringChain;
///
/// let sc = SpringChain::<f64>::paper();
/// let s = sc.initial_state();
/// assert!(sc.constraint().value(&s.q).amax() < 1e-15);
/// assert!((sc.constraint().jacobian(&s.q) * s.v).amax() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpringChain<T: Real> {
    kappa: T,
    potential: Quadratic<T, 12>,
    constraint: PlanarDistances<T, 12, 5>,
}

impl<T: Real> SpringChain<T> {
    /// The chain with spring constant `κ`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"kappa"` (`κ ≤ 0`).
    pub fn new(kappa: T) -> Result<Self, ConfigError> {
        check_positive(kappa, "kappa")?;
        Ok(Self::build(kappa))
    }

    /// `κ = 1` with the documented start.
    pub fn paper() -> Self {
        Self::build(T::one())
    }

    fn build(kappa: T) -> Self {
        let mut k = SMatrix::<T, 12, 12>::zeros();
        // Springs between nodes (0,2), (2,4), (1,3), (3,5) (0-based), both coordinates.
        for (a, b) in [(0usize, 2usize), (2, 4), (1, 3), (3, 5)] {
            for c in 0..2 {
                let (i, j) = (2 * a + c, 2 * b + c);
                k[(i, i)] += kappa;
                k[(j, j)] += kappa;
                k[(i, j)] -= kappa;
                k[(j, i)] -= kappa;
            }
        }
        let one = T::one();
        let links = [
            Link::between(0, 1, one),
            Link::between(1, 2, one),
            Link::between(2, 3, one),
            Link::between(3, 4, one),
            Link::between(4, 5, one),
        ];
        Self {
            kappa,
            potential: Quadratic::new(k),
            constraint: PlanarDistances::from_valid(links),
        }
    }

    /// The spring constant `κ`.
    pub fn kappa(&self) -> T {
        self.kappa
    }

    /// The unconstrained system `M = I`, `V = ½ qᵀKq` (pair it with [`SpringChain::constraint`]).
    pub fn system(&self) -> System<T, Quadratic<T, 12>, 12> {
        System::new(Mass::identity(), self.potential)
    }

    /// The five rod constraints.
    pub fn constraint(&self) -> PlanarDistances<T, 12, 5> {
        self.constraint
    }

    /// The zigzag start with alternating joint angular velocities (see the type's docs).
    pub fn initial_state(&self) -> State<T, 12> {
        let (dx, dy) = (T::lit(0.8), T::lit(0.3));
        let (c, s) = (T::lit(0.8), T::lit(0.6)); // rod direction (c, ∓s), |(c, s)| = 1
        let w = T::lit(1.5);
        let mut q = SVector::<T, 12>::zeros();
        let mut v = SVector::<T, 12>::zeros();
        for i in 0..6 {
            q[2 * i] = dx * T::lit(i as f64);
            q[2 * i + 1] = if i % 2 == 0 { dy } else { -dy };
        }
        for i in 0..5 {
            // Rod i goes from node i to node i + 1 with direction (c, −s) (i even) or (c, s);
            // rotating it at rate ωᵢ = ±1.5 adds ωᵢ · (−sin θᵢ, cos θᵢ) to node i + 1.
            let (px, py, wi) = if i % 2 == 0 { (s, c, w) } else { (-s, c, -w) };
            v[2 * i + 2] = v[2 * i] + wi * px;
            v[2 * i + 3] = v[2 * i + 1] + wi * py;
        }
        State::new(T::zero(), q, v)
    }
}
