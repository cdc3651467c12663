//! Damping inside the one solve of the Z&S family ([`DampedZs`], [`crate::zs::damped`]).
//!
//! The step from `(q, v)` is the two-stage form with velocity-dependent forces:
//!
//! ```text
//! (M + s Hess W(q)) a₀ = −∇V(q) − C v + u,                 q⁺ = q + h v + ½h² f₀,
//! w = v + ½h f₀,
//! (M + s Hess W(q⁺) + ½hC) a₁ = −∇V(q⁺) − C w + u,         v⁺ = w + ½h f₁,
//! ```
//!
//! (`f = a` for Z&Ss and stiff Z&Ss, Z&S's correction for Z&S). This is the map of a step from a
//! state the method did not return; in a run the method reuses `f₀` from the previous step,
//! which is the same value for Z&Ss and stiff Z&Ss (the damped solve at `q` with `w₋` equals the
//! undamped-matrix solve with `v = w₋ + ½h f₀`) and differs by `O(h⁵C)` for Z&S. Each force is
//! differentiated as in [`super::zs`], with `∂a/∂w = −K⁻¹C`.

use super::kernel::{check_input, finite, mass_inverse, third_matrix, Factored};
use super::{FourthDerivative, Linearise, StepJacobian};
use crate::guard::Probe;
use crate::model::{Mass, Split, System, ThirdDerivative};
use crate::zs::{DampedZs, StiffSylipn, Sylipn, ZhangSkeel};
use crate::{Real, State, StepError};
use nalgebra::{SMatrix, SVector};

/// A force with its derivatives in the position, the velocity fed to the damping and the force.
struct Force<T: Real, const N: usize> {
    f: SVector<T, N>,
    fx: SMatrix<T, N, N>,
    fw: SMatrix<T, N, N>,
    fu: SMatrix<T, N, N>,
}

/// What differs between the members: the potential's gradient and Hessian, the matrix part's
/// Hessian and `W‴[a]`, and Z&S's correction.
trait Parts<T: Real, const N: usize> {
    fn mass(&self) -> &Mass<T, N>;
    fn gradient(&self, x: &SVector<T, N>) -> SVector<T, N>;
    fn hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N>;
    fn matrix_hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N>;
    fn matrix_third(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, N, N>;
    /// The shift `s` of the matrix part for `h²`.
    fn shift(&self, h2: T) -> T;
    /// Turns `(a, ∂a)` into `(f, ∂f)` (identity but for Z&S).
    fn correct(
        &self,
        x: &SVector<T, N>,
        h2: T,
        force: Force<T, N>,
        t: &SMatrix<T, N, N>,
    ) -> Force<T, N> {
        let _ = (x, h2, t);
        force
    }
}

/// The damped force at `x` with velocity `w`; `ch = Some(½h)` adds `½hC` into the matrix.
fn force<T: Real, P: Parts<T, N>, const N: usize>(
    p: &P,
    c: &SMatrix<T, N, N>,
    ch: Option<T>,
    x: &SVector<T, N>,
    w: &SVector<T, N>,
    h2: T,
) -> Result<Force<T, N>, StepError> {
    let s = p.shift(h2);
    let mut hm = p.matrix_hessian(x);
    if let Some(ch) = ch {
        // K = M + s·Hm + ½hC = M + s·(Hm + C·½h/s); fold ½hC into the Hessian term when s ≠ 0.
        hm = if s == T::zero() {
            hm
        } else {
            hm + c * (ch / s)
        };
    }
    let k = match ch {
        Some(ch) if s == T::zero() => Factored::new(p.mass(), T::one(), &(c * ch))?,
        _ => Factored::new(p.mass(), s, &hm)?,
    };
    let mut a = SMatrix::<T, N, 1>::from(-p.gradient(x) - c * w);
    k.solve(&mut a);
    let a = SVector::<T, N>::from(a);
    if !a.iter().all(|v| v.finite()) {
        return Err(StepError::NonFiniteResult);
    }
    let t = p.matrix_third(x, &a);
    let mut fx = -(p.hessian(x) + t * s);
    k.solve(&mut fx);
    let mut fw = -c;
    k.solve(&mut fw);
    let mut fu = SMatrix::<T, N, N>::identity();
    k.solve(&mut fu);
    Ok(p.correct(x, h2, Force { f: a, fx, fw, fu }, &t))
}

/// The chain rule of the damped two-stage form.
fn damped_step<T: Real, P: Parts<T, N>, const N: usize>(
    p: &P,
    c: &SMatrix<T, N, N>,
    state: &State<T, N>,
    h: T,
) -> Result<StepJacobian<T, N>, StepError> {
    check_input(state, h)?;
    let (h2, half) = (h * h, T::lit(0.5));
    let (ch, c0) = (h * half, h2 * half);
    let f0 = force(p, c, None, &state.q, &state.v, h2)?;
    let q1 = state.q + state.v * h + f0.f * c0;
    let w = state.v + f0.f * ch;
    if !(q1.iter().all(|x| x.finite()) && w.iter().all(|x| x.finite())) {
        return Err(StepError::NonFiniteResult);
    }
    let f1 = force(p, c, Some(ch), &q1, &w, h2)?;
    let i = SMatrix::<T, N, N>::identity();
    let (qq, qv, bq) = (i + f0.fx * c0, i * h + f0.fw * c0, f0.fu * c0);
    let (wq, wv, wu) = (f0.fx * ch, i + f0.fw * ch, f0.fu * ch);
    let f1q = f1.fx * qq + f1.fw * wq;
    let f1v = f1.fx * qv + f1.fw * wv;
    let f1u = f1.fx * bq + f1.fw * wu + f1.fu;
    finite(StepJacobian {
        qq,
        qv,
        vq: (f0.fx + f1q) * ch,
        vv: i + (f0.fw + f1v) * ch,
        bq,
        bv: (f0.fu + f1u) * ch,
    })
}

/// Z&Ss and Z&S: the whole potential in the matrix.
struct Whole<'a, T: Real, P, const N: usize> {
    system: &'a System<T, P, N>,
    beta: T,
    /// Z&S: `½β²`, and `M⁻¹`.
    zs: Option<(T, SMatrix<T, N, N>)>,
}

