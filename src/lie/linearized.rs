//! The variational linearised Z&S on the relaxed SO(3), 000 eqs 4.14–4.15 and the two updates
//! printed after them.

// Index loops over the nine relaxed coordinates mirror the formula for the 9×9 matrix.
#![allow(clippy::needless_range_loop)]

use super::mat3::{self, Cols};
use super::{check_rotation, check_torque, hat, RigidBody, So3Probe, So3ZsParams};
use crate::driver::{Guarded, Method};
use crate::guard::Watch;
use crate::model::Mass;
use crate::validate::check_step;
use crate::{ConfigError, Real, State, StepError};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// The variational linearised SO(3) integrator (000 §4.5, eqs 4.14–4.15): Z&S on the relaxed
/// `R ∈ ℝ³ˣ³` with the penalty `½ω²‖RᵀR − I‖²_F`. `SECOND_ORDER = false` is the printed
/// first-order form ([`LinearizedZs1`]), `true` the trapezoidal one ([`LinearizedZs2`]).
///
/// With `c = βh²`, `W = 2J_d` (`= I` for the paper's `J = I`, see the [module docs](super)):
///
/// ```text
/// a_k W + 2ω²c (a_k R_kᵀR_k + R_k a_kᵀ R_k + R_k R_kᵀ a_k − a_k)
///                     = −Bμ e₃e₃ᵀ − 2ω²(R_k R_kᵀR_k − R_k)        one 9×9 symmetric solve (4.15)
/// f_k = a_k W − 2ω²c² (a_k a_kᵀ R_k + a_k R_kᵀ a_k + R_k a_kᵀ a_k) + ½ R_k û   (u: body torque)
///
/// first order:  p_{k+1} = p_k + h f_k,        R_{k+1} = R_k + h p_{k+1} J_d⁻¹
/// trapezoidal:  p_{k+½} = p_k + ½h f_k,       R_{k+1} = R_k + h p_{k+½} J_d⁻¹,
///               p_{k+1} = p_{k+½} + ½h f_{k+1}
/// ```
///
/// The state is the relaxed [`State<T, 9>`]: `q = vec R`, `v = vec Ṙ = vec(p J_d⁻¹)`
/// (column-major; [`BodyState::to_relaxed`](super::BodyState::to_relaxed) builds it).
///
/// Properties: **variational, hence symplectic** in `(q, M v)` with the mass
/// [`LinearizedZs::mass`] (for `u = 0`); the trapezoidal form is **symmetric** and **second
/// order**, the first-order form first order; **linearly implicit**: a fixed cost per step, one
/// 9×9 symmetric factorisation (the trapezoidal form reuses `f` at the new position for the
/// next step, keyed on `R` and `h²`), no projection onto SO(3): `‖RᵀR − I‖` stays `O(ω⁻²)`-small
/// and is reported, not removed.
///
/// Steps go through the crate's driver: the guards measure [`So3Probe`] with the penalty `ω`
/// (the energy of the penalised system and the orthogonality defect, see the
/// [module docs](super)), so a run past the stability bound is refused at its first step that
/// breaks them.
///
/// # Errors
/// `step` returns [`StepError::StepSize`] / [`StepError::NonFiniteState`] for bad input,
/// [`StepError::Singular`] when the 9×9 matrix is singular (it is symmetric positive definite
/// near SO(3); an indefinite one falls back to LU), [`StepError::NonFiniteResult`] when the
/// result overflows, [`StepError::Diverged`] when a step guard is violated,
/// [`StepError::ClockStalled`] when `t + h` cannot be represented. The state is then unchanged.
///
/// ```
/// use macrostep::lie::{BodyState, LinearizedZs2, RigidBody, So3ZsParams, orthogonality_error, matrix_of};
/// use macrostep::Integrator;
/// let body = RigidBody::<f64>::paper();
/// let mut zs = LinearizedZs2::new(body, 0.1, So3ZsParams::default()).unwrap();
/// let mut s = BodyState::paper().to_relaxed();
/// let e0 = body.relaxed_energy(&s, 10.0);
/// zs.integrate(&mut s, 100).unwrap(); // t = 10
/// assert!((body.relaxed_energy(&s, 10.0) - e0).abs() < 0.05);
/// assert!(orthogonality_error(&matrix_of(&s.q)) < 0.05);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LinearizedZs<T: Real, const SECOND_ORDER: bool> {
    body: RigidBody<T>,
    h: T,
    beta: T,
    two_omega2: T,
    weight: Vector3<T>,
    /// The relaxed mass, `J_d[l]` on the entries of column `l`.
    mass: Mass<T, 9>,
    jd_inv: Vector3<T>,
    torque: Vector3<T>,
    cache: Cache<T>,
    probe: So3Probe<T>,
    watch: Watch<T, 9>,
    /// The 9×9 matrix of eq 4.15 and its factors: a workspace in the integrator rather than a
    /// temporary of the step (324 B of stack in `f32`).
    work: SMatrix<T, 9, 9>,
}

