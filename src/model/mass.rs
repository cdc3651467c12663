//! Constant symmetric positive definite mass matrices.

use crate::{ConfigError, Real};
use nalgebra::{Cholesky, Const, SMatrix, SVector};

/// A constant SPD mass matrix `M`: the identity, a positive diagonal, or a full SPD matrix.
///
/// Build it with [`Mass::identity`], [`Mass::diagonal`] or [`Mass::full`]; the latter two validate
/// their input, so a `Mass` value is always SPD. The Cholesky factor of a full matrix is computed
/// once, at construction.
#[derive(Clone, Copy, Debug)]
pub struct Mass<T: Real, const N: usize> {
    kind: Kind<T, N>,
}

#[derive(Clone, Copy, Debug)]
enum Kind<T: Real, const N: usize> {
    Identity,
    Diagonal {
        m: SVector<T, N>,
        inv: SVector<T, N>,
    },
    /// `M` is stored once: `Cholesky::new` works on the lower triangle only, so the strict upper
    /// triangle of `chol`'s matrix still holds `M`'s; its diagonal is kept in `diag`. (Half the
    /// size of a separate copy of `M`, which sizes the enum, hence every `Mass<T, N>`.)
    Full {
        chol: Cholesky<T, Const<N>>,
        diag: SVector<T, N>,
    },
}

/// `M[i, j]` of a full mass from its stored parts (see `Kind::Full`).
#[inline]
fn full_entry<T: Real, const N: usize>(
    chol: &Cholesky<T, Const<N>>,
    diag: &SVector<T, N>,
    i: usize,
    j: usize,
) -> T {
    let u = chol.l_dirty();
    match i.cmp(&j) {
        core::cmp::Ordering::Equal => diag[i],
        core::cmp::Ordering::Less => u[(i, j)],
        core::cmp::Ordering::Greater => u[(j, i)],
    }
}

impl<T: Real, const N: usize> Mass<T, N> {
    /// [`Mass::identity`] as a constant (the blanks of in-place constructors).
    pub(crate) const IDENTITY: Self = Self {
        kind: Kind::Identity,
    };

    /// The identity mass matrix.
    pub fn identity() -> Self {
        Self {
            kind: Kind::Identity,
        }
    }

    /// A diagonal mass matrix.
    ///
    /// # Errors
    /// [`ConfigError::NotPositiveDefinite`] when an entry is not positive,
    /// [`ConfigError::NonFinite`] when one is not finite, [`ConfigError::Overflow`] (`"1/mass"`)
    /// when its inverse overflows (a subnormal mass).
    pub fn diagonal(m: SVector<T, N>) -> Result<Self, ConfigError> {
        for &x in m.iter() {
            if !x.finite() {
                return Err(ConfigError::NonFinite { name: "mass" });
            }
            if x <= T::zero() {
                return Err(ConfigError::NotPositiveDefinite { name: "mass" });
            }
            crate::validate::check_derived(T::one() / x, "1/mass")?;
        }
        Ok(Self {
            kind: Kind::Diagonal {
                m,
                inv: m.map(|x| T::one() / x),
            },
        })
    }

    /// [`Mass::diagonal`] written into `self`: the variant is assigned in place, so no
    /// `N×N`-sized value passes through the stack (a mechanism built in a device's `static`).
    ///
    /// # Errors
    /// As [`Mass::diagonal`]; `self` is then unchanged.
    pub(crate) fn set_diagonal(&mut self, m: SVector<T, N>) -> Result<(), ConfigError> {
        Self::check_diagonal(&m)?;
        self.kind = Kind::Diagonal {
            m,
            inv: m.map(|x| T::one() / x),
        };
        Ok(())
    }

    /// The checks of [`Mass::diagonal`] (written out there too: its code, and the firmware
    /// sizes of the models that use it, stay as they are).
    #[inline(always)]
    fn check_diagonal(m: &SVector<T, N>) -> Result<(), ConfigError> {
        for &x in m.iter() {
            if !x.finite() {
                return Err(ConfigError::NonFinite { name: "mass" });
            }
            if x <= T::zero() {
                return Err(ConfigError::NotPositiveDefinite { name: "mass" });
            }
            crate::validate::check_derived(T::one() / x, "1/mass")?;
        }
        Ok(())
    }

