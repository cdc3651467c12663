//! The united-atom propane "molecular clip" of 004 §2.6.5 (eqs 2.109–2.112): three atoms in a
//! plane, two stiff bonds and a soft bond angle.

use super::check_positive;
use crate::model::{Mass, Potential, Split, System};
use crate::{ConfigError, Real, State};
use nalgebra::{SVector, Vector2};

/// Atom `i` (0, 1, 2) of `q = (x₁, y₁, x₂, y₂, x₃, y₃)`.
#[inline]
fn atom<T: Real>(q: &SVector<T, 6>, i: usize) -> Vector2<T> {
    Vector2::new(q[2 * i], q[2 * i + 1])
}

/// Writes the force-free gradient of atom `i` into `g`.
#[inline]
fn put<T: Real>(g: &mut SVector<T, 6>, i: usize, v: Vector2<T>) {
    g[2 * i] += v[0];
    g[2 * i + 1] += v[1];
}

/// The two bonds of the clip without their stiffness (004 eq 2.111 divided by `K_r`):
///
/// ```text
/// U(q) = ½ [(r₁ − r₀)² + (r₂ − r₀)²],   r₁ = |x₂ − x₁|,   r₂ = |x₃ − x₂|,
/// ∇_{x₂} ½(r₁ − r₀)² = (r₁ − r₀)(x₂ − x₁)/r₁ = −∇_{x₁} ½(r₁ − r₀)²  (likewise for r₂).
/// ```
///
/// Coincident atoms (`r = 0`) give a non-finite gradient, which the integrators reject.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BondPair<T> {
    r0: T,
}

impl<T: Real> BondPair<T> {
    /// The rest length `r₀`.
    pub fn r0(&self) -> T {
        self.r0
    }
}

impl<T: Real> Potential<T, 6> for BondPair<T> {
    /// `½[(r₁ − r₀)² + (r₂ − r₀)²]`.
    fn energy(&self, q: &SVector<T, 6>) -> T {
        let half = T::lit(0.5);
        let d1 = (atom(q, 1) - atom(q, 0)).norm() - self.r0;
        let d2 = (atom(q, 2) - atom(q, 1)).norm() - self.r0;
        half * (d1 * d1 + d2 * d2)
    }
    fn gradient(&self, q: &SVector<T, 6>) -> SVector<T, 6> {
        let mut g = SVector::<T, 6>::zeros();
        for (i, j) in [(0, 1), (1, 2)] {
            let b = atom(q, j) - atom(q, i);
            let r = b.norm();
            let f = b * ((r - self.r0) / r);
            put(&mut g, j, f);
            put(&mut g, i, -f);
        }
        g
    }
}

/// The bond angle term (004 eq 2.112), `θ` the angle at the middle atom:
///
/// ```text
/// V(q) = ½ K_θ (cos θ − cos θ₀)²,   cos θ = u·w/(|u||w|),   u = x₁ − x₂,   w = x₃ − x₂,
/// ∇_{x₁} V = K_θ (cos θ − cos θ₀) [w/(|u||w|) − cos θ · u/|u|²],
/// ∇_{x₃} V = K_θ (cos θ − cos θ₀) [u/(|u||w|) − cos θ · w/|w|²],
/// ∇_{x₂} V = −∇_{x₁} V − ∇_{x₃} V.
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BondAngle<T> {
    k_theta: T,
    cos0: T,
}

impl<T: Real> BondAngle<T> {
    /// `K_θ`.
    pub fn k_theta(&self) -> T {
        self.k_theta
    }
    /// `cos θ₀`.
    pub fn cos0(&self) -> T {
        self.cos0
    }
}

impl<T: Real> Potential<T, 6> for BondAngle<T> {
    /// `½ K_θ (cos θ − cos θ₀)²`.
    fn energy(&self, q: &SVector<T, 6>) -> T {
        let d = Propane::cos_angle(q) - self.cos0;
        T::lit(0.5) * self.k_theta * d * d
    }
    fn gradient(&self, q: &SVector<T, 6>) -> SVector<T, 6> {
        let u = atom(q, 0) - atom(q, 1);
        let w = atom(q, 2) - atom(q, 1);
        let (nu, nw) = (u.norm(), w.norm());
        let c = u.dot(&w) / (nu * nw);
        let k = self.k_theta * (c - self.cos0);
        let g1 = (w / (nu * nw) - u * (c / (nu * nu))) * k;
        let g3 = (u / (nu * nw) - w * (c / (nw * nw))) * k;
        let mut g = SVector::<T, 6>::zeros();
        put(&mut g, 0, g1);
        put(&mut g, 2, g3);
        put(&mut g, 1, -(g1 + g3));
        g
    }
}