/// The printed first-order form of the linearised Z&S on SO(3).
pub type LinearizedZs1<T> = LinearizedZs<T, false>;
/// The trapezoidal (second-order, symmetric) form of the linearised Z&S on SO(3).
pub type LinearizedZs2<T> = LinearizedZs<T, true>;

/// `f` (without the torque) at `r` for step size squared `h2`.
#[derive(Clone, Copy, Debug)]
struct Cache<T: Real> {
    r: Cols<T>,
    h2: T,
    f: Cols<T>,
    valid: bool,
}

impl<T: Real, const SECOND_ORDER: bool> LinearizedZs<T, SECOND_ORDER> {
    /// The integrator for `body` with step `h` and penalty parameters `params`.
    ///
    /// # Errors
    /// [`ConfigError::StepSize`] for `h`; the errors of [`RigidBody::validate`] and
    /// [`So3ZsParams::validate`]; [`ConfigError::Inconsistent`] (`"J_i < J_j + J_k"`) when a
    /// principal moment is not strictly smaller than the sum of the other two (then `J_d` is
    /// not positive definite: a flat or unphysical body).
    pub fn new(body: RigidBody<T>, h: T, params: So3ZsParams<T>) -> Result<Self, ConfigError> {
        let h = check_step(h)?;
        let body = body.validate()?;
        let params = params.validate()?;
        let jd = body.matrix_inertia();
        if jd.min() <= T::zero() {
            return Err(ConfigError::Inconsistent {
                name: "J_i < J_j + J_k",
            });
        }
        for i in 0..3 {
            crate::validate::check_derived(jd[i], "1/J_d")?;
        }
        let two = T::lit(2.0);
        let mass = Mass::diagonal(SVector::<T, 9>::from_fn(|i, _| jd[i / 3]))?;
        Ok(Self {
            mass,
            body,
            h,
            beta: params.beta,
            two_omega2: two * params.omega * params.omega,
            weight: jd * two,
            jd_inv: jd.map(|x| T::one() / x),
            torque: Vector3::zeros(),
            cache: Cache {
                r: [[T::zero(); 3]; 3],
                h2: T::zero(),
                f: [[T::zero(); 3]; 3],
                valid: false,
            },
            probe: So3Probe::new(&body, params.omega),
            watch: Watch::default(),
            work: SMatrix::zeros(),
        })
    }

    /// The body being integrated.
    pub fn body(&self) -> &RigidBody<T> {
        &self.body
    }

    /// Sets the body-frame torque `u` applied over the following steps (beyond the paper).
    ///
    /// # Errors
    /// [`ConfigError::NonFinite`] for `"torque"`; the previous torque is kept.
    pub fn set_torque(&mut self, u: Vector3<T>) -> Result<(), ConfigError> {
        self.torque = check_torque(&u)?;
        Ok(())
    }

