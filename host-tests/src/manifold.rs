//! Symplecticity of maps of a constraint manifold, measured on its tangent space.
//!
//! A constrained method maps the solution manifold `M = {g(q) = 0, g'(q)M⁻¹p = 0}` (dimension
//! `2(N − D)`) into itself; it is symplectic when it preserves the restriction of
//! `ω = dq ∧ dp` to `M` (001 §2). The restriction is measured as follows:
//!
//! 1. a basis `U` (columns) of the tangent space `T_x M` is the null space of the derivative of
//!    the `2D` constraints `(g(q), g'(q)M⁻¹p)`, i.e. of `[[g', 0], [∂(g'M⁻¹p)/∂q, g'M⁻¹]]`
//!    (`∂(gᵢ'v)/∂q = (Hess gᵢ v)ᵀ`), from the eigenvectors of `CᵀC` with the `2(N − D)` smallest
//!    eigenvalues;
//! 2. `DΦ·U` by central differences along each column `u`, evaluating `Φ` at `P(x ± εu)` where
//!    `P` projects onto `M` (so the method is always started on the manifold):
//!    `P(x ± εu) = x ± εu + ε²w + O(ε³)` for tangent `u`, and the `ε²` term cancels;
//! 3. the defect is `max |(DΦU)ᵀ J (DΦU) − Uᵀ J U|`, zero iff `Φ*ω = ω` on `T_x M`. (`UᵀJU` is
//!    nondegenerate on `M`: the restricted form is symplectic.)
//!
//! The Newton tolerance of the method must be tight (≈ roundoff), because an error `δ` in `λ`
//! shows up as `δ/ε` in the difference quotients.

use macrostep::model::{Constraint, Mass};
use macrostep::nalgebra::{DMatrix, DVector, SMatrix, SVector};
use macrostep::State;

/// A basis (columns) of the tangent space at `x = (q, p)` of the solution manifold
/// `{g(q) = 0, g'(q) M⁻¹ p = 0}`: the null space of `[[g', 0], [∂(g'M⁻¹p)/∂q, g'M⁻¹]]`.
pub fn tangent_basis<G: Constraint<f64, N, D>, const N: usize, const D: usize>(
    g: &G,
    mass: &Mass<f64, N>,
    x: &DVector<f64>,
) -> DMatrix<f64> {
    let q = SVector::<f64, N>::from_iterator(x.iter().copied().take(N));
    let p = SVector::<f64, N>::from_iterator(x.iter().copied().skip(N));
    let v = mass.solve(&p);
    let j = g.jacobian(&q);
    let hv = g.hessian_times(&q, &v); // row i: (Hess gᵢ v)ᵀ = ∂(gᵢ' v)/∂q
    let minv = inverse_mass(mass);
    let mut c = DMatrix::<f64>::zeros(2 * D, 2 * N);
    for i in 0..D {
        for k in 0..N {
            c[(i, k)] = j[(i, k)];
            c[(D + i, k)] = hv[(i, k)];
        }
    }
    let jm = j * minv;
    for i in 0..D {
        for k in 0..N {
            c[(D + i, N + k)] = jm[(i, k)];
        }
    }
    // Null space from the SVD of Cᵀ C (full 2N×2N), eigenvectors of the zero eigenvalues.
    let ctc = c.transpose() * &c;
    let eig = ctc.symmetric_eigen();
    let mut idx: Vec<usize> = (0..2 * N).collect();
    idx.sort_by(|&a, &b| eig.eigenvalues[a].partial_cmp(&eig.eigenvalues[b]).unwrap());
    let dim = 2 * (N - D);
    DMatrix::from_fn(2 * N, dim, |r, k| eig.eigenvectors[(r, idx[k])])
}

/// `M⁻¹` as a matrix.
fn inverse_mass<const N: usize>(mass: &Mass<f64, N>) -> SMatrix<f64, N, N> {
    {
        let mut m = SMatrix::<f64, N, N>::zeros();
        for k in 0..N {
            let mut e = SVector::<f64, N>::zeros();
            e[k] = 1.0;
            m.set_column(k, &mass.solve(&e));
        }
        m
    }
}

/// The symplecticity defect of a map of the solution manifold, restricted to its tangent space:
/// `max |(DΦ U)ᵀ J (DΦ U) − Uᵀ J U|` with `U` a basis of `T_x M` at the start. Derivatives are
/// central differences along `U`'s columns of `Φ ∘ P`, with `P` the projection onto the manifold
/// (`P(x ± εu) = x ± εu + ε²w + O(ε³)` for tangent `u`, so the `ε²` term cancels).
pub fn manifold_defect<G, const N: usize, const D: usize>(
    g: &G,
    mass: &Mass<f64, N>,
    x0: &DVector<f64>,
    mut phi: impl FnMut(&DVector<f64>) -> DVector<f64>,
    mut project: impl FnMut(&DVector<f64>) -> DVector<f64>,
    eps: f64,
) -> f64
where
    G: Constraint<f64, N, D>,
{
    let u = tangent_basis(g, mass, x0);
    let m = u.ncols();
    let mut du = DMatrix::<f64>::zeros(2 * N, m);
    for k in 0..m {
        let col = u.column(k).into_owned();
        let xp = project(&(x0 + &col * eps));
        let xm = project(&(x0 - &col * eps));
        let d = (phi(&xp) - phi(&xm)) / (2.0 * eps);
        du.set_column(k, &d);
    }
    let j = crate::measure::canonical_j(N);
    (du.transpose() * &j * &du - u.transpose() * &j * &u).amax()
}

/// `(q, M v)`.
pub fn to_x<const N: usize>(s: &State<f64, N>, mass: &Mass<f64, N>) -> DVector<f64> {
    crate::measure::to_phase(s, mass)
}
/// The state at `t = 0` of `(q, p)`.
pub fn from_x<const N: usize>(x: &DVector<f64>, mass: &Mass<f64, N>) -> State<f64, N> {
    crate::measure::from_phase(x, mass, 0.0)
}
