//! Where a rigid body's `DIM + 1` point masses sit: the node offsets from the centre of mass
//! that match the body's mass, centre of mass and inertia tensor, and the checks that keep them
//! representable in the scalar type.

use super::body::Body;
use crate::{ConfigError, Real};
use nalgebra::{SMatrix, SVector};

/// The unit node directions: the regular tetrahedron (`Σ vᵢvᵢᵀ = 4/3 I`) in space, the
/// equilateral triangle (`Σ vᵢvᵢᵀ = 3/2 I`) in the plane.
fn directions<T: Real, const DIM: usize>() -> [SVector<T, DIM>; 4] {
    let s3 = T::lit(3.0).sqrt();
    let (one, half) = (T::one(), T::lit(0.5));
    let raw: [[T; 3]; 4] = if DIM == 3 {
        let a = one / s3;
        [[a, a, a], [a, -a, -a], [-a, a, -a], [-a, -a, a]]
    } else {
        let h = s3 * half;
        [
            [one, T::zero(), T::zero()],
            [-half, h, T::zero()],
            [-half, -h, T::zero()],
            [T::zero(); 3],
        ]
    };
    raw.map(|r| SVector::from_fn(|c, _| r[c.min(2)]))
}

/// The nodes' offsets `ρᵢ` from the COM that match the body's mass and inertia.
pub(super) fn node_offsets<T: Real, const DIM: usize>(
    body: &Body<T, DIM>,
) -> Result<[SVector<T, DIM>; 4], ConfigError> {
    let j = SMatrix::<T, DIM, DIM>::from_fn(|r, c| body.inertia[r][c]);
    if !j.iter().all(|x| x.finite()) {
        return Err(ConfigError::NonFinite { name: "inertia" });
    }
    let scale = j.iter().fold(T::zero(), |s, x| s.max(x.abs()));
    let tol = T::default_epsilon().sqrt() * scale;
    if (j - j.transpose()).iter().any(|x| x.abs() > tol) {
        return Err(ConfigError::NotSymmetric { name: "inertia" });
    }
    let j = (j + j.transpose()) * T::lit(0.5);
    let dirs = directions::<T, DIM>();
    if DIM == 2 {
        let izz = j.trace();
        if izz <= T::zero() {
            return Err(ConfigError::NotPositiveDefinite { name: "inertia" });
        }
        let r = (izz / body.mass).sqrt();
        if !r.finite() || r <= T::zero() {
            return Err(ConfigError::Overflow { name: "I_zz / m" });
        }
        if !(T::one() / izz).finite() {
            return Err(ConfigError::Overflow { name: "1 / I_zz" });
        }
        check_radius(r)?;
        return Ok(dirs.map(|d| d * r));
    }
    if j.cholesky().is_none() {
        return Err(ConfigError::NotPositiveDefinite { name: "inertia" });
    }
    check_inverse(&j, scale)?;
    let sigma = SMatrix::<T, DIM, DIM>::identity() * (j.trace() * T::lit(0.5)) - j;
    let l = sigma
        .cholesky()
        .ok_or(ConfigError::NotPositiveDefinite {
            name: "second moment",
        })?
        .l();
    let s = (T::lit(3.0) / body.mass).sqrt();
    let rho = dirs.map(|d| l * d * s);
    if !rho.iter().all(|r| r.iter().all(|x| x.finite())) {
        return Err(ConfigError::Overflow {
            name: "node offset",
        });
    }
    let ms = rho.iter().take(DIM + 1).fold(T::zero(), |a, r| {
        let n = r.norm();
        a + n * n
    });
    check_radius((ms / T::lit((DIM + 1) as f64)).sqrt())?;
    Ok(rho)
}

/// The body's size `r` (the RMS node distance from the COM) and its inverse at most
/// `MAX^(1/4) / 2` of the scalar type: the joint readouts and the hinge rows multiply four node
/// distances (`|c·e|²` with `|c|, |e| ~ r`), which must neither overflow nor underflow
/// (`r⁴ ≥ 16 / MAX` stays above the smallest normal number in `f32` and `f64`). The bound is
/// compared with `r` and `1 / r` themselves, so the check cannot overflow into a pass.
fn check_radius<T: Real>(r: T) -> Result<(), ConfigError> {
    let max = T::max_value().unwrap_or_else(|| T::lit(f64::from(f32::MAX)));
    let hi = max.sqrt().sqrt() / T::lit(2.0);
    if r.finite() && r > T::zero() && r <= hi && T::one() / r <= hi {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange {
            name: "sqrt(inertia / mass)",
            bound: "and its inverse <= MAX^(1/4) / 2 of the scalar type",
        })
    }
}

/// `J⁻¹` finite: inverted as `(J / s)⁻¹ / s` with `s` the largest entry, so neither the
/// determinant nor the cofactors overflow on the way.
fn check_inverse<T: Real, const DIM: usize>(
    j: &SMatrix<T, DIM, DIM>,
    scale: T,
) -> Result<(), ConfigError> {
    let err = ConfigError::Overflow { name: "inertia^-1" };
    let inv = (j / scale).try_inverse().ok_or(err)?;
    if inv.iter().all(|x| (*x / scale).finite()) {
        Ok(())
    } else {
        Err(err)
    }
}