    /// The same mass `m` on every degree of freedom.
    ///
    /// # Errors
    /// As [`Mass::diagonal`].
    pub fn uniform(m: T) -> Result<Self, ConfigError> {
        Self::diagonal(SVector::repeat(m))
    }

    /// A full symmetric positive definite mass matrix.
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`], [`ConfigError::NotSymmetric`] (relative asymmetry above
    /// `√ε`), [`ConfigError::NotPositiveDefinite`] (Cholesky fails), or [`ConfigError::Overflow`]
    /// (`"1/mass"`) when the inverse overflows.
    pub fn full(m: SMatrix<T, N, N>) -> Result<Self, ConfigError> {
        if !m.iter().all(|x| x.finite()) {
            return Err(ConfigError::NonFinite { name: "mass" });
        }
        let scale = m.amax();
        let asym = (m - m.transpose()).amax();
        if asym > scale * T::default_epsilon().sqrt() {
            return Err(ConfigError::NotSymmetric { name: "mass" });
        }
        let sym = (m + m.transpose()) * T::lit(0.5);
        match Cholesky::new(sym) {
            Some(chol) => {
                // M⁻¹ = L⁻ᵀL⁻¹: its diagonal scale is 1/Lᵢᵢ².
                let l = chol.l_dirty();
                for i in 0..N {
                    crate::validate::check_derived(T::one() / (l[(i, i)] * l[(i, i)]), "1/mass")?;
                }
                Ok(Self {
                    kind: Kind::Full {
                        diag: sym.diagonal(),
                        chol,
                    },
                })
            }
            None => Err(ConfigError::NotPositiveDefinite { name: "mass" }),
        }
    }

    /// `M v`.
    #[inline]
    pub fn mul(&self, v: &SVector<T, N>) -> SVector<T, N> {
        match &self.kind {
            Kind::Identity => *v,
            Kind::Diagonal { m, .. } => m.component_mul(v),
            Kind::Full { chol, diag } => {
                // Column by column, as nalgebra's `M * v`.
                let mut y = SVector::zeros();
                for j in 0..N {
                    for i in 0..N {
                        let t = full_entry(chol, diag, i, j) * v[j];
                        y[i] = if j == 0 { t } else { y[i] + t };
                    }
                }
                y
            }
        }
    }

    /// `M⁻¹ f`.
    #[inline]
    pub fn solve(&self, f: &SVector<T, N>) -> SVector<T, N> {
        match &self.kind {
            Kind::Identity => *f,
            Kind::Diagonal { inv, .. } => inv.component_mul(f),
            Kind::Full { chol, .. } => chol.solve(f),
        }
    }

    /// The matrix `M`.
    pub fn matrix(&self) -> SMatrix<T, N, N> {
        match &self.kind {
            Kind::Identity => SMatrix::identity(),
            Kind::Diagonal { m, .. } => SMatrix::from_diagonal(m),
            Kind::Full { chol, diag } => SMatrix::from_fn(|i, j| full_entry(chol, diag, i, j)),
        }
    }

    /// The lower-triangular Cholesky factor `L` with `M = L Lᵀ`.
    pub fn cholesky_factor(&self) -> SMatrix<T, N, N> {
        match &self.kind {
            Kind::Identity => SMatrix::identity(),
            Kind::Diagonal { m, .. } => SMatrix::from_diagonal(&m.map(|x| x.sqrt())),
            Kind::Full { chol, .. } => chol.l(),
        }
    }

    /// [`Mass::cholesky_factor`] written into `out` (no matrix is returned through the stack).
    pub fn cholesky_factor_into(&self, out: &mut SMatrix<T, N, N>) {
        match &self.kind {
            Kind::Identity => out.fill_with_identity(),
            Kind::Diagonal { m, .. } => {
                out.fill(T::zero());
                for i in 0..N {
                    out[(i, i)] = m[i].sqrt();
                }
            }
            Kind::Full { chol, .. } => {
                out.copy_from(chol.l_dirty());
                out.fill_upper_triangle(T::zero(), 1);
            }
        }
    }

    /// Whether `M` is the identity (lets methods skip work).
    pub fn is_identity(&self) -> bool {
        matches!(self.kind, Kind::Identity)
    }

    /// The diagonal of `M`, when `M` is diagonal (or the identity).
    pub fn as_diagonal(&self) -> Option<SVector<T, N>> {
        match &self.kind {
            Kind::Identity => Some(SVector::repeat(T::one())),
            Kind::Diagonal { m, .. } => Some(*m),
            Kind::Full { .. } => None,
        }
    }

    /// Adds `M` into `out` in place (no matrix is formed or moved for a diagonal mass).
    #[inline]
    pub fn add_to(&self, out: &mut SMatrix<T, N, N>) {
        match &self.kind {
            Kind::Identity => {
                for i in 0..N {
                    out[(i, i)] += T::one();
                }
            }
            Kind::Diagonal { m, .. } => {
                for i in 0..N {
                    out[(i, i)] += m[i];
                }
            }
            Kind::Full { chol, diag } => {
                for j in 0..N {
                    for i in 0..N {
                        out[(i, j)] += full_entry(chol, diag, i, j);
                    }
                }
            }
        }
    }

    /// `Mᵢᵢ` when `M` is diagonal (or the identity) and `i < N`; `None` otherwise. Unlike
    /// [`Mass::as_diagonal`] it moves no vector.
    #[inline]
    pub fn diagonal_entry(&self, i: usize) -> Option<T> {
        match &self.kind {
            Kind::Identity => (i < N).then(T::one),
            Kind::Diagonal { m, .. } => m.get(i).copied(),
            Kind::Full { .. } => None,
        }
    }

    /// Kinetic energy `½ vᵀ M v`, finite wherever `½ vᵀ M v` is representable.
    ///
    /// It is `(vᵀ(Mv))·½`; only when that is not finite (`vᵀMv` or `Mv` overflowed, which
    /// happens up to a factor 2 below the top of the range) is it formed again as
    /// `2·((½v)ᵀ M (½v))`, whose products are a half and a quarter of the first ones. Scaling by
    /// powers of two is exact away from subnormals, so the two agree wherever both are finite;
    /// the common path costs one comparison more.
    ///
    /// ```
    /// use macrostep::model::Mass;
    /// use macrostep::nalgebra::SVector;
    /// let m = Mass::diagonal(SVector::from([1e307, 1.0]))?;
    /// let v = SVector::from([5.0, 1.0]);
    /// // vᵀMv = 2.5e308 overflows f64; ½vᵀMv = 1.25e308 does not.
    /// assert_eq!(m.kinetic(&v), 1.25e308);
    /// assert_eq!(m.kinetic(&SVector::from([1.0, 2.0])), 0.5e307 + 2.0);
    /// # Ok::<(), macrostep::ConfigError>(())
    /// ```
    #[inline]
    pub fn kinetic(&self, v: &SVector<T, N>) -> T {
        let e = v.dot(&self.mul(v)) * T::lit(0.5);
        if e.finite() {
            e
        } else {
            self.kinetic_halved(v)
        }
    }

