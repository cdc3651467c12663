//! Dense output inside one step: the cubic Hermite interpolant on `(q, v)` and a bracketed,
//! iteration-capped root solve (Illinois) on it.

use crate::{Real, State};

/// The state at time `t` on the cubic Hermite interpolant of the step from `a` to `b`.
///
/// With `h = b.t − a.t` and `θ = (t − a.t)/h`, the position is the cubic that matches `q` and
/// `q̇ = v` at both ends,
///
/// `q(θ) = (2θ³ − 3θ² + 1) q_a + (θ³ − 2θ² + θ) h v_a + (3θ² − 2θ³) q_b + (θ³ − θ²) h v_b`,
///
/// and the velocity is its time derivative, the quadratic that matches `v_a`, `v_b` at the ends
/// and uses the finite difference `(q_b − q_a)/h` in between:
///
/// `v(θ) = 6θ(1 − θ) (q_b − q_a)/h + (3θ² − 4θ + 1) v_a + (3θ² − 2θ) v_b`.
///
/// On a smooth solution the interpolation error is `O(h⁴)` in `q` and `O(h³)` in `v` (for exact
/// end values: `|q − q_h| ≤ h⁴ max|q⁗|/384`); on top of it comes the method's own error at the
/// ends, and in `v` the rounding of the difference `q_b − q_a`, about `ε|q|/h` (noticeable in
/// `f32` for small steps far from the origin). The interpolant needs no force evaluation, so it does not see what happens inside the
/// step: a stiff mode the step does not resolve (`hω ≫ 1`, what Z&S and SIM step over), a
/// constraint manifold (the interpolant leaves `g(q) = 0` by `O(h⁴)`), a velocity jump. At
/// `t = a.t` and `t = b.t` it returns `a` and `b` exactly. `t` outside `[a.t, b.t]`
/// extrapolates; `a.t == b.t` returns `b`.
///
/// ```
/// use macrostep::output::interpolate;
/// use macrostep::State;
/// use nalgebra::vector;
///
/// // q = t³ is reproduced exactly by the cubic through (q, q̇) at t = 0 and t = 1.
/// let a = State::new(0.0_f64, vector![0.0], vector![0.0]);
/// let b = State::new(1.0, vector![1.0], vector![3.0]);
/// let m = interpolate(&a, &b, 0.5);
/// assert!((m.q[0] - 0.125).abs() < 1e-15 && (m.v[0] - 0.75).abs() < 1e-15);
/// assert_eq!(m.t, 0.5);
/// ```
pub fn interpolate<T: Real, const N: usize>(a: &State<T, N>, b: &State<T, N>, t: T) -> State<T, N> {
    let h = b.t - a.t;
    if t == b.t || h == T::zero() {
        return *b;
    }
    if t == a.t {
        return *a;
    }
    let th = (t - a.t) / h;
    let (one, two, three) = (T::one(), T::lit(2.0), T::lit(3.0));
    let th2 = th * th;
    let th3 = th2 * th;
    let h00 = two * th3 - three * th2 + one;
    let h10 = th3 - two * th2 + th;
    let h01 = three * th2 - two * th3;
    let h11 = th3 - th2;
    let d00 = T::lit(6.0) * th * (one - th);
    let d10 = three * th2 - T::lit(4.0) * th + one;
    let d11 = three * th2 - two * th;
    let mut s = *a;
    s.t = t;
    for i in 0..N {
        let dq = b.q[i] - a.q[i];
        s.q[i] = h00 * a.q[i] + h10 * h * a.v[i] + h01 * b.q[i] + h11 * h * b.v[i];
        s.v[i] = d00 * dq / h + d10 * a.v[i] + d11 * b.v[i];
    }
    s
}

/// The iteration cap of [`locate`]: every third iteration bisects, so the bracket shrinks at
/// least `2^{42}`-fold before the cap even when regula falsi stalls.
pub(crate) const MAX_ITERATIONS: u32 = 128;

/// A root of `f` in `[a, b]`, where `fa = f(a)` and `fb = f(b)` have opposite signs (`fb` may be
/// zero), by the Illinois variant of regula falsi with a bisection every third iteration.
///
/// Returns the end of the final bracket on `b`'s side (where `f` has `fb`'s sign or is zero) and
/// `f` there, once the bracket is at most `tol` wide, cannot shrink in floating point, or after
/// [`MAX_ITERATIONS`] evaluations of `f`.
pub(crate) fn locate<T: Real>(
    mut f: impl FnMut(T) -> T,
    mut a: T,
    mut fa: T,
    mut b: T,
    mut fb: T,
    tol: T,
) -> (T, T) {
    // Which end moved last: 1 = a, 2 = b (Illinois halves the other end's value on a repeat).
    let mut last = 0u8;
    let half = T::lit(0.5);
    for k in 0..MAX_ITERATIONS {
        if fb == T::zero() || b - a <= tol {
            break;
        }
        let mut m = if k % 3 == 2 {
            a + (b - a) * half
        } else {
            (a * fb - b * fa) / (fb - fa)
        };
        if !(m > a && m < b) {
            m = a + (b - a) * half;
            if !(m > a && m < b) {
                break; // a and b are adjacent floating-point numbers
            }
        }
        let fm = f(m);
        if !fm.finite() {
            // Keep the bracket; bisect next time by treating the point as on a's side.
            a = m;
            last = 1;
            continue;
        }
        if (fm > T::zero()) == (fb > T::zero()) || fm == T::zero() {
            b = m;
            fb = fm;
            if last == 2 {
                fa *= half;
            }
            last = 2;
        } else {
            a = m;
            fa = fm;
            if last == 1 {
                fb *= half;
            }
            last = 1;
        }
    }
    (b, fb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::vector;

    #[test]
    fn hermite_is_exact_on_cubics_and_matches_the_ends() {
        // q = 1 + 2t − t² + 0.5 t³ on [0.3, 0.7].
        let q = |t: f64| 1.0 + 2.0 * t - t * t + 0.5 * t * t * t;
        let v = |t: f64| 2.0 - 2.0 * t + 1.5 * t * t;
        let a = State::new(0.3, vector![q(0.3)], vector![v(0.3)]);
        let b = State::new(0.7, vector![q(0.7)], vector![v(0.7)]);
        for t in [0.31, 0.45, 0.5, 0.69] {
            let s = interpolate(&a, &b, t);
            assert!((s.q[0] - q(t)).abs() < 1e-14, "{t}");
            // The derivative of the cubic is the cubic's derivative.
            assert!((s.v[0] - v(t)).abs() < 1e-13, "{t}");
        }
        assert_eq!(interpolate(&a, &b, 0.3), a);
        assert_eq!(interpolate(&a, &b, 0.7), b);
    }

    #[test]
    fn illinois_locates_to_the_tolerance_and_stays_capped() {
        let mut calls = 0;
        let root = 2f64.sqrt();
        let (t, _) = locate(
            |x| {
                calls += 1;
                x * x - 2.0
            },
            1.0,
            -1.0,
            2.0,
            2.0,
            1e-13,
        );
        assert!((t - root).abs() <= 1e-13 && t >= root, "{t}");
        assert!(calls < 20, "{calls}");
        // A step function: no smoothness, the bisections carry the bracket down.
        let mut calls = 0;
        let (t, _) = locate(
            |x: f32| {
                calls += 1;
                if x < 0.3 {
                    -1.0
                } else {
                    1.0
                }
            },
            0.0,
            -1.0,
            1.0,
            1.0,
            1e-6,
        );
        assert!((t - 0.3).abs() <= 1e-6, "{t}");
        assert!(calls <= MAX_ITERATIONS);
    }
}