    /// The body-frame torque currently applied.
    pub fn torque(&self) -> Vector3<T> {
        self.torque
    }

    /// The mass of the relaxed system, `M v = vec(Ṙ J_d)`: diagonal, `J_d[l]` on the entries
    /// of column `l` (the symplectic form is canonical in `(q, M v)`).
    pub fn mass(&self) -> Mass<T, 9> {
        self.mass
    }

    /// `f` of the step at `r` for `h²` (000 eq 4.15 and the `f_k` after it), without the torque.
    ///
    /// The 3×3 products are written out ([`mat3`]) in nalgebra's summation order and the 9×9
    /// matrix is filled from its lower triangle (it is symmetric bit for bit: `S` and `P` are),
    /// so the result is the one of the plain formulas, with a fraction of the instructions.
    fn force(&mut self, r: &Cols<T>, h2: T) -> Result<Cols<T>, StepError> {
        let c = self.beta * h2;
        let cp = self.two_omega2 * c;
        let s = mat3::tmul(r, r);
        let p = mat3::mult(r, r);
        // Right-hand side −∇U = −Bμ e₃e₃ᵀ − 2ω²(R RᵀR − R).
        let rs = mat3::mul(r, &s);
        let g = |k: usize, l: usize| (rs[l][k] - r[l][k]) * self.two_omega2;
        let b_mu = self.body.b_mu;
        let mut x = SVector::<T, 9>::from([
            -g(0, 0),
            -g(1, 0),
            -g(2, 0),
            -g(0, 1),
            -g(1, 1),
            -g(2, 1),
            -g(0, 2),
            -g(1, 2),
            -(g(2, 2) + b_mu),
        ]);
        // A[(k,l),(i,j)] = δ_ik δ_jl (W_l − c') + c'(δ_ik S_jl + P_ki δ_jl + R_kj R_il),
        // with index (k, l) ↦ k + 3l (column-major vec), into the workspace (every entry
        // written). It is symmetric bit for bit (`S` and `P` are), so each entry below the
        // diagonal is computed once and mirrored.
        self.assemble(r, &s, &p, cp);
        if crate::linalg::ldlt9_in_place(&mut self.work) {
            crate::linalg::ldlt9_solve(&self.work, &mut x)?;
        } else {
            // Not positive definite: the general solve (LU) on the matrix rebuilt.
            self.assemble(r, &s, &p, cp);
            crate::linalg::solve_symmetric_in_place(&mut self.work, &mut x)?;
        }
        let am = mat3::cols_of(&x);
        let y1 = mat3::mul(&am, &mat3::tmul(&am, r));
        let y2 = mat3::mul(&am, &mat3::tmul(r, &am));
        let y3 = mat3::mul(r, &mat3::tmul(&am, &am));
        let scale = -(cp * c);
        let mut f = [[T::zero(); 3]; 3];
        for l in 0..3 {
            let w = self.weight[l];
            for k in 0..3 {
                f[l][k] = (y1[l][k] + y2[l][k] + y3[l][k]) * scale + am[l][k] * w;
            }
        }
        Ok(f)
    }

    /// The generalised force `½ R û` of the body torque at `r`.
    #[inline]
    fn torque_force(&self, r: &Matrix3<T>) -> Matrix3<T> {
        r * hat(&self.torque) * T::lit(0.5)
    }