    /// `(vᵀ(Mv))·½`, the common path of [`Mass::kinetic`] without its fallback: infinite from
    /// half the top of the range on. The guards measure with it: there a state that high is
    /// refused as non-finite either way, and the fallback's comparison would cost every guarded
    /// step (11 instructions on the Cortex-M4F's `verlet_oscillator`, 2 % of its step).
    #[inline]
    pub(crate) fn kinetic_within_half_range(&self, v: &SVector<T, N>) -> T {
        v.dot(&self.mul(v)) * T::lit(0.5)
    }

    /// [`Mass::kinetic`] as `2·((½v)ᵀ M (½v))`: the path for energies near the top of the range.
    /// Inlined: per guarded step on the Cortex-M4F it costs 0 (`flavor_trimer` legacy) to 11
    /// (`verlet_oscillator`) instructions inline, 7 to 17 out of line (`#[cold]`, a call).
    #[inline(always)]
    fn kinetic_halved(&self, v: &SVector<T, N>) -> T {
        let h = v * T::lit(0.5);
        h.dot(&self.mul(&h)) * T::lit(2.0)
    }

    /// Converts to another scalar type.
    pub fn cast<U: Real>(&self) -> Mass<U, N> {
        match &self.kind {
            Kind::Identity => Mass::identity(),
            Kind::Diagonal { m, inv } => Mass {
                kind: Kind::Diagonal {
                    m: m.map(|x| U::lit(x.to_f64())),
                    inv: inv.map(|x| U::lit(x.to_f64())),
                },
            },
            Kind::Full { .. } => {
                let m = self.matrix().map(|x| U::lit(x.to_f64()));
                match Cholesky::new(m) {
                    Some(chol) => Mass {
                        kind: Kind::Full {
                            diag: m.diagonal(),
                            chol,
                        },
                    },
                    // An SPD matrix that loses definiteness in the cast is treated as its
                    // diagonal; cannot happen for well-conditioned masses.
                    None => Mass {
                        kind: Kind::Diagonal {
                            m: m.diagonal(),
                            inv: m.diagonal().map(|x| U::one() / x),
                        },
                    },
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector};

    #[test]
    fn rejects_bad_masses() {
        assert_eq!(
            Mass::<f64, 2>::diagonal(vector![1.0, 0.0]).unwrap_err(),
            ConfigError::NotPositiveDefinite { name: "mass" }
        );
        assert_eq!(
            Mass::<f64, 2>::diagonal(vector![1.0, f64::NAN]).unwrap_err(),
            ConfigError::NonFinite { name: "mass" }
        );
        assert_eq!(
            Mass::<f64, 2>::full(matrix![1.0, 0.5; 0.0, 1.0]).unwrap_err(),
            ConfigError::NotSymmetric { name: "mass" }
        );
        assert_eq!(
            Mass::<f64, 2>::full(matrix![1.0, 2.0; 2.0, 1.0]).unwrap_err(),
            ConfigError::NotPositiveDefinite { name: "mass" }
        );
    }

    #[test]
    fn add_to_and_diagonal_entry() {
        let masses = [
            Mass::<f64, 2>::identity(),
            Mass::diagonal(vector![2.0, 3.0]).unwrap(),
            Mass::full(matrix![2.0, 0.5; 0.5, 1.0]).unwrap(),
        ];
        for m in masses {
            let mut a = matrix![1.0, -1.0; -1.0, 4.0];
            let start = a;
            m.add_to(&mut a);
            assert_eq!(a, start + m.matrix());
            for i in 0..2 {
                assert_eq!(m.diagonal_entry(i), m.as_diagonal().map(|d| d[i]));
            }
            assert_eq!(m.diagonal_entry(2), None);
        }
    }

    /// A full mass is stored once (inside its Cholesky factor's unused upper triangle): `matrix`
    /// gives it back exactly, `mul` equals nalgebra's `M * v` bit for bit, in f64 and f32.
    #[test]
    fn full_mass_stored_once_is_exact() {
        let m = matrix![2.0, 0.3, -0.1; 0.3, 1.5, 0.2; -0.1, 0.2, 1.1];
        let v = vector![0.7, -1.3, 2.9];
        let mass = Mass::<f64, 3>::full(m).unwrap();
        assert_eq!(mass.matrix(), m);
        assert_eq!(mass.mul(&v), m * v);
        let (m32, v32) = (m.cast::<f32>(), v.cast::<f32>());
        let mass32 = Mass::<f32, 3>::full(m32).unwrap();
        assert_eq!(mass32.matrix(), m32);
        assert_eq!(mass32.mul(&v32), m32 * v32);
        assert_eq!(mass.cast::<f32>().matrix(), m32);
        let mut a = SMatrix::<f64, 3, 3>::identity();
        mass.add_to(&mut a);
        assert_eq!(a, SMatrix::identity() + m);
    }

    /// `cholesky_factor_into` writes what `cholesky_factor` returns, bit for bit, over any
    /// previous content of `out`, for each kind of mass in f64 and f32.
    #[test]
    fn cholesky_factor_into_matches_cholesky_factor() {
        fn check<T: Real>() {
            let masses = [
                Mass::<T, 3>::identity(),
                Mass::diagonal(vector![T::lit(2.0), T::lit(0.3), T::lit(5.0)]).unwrap(),
                Mass::full(matrix![
                    T::lit(2.0), T::lit(0.3), T::lit(-0.1);
                    T::lit(0.3), T::lit(1.5), T::lit(0.2);
                    T::lit(-0.1), T::lit(0.2), T::lit(1.1)
                ])
                .unwrap(),
            ];
            for m in masses {
                let mut out = SMatrix::<T, 3, 3>::repeat(T::lit(7.0));
                m.cholesky_factor_into(&mut out);
                assert_eq!(out, m.cholesky_factor());
            }
        }
        check::<f64>();
        check::<f32>();
    }

    /// `½vᵀMv` just below the top of the range, where `vᵀMv` (or `Mv`) overflows: the
    /// expected energies are exact powers of two times short fractions, written by hand; below,
    /// the common path is `(vᵀ(Mv))·½` bit for bit.
    #[test]
    fn kinetic_does_not_overflow_before_the_energy_does() {
        fn check<T: Real>(top: i32) {
            let p = |e: i32| T::lit(2f64.powi(e));
            let (l, one) = (T::lit, T::one());
            // Identity, v = 1.25·2^((top+1)/2): vᵀv = 1.5625·2^(top+1) overflows, ½vᵀv does not.
            let v = vector![l(1.25) * p((top + 1) / 2)];
            assert_eq!(Mass::<T, 1>::identity().kinetic(&v), l(1.5625) * p(top));
            // Diagonal 1.5·2^top, v = 1.5: Mv = 2.25·2^top overflows, ½vᵀMv = 1.6875·2^top.
            let m = Mass::<T, 2>::diagonal(vector![l(1.5) * p(top), one]).unwrap();
            assert!(!(l(1.5) * p(top) * l(1.5)).finite());
            assert_eq!(
                m.kinetic(&vector![l(1.5), one]),
                l(1.6875) * p(top) + l(0.5)
            );
            // Full [[a, b], [b, a]], a = 1.5·2^(top−1), b = 2^(top−2), v = (1, 1):
            // vᵀMv = 2^(top+1) overflows, ½vᵀMv = 2^top.
            let (a, b) = (l(1.5) * p(top - 1), p(top - 2));
            let m = Mass::<T, 2>::full(matrix![a, b; b, a]).unwrap();
            assert_eq!(m.kinetic(&vector![one, one]), p(top));
            // Past the top the energy is infinite, not NaN.
            assert_eq!(m.kinetic(&vector![l(2.0), l(2.0)]), l(f64::INFINITY));
            // The common path.
            let m = Mass::<T, 2>::full(matrix![l(2.0), l(0.3); l(0.3), l(1.1)]).unwrap();
            let v = vector![l(0.7), l(-1.9)];
            assert_eq!(m.kinetic(&v), v.dot(&(m.matrix() * v)) * l(0.5));
        }
        check::<f64>(1023);
        check::<f32>(127);
    }

    #[test]
    fn full_mass_solves() {
        let m = Mass::<f64, 2>::full(matrix![2.0, 0.5; 0.5, 1.0]).unwrap();
        let v = vector![0.3, -1.2];
        let back = m.solve(&m.mul(&v));
        assert!((back - v).amax() < 1e-14);
        let l = m.cholesky_factor();
        assert!((l * l.transpose() - m.matrix()).amax() < 1e-14);
    }
}