impl<T: Real, P: ThirdDerivative<T, N>, const N: usize> Whole<'_, T, P, N> {
    fn base_third(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, N, N> {
        third_matrix(&self.system.potential, x, a)
    }
}

macro_rules! whole_parts {
    ($bound:ident, $correct:expr) => {
        impl<T: Real, P: $bound<T, N>, const N: usize> Parts<T, N> for Whole<'_, T, P, N> {
            fn mass(&self) -> &Mass<T, N> {
                &self.system.mass
            }
            fn gradient(&self, x: &SVector<T, N>) -> SVector<T, N> {
                self.system.potential.gradient(x)
            }
            fn hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N> {
                self.system.potential.hessian(x)
            }
            fn matrix_hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N> {
                self.system.potential.hessian(x)
            }
            fn matrix_third(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, N, N> {
                self.base_third(x, a)
            }
            fn shift(&self, h2: T) -> T {
                self.beta * h2
            }
            fn correct(
                &self,
                x: &SVector<T, N>,
                h2: T,
                force: Force<T, N>,
                t: &SMatrix<T, N, N>,
            ) -> Force<T, N> {
                $correct(self, x, h2, force, t)
            }
        }
    };
}

/// Z&S's correction `f = a − ½β²h⁴ M⁻¹ (a·V‴·a)` and its derivatives.
fn zs_correct<T: Real, P: FourthDerivative<T, N>, const N: usize>(
    w: &Whole<'_, T, P, N>,
    x: &SVector<T, N>,
    h2: T,
    force: Force<T, N>,
    t: &SMatrix<T, N, N>,
) -> Force<T, N> {
    let Some((half_beta2, minv)) = w.zs else {
        return force;
    };
    let p = &w.system.potential;
    let a = force.f;
    let mut d4 = SMatrix::<T, N, N>::zeros();
    for j in 0..N {
        let e = SVector::<T, N>::from_fn(|i, _| if i == j { T::one() } else { T::zero() });
        d4.set_column(j, &p.fourth_contraction(x, &a, &e));
    }
    let mk = minv * (half_beta2 * h2 * h2);
    let two_t = t * T::lit(2.0);
    Force {
        f: a - mk * p.third_contraction(x, &a),
        fx: force.fx - mk * (d4 + two_t * force.fx),
        fw: force.fw - mk * (two_t * force.fw),
        fu: force.fu - mk * (two_t * force.fu),
    }
}

whole_parts!(FourthDerivative, zs_correct);

/// Z&S with damping in the solve.
impl<T: Real, P: FourthDerivative<T, N>, const N: usize> Linearise<T, N>
    for DampedZs<T, ZhangSkeel<T, P, N>, N>
where
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let m = self.inner();
        let system = m.system();
        let zs = Some((
            m.beta() * m.beta() * T::lit(0.5),
            mass_inverse(&system.mass),
        ));
        damped_step(
            &Whole {
                system,
                beta: m.beta(),
                zs,
            },
            self.damping(),
            state,
            h,
        )
    }
}

/// Z&Ss with damping in the solve.
impl<T: Real, P: FourthDerivative<T, N>, const N: usize> Linearise<T, N>
    for DampedZs<T, Sylipn<T, P, N>, N>
where
    System<T, P, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let m = self.inner();
        let w = Whole {
            system: m.system(),
            beta: m.beta(),
            zs: None,
        };
        damped_step(&w, self.damping(), state, h)
    }
}

/// Stiff Z&Ss: `α` times the stiff part's Hessian in the matrix.
struct Stiff<'a, T: Real, V, U, const N: usize> {
    system: &'a System<T, Split<T, V, U>, N>,
    beta: T,
}

impl<T: Real, V: ThirdDerivative<T, N>, U: ThirdDerivative<T, N>, const N: usize> Parts<T, N>
    for Stiff<'_, T, V, U, N>
{
    fn mass(&self) -> &Mass<T, N> {
        &self.system.mass
    }
    fn gradient(&self, x: &SVector<T, N>) -> SVector<T, N> {
        crate::model::Potential::gradient(&self.system.potential, x)
    }
    fn hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N> {
        crate::model::Hessian::hessian(&self.system.potential, x)
    }
    fn matrix_hessian(&self, x: &SVector<T, N>) -> SMatrix<T, N, N> {
        self.system.potential.stiff.hessian(x)
    }
    fn matrix_third(&self, x: &SVector<T, N>, a: &SVector<T, N>) -> SMatrix<T, N, N> {
        third_matrix(&self.system.potential.stiff, x, a)
    }
    fn shift(&self, h2: T) -> T {
        self.beta * h2 * self.system.potential.alpha
    }
}

/// Stiff Z&Ss with damping in the solve.
impl<T: Real, V, U, const N: usize> Linearise<T, N> for DampedZs<T, StiffSylipn<T, V, U, N>, N>
where
    V: ThirdDerivative<T, N>,
    U: ThirdDerivative<T, N>,
    System<T, Split<T, V, U>, N>: Probe<T, N>,
{
    fn linearise_by(&self, state: &State<T, N>, h: T) -> Result<StepJacobian<T, N>, StepError> {
        let m = self.inner();
        let p = Stiff {
            system: m.system(),
            beta: m.beta(),
        };
        damped_step(&p, self.damping(), state, h)
    }
}
