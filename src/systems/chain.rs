//! A planar chain of `n` pendula (a discretised rope): 000 §4.2 and 004 §5.4.3.

use super::distance::chain_links;
use super::{check_nonnegative, check_positive, GravityPenalty, LinearPotential, PlanarDistances};
use crate::model::{Mass, Penalty, System};
use crate::{ConfigError, Real, State};
use nalgebra::SVector;

/// A chain of `n` unit point masses: node 1 hangs from the origin on a rod `L₁`, node `i` from
/// node `i − 1` on a rod `Lᵢ` (000 §4.2, 004 eqs 5.23–5.25).
///
/// - `q = (x₁, y₁, …, xₙ, yₙ)`, `M = I`;
/// - `V(q) = g Σᵢ yᵢ`, gravity towards `−y` (`g = 1` in both seeds; the seeds print `−Σ yᵢ`, the
///   same sign typo as the double pendulum's, see [`DoublePendulum`](super::DoublePendulum));
/// - `gᵢ(q) = |pᵢ − pᵢ₋₁|² − Lᵢ²`, `p₀ = 0` ([`PlanarDistances::chain`]).
///
/// # Sizes
/// Stable Rust cannot write `2 * n` in a const-generic position, so the chain carries both
/// sizes: `N = 2n` coordinates and `D = n` constraints, `Chain<T, N, D>`. [`Chain::new`] rejects
/// `N ≠ 2D` with [`ConfigError::Inconsistent`]; the named constructors ([`Chain::horizontal`],
/// [`Chain::slanted`]) check it at compile time (a mismatched instantiation does not build).
///
/// # Banded Hessian
/// Each constraint couples only neighbouring nodes, so in the `(x, y)` ordering the Hessian of
/// the penalised potential (and the constraint Jacobian's `JᵀJ`) is banded: entry `(r, c)`
/// vanishes when `|r − c| > 3` ([`Chain::HALF_BANDWIDTH`]). A banded `LDLᵀ` solves Z&S's system
/// `M + βh² Hess V` in `O(n)`.
///
/// ```
/// use macrostep::model::Constraint;
/// use macrostep::systems::Chain;
///
/// // 004 §5.4.3: n = 20 pendula, horizontal at rest, L = 1.
/// let chain = Chain::<f64, 40, 20>::horizontal();
/// let s = chain.initial_state();
/// assert_eq!(s.q[38], 20.0);
/// assert!(chain.constraint().value(&s.q).amax() == 0.0);
/// let sys = chain.penalised(100.0).unwrap(); // ω = 100 in 004 Fig. 5.5
/// assert!(sys.energy(&s).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Chain<T: Real, const N: usize, const D: usize> {
    lengths: SVector<T, D>,
    g: T,
    gravity: LinearPotential<T, N>,
    constraint: PlanarDistances<T, N, D>,
    start: SVector<T, N>,
}

impl<T: Real, const N: usize, const D: usize> Chain<T, N, D> {
    /// Half-bandwidth of the Hessian in the `(x₁, y₁, x₂, y₂, …)` ordering: entries with
    /// `|r − c| > 3` are zero (node `i` couples only to nodes `i ± 1`).
    pub const HALF_BANDWIDTH: usize = 3;

    /// Compile-time check of `N = 2D` for the named constructors.
    const SHAPE: () = assert!(N == 2 * D && D > 0, "Chain<T, N, D> needs N = 2D and D > 0");