/// Propane in the united-atom representation, in the plane (004 §2.6.5, eqs 2.109–2.112):
/// masses `m₁, m₂, m₃` at `q = (x₁, y₁, x₂, y₂, x₃, y₃)`, two harmonic bonds (stiff) and a
/// harmonic-in-cosine bond angle (soft):
///
/// ```text
/// H = Σᵢ |pᵢ|²/(2mᵢ) + ½K_r[(r₁ − r₀)² + (r₂ − r₀)²] + ½K_θ(cos θ − cos θ₀)².
/// ```
///
/// As a [`Split`] ([`Propane::split`]): soft [`BondAngle`], stiff [`BondPair`] (the bonds
/// without `K_r`), switch `α = K_r`. The bond angle `θ`, the orientation and the centre of mass
/// are slow; the bond lengths are fast. Both potentials are fully nonlinear in Cartesian
/// coordinates. The hand-written gradients are exact; for a Hessian or `a·V‴·a` (Z&S) wrap the
/// parts in [`AutoDiff`](crate::autodiff::AutoDiff) (they implement
/// [`Energy`](crate::autodiff::Energy)).
///
/// [`Propane::paper`] is the thesis's exaggerated, unitless version (Fig 2.16): `μ = 1`,
/// `m = (15, 14, 15)`, `r₀ = 1.53`, `K_r = 8370`, `θ₀ = 109.5°`, `K_θ = 4.31`, start
/// `(x₁, y₁, x₂, y₂, x₃, y₃) = (0, 0, 1.533, 0, 2.6136, 1.0826)` with momenta
/// `(−0.4326, −1.6656, 0.1253, 0.2877, −1.1465, 1.1909)`.
///
/// ```
/// use macrostep::systems::Propane;
/// use macrostep::model::Potential;
///
/// let m = Propane::<f64>::paper();
/// let s = m.initial_state();
/// let [r1, r2] = Propane::bond_lengths(&s.q);
/// assert!((r1 - 1.533).abs() < 1e-12 && (r2 - 1.5296).abs() < 1e-4);
/// // The start bends the clip open: θ ≈ 134.9° against θ₀ = 109.5°.
/// assert!((Propane::angle(&s.q).to_degrees() - 134.95).abs() < 0.01);
/// let mut split = m.split();
/// assert_eq!(split.alpha, 8370.0);
/// split.set_alpha(0.0); // bonds off: only the angle term remains
/// assert!(split.energy(&s.q) > 0.29 && split.energy(&s.q) < 0.31);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Propane<T: Real> {
    masses: [T; 3],
    k_r: T,
    bonds: BondPair<T>,
    angle: BondAngle<T>,
}

impl<T: Real> Propane<T> {
    /// Masses `m₁, m₂, m₃`, bond rest length `r₀` and stiffness `K_r`, rest angle `θ₀` (radians)
    /// and angle stiffness `K_θ`.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] / [`ConfigError::OutOfRange`] for `"mass"` (`mᵢ ≤ 0`), `"r0"`,
    /// `"k_r"`, `"k_theta"` (each `≤ 0`) and `"theta0"` (outside `(0, π)`).
    pub fn new(masses: [T; 3], r0: T, k_r: T, theta0: T, k_theta: T) -> Result<Self, ConfigError> {
        for &m in &masses {
            check_positive(m, "mass")?;
        }
        check_positive(r0, "r0")?;
        check_positive(k_r, "k_r")?;
        check_positive(k_theta, "k_theta")?;
        crate::validate::check_finite(theta0, "theta0")?;
        if !(theta0 > T::zero() && theta0 < T::pi()) {
            return Err(ConfigError::OutOfRange {
                name: "theta0",
                bound: "in (0, pi)",
            });
        }
        Ok(Self::build(masses, r0, k_r, theta0, k_theta))
    }

