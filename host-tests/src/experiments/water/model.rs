//! The TIP3P water cluster of 000 §4.3 (eq 4.2–4.4), rigid-by-penalty.
//!
//! **Units**: lengths in Å, masses in amu (g/mol), energies in kcal/mol; the time unit is then
//! `√(amu·Å²/(kcal/mol)) = 48.888 fs`, and `β` is in (kcal/mol)⁻¹. The seed prints its parameters
//! (`ω = 20`, `h = 0.05`, `γ = 0.01`, `β = 50`) without units; in these units `h = 0.05` is
//! 2.44 fs (a usual MD step) and `β = 50` is `k_BT = 0.02 kcal/mol ≈ 10 K` (a cold cluster,
//! which is why the OO peaks of its Fig 4 are sharp). The penalty `½ω²(r² − r₀²)²` with `ω = 20`
//! has the O–H stretch stiffness `4ω²r₀² ≈ 1466 kcal/mol/Å²`, a period `≈ 0.16` time units
//! (`hΩ ≈ 2` at `h = 0.05`: Verlet's stability limit, where Z&Ss is the point).
//!
//! **Parameters** (TIP3P, Jorgensen et al. 1983): `q_O = −0.834 e`, `q_H = +0.417 e`,
//! `σ_OO = 3.15061 Å`, `ε_OO = 0.1521 kcal/mol` (`A = 4εσ¹²`, `C = 4εσ⁶`), `r_OH = 0.9572 Å`,
//! `∠HOH = 104.52°`, `K_c = 332.0637 kcal·Å/(mol·e²)`, `m_O = 15.9994`, `m_H = 1.008` amu.
//!
//! **Layout**: `N = 9W` coordinates for `W` molecules; molecule `a` holds atoms
//! `(H, O, H)` (the seed's `i = 1, 2, 3`: `m₁ = m₃` hydrogen), atom `3a + i` at
//! `q[3(3a+i) .. 3(3a+i)+3]`. Constraints (4.3), `D = 3W`: `|H₁−O|² − r_OH²`,
//! `|H₂−O|² − r_OH²`, `|H₁−H₂|² − r_HH²` per molecule, via [`Distances`].

use macrostep::model::{Hessian, Mass, Potential};
use macrostep::nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use macrostep::systems::{Distances, Link};

/// Coulomb constant in kcal·Å/(mol·e²).
pub const KC: f64 = 332.0637;
/// Partial charges of (H, O, H) in units of e.
pub const CHARGE: [f64; 3] = [0.417, -0.834, 0.417];
/// Masses of (H, O, H) in amu.
pub const MASS: [f64; 3] = [1.008, 15.9994, 1.008];
/// LJ σ of O–O in Å.
pub const SIGMA_OO: f64 = 3.15061;
/// LJ ε of O–O in kcal/mol.
pub const EPS_OO: f64 = 0.1521;
/// O–H bond length in Å.
pub const R_OH: f64 = 0.9572;
/// H–O–H angle in degrees.
pub const ANGLE_HOH_DEG: f64 = 104.52;
/// Femtoseconds per time unit.
pub const FS_PER_UNIT: f64 = 48.888;

/// `r_HH = 2 r_OH sin(α/2)` (000 below eq 4.3).
pub fn r_hh() -> f64 {
    2.0 * R_OH * (ANGLE_HOH_DEG.to_radians() / 2.0).sin()
}

/// The intermolecular part of `H` in eq 4.2: Coulomb between all 9 atom pairs of each pair of
/// molecules and Lennard-Jones between the oxygens. No cut-off, no intramolecular terms.
#[derive(Clone, Copy, Debug, Default)]
pub struct Intermolecular<const N: usize>;

/// `(f, f', f'')` of one pair term at distance `r`.
fn pair(i: usize, j: usize, r: f64) -> (f64, f64, f64) {
    let qq = KC * CHARGE[i] * CHARGE[j];
    let (mut f, mut d1, mut d2) = (qq / r, -qq / (r * r), 2.0 * qq / (r * r * r));
    if i == 1 && j == 1 {
        let s6 = SIGMA_OO.powi(6);
        let (a, c) = (4.0 * EPS_OO * s6 * s6, 4.0 * EPS_OO * s6);
        let r6 = r.powi(6);
        f += a / (r6 * r6) - c / r6;
        d1 += -12.0 * a / (r6 * r6 * r) + 6.0 * c / (r6 * r);
        d2 += 156.0 * a / (r6 * r6 * r * r) - 42.0 * c / (r6 * r * r);
    }
    (f, d1, d2)
}

fn atom<const N: usize>(q: &SVector<f64, N>, k: usize) -> Vector3<f64> {
    Vector3::new(q[3 * k], q[3 * k + 1], q[3 * k + 2])
}

impl<const N: usize> Intermolecular<N> {
    /// Calls `visit(k, l, i, j, d)` for every intermolecular atom pair `k < l` (atom indices),
    /// `i, j` their kinds, `d = x_k − x_l`.
    fn pairs(q: &SVector<f64, N>, mut visit: impl FnMut(usize, usize, usize, usize, Vector3<f64>)) {
        let w = N / 9;
        for a in 0..w {
            for b in a + 1..w {
                for i in 0..3 {
                    for j in 0..3 {
                        let (k, l) = (3 * a + i, 3 * b + j);
                        visit(k, l, i, j, atom(q, k) - atom(q, l));
                    }
                }
            }
        }
    }
}