    /// A chain with rod lengths `Lᵢ` and gravity `g`, starting horizontal at rest
    /// (`xᵢ = L₁ + … + Lᵢ`, `yᵢ = 0`).
    ///
    /// # Errors
    /// - [`ConfigError::Inconsistent`] `"N = 2D"` when the sizes disagree,
    ///   [`ConfigError::OutOfRange`] `"D"` when `D = 0`;
    /// - [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"length"` (`Lᵢ ≤ 0`) and
    ///   `"g"` (`g < 0`);
    /// - [`ConfigError::Overflow`] for `"length^2"` or `"sum of lengths"` when not representable.
    pub fn new(lengths: SVector<T, D>, g: T) -> Result<Self, ConfigError> {
        if D == 0 {
            return Err(ConfigError::OutOfRange {
                name: "D",
                bound: ">= 1",
            });
        }
        if N != 2 * D {
            return Err(ConfigError::Inconsistent { name: "N = 2D" });
        }
        for &l in lengths.iter() {
            check_positive(l, "length")?;
        }
        check_nonnegative(g, "g")?;
        let mut start = SVector::zeros();
        let mut x = T::zero();
        for i in 0..D {
            crate::validate::check_derived(lengths[i] * lengths[i], "length^2")?;
            x += lengths[i];
            start[2 * i] = x;
        }
        // The start lays the rods end to end: their sum must be finite.
        crate::validate::check_derived(x, "sum of lengths")?;
        Ok(Self::build(lengths, g, start))
    }

    /// 004 §5.4.3 (Fig. 5.5): `Lᵢ = 1`, `g = 1`, start `xᵢ = i`, `yᵢ = 0` at rest (the seed uses
    /// `n = 20`, i.e. `Chain<T, 40, 20>`, and penalty `ω = 100`).
    pub fn horizontal() -> Self {
        let () = Self::SHAPE;
        let start = SVector::from_fn(|r, _| {
            if r.is_multiple_of(2) {
                T::lit((r / 2 + 1) as f64)
            } else {
                T::zero()
            }
        });
        Self::build(SVector::repeat(T::one()), T::one(), start)
    }

    /// 000 §4.2 (Fig. 3): `Lᵢ = √5`, `g = 1`, start `xᵢ = i`, `yᵢ = −2i` at rest (the seed uses
    /// `n = 10`, i.e. `Chain<T, 20, 10>`, and penalty `ω = 20`).
    pub fn slanted() -> Self {
        let () = Self::SHAPE;
        let start = SVector::from_fn(|r, _| {
            let i = T::lit((r / 2 + 1) as f64);
            if r.is_multiple_of(2) {
                i
            } else {
                -(i + i)
            }
        });
        Self::build(SVector::repeat(T::lit(5.0).sqrt()), T::one(), start)
    }

    fn build(lengths: SVector<T, D>, g: T, start: SVector<T, N>) -> Self {
        let b = SVector::from_fn(|r, _| if !r.is_multiple_of(2) { g } else { T::zero() });
        Self {
            lengths,
            g,
            gravity: LinearPotential::from_valid(b),
            constraint: PlanarDistances::from_chain_links(chain_links(SVector::zeros(), lengths)),
            start,
        }
    }

    /// The rod lengths `Lᵢ`.
    pub fn lengths(&self) -> &SVector<T, D> {
        &self.lengths
    }
    /// The gravitational acceleration `g`.
    pub fn g(&self) -> T {
        self.g
    }

    /// The unconstrained system `M = I`, `V = g Σ yᵢ` (pair it with [`Chain::constraint`]).
    pub fn system(&self) -> System<T, LinearPotential<T, N>, N> {
        System::new(Mass::identity(), self.gravity)
    }

    /// The `n` rod constraints.
    pub fn constraint(&self) -> PlanarDistances<T, N, D> {
        self.constraint
    }

    /// The penalised system `V + ½ ω² Σ gᵢ²` (000 eq 1.7, 004 eq 5.15).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"omega"` (`ω ≤ 0`).
    pub fn penalised(
        &self,
        omega: T,
    ) -> Result<System<T, GravityPenalty<T, N, D>, N>, ConfigError> {
        self.penalised_per_constraint(SVector::repeat(omega))
    }

    /// The penalised system with one frequency per rod, `V + ½ Σ ωᵢ² gᵢ²`.
    ///
    /// # Errors
    /// As [`Chain::penalised`].
    pub fn penalised_per_constraint(
        &self,
        omega: SVector<T, D>,
    ) -> Result<System<T, GravityPenalty<T, N, D>, N>, ConfigError> {
        Ok(System::new(
            Mass::identity(),
            Penalty::per_constraint(self.gravity, self.constraint, omega)?,
        ))
    }

    /// The start of the constructor used, at rest.
    pub fn initial_state(&self) -> State<T, N> {
        State::at_rest(self.start)
    }
}