    /// The matrix of eq 4.15 into the workspace: `c'·(R_kj R_il + δ_ik S_jl + P_ki δ_jl)` at
    /// row `(k, l)`, column `(i, j)`, plus `W_l − c'` on the diagonal (written out over literal
    /// indices: the `δ`s are decided at compile time).
    #[inline]
    fn assemble(&mut self, r: &Cols<T>, s: &Cols<T>, p: &Cols<T>, cp: T) {
        let m = &mut self.work.data.0;
        let weight = &self.weight;
        macro_rules! column {
            ($i:literal $j:literal; $($k:literal $l:literal),*) => {{
                $(
                    let mut v = r[$j][$k] * r[$l][$i];
                    if $i == $k {
                        v += s[$l][$j];
                    }
                    if $j == $l {
                        v += p[$i][$k];
                    }
                    let v = cp * v;
                    m[$i + 3 * $j][$k + 3 * $l] = v;
                    m[$k + 3 * $l][$i + 3 * $j] = v;
                )*
                m[$i + 3 * $j][$i + 3 * $j] += weight[$j] - cp;
            }};
        }
        column!(0 0; 0 0, 1 0, 2 0, 0 1, 1 1, 2 1, 0 2, 1 2, 2 2);
        column!(1 0; 1 0, 2 0, 0 1, 1 1, 2 1, 0 2, 1 2, 2 2);
        column!(2 0; 2 0, 0 1, 1 1, 2 1, 0 2, 1 2, 2 2);
        column!(0 1; 0 1, 1 1, 2 1, 0 2, 1 2, 2 2);
        column!(1 1; 1 1, 2 1, 0 2, 1 2, 2 2);
        column!(2 1; 2 1, 0 2, 1 2, 2 2);
        column!(0 2; 0 2, 1 2, 2 2);
        column!(1 2; 1 2, 2 2);
        column!(2 2; 2 2);
    }

    /// The kick `v ← v + (f + G) J_d⁻¹ dt` of `v = vec Ṙ`, with `G = ½ R û` the torque's force.
    #[inline]
    fn kick(&self, v: &mut SVector<T, 9>, r: &Cols<T>, f: &Cols<T>, dt: T) {
        let with_torque;
        let g = if self.torque == Vector3::zeros() {
            f
        } else {
            with_torque = (mat3::matrix(f) + self.torque_force(&mat3::matrix(r)))
                .data
                .0;
            &with_torque
        };
        let (v, s) = (&mut v.data.0[0], &self.jd_inv);
        macro_rules! kick {
            ($($k:literal $l:literal),*) => {
                $( v[$k + 3 * $l] += g[$l][$k] * s[$l] * dt; )*
            };
        }
        kick!(0 0, 1 0, 2 0, 0 1, 1 1, 2 1, 0 2, 1 2, 2 2);
    }
}

impl<T: Real, const SECOND_ORDER: bool> Guarded<T, 9> for LinearizedZs<T, SECOND_ORDER> {
    type Probe<'a>
        = &'a So3Probe<T>
    where
        Self: 'a;

    fn step_size(&self) -> T {
        self.h
    }

    fn watch(&self) -> &Watch<T, 9> {
        &self.watch
    }

    fn watch_and_probe(&mut self) -> (&mut Watch<T, 9>, &So3Probe<T>) {
        (&mut self.watch, &self.probe)
    }
}

impl<T: Real, const SECOND_ORDER: bool> Method<T, 9> for LinearizedZs<T, SECOND_ORDER> {
    const ORDER: u32 = if SECOND_ORDER { 2 } else { 1 };
    const SYMPLECTIC: bool = true;
    const SYMMETRIC: bool = SECOND_ORDER;