    /// 004 §2.6.5, Fig 2.16 (exaggerated separation, `μ = 1`): `m = (15, 14, 15)`, `r₀ = 1.53`,
    /// `K_r = 8370`, `θ₀ = 109.5°`, `K_θ = 4.31`.
    pub fn paper() -> Self {
        Self::build(
            [T::lit(15.0), T::lit(14.0), T::lit(15.0)],
            T::lit(1.53),
            T::lit(8370.0),
            T::lit(109.5_f64.to_radians()),
            T::lit(4.31),
        )
    }

    fn build(masses: [T; 3], r0: T, k_r: T, theta0: T, k_theta: T) -> Self {
        Self {
            masses,
            k_r,
            bonds: BondPair { r0 },
            angle: BondAngle {
                k_theta,
                cos0: theta0.cos(),
            },
        }
    }

    /// The masses `m₁, m₂, m₃`.
    pub fn masses(&self) -> [T; 3] {
        self.masses
    }
    /// The bond stiffness `K_r` (the split's `α`).
    pub fn k_r(&self) -> T {
        self.k_r
    }
    /// The bond term without `K_r`.
    pub fn bonds(&self) -> BondPair<T> {
        self.bonds
    }
    /// The angle term.
    pub fn angle_term(&self) -> BondAngle<T> {
        self.angle
    }

    /// The diagonal mass matrix `diag(m₁, m₁, m₂, m₂, m₃, m₃)`.
    pub fn mass(&self) -> Mass<T, 6> {
        let [a, b, c] = self.masses;
        // `Mass::diagonal` fails only for non-positive or non-finite entries, which `new` and
        // `paper` rule out; the identity fallback is dead code that keeps this panic-free.
        Mass::diagonal(SVector::from([a, a, b, b, c, c])).unwrap_or_else(|_| Mass::identity())
    }

    /// Soft: the angle term; stiff: the bonds; `α = K_r`.
    pub fn split(&self) -> Split<T, BondAngle<T>, BondPair<T>> {
        Split::new(self.angle, self.bonds, self.k_r)
    }

    /// The system `M = diag(m)`, `V = V_angle + K_r U_bond`.
    pub fn system(&self) -> System<T, Split<T, BondAngle<T>, BondPair<T>>, 6> {
        System::new(self.mass(), self.split())
    }

    /// A bound on the bond frequencies at rest length, `√(K_r · max(2/m₁, 4/m₂, 2/m₃))`
    /// (Gershgorin on `K_r M⁻¹ ∇²U`, whose blocks are `±b̂b̂ᵀ`): a safe `ω_fast` for
    /// [`flavor::advice`](crate::flavor::advice). The paper's clip gives 48.9; its bent
    /// antisymmetric stretch is ≈ 42.
    pub fn bond_frequency_bound(&self) -> T {
        let [a, b, c] = self.masses;
        let two = T::lit(2.0);
        let row = (two / a).max(two * two / b).max(two / c);
        (self.k_r * row).sqrt()
    }

    /// The bond lengths `[r₁, r₂]`.
    pub fn bond_lengths(q: &SVector<T, 6>) -> [T; 2] {
        [
            (atom(q, 1) - atom(q, 0)).norm(),
            (atom(q, 2) - atom(q, 1)).norm(),
        ]
    }

    /// `cos θ` of the angle at the middle atom.
    pub fn cos_angle(q: &SVector<T, 6>) -> T {
        let u = atom(q, 0) - atom(q, 1);
        let w = atom(q, 2) - atom(q, 1);
        u.dot(&w) / (u.norm() * w.norm())
    }

    /// The bond angle `θ ∈ [0, π]` at the middle atom (clamped `acos`).
    pub fn angle(q: &SVector<T, 6>) -> T {
        let one = T::one();
        Self::cos_angle(q).max(-one).min(one).acos()
    }

    /// The start of 004 Fig 2.16: positions `(0, 0, 1.533, 0, 2.6136, 1.0826)`, momenta
    /// `(−0.4326, −1.6656, 0.1253, 0.2877, −1.1465, 1.1909)` (velocities `pᵢ/mᵢ`).
    pub fn initial_state(&self) -> State<T, 6> {
        let q = SVector::from([0.0, 0.0, 1.533, 0.0, 2.6136, 1.0826]).map(T::lit);
        let p = SVector::from([-0.4326, -1.6656, 0.1253, 0.2877, -1.1465, 1.1909]).map(T::lit);
        State::new(T::zero(), q, self.mass().solve(&p))
    }
}
