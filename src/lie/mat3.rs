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

/// The columns `[[e(0,0), e(1,0), e(2,0)], [e(0,1), …], …]` of the matrix with entries `e(i, j)`,
/// written out with literal indices (no loop, no bounds check).
macro_rules! cols3 {
    (|$i:ident, $j:ident| $e:expr) => {
        [
            [cols3!(@ $i $j 0 0 $e), cols3!(@ $i $j 1 0 $e), cols3!(@ $i $j 2 0 $e)],
            [cols3!(@ $i $j 0 1 $e), cols3!(@ $i $j 1 1 $e), cols3!(@ $i $j 2 1 $e)],
            [cols3!(@ $i $j 0 2 $e), cols3!(@ $i $j 1 2 $e), cols3!(@ $i $j 2 2 $e)],
        ]
    };
    (@ $i:ident $j:ident $iv:literal $jv:literal $e:expr) => {{
        let ($i, $j): (usize, usize) = ($iv, $jv);
        $e
    }};
}

/// `a b`: `(a_i0 b_0j + a_i1 b_1j) + a_i2 b_2j`.
#[inline(always)]
pub(super) fn mul<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    cols3!(|i, j| a[0][i] * b[j][0] + a[1][i] * b[j][1] + a[2][i] * b[j][2])
}

/// `aᵀ b`: `(a_0i b_0j + a_1i b_1j) + a_2i b_2j`.
#[inline(always)]
pub(super) fn tmul<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    cols3!(|i, j| a[i][0] * b[j][0] + a[i][1] * b[j][1] + a[i][2] * b[j][2])
}

/// `a bᵀ`: `(a_i0 b_j0 + a_i1 b_j1) + a_i2 b_j2`.
#[inline(always)]
pub(super) fn mult<T: Real>(a: &Cols<T>, b: &Cols<T>) -> Cols<T> {
    cols3!(|i, j| a[0][i] * b[0][j] + a[1][i] * b[1][j] + a[2][i] * b[2][j])
}

/// The columns of `vec⁻¹ q` (column-major).
#[inline]
pub(super) fn cols_of<T: Real>(q: &SVector<T, 9>) -> Cols<T> {
    let q = &q.data.0[0];
    [[q[0], q[1], q[2]], [q[3], q[4], q[5]], [q[6], q[7], q[8]]]
}

/// The nalgebra matrix of `m`.
#[inline]
pub(super) fn matrix<T: Real>(m: &Cols<T>) -> Matrix3<T> {
    Matrix3::from_data(ArrayStorage(*m))
}

/// `‖aᵀa − I‖²_F`, summed as nalgebra's `norm_squared`: column by column, each column's squares
/// as `(x₀² + x₁²) + x₂²`.
#[inline]
pub(super) fn defect_squared<T: Real>(a: &Cols<T>) -> T {
    let s = tmul(a, a);
    let one = T::one();
    let column = |x: T, y: T, z: T| x * x + y * y + z * z;
    let c0 = column(s[0][0] - one, s[0][1], s[0][2]);
    let c1 = column(s[1][0], s[1][1] - one, s[1][2]);
    let c2 = column(s[2][0], s[2][1], s[2][2] - one);
    // nalgebra's `norm_squared` starts from zero: `0 + c₀` is `c₀` exactly.
    c0 + c1 + c2
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
    }
}