    /// One step; returns the work of the body torque (zero without one).
    fn propose(
        &mut self,
        state: &State<T, 9>,
        h: T,
        next: &mut State<T, 9>,
    ) -> Result<T, StepError> {
        let h2 = h * h;
        let r0 = mat3::cols_of(&state.q);
        check_rotation(&r0)?;
        // Written in place: `next.v` takes the kicks, `next.q` the drift.
        let dt = if SECOND_ORDER { h * T::lit(0.5) } else { h };
        let f0 = if SECOND_ORDER && self.cache.valid && self.cache.h2 == h2 && self.cache.r == r0 {
            self.cache.f
        } else {
            self.force(&r0, h2)?
        };
        next.v = state.v;
        self.kick(&mut next.v, &r0, &f0, dt);
        for i in 0..9 {
            next.q[i] = state.q[i] + next.v[i] * h;
        }
        let r1 = mat3::cols_of(&next.q);
        if SECOND_ORDER {
            let f1 = self.force(&r1, h2)?;
            // Keyed on `R` and `h²`: valid whether or not the driver commits this proposal.
            self.cache = Cache {
                r: r1,
                h2,
                f: f1,
                valid: true,
            };
            self.kick(&mut next.v, &r1, &f1, dt);
        }
        if self.torque == Vector3::zeros() {
            return Ok(T::zero());
        }
        // The work of the torque's force as the kicks apply it: trapezoidal (both ends) for the
        // second-order form, held at `R_k` for the first-order one.
        let (r0, r1) = (mat3::matrix(&r0), mat3::matrix(&r1));
        let dr = r1 - r0;
        Ok(if SECOND_ORDER {
            (self.torque_force(&r0) + self.torque_force(&r1)).dot(&dr) * T::lit(0.5)
        } else {
            self.torque_force(&r0).dot(&dr)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f` by the printed formulas with nalgebra's own products and LU (general inertia).
    fn reference(zs: &LinearizedZs2<f64>, r: &Matrix3<f64>, h2: f64) -> Matrix3<f64> {
        let (c, w) = (zs.beta * h2, zs.weight);
        let cp = zs.two_omega2 * c;
        let (s, p) = (r.transpose() * r, r * r.transpose());
        let mut grad = (r * s - r) * zs.two_omega2;
        grad[(2, 2)] += zs.body.b_mu;
        let b = -SVector::<f64, 9>::from_column_slice(grad.as_slice());
        let a = SMatrix::<f64, 9, 9>::from_fn(|row, col| {
            let (k, l, i, j) = (row % 3, row / 3, col % 3, col / 3);
            let mut v = r[(k, j)] * r[(i, l)];
            if i == k {
                v += s[(j, l)];
            }
            if j == l {
                v += p[(k, i)];
            }
            cp * v + if row == col { w[l] - cp } else { 0.0 }
        });
        let am = Matrix3::from_column_slice(a.lu().solve(&b).unwrap().as_slice());
        let corr =
            am * (am.transpose() * r) + am * (r.transpose() * am) + r * (am.transpose() * am);
        corr * -(cp * c) + am * Matrix3::from_diagonal(&w)
    }

    /// The written-out force against the plain formulas: near SO(3) (the `LDLᵀ` path) and at
    /// `R = 0.85 I` with `h = 1`, where the 9×9 matrix is indefinite (its smallest eigenvalue
    /// is about `W − 0.28 c'` with `c' = 2ω²βh² = 80`): the LU path after the rebuild.
    #[test]
    fn force_matches_the_plain_formulas_on_both_solve_paths() {
        let body = RigidBody {
            inertia: Vector3::new(1.0, 1.3, 0.8),
            b_mu: 0.7,
        };
        let mut zs = LinearizedZs2::new(body, 0.1, So3ZsParams::default()).unwrap();
        let near = Matrix3::new(0.99, -0.1, 0.05, 0.1, 0.98, -0.2, -0.04, 0.21, 0.97);
        for (r, h) in [(near, 0.1), (Matrix3::identity() * 0.85, 1.0)] {
            let h2 = h * h;
            let f = mat3::matrix(&zs.force(&r.data.0, h2).unwrap());
            let want = reference(&zs, &r, h2);
            assert!((f - want).amax() <= 1e-12 * want.amax(), "{f} vs {want}");
        }
        let a_indefinite = {
            let mut probe = zs;
            probe.assemble(
                &(Matrix3::identity() * 0.85).data.0,
                &[[0.7225, 0.0, 0.0], [0.0, 0.7225, 0.0], [0.0, 0.0, 0.7225]],
                &[[0.7225, 0.0, 0.0], [0.0, 0.7225, 0.0], [0.0, 0.0, 0.7225]],
                80.0,
            );
            !crate::linalg::ldlt9_in_place(&mut probe.work)
        };
        assert!(a_indefinite, "the second case must take the fallback");
    }
}
