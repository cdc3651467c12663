//! The validation and modal decomposition behind [`StiffLinear::new`](super::StiffLinear::new).

use crate::linalg::symmetric_eigen_in_place;
use crate::sim::{Friction, Noise};
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// `K` finite and symmetric to `√ε` relative to its largest entry.
pub(super) fn check_stiffness<T: Real, const N: usize>(
    k: &SMatrix<T, N, N>,
) -> Result<(), ConfigError> {
    if !k.iter().all(|x| x.finite()) {
        return Err(ConfigError::NonFinite { name: "stiffness" });
    }
    // `max |Kᵢⱼ − Kⱼᵢ|` entry by entry: no `N×N` temporary on the stack of a construction in
    // place.
    let mut asym = T::zero();
    for j in 0..N {
        for i in 0..N {
            asym = asym.max((k[(i, j)] - k[(j, i)]).abs());
        }
    }
    if asym > k.amax() * T::default_epsilon().sqrt() {
        return Err(ConfigError::NotSymmetric { name: "stiffness" });
    }
    Ok(())
}

/// The friction in the mass-weighted frame, `L⁻¹ c L`, into `out`; returns the scalar `c` when
/// it is one (the friction is validated,
/// [`FastParams::validate`](crate::sim::FastParams::validate)).
pub(super) fn friction_frame<T: Real, const N: usize>(
    friction: &Friction<T, N>,
    l: &SMatrix<T, N, N>,
    l_inv: &SMatrix<T, N, N>,
    out: &mut SMatrix<T, N, N>,
) -> Option<T> {
    match friction {
        Friction::Scalar(c) => {
            // `I · c` entry by entry, as the product writes it.
            out.fill_with_identity();
            *out *= *c;
            Some(*c)
        }
        Friction::Matrix(c) => {
            matrix_friction_frame(c, l, l_inv, out);
            None
        }
    }
}

/// `L⁻¹ c L` into `out` (out of line: its temporary stays off a scalar friction's stack).
#[inline(never)]
fn matrix_friction_frame<T: Real, const N: usize>(
    c: &SMatrix<T, N, N>,
    l: &SMatrix<T, N, N>,
    l_inv: &SMatrix<T, N, N>,
    out: &mut SMatrix<T, N, N>,
) {
    *out = l_inv * c * l;
}

/// The orthogonal `Q` of the modes, into `q`: eigenvectors of `A + μ·sym(C)`, which
/// diagonalise both `A` and `C` when they commute (`μ` irrational-ish and scaled, so accidental
/// degeneracies are unlikely; `μ = 0` for a scalar or zero friction). `work` is the Jacobi's.
pub(super) fn joint_modes<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    c_frame: &SMatrix<T, N, N>,
    scalar_friction: bool,
    q: &mut SMatrix<T, N, N>,
    work: &mut SMatrix<T, N, N>,
) -> Result<(), ConfigError> {
    let converged = if scalar_friction {
        symmetric_eigen_in_place(a, work, q)
    } else {
        combined_modes(a, c_frame, q, work)
    };
    converged.ok_or(ConfigError::Inconsistent {
        name: "eigendecomposition converged",
    })
}

/// [`joint_modes`] of a matrix friction (out of line: its copies stay off the scalar path's
/// stack).
#[inline(never)]
fn combined_modes<T: Real, const N: usize>(
    a: &SMatrix<T, N, N>,
    c_frame: &SMatrix<T, N, N>,
    q: &mut SMatrix<T, N, N>,
    work: &mut SMatrix<T, N, N>,
) -> Option<()> {
    let half = T::lit(0.5);
    let c_sym = c_frame * half + c_frame.transpose() * half;
    let combined = if c_sym.amax() == T::zero() {
        *a
    } else {
        let na = a.amax().max(T::one());
        a + c_sym * (na / c_sym.amax() * T::lit(0.618_033_988_749_894_8))
    };
    symmetric_eigen_in_place(&combined, work, q)
}

/// `λ = diag(QᵀAQ)`: refused below `−√ε·max|QᵀAQ|`, rounding noise below zero clamped to 0.
pub(super) fn modal_stiffness<T: Real, const N: usize>(
    a_modal: &SMatrix<T, N, N>,
) -> Result<SVector<T, N>, ConfigError> {
    let a_scale = a_modal.amax();
    let sqrt_eps = T::default_epsilon().sqrt();
    let mut lambda = a_modal.diagonal();
    for x in lambda.iter_mut() {
        if *x < -a_scale * sqrt_eps {
            return Err(ConfigError::NotPositiveDefinite { name: "stiffness" });
        }
        if *x < T::zero() {
            *x = T::zero();
        }
    }
    Ok(lambda)
}

/// `γ = diag(QᵀCQ)`: refused when `QᵀCQ` is not diagonal (to `√ε` relative) or `γ` is negative
/// beyond rounding; rounding noise below zero clamped to 0.
pub(super) fn modal_friction<T: Real, const N: usize>(
    c_modal: &SMatrix<T, N, N>,
) -> Result<SVector<T, N>, ConfigError> {
    let gamma = c_modal.diagonal();
    let c_scale = c_modal.amax();
    let sqrt_eps = T::default_epsilon().sqrt();
    for i in 0..N {
        for j in 0..N {
            if i != j && c_modal[(i, j)].abs() > c_scale * sqrt_eps {
                return Err(ConfigError::Inconsistent {
                    name: "friction commutes with stiffness",
                });
            }
        }
        if gamma[i] < -c_scale * sqrt_eps {
            return Err(ConfigError::OutOfRange {
                name: "friction",
                bound: "positive semidefinite",
            });
        }
    }
    Ok(gamma.map(|g| g.max(T::zero())))
}

/// `g gᵀ` (out of line: the noise-free construction does not carry its temporaries).
#[inline(never)]
fn gram<T: Real, const N: usize>(g: &SMatrix<T, N, N>) -> SMatrix<T, N, N> {
    g * g.transpose()
}

/// The modal noise covariance `GGᵀ` with `G = QᵀL⁻¹σ` into `out` (`ql_inv = QᵀL⁻¹`; the noise
/// is validated, [`FastParams::validate`](crate::sim::FastParams::validate)); `out` is unchanged
/// on error.
#[inline(never)]
pub(super) fn modal_noise_covariance<T: Real, const N: usize>(
    noise: &Noise<T, N>,
    ql_inv: &SMatrix<T, N, N>,
    scalar_friction: Option<T>,
    out: &mut SMatrix<T, N, N>,
) -> Result<(), ConfigError> {
    *out = match *noise {
        Noise::Scalar(s) => gram(&(ql_inv * s)),
        Noise::Matrix(s) => gram(&(ql_inv * s)),
        Noise::Thermal {
            inverse_temperature: beta,
        } => {
            let c = scalar_friction.ok_or(ConfigError::Inconsistent {
                name: "thermal noise needs scalar friction",
            })?;
            // σσᵀ = 2cM/β ⇒ GGᵀ = QᵀL⁻¹(2cM/β)L⁻ᵀQ = (2c/β) I.
            SMatrix::identity() * ((c + c) / beta)
        }
    };
    Ok(())
}
