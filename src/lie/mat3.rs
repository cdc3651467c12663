//! 3×3 products written out on column arrays (`m[column][row]`, nalgebra's storage), for the
//! SO(3) steps: nalgebra's generic products stay loops over columns and `axpy` calls at
//! opt-level "s", several times the instructions of these on a Cortex-M4F.
//!
//! Every entry is summed in nalgebra's order, `(x₀y₀ + x₁y₁) + x₂y₂` (its `gemv` starts a column
//! with the first product and adds the others in turn), so a result is bit for bit nalgebra's
//! `a * b`, `a.transpose() * b` or `a * b.transpose()`; the tests compare them.

use crate::Real;
use nalgebra::{ArrayStorage, Matrix3, SVector};

/// A 3×3 matrix as its columns, `m[j][i] = M[i, j]`.
pub(super) type Cols<T> = [[T; 3]; 3];

/// `Σₖ x[k]·y[k]` in the order `(x₀y₀ + x₁y₁) + x₂y₂`.
#[inline(always)]
fn dot<T: Real>(x: [T; 3], y: [T; 3]) -> T {
    x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
}

/// Row `i` of `a`.
#[inline(always)]
fn row<T: Real>(a: &Cols<T>, i: usize) -> [T; 3] {
    [a[0][i], a[1][i], a[2][i]]
}

/// `a b`.
#[inline]
pub(super) fn mul<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    let rows = [row(a, 0), row(a, 1), row(a, 2)];
    b.map(|bj| rows.map(|ai| dot(ai, bj)))
}

/// `aᵀ b`.
#[inline]
pub(super) fn tmul<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    b.map(|bj| a.map(|ai| dot(ai, bj)))
}

/// `a bᵀ`.
#[inline]
pub(super) fn mult<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    let rows = [row(a, 0), row(a, 1), row(a, 2)];
    [row(b, 0), row(b, 1), row(b, 2)].map(|bj| rows.map(|ai| dot(ai, bj)))
}

/// The columns of `vec⁻¹ q` (column-major).
#[inline]
pub(super) fn cols_of<T: Real>(q: &SVector<T, 9>) -> Cols<T> {
    let q = &q.data.0[0];
    [
        [q[0], q[1], q[2]],
        [q[3], q[4], q[5]],
        [q[6], q[7], q[8]],
    ]
}

/// `vec m` (column-major) into `q`.
#[inline]
pub(super) fn write_vec<T: Real>(m: &Cols<T>, q: &mut SVector<T, 9>) {
    let q = &mut q.data.0[0];
    for j in 0..3 {
        for i in 0..3 {
            q[3 * j + i] = m[j][i];
        }
    }
}

/// The nalgebra matrix of `m`.
#[inline]
pub(super) fn matrix<T: Real>(m: &Cols<T>) -> Matrix3<T> {
    Matrix3::from_data(ArrayStorage(*m))
}

/// `‖aᵀa − I‖²_F`, summed as nalgebra's `norm_squared` (column by column, each column's squares
/// in the order of [`dot`]).
#[inline]
pub(super) fn defect_squared<T: Real>(a: &Cols<T>) -> T {
    let s = tmul(a, a);
    let mut sum = T::zero();
    for (j, col) in s.iter().enumerate() {
        let mut d = *col;
        d[j] -= T::one();
        sum += dot(d, d);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Matrix3;

    fn cols(m: &Matrix3<f32>) -> Cols<f32> {
        m.data.0
    }

    /// Products of awkward values (no exact sums), bit for bit against nalgebra's.
    #[test]
    fn products_are_nalgebras_bit_for_bit() {
        let a = Matrix3::new(0.1f32, -1.3, 2.7, 3.3e-3, 0.77, -0.41, 1.9, 0.123, -5.5);
        let b = Matrix3::new(-0.9f32, 0.31, 1.7e2, 0.6, -2.2, 0.017, 4.1, 0.5, 0.333);
        let bits = |m: &Cols<f32>| m.map(|c| c.map(f32::to_bits));
        assert_eq!(bits(&mul(&cols(&a), &cols(&b))), bits(&cols(&(a * b))));
        let atb = a.transpose() * b;
        assert_eq!(bits(&tmul(&cols(&a), &cols(&b))), bits(&cols(&atb)));
        let abt = a * b.transpose();
        assert_eq!(bits(&mult(&cols(&a), &cols(&b))), bits(&cols(&abt)));
        let d = (a.transpose() * a - Matrix3::identity()).norm_squared();
        assert_eq!(defect_squared(&cols(&a)).to_bits(), d.to_bits());
        let q = SVector::<f32, 9>::from_column_slice(a.as_slice());
        assert_eq!(matrix(&cols_of(&q)), a);
        let mut back = SVector::zeros();
        write_vec(&cols_of(&q), &mut back);
        assert_eq!(back, q);
    }
}