impl<const N: usize> Potential<f64, N> for Intermolecular<N> {
    fn energy(&self, q: &SVector<f64, N>) -> f64 {
        let mut e = 0.0;
        Self::pairs(q, |_, _, i, j, d| e += pair(i, j, d.norm()).0);
        e
    }

    fn gradient(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        let mut g = SVector::zeros();
        Self::pairs(q, |k, l, i, j, d| {
            let r = d.norm();
            let f = d * (pair(i, j, r).1 / r);
            for c in 0..3 {
                g[3 * k + c] += f[c];
                g[3 * l + c] -= f[c];
            }
        });
        g
    }
}

impl<const N: usize> Hessian<f64, N> for Intermolecular<N> {
    /// Eq 4.8 per pair: `f'' uuᵀ + (f'/r)(I − uuᵀ)`, `u = d/r`, on the four blocks.
    fn hessian(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        let mut h = SMatrix::zeros();
        Self::pairs(q, |k, l, i, j, d| {
            let r = d.norm();
            let (_, d1, d2) = pair(i, j, r);
            let u = d / r;
            let uu = u * u.transpose();
            let b: Matrix3<f64> = uu * d2 + (Matrix3::identity() - uu) * (d1 / r);
            for (x, y, s) in [(k, k, 1.0), (l, l, 1.0), (k, l, -1.0), (l, k, -1.0)] {
                for r0 in 0..3 {
                    for c0 in 0..3 {
                        h[(3 * x + r0, 3 * y + c0)] += s * b[(r0, c0)];
                    }
                }
            }
        });
        h
    }
}

/// The rigid-geometry constraints (4.3) of `W = D/3` molecules (`N = 9W`).
///
/// # Panics
/// When `N ≠ 9W` or `D ≠ 3W` (a programming error in the experiment's const sizes).
pub fn constraints<const N: usize, const D: usize>() -> Distances<f64, 3, N, D> {
    assert!(N.is_multiple_of(9) && D * 3 == N, "N = 9W, D = 3W");
    let links = core::array::from_fn(|c| {
        let (a, kind) = (c / 3, c % 3);
        match kind {
            0 => Link::between(3 * a, 3 * a + 1, R_OH),
            1 => Link::between(3 * a + 2, 3 * a + 1, R_OH),
            _ => Link::between(3 * a, 3 * a + 2, r_hh()),
        }
    });
    Distances::new(links).expect("valid water links")
}

/// The diagonal mass matrix (each atom's mass on its three coordinates).
pub fn mass<const N: usize>() -> Mass<f64, N> {
    Mass::diagonal(SVector::from_fn(|k, _| MASS[(k / 3) % 3])).expect("positive masses")
}

/// One molecule in its exact TIP3P geometry, oxygen at `o`, rotated by the Euler-like angles
/// `(phi, theta)`; returns `(H₁, O, H₂)`.
pub fn molecule(o: Vector3<f64>, phi: f64, theta: f64) -> [Vector3<f64>; 3] {
    let half = ANGLE_HOH_DEG.to_radians() / 2.0;
    let rot = macrostep::nalgebra::Rotation3::from_euler_angles(theta, phi, 0.5 * phi);
    let h1 = rot * Vector3::new(R_OH * half.sin(), 0.0, R_OH * half.cos());
    let h2 = rot * Vector3::new(-R_OH * half.sin(), 0.0, R_OH * half.cos());
    [o + h1, o, o + h2]
}

/// A deterministic start: `W` molecules with oxygens on a small lattice of spacing `2.9 Å`
/// (near the O–O distance of the hydrogen-bonded dimer), orientations varied per molecule.
pub fn cluster<const N: usize>() -> SVector<f64, N> {
    let mut q = SVector::zeros();
    for a in 0..N / 9 {
        let o = Vector3::new((a % 2) as f64, ((a / 2) % 2) as f64, (a / 4) as f64) * 2.9;
        let m = molecule(o, 1.1 * a as f64 + 0.3, 0.7 * a as f64 + 0.2);
        for (i, x) in m.iter().enumerate() {
            for c in 0..3 {
                q[3 * (3 * a + i) + c] = x[c];
            }
        }
    }
    q
}

/// All O–O distances of the configuration (`W(W−1)/2` values).
pub fn oo_distances<const N: usize>(q: &SVector<f64, N>, out: &mut Vec<f64>) {
    let w = N / 9;
    for a in 0..w {
        for b in a + 1..w {
            out.push((atom(q, 3 * a + 1) - atom(q, 3 * b + 1)).norm());
        }
    }
}

/// Kinetic temperature `k_BT = vᵀMv / (number of degrees of freedom)` for the given count.
pub fn kinetic_temperature<const N: usize>(v: &SVector<f64, N>, dof: f64) -> f64 {
    let mut e = 0.0;
    for k in 0..N {
        e += MASS[(k / 3) % 3] * v[k] * v[k];
    }
    e / dof
}
