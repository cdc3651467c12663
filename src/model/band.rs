//! [`BandMut`]: the band-matrix view that [`Hessian::hessian_band`](super::Hessian::hessian_band)
//! writes into. It lives with the model vocabulary (not in `linalg`) so that the traits a user
//! implements do not depend on the solvers that consume them.

use crate::Real;
use nalgebra::SMatrix;

/// A mutable view of a symmetric `n × n` band matrix with `width` stored diagonals, in the lower
/// band storage described in the module docs (`data[d + width·j]` holds `A[j + d, j]`) — the
/// column-major layout of an `SMatrix<T, width, n>`.
///
/// It is what [`Hessian::hessian_band`](super::Hessian::hessian_band) writes into. A non-generic view (rather than a
/// const-generic matrix) keeps the potential traits dyn-compatible.
#[derive(Debug)]
pub struct BandMut<'a, T> {
    width: usize,
    n: usize,
    data: &'a mut [T],
}

impl<'a, T: Real> BandMut<'a, T> {
    /// A view of `data` as `width` diagonals of an `n × n` matrix; `None` when
    /// `data.len() ≠ width·n` or `width = 0`.
    pub fn new(width: usize, n: usize, data: &'a mut [T]) -> Option<Self> {
        if width == 0 || width.checked_mul(n) != Some(data.len()) {
            return None;
        }
        Some(Self { width, n, data })
    }

    /// A view of a band matrix stored as `SMatrix<T, W, N>` (`band[(d, j)] = A[j + d, j]`).
    pub fn from_matrix<const W: usize, const N: usize>(band: &'a mut SMatrix<T, W, N>) -> Self {
        Self {
            width: W,
            n: N,
            data: band.as_mut_slice(),
        }
    }

    /// The number of stored diagonals (half-bandwidth + 1).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The matrix dimension `n`.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Adds `x` to the symmetric entry `(r, c)` (and so to `(c, r)`: off-diagonal entries are
    /// stored once). Returns `false` when the entry lies outside the band or the matrix and `x`
    /// is not zero.
    #[inline]
    pub fn add(&mut self, r: usize, c: usize, x: T) -> bool {
        let (r, c) = if r >= c { (r, c) } else { (c, r) };
        let d = r - c;
        if r < self.n && d < self.width {
            match self.data.get_mut(d + self.width * c) {
                Some(e) => {
                    *e += x;
                    true
                }
                None => x == T::zero(),
            }
        } else {
            x == T::zero()
        }
    }

    /// The entry `(r, c)` (zero outside the band).
    pub fn get(&self, r: usize, c: usize) -> T {
        let (r, c) = if r >= c { (r, c) } else { (c, r) };
        if r < self.n && r - c < self.width {
            self.data
                .get(r - c + self.width * c)
                .copied()
                .unwrap_or(T::zero())
        } else {
            T::zero()
        }
    }

    /// Adds `scale · a` for a dense symmetric `a` (lower triangle read); `false` when a non-zero
    /// entry falls outside the band or the dimensions differ.
    pub fn add_dense<const N: usize>(&mut self, a: &SMatrix<T, N, N>, scale: T) -> bool {
        if N != self.n {
            return false;
        }
        for j in 0..N {
            for i in j..N {
                if !self.add(i, j, a[(i, j)] * scale) {
                    return false;
                }
            }
        }
        true
    }
}
